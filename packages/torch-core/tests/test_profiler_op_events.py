"""torch.profiler's op events: while a profiler records, each tensor op call is an
``aten::<name>`` event (PyTorch's names: ``aten::linear`` holding ``aten::addmm``,
``aten::add`` for ``a + b``); the namespaces hold their own functions again afterwards, the
results are the same as without a profiler, and ``record_shapes`` keeps the shapes of the
inputs. The oracles: the calls the test makes (which ops, how often, inside which range),
the functions' identities before and after, NumPy for the values. (torch.nn's functions as
events: torch-nn's test_profiler_nn_events.py.)"""

import json

import numpy as np
import pytest

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def _counts(prof):
    return {a.key: a.count for a in prof.key_averages()}


def test_ops_and_operators_are_events():
    g = torch.Generator().manual_seed(0)
    x, w = torch.randn(2, 3, 6, 6, generator=g), torch.randn(4, 3, 3, 3, generator=g)
    lin_w, lin_b = torch.randn(5, 64, generator=g), torch.randn(5, generator=g)
    a, b = torch.randn(3, 3, generator=g), torch.randn(3, 3, generator=g)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("model_inference"):
            h = torch.flatten(torch.relu(torch.conv2d(x, w)), 1)
            torch.addmm(lin_b, h, lin_w.t())
        c = a + b
        c += b
        _ = a @ b
        _ = c[0]
    n = _counts(prof)
    for name in ("aten::conv2d", "aten::relu", "aten::flatten", "aten::addmm", "aten::t"):
        assert n[name] == 1, name
    assert n["aten::add"] == 1 and n["aten::add_"] == 1 and n["aten::matmul"] == 1
    assert n["aten::index"] == 1 and n["model_inference"] == 1
    ev = {e.name: e for e in prof.events()}
    # the ops lie inside the range, and self time excludes what is nested
    rng = ev["model_inference"]
    for name in ("aten::conv2d", "aten::addmm"):
        assert rng.start_ns <= ev[name].start_ns <= ev[name].end_ns <= rng.end_ns
    assert rng.self_cpu_time_total < rng.cpu_time_total
    assert all(e.thread == rng.thread for e in prof.events())


def test_namespaces_get_their_functions_back():
    before = (torch.add, torch.Tensor.__add__, torch.conv2d, torch.Tensor.sum, torch.matmul)
    with profile():
        assert torch.add is not before[0] and torch.Tensor.__add__ is not before[1]
    assert (torch.add, torch.Tensor.__add__, torch.conv2d, torch.Tensor.sum, torch.matmul) == before
    with pytest.raises(ValueError), profile():
        raise ValueError("a failure inside the profiled block")
    assert torch.add is before[0] and torch.Tensor.__add__ is before[1]


def test_results_are_those_without_the_profiler():
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(4, 5, generator=g), torch.randn(5, 3, generator=g)
    with profile():
        got = (torch.relu(a @ b) + 1).sum(0)
        err = None
        try:
            torch.mm(a, a)  # an op that raises still raises
        except RuntimeError as e:
            err = e
    want = (np.maximum(a.numpy() @ b.numpy(), 0) + 1).sum(0)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    assert err is not None and "mm" in str(err)


def test_record_shapes_and_grouping_by_input_shape():
    with profile(record_shapes=True) as prof:
        torch.add(torch.ones(2, 3), torch.ones(2, 3))
        torch.add(torch.ones(4), torch.ones(4))
        torch.add(torch.ones(4), torch.ones(4))
    adds = [e for e in prof.events() if e.name == "aten::add"]
    assert [e.input_shapes for e in adds] == [[[2, 3], [2, 3]], [[4], [4]], [[4], [4]]]
    grouped = {
        str(a.input_shapes): a.count
        for a in prof.key_averages(group_by_input_shape=True)
        if a.key == "aten::add"
    }
    assert grouped == {"[[2, 3], [2, 3]]": 1, "[[4], [4]]": 2}
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    assert "Input Shapes" in table and "[[2, 3], [2, 3]]" in table
    assert _counts(prof)["aten::add"] == 3  # one row without the grouping
    with profile() as plain:
        torch.add(torch.ones(2), 1)
    assert [e.input_shapes for e in plain.events() if e.name == "aten::add"] == [[]]


def test_scheduled_steps_record_ops_of_active_steps_only():
    x = torch.ones(3)
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1)) as prof:
        for step in range(5):
            for _ in range(step + 1):  # step k calls neg k + 1 times
                x.neg()
            prof.step()
    assert _counts(prof)["aten::neg"] == 3 + 4  # steps 2 and 3
    assert torch.Tensor.neg is not None and not hasattr(torch.Tensor.neg, "_profiled_op")


def test_chrome_trace_marks_ops_and_ranges(tmp_path):
    with profile() as prof:
        with record_function("range"):
            torch.ones(3).exp()
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    cats = {e["name"]: e["cat"] for e in json.loads(path.read_text())["traceEvents"]}
    assert cats == {"range": "user_annotation", "aten::ones": "cpu_op", "aten::exp": "cpu_op"}
