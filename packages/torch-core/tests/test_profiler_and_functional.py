"""torch.functional (re-exports) and torch.profiler (a CPU profiler of ranges and ops)."""

import importlib

import numpy as np
import pytest

import torch

FUNCTIONAL_NAMES = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "meshgrid",
    "norm",
    "split",
    "stft",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]


def test_functional_reexports_the_torch_functions():
    F = importlib.import_module("torch.functional")
    assert sorted(F.__all__) == sorted(FUNCTIONAL_NAMES)
    for name in FUNCTIONAL_NAMES:
        assert getattr(F, name) is getattr(torch, name)
    assert torch.functional is F


def test_functional_einsum_and_split_match_numpy():
    import torch.functional as F

    a = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    got = F.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5, atol=1e-6)
    parts = F.split(torch.tensor(b), 2, dim=1)
    for p, q in zip(parts, np.split(b, [2], axis=1)):
        np.testing.assert_array_equal(p.numpy(), q)


# ---------------------------------------------------------------- torch.profiler
def _spin(ms):
    import time

    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


def test_record_function_ranges_counts_and_times():
    from torch.profiler import ProfilerActivity, profile, record_function

    @record_function("decorated")
    def f():
        _spin(1)

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(3):
            with record_function("outer"):
                _spin(2)
                with record_function("inner"):
                    _spin(2)
        f()
    with record_function("after"):  # not recorded: no profiler is active
        pass
    avg = {e.key: e for e in prof.key_averages()}
    assert set(avg) == {"outer", "inner", "decorated"}
    assert (avg["outer"].count, avg["inner"].count, avg["decorated"].count) == (3, 3, 1)
    events = prof.events()
    outer = [e for e in events if e.name == "outer"]
    inner = [e for e in events if e.name == "inner"]
    # totals are sums of the events; self time of outer excludes the nested inner range
    np.testing.assert_allclose(avg["outer"].cpu_time_total, sum(e.cpu_time_total for e in outer))
    for o, i in zip(outer, inner):
        assert o.start_ns <= i.start_ns and i.end_ns <= o.end_ns
        np.testing.assert_allclose(o.self_cpu_time_total, o.cpu_time_total - i.cpu_time_total)
    assert avg["inner"].cpu_time_total >= 3 * 2000 * 0.9  # microseconds, at least the spins
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=2)
    rows = [ln.split()[0] for ln in table.splitlines()[3:5]]
    assert rows == ["outer", "inner"]
    assert "# of Calls" in table and "decorated" not in table
    assert "outer" in str(prof)


def test_export_chrome_trace_and_tensorboard_handler(tmp_path):
    import json

    from torch.profiler import profile, record_function, tensorboard_trace_handler

    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path / "tb"))) as prof:
        with record_function("work"):
            _spin(1)
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    trace = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    assert [e["name"] for e in trace] == ["work"] and trace[0]["ph"] == "X"
    np.testing.assert_allclose(trace[0]["dur"], prof.events()[0].cpu_time_total)
    (written,) = list((tmp_path / "tb").iterdir())
    assert written.name.endswith(".pt.trace.json")
    assert json.loads(written.read_text())["traceEvents"][0]["name"] == "work"


def test_schedule_and_step():
    from torch.profiler import ProfilerAction, profile, record_function, schedule

    sched = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    expected = ["NONE", "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE"] * 1
    expected += ["NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE"]
    assert [sched(i).name for i in range(len(expected))] == expected
    assert sched(3) is ProfilerAction.RECORD
    spans = []
    with profile(schedule=sched, on_trace_ready=lambda p: spans.append(p.events())) as prof:
        for step in range(11):
            with record_function(f"step{step}"):
                pass
            prof.step()
    assert [[e.name for e in s] for s in spans] == [["step3", "step4"], ["step7", "step8"]]
    with pytest.raises(ValueError):
        schedule(wait=0, warmup=0, active=0)


def test_autograd_profiler_names():
    ap = pytest.importorskip("torch.autograd.profiler")  # torch-autograd may be absent
    import torch.profiler as tp

    assert ap.record_function is tp.record_function
    with ap.profile() as prof, ap.emit_nvtx():
        with tp.record_function("x"):
            pass
    assert [e.key for e in prof.key_averages()] == ["x"]
    with ap.profile(enabled=False) as prof:
        with tp.record_function("x"):
            pass
    assert list(prof.key_averages()) == []
