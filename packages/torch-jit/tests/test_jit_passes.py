"""The optimiser passes: each rewrite keeps the graph's results."""

import pytest
from jit_models import MLP, BatchNormNet

import torch
import torch.jit
from torch.jit import _passes
from torch.jit._ir import copy_graph
from torch.jit._run import run_graph


def _graph(fn, *args):
    return torch.jit.trace(fn, args).graph


def _same(graph, optimised, *args, params=None):
    expected = run_graph(graph, list(args), params or {})
    got = run_graph(optimised, list(args), params or {})
    torch.testing.assert_close(got, expected)


def _kinds(graph):
    return [n.kind for n in graph.all_nodes()]


def test_dead_code_elimination():
    def f(x):
        unused = x.exp() * 3  # noqa: F841
        return x + 1

    g = _graph(f, torch.randn(3))  # the tracer already ran DCE
    assert "Tensor.exp" not in _kinds(g)
    raw = copy_graph(g)
    from torch.jit._ir import Node, Value

    dead = Value("Tensor")
    raw.nodes.insert(0, Node("torch.sin", (raw.inputs[0],), out=dead))
    assert _passes.eliminate_dead_code(raw) == 1
    _same(g, raw, torch.randn(3))


def test_in_place_ops_survive_dce():
    def f(x):
        y = x.clone()
        y.add_(1)
        return x * 2, y

    g = _graph(f, torch.randn(2))
    assert "Tensor.add_" in _kinds(g)
    x = torch.randn(2)
    torch.testing.assert_close(run_graph(g, [x], {}), f(x))


def test_common_subexpression_elimination():
    def f(x):
        return torch.tanh(x) * 2 + torch.tanh(x) * 2

    g = _graph(f, torch.randn(4))
    opt = copy_graph(g)
    assert _passes.eliminate_common_subexpressions(opt) == 2
    _passes.eliminate_dead_code(opt)
    assert _kinds(opt).count("torch.tanh") == 1
    _same(g, opt, torch.randn(4))


def test_cse_leaves_random_ops_alone():
    def f(x):
        return torch.rand(3) + torch.rand(3) + x

    g = _graph(f, torch.randn(3))
    assert _passes.eliminate_common_subexpressions(copy_graph(g)) == 0


def test_constant_folding():
    def f(x):
        k = torch.ones(3) * 2 + torch.arange(3).float()
        return x * k

    g = _graph(f, torch.randn(3))
    opt = copy_graph(g)
    assert _passes.constant_fold(opt) >= 2
    assert _kinds(opt).count("prim::Constant") == 1
    assert "torch.ones" not in _kinds(opt)
    _same(g, opt, torch.randn(3))


def test_fusion_groups_of_elementwise_chains():
    def f(x, y):
        a = torch.relu(x * y + 1)
        b = a.sigmoid() - y
        return (b @ b.t()).exp() * 2

    g = _graph(f, torch.randn(3, 3), torch.randn(3, 3))
    opt = copy_graph(g)
    assert _passes.fuse_elementwise(opt) == 2
    groups = [n for n in opt.nodes if n.kind == "prim::FusionGroup"]
    assert groups[0].attrs["ops"] == [
        "Tensor.__mul__", "Tensor.__add__", "torch.relu", "Tensor.sigmoid", "Tensor.__sub__",
    ]  # fmt: skip
    assert "prim::FusionGroup" in str(opt)
    x, y = torch.randn(3, 3), torch.randn(3, 3)
    _same(g, opt, x, y)
    xg = x.clone().requires_grad_()
    run_graph(opt, [xg, y], {}).sum().backward()  # fused groups stay differentiable
    assert xg.grad is not None


@pytest.mark.parametrize("make", [MLP, BatchNormNet])
def test_optimize_pipeline_and_freeze(make):
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(2, 6) if make is MLP else torch.randn(2, 3, 5, 5)
    traced = torch.jit.trace(model, x)
    params = traced._tensors()
    opt = _passes.optimize(copy_graph(traced.graph))
    _same(traced.graph, opt, x, params=params)
    frozen = torch.jit.freeze(traced)
    assert not frozen.graph.params and not list(frozen.parameters())
    torch.testing.assert_close(frozen(x), model(x))
    fast = torch.jit.optimize_for_inference(torch.jit.trace(model, x))
    torch.testing.assert_close(fast(x), model(x))


def test_freeze_needs_eval_mode():
    traced = torch.jit.trace(MLP().train(), torch.randn(1, 6))
    with pytest.raises(RuntimeError, match="eval mode"):
        torch.jit.freeze(traced)
    with pytest.raises(RuntimeError, match="ScriptModule"):
        torch.jit.freeze(MLP().eval())
