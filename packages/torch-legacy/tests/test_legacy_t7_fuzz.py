"""Fuzzing load_lua (fuzz_t7.py): mutated and deeply nested .t7 streams either load or raise
T7ReaderError, in worker processes, and never crash, hang, raise anything else, or give a
tensor reaching outside its storage. The long run is ``python fuzz_t7.py --inputs 100000``."""

import subprocess
import sys
import time
from pathlib import Path

import fuzz_t7
import pytest

HERE = Path(fuzz_t7.__file__).resolve()


@pytest.mark.slow
def test_short_fuzz_run_finds_nothing():
    began = time.monotonic()
    counts, findings, report = fuzz_t7.fuzz(20_000, seed=2024, workers=2, log=lambda *a: None)
    print(report)
    assert findings == [], report
    for kind in ("crash", "hang", "other", "outside"):
        assert counts[kind] == 0, report
    assert counts["loaded"] + counts["refused"] == 20_000
    # the mutations reach both outcomes
    assert counts["loaded"] > 1_000 and counts["refused"] > 10_000, report
    assert time.monotonic() - began < 60


def test_a_crashing_input_is_attributed_to_its_index():
    lines = []
    counts, findings, report = fuzz_t7.fuzz(60, seed=5, workers=2, crash_at={37}, log=lines.append)
    assert counts["crash"] == 1 and counts["hang"] == 0, report
    assert [(kind, index) for kind, index, _ in findings] == [("crash", 37)]
    assert counts["loaded"] + counts["refused"] == 59  # the rest of the batch ran
    assert "--seed 5 --index 37" in report and "worker died" in lines[0]


def test_a_hanging_input_is_reported(monkeypatch):
    monkeypatch.setattr(fuzz_t7, "HANG_S", 1.0)
    counts, findings, report = fuzz_t7.fuzz(30, seed=5, workers=1, hang_at={3}, log=print)
    assert counts["hang"] == 1 and counts["crash"] == 0, report
    assert [(kind, index) for kind, index, _ in findings] == [("hang", 3)]
    assert counts["loaded"] + counts["refused"] == 29


def test_an_input_is_the_same_in_every_process(tmp_path):
    """(seed, index) alone gives an input: the one a fresh process dumps is the one made
    here."""
    import torch.legacy.nn as nn

    added = fuzz_t7.install_fixup_stand_ins()
    try:
        corpus = fuzz_t7.Corpus()
    finally:
        for name in added:
            delattr(nn, name)
    for index in (0, 1, 77):
        dump = tmp_path / f"{index}.t7"
        cmd = [sys.executable, str(HERE), "--seed", "9", "--index", str(index)]
        subprocess.run([*cmd, "--dump", str(dump)], check=True, capture_output=True)
        data, _, _ = fuzz_t7.make_input(corpus, 9, index)
        assert dump.read_bytes() == data
