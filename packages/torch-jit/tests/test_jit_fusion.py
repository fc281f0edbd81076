"""The fused kernel of fusion groups (torch/jit/_fuser.py, csrc/fused.cpp): a group run in
one pass gives the numbers of its ops run one by one (eager), takes the op-by-op path where
the kernel does not apply, and the core refuses bad programs with an exception."""

import math

import numpy as np
import pytest

import torch
import torch.jit
from torch import nn
from torch.jit import _fuser, _passes
from torch.jit._ir import copy_graph
from torch.jit._run import _executable, run_graph
from torch.nn import functional as F


@pytest.fixture
def calls(monkeypatch):
    """Counts the runs of the fused kernels, alone or under a product (calls that did not
    answer None)."""
    count = [0]

    def counting(kernel):
        def counted(*args):
            out = kernel(*args)
            count[0] += out is not None
            return out

        return counted

    for name in ("_fused_elementwise", "_fused_linear_elementwise"):
        monkeypatch.setattr(torch._C, name, counting(getattr(torch._C, name)))
    return count


def _tol(dtype):
    return (
        {"rtol": 1e-6, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 1e-12, "atol": 1e-12}
    )


def _check(fn, args, calls, fused=True, dtype=torch.float32):
    traced = torch.jit.trace(fn, args, check_trace=False)
    with torch.no_grad():
        before = calls[0]
        got = traced(*args)
        expected = fn(*args)
    assert (calls[0] > before) == fused
    torch.testing.assert_close(got, expected, equal_nan=True, **_tol(dtype))
    return got


# each: a function of (x, y) with at least two elementwise ops (one group)
OPS = {
    "add_sub_mul_div": lambda x, y: (x + y) * (x - y) / (y + 3.0),
    "scalars": lambda x, y: 2.0 - x * 0.5 + 1 / (y + 4) - (x / 3),
    "methods": lambda x, y: torch.add(x, y).mul(y).div(2).sub(x),
    "reflected": lambda x, y: (1.5 - x) + (2.0 / (y + 5)),
    "neg_abs": lambda x, y: -x * y.abs(),
    "relu": lambda x, y: F.relu(x * y) + x.relu(),
    "sigmoid_tanh": lambda x, y: torch.sigmoid(x * 3) * torch.tanh(y * 2) + x.sigmoid(),
    "exp_log": lambda x, y: torch.exp(x * 0.5) + torch.log(y.abs() + 0.1),
    "sqrt_rsqrt": lambda x, y: torch.sqrt(x.abs()) + torch.rsqrt(y.abs() + 0.5),
    "reciprocal": lambda x, y: torch.reciprocal(x * y + 3.0),
    "erf": lambda x, y: torch.erf(x * y),
    "gelu": lambda x, y: F.gelu(x + y) + F.gelu(x - y, approximate="tanh"),
    "silu": lambda x, y: F.silu(x * 2),
    "leaky_relu": lambda x, y: F.leaky_relu(x * 3, 0.2),
    "hardtanh": lambda x, y: F.hardtanh(x * y, -0.5, 0.5),
    "pow": lambda x, y: (
        x**2
        + x**3
        + y.abs() ** 0.5
        + (y.abs() + 1) ** -0.5
        + (x * x + 1) ** -1
        + (x + 5) ** -2
        + torch.pow(y.abs(), 2.5)
    ),
    "square": lambda x, y: torch.square(x + 1),
    "maximum_minimum": lambda x, y: torch.maximum(x, y) - torch.minimum(x * 2, y),
    "sin_cos": lambda x, y: torch.sin(x * 2) + torch.cos(y * 3),
    "nan_inf": lambda x, y: torch.log(x) + torch.sqrt(y) * 0.0 + torch.exp(x * 100),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(OPS))
def test_each_op_fused_equals_eager(name, dtype, calls):
    torch.manual_seed(0)
    x, y = torch.randn(37, 29, dtype=dtype), torch.randn(37, 29, dtype=dtype)
    _check(OPS[name], (x, y), calls, dtype=dtype)


