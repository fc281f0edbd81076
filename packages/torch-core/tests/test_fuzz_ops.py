"""A short run of the op fuzzer (tests/fuzz/fuzz_ops.py): no call may crash or hang its worker.

The long run, and the comparison of exception families with PyTorch, is
``python packages/torch-core/tests/fuzz/fuzz_ops.py --calls 100000 [--ref PYTHON]``.
"""

import importlib.util
import os
import pathlib
import signal
import sys
import time

import pytest

_PATH = pathlib.Path(__file__).parent / "fuzz" / "fuzz_ops.py"
_spec = importlib.util.spec_from_file_location("fuzz_ops", _PATH)
fuzz_ops = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_ops)

CALLS = 8000


def _describe(report, drawn):
    lines = []
    for kind, items in (("crash", report.crashes), ("hang", report.hangs)):
        for i, r in items:
            where = f"signal {r.get('sig')}" if kind == "crash" else "> 5 s"
            lines.append(f"{kind} ({where}) at call {i}: {fuzz_ops.one_liner(drawn[i])}")
    for i, info in report.batch_only:
        lines.append(
            f"crash after calls {info['first']}..{i} of a batch: {fuzz_ops.one_liner(drawn[i])}"
        )
    return "\n".join(lines)


def test_calls_are_data_and_reproducible():
    first = [fuzz_ops.make_call(7, i) for i in range(200)]
    again = [fuzz_ops.make_call(7, i) for i in range(200)]
    assert [fuzz_ops.source(c) for c in first] == [fuzz_ops.source(c) for c in again]
    for c in first:
        compile(fuzz_ops.source(c), "<call>", "exec")


def test_a_crash_and_a_hang_are_attributed_to_their_calls():
    srcs = ["out = torch.ones(2)", "import ctypes; out = ctypes.string_at(0)", "out = 1",
            "import time; time.sleep(30)", "out = torch.ones(2)[5]"]  # fmt: skip
    outcomes = fuzz_ops.run_batch(sys.executable, srcs, hang_s=1.0)
    assert [r["s"] for r in outcomes] == ["ok", "crash", "ok", "hang", "exc"]
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):  # ASan reports a SEGV, then exits 1
        assert outcomes[1]["sig"] == signal.SIGSEGV
    assert outcomes[4]["f"] == "IndexError"


@pytest.mark.slow
def test_bad_arguments_never_crash_or_hang():
    start = time.monotonic()
    report, drawn = fuzz_ops.run(CALLS, seed=20240613, jobs=2, batch=500)
    assert report.calls == CALLS
    assert not report.fuzzer_errors, report.fuzzer_errors[:3]
    problems = _describe(report, drawn)
    assert not (report.crashes or report.hangs or report.batch_only), problems
    assert report.raised > CALLS // 10 and report.ok > CALLS // 10  # both paths are reached
    assert time.monotonic() - start < 60
