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


# accumulate_matmuls: a sum of matrix products becomes one prim::matmul_sum


def _lstm_gates(x, h, w1, w2, b1, b2):
    return torch.sigmoid(x @ w1.t() + b1 + h @ w2.t() + b2)


def _gate_args(requires_grad=False):
    torch.manual_seed(0)
    args = [torch.randn(5, 3), torch.randn(5, 4), torch.randn(8, 3), torch.randn(8, 4),
            torch.randn(8), torch.randn(8)]  # fmt: skip
    return [a.requires_grad_(requires_grad) for a in args]


def _accumulated(fn, args):
    opt = copy_graph(_graph(fn, *args))
    made = _passes.accumulate_matmuls(opt)
    return made, opt


def test_matmul_sums_accumulate_into_one_node():
    args = _gate_args()
    made, opt = _accumulated(_lstm_gates, args)
    assert made == 1
    kinds = _kinds(opt)
    assert "Tensor.__matmul__" not in kinds and kinds.count("prim::matmul_sum") == 1
    assert kinds.count("prim::sum") == 1  # the two biases, summed first
    assert kinds.count("Tensor.__add__") == 1
    with torch.no_grad():
        got = run_graph(opt, args, {})
    torch.testing.assert_close(got, _lstm_gates(*args), rtol=1e-6, atol=1e-6)
    # also in the executed copy of a traced function and in torch.compile
    traced, compiled = torch.jit.trace(_lstm_gates, args), torch.compile(_lstm_gates)
    with torch.no_grad():
        for f in (traced, compiled, compiled):
            torch.testing.assert_close(f(*args), _lstm_gates(*args), rtol=1e-6, atol=1e-6)
    assert "prim::matmul_sum" in _kinds(torch.jit._run._executable(traced.graph))
    assert "prim::matmul_sum" not in _kinds(traced.graph)  # (the recorded graph stays)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, h, w1, w2: torch.mm(x, w1) + torch.matmul(h, w2),
        lambda x, h, w1, w2: torch.add(x.matmul(w1), h.mm(w2)),
        lambda x, h, w1, w2: (x @ w1 + 1.0) * 2 + h @ w2 + x @ w1,  # the first sum stays
        lambda x, h, w1, w2: x @ w1 + (h @ w2 + (x * 2) @ w1) + w1.sum(),  # three products
        lambda x, h, w1, w2: w1.sum(0) + x @ w1 + w1.sum(0) + h @ w2,  # a term read twice
    ],
)
def test_matmul_sum_forms_equal_eager_with_gradients(fn):
    torch.manual_seed(0)
    args = [torch.randn(5, 3), torch.randn(5, 4), torch.randn(3, 6), torch.randn(4, 6)]
    made, opt = _accumulated(fn, args)
    assert made == 1 and "prim::matmul_sum" in _kinds(opt)
    with torch.no_grad():
        torch.testing.assert_close(run_graph(opt, args, {}), fn(*args), rtol=1e-6, atol=1e-6)
    # with gradients: the same numbers and the same gradients as eager
    leaves = [a.clone().requires_grad_() for a in args]
    got = run_graph(opt, leaves, {})
    got.sum().backward()
    expected = [a.clone().requires_grad_() for a in args]
    fn(*expected).sum().backward()
    for a, b in zip(leaves, expected):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-5)


def test_matmul_sums_run_other_batch_sizes():
    args = _gate_args()
    traced = torch.jit.trace(_lstm_gates, args)
    other = [torch.randn(9, 3), torch.randn(9, 4), *args[2:]]
    with torch.no_grad():
        torch.testing.assert_close(traced(*other), _lstm_gates(*other), rtol=1e-6, atol=1e-6)


def test_matmul_sums_keep_gradients_of_traced_modules():
    args = _gate_args(requires_grad=True)
    traced = torch.jit.trace(_lstm_gates, args)
    traced(*args).sum().backward()
    got = [a.grad.clone() for a in args]
    for a in args:
        a.grad = None
    _lstm_gates(*args).sum().backward()
    for g, a in zip(got, args):
        torch.testing.assert_close(g, a.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "fn, args",
    [
        # products of different shapes that broadcast against each other
        (lambda x, y, a, b: x @ a + y @ b,
         [torch.randn(5, 3), torch.randn(1, 3), torch.randn(3, 1), torch.randn(3, 5)]),
        # a batched (3-D) product
        (lambda x, y, a, b: x @ a + y @ b,
         [torch.randn(2, 5, 3), torch.randn(5, 3), torch.randn(3, 4), torch.randn(3, 4)]),
        # a term of another dtype (the sum is float64; the products float32)
        (lambda x, y, a, b: x @ a + b.double().sum() + y @ a,
         [torch.randn(5, 3), torch.randn(5, 3), torch.randn(3, 4), torch.randn(3, 4)]),
        # a product read elsewhere too
        (lambda x, y, a, b: ((p := x @ a) + y @ b, p * 1),
         [torch.randn(5, 3), torch.randn(5, 3), torch.randn(3, 4), torch.randn(3, 4)]),
        # add with alpha
        (lambda x, y, a, b: torch.add(x @ a, y @ b, alpha=2),
         [torch.randn(5, 3), torch.randn(5, 3), torch.randn(3, 4), torch.randn(3, 4)]),
        # a product added to itself (read twice)
        (lambda x, y, a, b: (p := x @ a) + p + y @ b,
         [torch.randn(5, 3), torch.randn(5, 3), torch.randn(3, 4), torch.randn(3, 4)]),
    ],
)  # fmt: skip
def test_matmul_sums_that_must_not_accumulate(fn, args):
    made, opt = _accumulated(fn, args)
    assert made == 0 and "prim::matmul_sum" not in _kinds(opt)
    torch.testing.assert_close(run_graph(opt, args, {}), fn(*args))


def test_matmul_sums_in_graphs_with_in_place_ops_stay():
    def f(x, y, a, b):
        p = x @ a
        x.add_(1)  # the first product must read x before this write
        return p + y @ b

    args = [torch.randn(5, 3), torch.randn(5, 3), torch.randn(3, 4), torch.randn(3, 4)]
    opt = copy_graph(torch.jit.trace(f, args, check_trace=False).graph)
    assert _passes.accumulate_matmuls(opt) == 0


def test_matmul_sum_runs_other_shapes_and_modes_as_eager():
    from torch.jit._ops import PRIM

    matmul_sum = PRIM["prim::matmul_sum"]
    torch.manual_seed(0)
    x, y, a, b = torch.randn(2, 5, 3), torch.randn(5, 3), torch.randn(3, 4), torch.randn(3, 4)
    # (a traced graph may run at other shapes: batched and broadcast products take eager's way)
    torch.testing.assert_close(matmul_sum(x, a, y, b), x @ a + y @ b)
    torch.testing.assert_close(matmul_sum(y[:1], a, y, b), y[:1] @ a + y @ b)
    with pytest.raises(RuntimeError):
        matmul_sum(y, a, y, b[:2])  # (the error is matmul's)
    d = torch.randn(5, 3, dtype=torch.float64)
    with torch.autocast("cpu"):
        got, expected = matmul_sum(y, a, y, b), y @ a + y @ b
    assert got.dtype == expected.dtype
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(
        matmul_sum(d, a.double(), d, b.double()), d @ a.double() + d @ b.double()
    )