def test_large_inputs_run_on_threads_and_equal_eager(calls):
    torch.manual_seed(0)
    x, y = torch.randn(1000, 1001), torch.randn(1001)  # blocks straddle rows; bias broadcast
    _check(lambda x, y: torch.tanh(x * 0.7 + y) * torch.sigmoid(x - y), (x, y), calls)


def _new_gelu(x):  # minGPT's NewGELU
    return (
        0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    )


class GeluMLP(nn.Module):
    def __init__(self, d=16, h=64):
        super().__init__()
        self.fc, self.proj = nn.Linear(d, h), nn.Linear(h, d)

    def forward(self, x):
        return self.proj(_new_gelu(self.fc(x)))


class LSTMCell(nn.Module):
    def __init__(self, i=8, h=12):
        super().__init__()
        self.w_ih, self.w_hh = (
            nn.Parameter(torch.randn(4 * h, i)),
            nn.Parameter(torch.randn(4 * h, h)),
        )
        self.b_ih, self.b_hh = nn.Parameter(torch.randn(4 * h)), nn.Parameter(torch.randn(4 * h))

    def forward(self, x, h, c):
        gates = x @ self.w_ih.t() + self.b_ih + h @ self.w_hh.t() + self.b_hh
        i, f, g, o = gates.chunk(4, 1)
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        c = f * c + i * g
        return o * torch.tanh(c), c


def test_gelu_mlp_takes_the_fused_path(calls):
    torch.manual_seed(0)
    model, x = GeluMLP(), torch.randn(300, 16)
    _check(model, (x,), calls)
    kinds = [n.kind for n in _executable(torch.jit.trace(model, x).graph).nodes]
    assert kinds == ["prim::LinearFusionGroup"]  # (fc's product, the GELU, then proj)
    groups = [
        n
        for n in _executable(torch.jit.trace(model, x).graph).nodes
        if n.kind == "prim::LinearFusionGroup"
    ]
    assert len(groups) == 1 and len(groups[0].blocks[0].nodes) == 8  # the whole GELU
    # against numpy, in float64
    with torch.no_grad():
        h = (x.double() @ model.fc.weight.double().t() + model.fc.bias.double()).numpy()
    ref = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
    with torch.no_grad():
        got = _fuser_run_group(groups[0], torch.from_numpy(h).float())
    np.testing.assert_allclose(got.numpy(), ref, rtol=2e-5, atol=2e-6)


def _fuser_run_group(node, *inputs):
    program = _fuser.compile_group(node)
    assert program is not None
    return program.run(list(inputs))[0]


def test_lstm_cell_takes_the_fused_path(calls):
    torch.manual_seed(0)
    cell = LSTMCell()
    args = (torch.randn(20, 8), torch.randn(20, 12), torch.randn(20, 12))
    _check(cell, args, calls)
    graph = _executable(torch.jit.trace(cell, args).graph)
    sizes = [len(n.blocks[0].nodes) for n in graph.nodes if n.kind == "prim::FusionGroup"]
    assert sizes == [13]  # bias chunk added (products: one matmul_sum, biases: one sum), cell
    traced = torch.jit.trace(cell, args, check_trace=False)
    before = calls[0]
    with torch.no_grad():
        traced(*args)
    assert calls[0] - before == 1


def test_torch_compile_takes_the_fused_path(calls):
    torch.manual_seed(0)
    cell = LSTMCell()
    args = (torch.randn(5, 8), torch.randn(5, 12), torch.randn(5, 12))
    compiled = torch.compile(cell)
    with torch.no_grad():
        compiled(*args)  # (the first call traces)
        before = calls[0]
        got = compiled(*args)
        expected = cell(*args)
    assert calls[0] - before == 1
    torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-6)


