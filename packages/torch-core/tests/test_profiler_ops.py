"""torch.ops.profiler._record_function_enter / _enter_new / _exit: a record_function range
opened and closed by two calls (torch.fx graphs use them). The oracle is ``with
record_function(name)`` in the same profiler, and PyTorch 2.13's answers for the same
snippets (handle types, second exits, dropped handles, the overloads and their errors)."""

import copy
import gc
import json
import pickle

import pytest

import torch
from torch.profiler import profile, record_function

P = torch.ops.profiler


def _names(prof):  # the ranges (the ops' own events are aten::<op>)
    return [e.name for e in prof.events() if not e.name.startswith("aten::")]


def test_enter_exit_record_a_range_like_record_function():
    with profile() as prof:
        h = P._record_function_enter("by_ops")
        torch.ones(100).sum()
        assert P._record_function_exit(h) is None
        with record_function("by_with"):
            torch.ones(100).sum()
        h = P._record_function_enter_new("by_ops_new", None)
        P._record_function_exit(h)
    assert _names(prof) == ["by_ops", "by_with", "by_ops_new"]
    for e in prof.events():
        assert e.cpu_time_total > 0 and e.thread == prof.events()[1].thread
    avg = {a.key: a.count for a in prof.key_averages()}
    assert avg == {"by_ops": 1, "by_with": 1, "by_ops_new": 1, "aten::ones": 2, "aten::sum": 2}
    assert "by_ops_new" in prof.key_averages().table()


def test_handles_are_a_uint8_tensor_and_an_opaque_record():
    h = P._record_function_enter("a")
    assert isinstance(h, torch.Tensor) and h.dtype == torch.uint8 and h.dim() == 1
    P._record_function_exit(h)
    r = P._record_function_enter_new("b")
    assert not isinstance(r, torch.Tensor)
    assert type(r).__name__ == "_RecordFunction"
    P._record_function_exit._RecordFunction(r)


def test_ranges_nest_with_record_function_ranges():
    with profile() as prof:
        outer = P._record_function_enter_new("outer")
        with record_function("inner"):
            inner_h = P._record_function_enter("innermost")
            sum(range(20000))
            P._record_function_exit(inner_h)
        P._record_function_exit(outer)
    ev = {e.name: e for e in prof.events()}
    assert set(ev) == {"outer", "inner", "innermost"}
    assert ev["outer"].start_ns <= ev["inner"].start_ns <= ev["innermost"].start_ns
    assert ev["innermost"].end_ns <= ev["inner"].end_ns <= ev["outer"].end_ns
    # self time excludes the ranges inside, as for nested `with record_function`
    outer_self = ev["outer"].cpu_time_total - ev["inner"].cpu_time_total
    assert ev["outer"].self_cpu_time_total == pytest.approx(outer_self)


def test_args_and_keywords():
    with profile() as prof:
        h = P._record_function_enter(name="kw", args="some args")
        P._record_function_exit(handle=h)
        r = P._record_function_enter_new(name="kw_new", args=None)
        P._record_function_exit(r)
        r = P._record_function_enter_new.default("via_default")
        P._record_function_exit._RecordFunction(record=r)
    assert _names(prof) == ["kw", "kw_new", "via_default"]


def test_outside_a_profiler_nothing_is_recorded():
    h = P._record_function_enter("nobody")
    r = P._record_function_enter_new("nobody_new")
    with profile() as prof:  # (ranges opened before the profiler started are not its own)
        P._record_function_exit(h)
        P._record_function_exit(r)
    assert _names(prof) == []


def test_a_second_exit_ends_nothing():
    # PyTorch: both exits return None, one event each
    with profile() as prof:
        h = P._record_function_enter("twice")
        P._record_function_exit(h)
        P._record_function_exit(h)
        r = P._record_function_enter_new("twice_new")
        P._record_function_exit(r)
        P._record_function_exit(r)
    assert _names(prof) == ["twice", "twice_new"]


def test_a_dropped_handle_ends_its_range():
    # PyTorch ends the RecordFunction when its handle is destroyed: the range is recorded
    with profile() as prof:
        h = P._record_function_enter("dropped")
        del h
        gc.collect()
        r = P._record_function_enter_new("dropped_new")
        del r
        gc.collect()
    assert _names(prof) == ["dropped", "dropped_new"]


def test_wrong_arguments_raise_as_in_pytorch():
    with pytest.raises(RuntimeError, match="Expected a value of type 'str' for argument 'name'"):
        P._record_function_enter(3)
    with pytest.raises(RuntimeError, match="argument 'args'"):
        P._record_function_enter_new("x", 5)
    r = P._record_function_enter_new("x")
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor'"):
        P._record_function_exit.default(r)
    P._record_function_exit(r)
    with pytest.raises(RuntimeError, match="_RecordFunction"):
        P._record_function_exit._RecordFunction(torch.ones(1))
    with pytest.raises(RuntimeError, match="not a handle"):
        P._record_function_exit(torch.ones(1))
    with pytest.raises(RuntimeError, match="not a handle"):
        P._record_function_exit(torch.full((8,), 255, dtype=torch.uint8))


def test_the_op_objects():
    enter, exit_ = P._record_function_enter_new, P._record_function_exit
    assert type(torch.ops).__name__ == "_Ops" and type(P).__name__ == "_OpNamespace"
    assert type(exit_).__name__ == "OpOverloadPacket"
    assert torch.ops.profiler is P and P._record_function_exit is exit_
    assert exit_.overloads() == ["default", "_RecordFunction"]
    assert enter.overloads() == ["default"]
    assert str(exit_.default._schema) == "profiler::_record_function_exit(Tensor handle) -> ()"
    assert str(P._record_function_enter.default._schema) == (
        "profiler::_record_function_enter(str name, str? args=None) -> Tensor"
    )
    assert exit_.default.name() == "profiler::_record_function_exit"
    assert exit_.default.overloadpacket is exit_
    assert str(exit_) == "profiler._record_function_exit"
    assert str(exit_.default) == "profiler._record_function_exit.default"
    assert repr(exit_.default) == (
        "<OpOverload(op='profiler._record_function_exit', overload='default')>"
    )
    assert exit_._qualified_op_name == "profiler::_record_function_exit"
    assert exit_.__name__ == "_record_function_exit"
    with pytest.raises(AttributeError, match="nonexistent"):
        P.nonexistent  # noqa: B018
    with pytest.raises(AttributeError):
        exit_.no_such_overload  # noqa: B018
    assert type(torch.ops.some_namespace).__name__ == "_OpNamespace"
    assert "ops" in dir(torch)
    # one object per operator: copies (a deep-copied fx graph) and pickles give it back
    for op in (exit_, exit_.default, exit_._RecordFunction):
        assert copy.deepcopy(op) is op and pickle.loads(pickle.dumps(op)) is op


def test_chrome_trace_has_the_range(tmp_path):
    with profile() as prof:
        P._record_function_exit(P._record_function_enter("in_trace"))
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    names = [e["name"] for e in json.loads(path.read_text())["traceEvents"]]
    assert names == ["in_trace"]
