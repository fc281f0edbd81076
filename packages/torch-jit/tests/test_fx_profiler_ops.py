"""torch.fx graphs that call torch.ops.profiler._record_function_enter(_new) / _exit (what
FX profiling passes insert): dead-code elimination keeps them, the generated code names
them as PyTorch does, and running the GraphModule under a profiler records the range
(PyTorch 2.13 prints and records the same for this graph)."""

import torch
import torch.fx as fx
from torch.profiler import profile

P = torch.ops.profiler


def _graph(enter):
    g = fx.Graph()
    x = g.placeholder("x")
    handle = g.call_function(enter, ("test_range",))
    y = g.call_function(torch.relu, (x,))
    g.call_function(P._record_function_exit, (handle,))
    g.output(y)
    return g


def test_profiler_ops_survive_dead_code_elimination():
    # (PyTorch's test_fx test_profiler_ranges_side_effect)
    for enter in (P._record_function_enter_new, P._record_function_enter):
        g = _graph(enter)
        g.eliminate_dead_code()
        targets = [n.target for n in g.nodes if n.op == "call_function"]
        assert targets == [enter, torch.relu, P._record_function_exit]


def test_graph_module_runs_the_range_under_a_profiler():
    for enter in (P._record_function_enter_new, P._record_function_enter):
        gm = fx.GraphModule(torch.nn.Module(), _graph(enter))
        assert f"torch.ops.profiler.{enter.__name__}('test_range')" in gm.code
        assert "torch.ops.profiler._record_function_exit(" in gm.code
        assert "target=torch.ops.profiler._record_function_exit]" in str(gm.graph)
        x = torch.randn(4)
        with profile() as prof:
            out = gm(x)
        torch.testing.assert_close(out, torch.relu(x))
        # the range, and the op it holds (an event of its own, appended when it ends)
        assert [e.name for e in prof.events()] == ["aten::relu", "test_range"]
        assert gm(x) is not None  # outside a profiler: runs, records nothing


def test_an_overload_as_target():
    g = fx.Graph()
    handle = g.call_function(P._record_function_enter_new.default, ("by_overload",))
    g.call_function(P._record_function_exit._RecordFunction, (handle,))
    g.output(None)
    g.eliminate_dead_code()
    gm = fx.GraphModule(torch.nn.Module(), g)
    assert "torch.ops.profiler._record_function_exit._RecordFunction(" in gm.code
    with profile() as prof:
        gm()
    assert [e.name for e in prof.events()] == ["by_overload"]