def test_strided_broadcast_and_zero_dim_inputs(calls):
    torch.manual_seed(0)

    def f(a, b, s, e):
        return torch.tanh(a * b + s) - e * 2

    a = torch.randn(12, 40)[:, ::2]  # strided
    b = torch.randn(20, 12).t()  # transposed
    s = torch.tensor(0.25)  # 0-d
    e = torch.randn(12, 1).expand(12, 20)  # expanded
    assert not a.is_contiguous() and not b.is_contiguous()
    _check(f, (a, b, s, e), calls)
    _check(f, (torch.randn(3, 1, 5), torch.randn(4, 1), torch.tensor(1.0), torch.randn(5)), calls)


def test_empty_inputs(calls):
    out = _check(lambda x, y: torch.sigmoid(x * y) + 1, (torch.randn(0, 5), torch.randn(5)), calls)
    assert out.shape == (0, 5)


def test_an_output_smaller_than_the_group_runs_op_by_op(calls):
    def f(x, b):
        small = b * 2  # (5,), also an output
        return small, torch.tanh(x + small)

    got = _check(f, (torch.randn(4, 5), torch.randn(5)), calls, fused=False)
    assert got[0].shape == (5,)


@pytest.mark.parametrize(
    "args",
    [
        (torch.randint(0, 5, (4, 3)), torch.randint(0, 5, (4, 3))),  # integers
        (torch.randn(4, 3), torch.randn(4, 3, dtype=torch.float64)),  # mixed dtypes
        (torch.randn(4, 3, dtype=torch.float16), torch.randn(4, 3, dtype=torch.float16)),
    ],
)
def test_other_dtypes_run_op_by_op(args, calls):
    _check(lambda x, y: (x * y + 1) * 2, args, calls, fused=False, dtype=torch.float64)


def test_ops_the_kernel_lacks_run_op_by_op(calls):
    _check(lambda x, y: torch.clamp(x * y, -0.5, 0.5) + 1, (torch.randn(6), torch.randn(6)), calls,
           fused=False)  # fmt: skip
    _check(lambda x, y: torch.sub(x, y, alpha=2) * 2, (torch.randn(6), torch.randn(6)), calls,
           fused=False)  # fmt: skip
    _check(lambda x, y: torch.pow(x, y.abs()) * 2, (torch.randn(6), torch.randn(6)), calls,
           fused=False)  # fmt: skip


def test_gradients_take_the_op_by_op_path(calls):
    torch.manual_seed(0)
    model = GeluMLP()
    x = torch.randn(7, 16)
    traced = torch.jit.trace(model, x)
    before = calls[0]
    traced(x).sum().backward()
    assert calls[0] == before
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for g, p in zip(got, model.parameters()):
        torch.testing.assert_close(g, p.grad)
    with torch.no_grad():  # the same module without grad: fused
        traced(x)
    assert calls[0] == before + 1


def test_scripted_functions_fuse_too(calls):
    def f(x, n: int):
        y = torch.sigmoid(x * 2.0) + x
        for _ in range(n):
            y = y * 0.5
        return torch.tanh(y) - 1.0

    scripted = torch.jit.script(f)
    x = torch.randn(40, 3, dtype=torch.float64)
    with torch.no_grad():
        got = scripted(x, 3)
    assert calls[0] == 2  # the two chains outside the loop
    torch.testing.assert_close(got, f(x, 3), rtol=1e-12, atol=1e-12)


def test_autocast_runs_op_by_op(calls):
    f = torch.jit.trace(lambda x: torch.exp(x * 2) + 1, torch.randn(8), check_trace=False)
    x = torch.randn(8)
    with torch.no_grad(), torch.autocast("cpu"):
        got = f(x)
        expected = torch.exp(x * 2) + 1
    assert calls[0] == 0
    torch.testing.assert_close(got, expected)


def test_graph_passes_after_a_run_are_seen(calls):
    g = torch.jit.trace(lambda x: torch.tanh(x * 2) + 1, torch.randn(3), check_trace=False).graph
    x = torch.randn(3)
    with torch.no_grad():
        first = run_graph(g, [x], {})
    assert calls[0] == 1
    g.nodes = g.nodes[:1]  # (now returns x * 2 ... the out value must still exist)
    g.out = g.nodes[0].out
    with torch.no_grad():
        torch.testing.assert_close(run_graph(g, [x], {}), x * 2)
    torch.testing.assert_close(first, torch.tanh(x * 2) + 1)


