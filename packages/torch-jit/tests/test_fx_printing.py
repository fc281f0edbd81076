"""torch.fx printouts and generated code as PyTorch 2.13 writes them (the gaps a corpus of
pytorch/examples' fx programs showed): the names functions print under (``torch.relu``,
not the binding's internal class), node names (snake case, dunder underscores dropped),
placeholders renamed in the body, unused results freed at once, ``return`` without ``%``;
``torch.ops`` operators called on a Proxy (``__torch_function__``); and tracing through
``torch.nn`` modules and ``torch.nn.functional`` kernels.

The expected strings are what PyTorch prints for the same graphs."""

import operator
import subprocess
import sys

import pytest

import torch
import torch.fx as fx
import torch.nn.functional as F
from torch import nn
from torch.profiler import profile


def _graph(fn, n_inputs=1):
    g = fx.Graph()
    xs = [g.placeholder(f"x{i}") for i in range(n_inputs)]
    g.output(fn(g, *xs))
    return g


def _line(graph, name):
    return next(line.strip() for line in str(graph).splitlines() if f"%{name} :" in line)


@pytest.mark.parametrize(
    "fn, printed",
    [
        (torch.relu, "torch.relu"),
        (torch.sigmoid, "torch.sigmoid"),
        (torch.add, "torch.add"),
        (torch.cat, "torch.cat"),
        (torch.flatten, "torch.flatten"),
        (torch.zeros, "torch.zeros"),
        (torch.where, "torch.where"),
        (torch.topk, "torch.topk"),
        (torch.einsum, "torch.functional.einsum"),
        (torch.split, "torch.functional.split"),
        (F.relu, "torch.nn.functional.relu"),
        (F.softmax, "torch.nn.functional.softmax"),
        (F.dropout, "torch.nn.functional.dropout"),
        (F.layer_norm, "torch.nn.functional.layer_norm"),
        (F.cross_entropy, "torch.nn.functional.cross_entropy"),
        (torch.Tensor.add, "torch.Tensor.add"),
        (torch.Tensor.relu, "torch.Tensor.relu"),
        (operator.add, "operator.add"),
        (operator.getitem, "operator.getitem"),
        (getattr, "builtins.getattr"),
        (len, "builtins.len"),
    ],
)
def test_graph_prints_a_function_under_its_public_name(fn, printed):
    g = _graph(lambda g, x: g.call_function(fn, (x,)))
    node = next(n for n in g.nodes if n.op == "call_function")
    assert f"call_function[target={printed}](args = (%x0,)" in _line(g, node.name)


def test_a_traced_module_prints_torch_relu():
    class M(nn.Module):
        def forward(self, x):
            return torch.relu(x) + torch.sigmoid(x)

    gm = fx.symbolic_trace(M())
    text = str(gm.graph)
    assert "call_function[target=torch.relu](args = (%x,), kwargs = {})" in text
    assert "call_function[target=torch.sigmoid](args = (%x,), kwargs = {})" in text
    assert "call_function[target=operator.add](args = (%relu, %sigmoid), kwargs = {})" in text
    assert "relu = torch.relu(x)" in gm.code


def test_output_prints_the_value_without_percent_signs():
    class M(nn.Module):
        def forward(self, x):
            return (x.relu(), {"a": x}, [x + 1])

    lines = str(fx.symbolic_trace(M()).graph).splitlines()
    assert lines[-1].strip() == "return (relu, {'a': x}, [add])"
    single = _graph(lambda g, x: g.call_function(torch.neg, (x,)))
    assert str(single).splitlines()[-1].strip() == "return neg"


