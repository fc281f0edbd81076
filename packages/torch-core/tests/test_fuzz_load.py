"""A short run of the ``torch.load`` fuzzer (``tests/fuzz/fuzz_load.py``; the long run is
``python packages/torch-core/tests/fuzz/fuzz_load.py --inputs 100000 --seed 0``, or
``nox -s fuzz``): mutated checkpoints written here and by PyTorch, in both formats, must
load or be refused with RuntimeError / pickle.UnpicklingError, without a crash, a hang, an
allocation over 1 GB, a tensor outside its storage or a payload that runs."""

import importlib.util
import pathlib

import pytest

FUZZER = pathlib.Path(__file__).parent / "fuzz" / "fuzz_load.py"


def _fuzz_load():
    spec = importlib.util.spec_from_file_location("fuzz_load", FUZZER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.ours_only
def test_short_fuzz_run_finds_nothing():
    fuzz_load = _fuzz_load()
    report = fuzz_load.fuzz(3000, seed=1, workers=2, log=lambda text: None)
    counts = report.counts
    assert sum(counts.values()) == 3000, report.format()
    for outcome in ("crash", "hang", "bigalloc", "outside", "other", "payload"):
        assert counts[outcome] == 0, report.format()
    # the mutations get past the first checks: a fair share of inputs still loads
    assert counts["loaded"] > 300, report.format()
    assert all(sum(c.values()) > 0 for c in report.by_strategy.values())


@pytest.mark.slow
@pytest.mark.ours_only
def test_the_fuzzer_attributes_crashes_and_hangs_to_their_inputs():
    """Injected faults: a worker that dies is replaced and the input that killed it named;
    an input that runs past 5 s is a hang; the inputs after them still run."""
    fuzz_load = _fuzz_load()
    report = fuzz_load.fuzz(30, seed=0, workers=1, log=lambda text: None,
                            crash_at=[4], hang_at=[9])  # fmt: skip
    assert sum(report.counts.values()) == 30
    assert report.counts["crash"] == 1 and report.counts["hang"] == 1
    found = sorted((result, index) for result, index, _ in report.findings)
    assert found == [("crash", 4), ("hang", 9)]
    assert not report.ok and "--index 4" in report.format()


@pytest.mark.ours_only
def test_inputs_are_reproducible():
    fuzz_load = _fuzz_load()
    corpus = fuzz_load.Corpus()
    for index in (0, 1, 17, 123):
        assert fuzz_load.make_input(corpus, 5, index) == fuzz_load.make_input(corpus, 5, index)
    assert fuzz_load.make_input(corpus, 5, 0) != fuzz_load.make_input(corpus, 6, 0)