def test_fusion_groups_independent_same_shape_ops_and_keeps_chains_otherwise():
    def f(x, y, w):
        a = torch.sigmoid(x)
        b = torch.tanh(y)  # independent of a, same shape: same group
        m = x @ w  # reads no result of the group: moves above it
        c = a * b + m
        bias = w.sum(0) * 2  # reads no group value but its shape differs: a new group
        return c, bias + 1

    args = (torch.randn(3, 3), torch.randn(3, 3), torch.randn(3, 3))
    g = torch.jit.trace(f, args).graph
    opt = copy_graph(g)
    assert _passes.fuse_elementwise(opt) == 2
    kinds = [n.kind for n in opt.nodes]
    assert kinds.index("Tensor.__matmul__") < kinds.index("prim::FusionGroup")
    first = next(n for n in opt.nodes if n.kind == "prim::FusionGroup")
    assert first.attrs["ops"] == ["torch.sigmoid", "torch.tanh", "Tensor.__mul__", "Tensor.__add__"]
    torch.testing.assert_close(run_graph(opt, list(args), {}), f(*args))


@pytest.mark.parametrize("size, chunks", [(12, 4), (10, 4), (6, 4), (7, 7)])
def test_chunks_move_above_the_elementwise_ops_that_made_them(size, chunks):
    def f(x, y, b, s):
        g = (x @ y + b) * s  # b: a broadcast bias, s: a (size, 1) column
        return tuple(torch.tanh(p) + 1 for p in g.chunk(chunks, 1))

    args = (torch.randn(5, 3), torch.randn(3, size), torch.randn(size), torch.randn(5, 1))
    g = torch.jit.trace(f, args).graph
    opt = copy_graph(g)
    assert _passes.push_chunks_up(opt) == 1
    kinds = [n.kind for n in opt.nodes]
    assert kinds.count("Tensor.chunk") == 2  # of x @ y and of b; s is used whole
    assert kinds.index("Tensor.chunk") > kinds.index("Tensor.__matmul__")
    torch.testing.assert_close(run_graph(opt, list(args), {}), f(*args))
    _passes.fuse_elementwise(opt)
    groups = [n.kind for n in opt.nodes].count("prim::FusionGroup")
    even = len({p.shape for p in f(*args)}) == 1
    assert groups == 1 if even else groups > 1  # (pieces of two shapes: a group each run)
    with torch.no_grad():
        torch.testing.assert_close(run_graph(opt, list(args), {}), f(*args))


def test_chunks_of_values_read_elsewhere_stay():
    def f(x, y):
        g = x * y
        a, b = (g + 1).chunk(2, 0)
        return a * b, g  # g is an output: x * y stays, (g + 1) moves below the chunk

    args = (torch.randn(4, 3), torch.randn(4, 3))
    opt = copy_graph(torch.jit.trace(f, args).graph)
    assert _passes.push_chunks_up(opt) == 1
    kinds = [n.kind for n in opt.nodes]
    assert kinds == ["Tensor.__mul__", "Tensor.chunk", "Tensor.__add__", "Tensor.__add__",
                     "Tensor.__mul__"]  # fmt: skip
    torch.testing.assert_close(run_graph(opt, list(args), {}), f(*args))


def test_ops_that_write_stay_in_place():
    def f(x):
        y = x * 2
        x.add_(1)  # writes: never moved, closes the group
        return y + x, torch.exp(y)

    x = torch.randn(4)
    g = torch.jit.trace(f, x.clone(), check_trace=False).graph
    opt = copy_graph(g)
    _passes.fuse_elementwise(opt)
    assert [n.kind for n in opt.nodes].index("Tensor.add_") == 1
    a, b = x.clone(), x.clone()
    torch.testing.assert_close(run_graph(opt, [a], {}), f(b))


# ---------------------------------------------------------------- the core's checks
ADD, TANH = _fuser.CODE["add"], _fuser.CODE["tanh"]