def test_node_names_are_snake_case_without_dunder_underscores():
    def MyFn(x):  # noqa: N802 (a CamelCase function, to name a node after)
        return x

    def camelCase(x):  # noqa: N802
        return x

    def _helper(x):
        return x

    g = fx.Graph()
    x = g.placeholder("x")
    names = [
        g.call_function(MyFn, (x,)).name,
        g.call_function(camelCase, (x,)).name,
        g.call_function(_helper, (x,)).name,
        g.call_method("fooBar", (x,)).name,
        g.call_method("__mul__", (x, x)).name,
        g.call_method("HTTPServer", (x,)).name,
        g.call_method("a1B", (x,)).name,
        g.call_module("myMod.subMod", (x,)).name,
        g.get_attr("someAttr.W").name,
        g.call_function(torch.ops.profiler._record_function_enter, ("r",)).name,
        g.call_function(torch.ops.profiler._record_function_exit.default, (x,)).name,
    ]
    assert names == [
        "my_fn",
        "camel_case",
        "_helper",
        "foo_bar",
        "mul",
        "httpserver",
        "a1b",
        "my_mod_sub_mod",
        "some_attr_w",
        "_record_function_enter",
        "_record_function_exit_default",
    ]


def test_placeholders_keep_their_argument_names_in_the_signature():
    g = fx.Graph()
    a = g.placeholder("myInput")
    b = g.placeholder("__x__")
    g.output(g.call_function(operator.add, (a, b)))
    assert [n.name for n in g.nodes][:2] == ["my_input", "x"]
    gm = fx.GraphModule(nn.Module(), g)
    assert "def forward(self, myInput, __x__):" in gm.code
    assert "    my_input = myInput\n    x = __x__\n" in gm.code
    assert gm(torch.ones(2), torch.full((2,), 2.0)).tolist() == [3.0, 3.0]
    assert gm(myInput=torch.ones(1), __x__=torch.ones(1)).tolist() == [2.0]

    class M(nn.Module):
        def forward(self, inputX):  # noqa: N803
            return inputX * 2

    traced = fx.symbolic_trace(M())
    assert [n.name for n in traced.graph.nodes] == ["input_x", "mul", "output"]
    assert traced(inputX=torch.ones(1)).tolist() == [2.0]


def test_an_unused_result_is_freed_on_its_own_line():
    g = fx.Graph()
    x = g.placeholder("x")
    handle = g.call_function(torch.ops.profiler._record_function_enter, ("foo",))
    y = g.call_function(torch.relu, (x,))
    g.call_function(torch.ops.profiler._record_function_exit, (handle,))
    g.output(y)
    code = fx.GraphModule(nn.Module(), g).code
    assert (
        "_record_function_exit = torch.ops.profiler._record_function_exit("
        "_record_function_enter);  _record_function_enter = _record_function_exit = None"
    ) in code


class _Foo(nn.Module):
    def forward(self, x):
        with torch.profiler.record_function("foo"):
            return torch.relu(x)


class _ProfilerTracer(fx.Tracer):
    """pytorch/examples' fx/profiling_tracer.py: record_function's enter and exit become
    torch.ops.profiler calls on proxies."""

    def trace(self, root, concrete_args=None):
        rf = torch.autograd.profiler.record_function
        saved = rf.__enter__, rf.__exit__
        tracer = self

        def enter(rf_self):
            handle = tracer.create_proxy(
                "call_function", torch.ops.profiler._record_function_enter, (rf_self.name,), {}
            )
            rf_self._fx_profiler_ctx = handle
            return handle

        def exit_(rf_self, *exc):
            torch.ops.profiler._record_function_exit(rf_self._fx_profiler_ctx)
            rf_self._fx_profiler_ctx = None

        rf.__enter__, rf.__exit__ = enter, exit_
        try:
            return super().trace(root, concrete_args)
        finally:
            rf.__enter__, rf.__exit__ = saved


def test_an_operator_called_on_a_proxy_becomes_a_node():
    graph = _ProfilerTracer().trace(_Foo())
    assert [(n.op, n.target) for n in graph.nodes] == [
        ("placeholder", "x"),
        ("call_function", torch.ops.profiler._record_function_enter),
        ("call_function", torch.relu),
        ("call_function", torch.ops.profiler._record_function_exit),
        ("output", "output"),
    ]
    text = str(graph)
    assert (
        "%_record_function_exit : [num_users=0] = call_function[target=torch.ops.profiler."
        "_record_function_exit](args = (%_record_function_enter,), kwargs = {})"
    ) in text
    gm = fx.GraphModule(_Foo(), graph)
    x = torch.randn(5, 3)
    with profile() as prof:
        out = gm(x)
    torch.testing.assert_close(out, torch.relu(x))
    assert [e.name for e in prof.events() if not e.name.startswith("aten::")] == ["foo"]


def test_an_overload_called_on_a_proxy_records_the_overload():
    g = fx.Graph()
    x = g.placeholder("x")
    proxy = fx.Proxy(x)
    out = torch.ops.profiler._record_function_exit.default(proxy)
    assert isinstance(out, fx.Proxy)
    assert out.node.target is torch.ops.profiler._record_function_exit.default


def test_functional_kernels_trace_before_any_use():
    # a fresh interpreter: F.softmax & co. are not looked up before the trace starts
    code = """
import torch, torch.fx, torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return F.softmax(x, dim=1) + F.dropout(x, 0.5, training=False) + F.layer_norm(x, (3,))
gm = torch.fx.symbolic_trace(M())
print([n.target.__name__ for n in gm.graph.nodes if n.op == "call_function"])
x = torch.randn(2, 3)
expected = F.softmax(x, dim=1) + x + F.layer_norm(x, (3,))
print(torch.allclose(gm(x), expected))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    names, same = out.stdout.split("\n")[:2]
    assert names == "['softmax', 'dropout', 'add', 'layer_norm', 'add']"
    assert same == "True"


class _ThroughAll(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return False


def _targets(module, *inputs):
    gm = fx.GraphModule(module, _ThroughAll().trace(module))
    for x in inputs:
        module.eval()
        torch.testing.assert_close(gm(*x), module(*x))
    return [n for n in gm.graph.nodes if n.op in ("call_function", "call_method")]


def test_relu_module_traces_to_functional_relu_with_inplace():
    # (pytorch/examples' fx/custom_tracer.py: PyTorch records F.relu, inplace=False)
    (node,) = _targets(nn.ReLU(), (torch.randn(2, 3),))
    assert node.target is F.relu and node.kwargs == {"inplace": False}
    (node,) = _targets(nn.ReLU(inplace=True))
    assert node.target is F.relu and node.kwargs == {"inplace": True}


@pytest.mark.parametrize(
    "module, function, inputs",
    [
        (nn.SiLU(), F.silu, [(torch.randn(2, 3),)]),
        (nn.ELU(), F.elu, [(torch.randn(2, 3),)]),
        (nn.CELU(), F.celu, [(torch.randn(2, 3),)]),
        (nn.SELU(), F.selu, [(torch.randn(2, 3),)]),
        (nn.Mish(), F.mish, [(torch.randn(2, 3),)]),
        (nn.Hardswish(), F.hardswish, [(torch.randn(2, 3),)]),
        (nn.Hardsigmoid(), F.hardsigmoid, [(torch.randn(2, 3),)]),
        (nn.Softshrink(), F.softshrink, [(torch.randn(2, 3),)]),
        (nn.Softmax(dim=1), F.softmax, [(torch.randn(2, 3),)]),
        (nn.LayerNorm(3), F.layer_norm, [(torch.randn(2, 3),)]),
        (nn.GroupNorm(1, 3), F.group_norm, [(torch.randn(2, 3, 4),)]),
        (nn.Bilinear(2, 2, 3), F.bilinear, [(torch.randn(4, 2), torch.randn(4, 2))]),
        (nn.MaxPool2d(2), F.max_pool2d, [(torch.randn(1, 2, 4, 4),)]),
        (nn.Embedding(10, 3), F.embedding, [(torch.tensor([1, 2]),)]),
        (nn.CrossEntropyLoss(), F.cross_entropy, [(torch.randn(2, 3), torch.tensor([0, 2]))]),
    ],
)
def test_modules_trace_through_to_their_functional(module, function, inputs):
    nodes = _targets(module, *inputs)
    assert [n.target for n in nodes] == [function]


@pytest.mark.parametrize(
    "module, x, message",
    [
        (nn.LayerNorm(3), torch.ones(2, 4), r"expected input with shape \[\*, 3\]"),
        (nn.GroupNorm(2, 6), torch.ones(2, 4), "6"),
    ],
)
def test_modules_still_check_tensor_shapes(module, x, message):
    with pytest.raises(RuntimeError, match=message):
        module(x)