@pytest.mark.parametrize(
    "code, consts, outputs, error, match",
    [
        ([ADD, 2, 0, 1, 9], [0.0], [2], ValueError, "4 ints"),
        ([ADD, 2, 0, 1], [], [2], ValueError, "one constant"),
        ([999, 2, 0, 1], [0.0], [2], ValueError, "unknown op"),
        ([-1, 2, 0, 1], [0.0], [2], ValueError, "unknown op"),
        ([ADD, 64, 0, 1], [0.0], [64], ValueError, "out of range"),
        ([ADD, 2, 0, -3], [0.0], [2], ValueError, "out of range"),
        ([ADD, 1, 0, 1], [0.0], [1], ValueError, "read only"),
        ([ADD, 2, 0, 5], [0.0], [2], ValueError, "no value yet"),
        ([ADD, 2, 2, 1], [0.0], [2], ValueError, "no value yet"),
        ([ADD, 2, 0, 1, TANH, 3, 3, 0], [0.0, 0.0], [3], ValueError, "no value yet"),
        ([ADD, 2, 0, 1, TANH, 2, 2, 0], [0.0, 0.0], [2], ValueError, "must differ"),
        ([ADD, 2, 0, 1], [0.0], [3], ValueError, "not a register"),
        ([ADD, 2, 0, 1], [0.0], [0], ValueError, "not a register"),
        ([ADD, 2, 0, 1], [0.0], [2, 2], ValueError, "twice"),
        ([ADD, 2, 0, 1], [0.0], [], ValueError, "at least one output"),
    ],
)
def test_bad_programs_raise(code, consts, outputs, error, match):
    x = torch.randn(3)
    with pytest.raises(error, match=match):
        torch._C._fused_elementwise(code, consts, [x, x], outputs)


def test_bad_inputs_raise():
    prog = ([ADD, 2, 0, 1], [0.0])
    with pytest.raises(RuntimeError, match="broadcast"):
        torch._C._fused_elementwise(*prog, [torch.randn(3), torch.randn(4)], [2])
    with pytest.raises(TypeError, match="float32 or float64"):
        torch._C._fused_elementwise(*prog, [torch.ones(3, dtype=torch.int64)] * 2, [2])
    with pytest.raises(TypeError, match="one dtype"):
        torch._C._fused_elementwise(*prog, [torch.randn(3), torch.randn(3).double()], [2])
    with pytest.raises(ValueError, match="inputs"):
        torch._C._fused_elementwise([], [], [], [2])
    with pytest.raises(TypeError):
        torch._C._fused_elementwise(*prog, [torch.randn(3), 1.0], [2])


def test_outputs_smaller_than_the_broadcast_shape_answer_none():
    x, b = torch.randn(4, 5), torch.randn(5)
    mulc, add = _fuser.CODE["mulc"], _fuser.CODE["add"]
    code = [mulc, 2, 1, 0, add, 3, 0, 2]  # r2 = b * 2 (shape (5,)), r3 = x + r2
    assert torch._C._fused_elementwise(code, [2.0, 0.0], [x, b], [3, 2]) is None
    (out,) = torch._C._fused_elementwise(code, [2.0, 0.0], [x, b], [3])
    torch.testing.assert_close(out, x + b * 2)


def test_direct_program_matches_numpy():
    x = torch.randn(5, 7, dtype=torch.float64)
    b = torch.randn(7, dtype=torch.float64)
    mul, exp, divc = _fuser.CODE["mul"], _fuser.CODE["exp"], _fuser.CODE["rdivc"]
    code = [mul, 2, 0, 1, exp, 3, 2, 0, divc, 4, 3, 0]  # 3 / exp(x * b)
    got = torch._C._fused_elementwise(code, [0.0, 0.0, 3.0], [x, b], [4, 2])
    np.testing.assert_allclose(got[0].numpy(), 3 / np.exp(x.numpy() * b.numpy()), rtol=1e-13)
    np.testing.assert_array_equal(got[1].numpy(), x.numpy() * b.numpy())
    assert not got[0].requires_grad
