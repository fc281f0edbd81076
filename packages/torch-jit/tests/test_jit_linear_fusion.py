"""A fusion group with the F.linear it reads (torch/jit/_passes.py's absorb_linear_products,
csrc/fused.cpp's Note [Epilogue fusion]): the product made in row chunks under the group's
program gives the numbers of F.linear followed by the group, falls back where the kernel does
not apply, and the core refuses bad calls with an exception."""

import math

import numpy as np
import pytest

import torch
import torch.jit
from torch import nn
from torch.jit._fuser import CODE
from torch.jit._run import _executable
from torch.nn import functional as F

KERNEL = torch._C._fused_linear_elementwise


def _program(*instrs):
    """code and consts of (op, dst, a, b, c) tuples."""
    code, consts = [], []
    for op, d, a, b, c in instrs:
        code += [CODE[op], d, a, b]
        consts.append(c)
    return code, consts


# y = x @ w.T + bias in register 0; z (register 1) broadcast to y's shape:
# out 2 = tanh(y * 0.5) + z, out 4 = y * z (two outputs)
CODE2, CONSTS2 = _program(
    ("mulc", 2, 0, 0, 0.5), ("tanh", 3, 2, 0, 0.0), ("add", 2, 3, 1, 0.0), ("mul", 4, 0, 1, 0.0)
)


def _reference(x, w, b, z):
    y = F.linear(x, w, b)
    return torch.tanh(y * 0.5) + z, y * z


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("m, k, n", [(1, 3, 5), (37, 16, 24), (300, 64, 256), (70, 9, 700)])
@pytest.mark.parametrize("z_shape", ["full", "row", "col", "scalar", "strided"])
@pytest.mark.parametrize("bias", [True, False])
def test_kernel_equals_linear_then_group(dtype, m, k, n, z_shape, bias):
    # (n = 700 crosses the program's 512-element block; m = 300 spans chunks)
    g = torch.Generator().manual_seed(m * n + k)
    x = torch.randn(m, k, generator=g, dtype=dtype)
    w = torch.randn(n, k, generator=g, dtype=dtype)
    b = torch.randn(n, generator=g, dtype=dtype) if bias else None
    z = {
        "full": lambda: torch.randn(m, n, generator=g, dtype=dtype),
        "row": lambda: torch.randn(n, generator=g, dtype=dtype),
        "col": lambda: torch.randn(m, 1, generator=g, dtype=dtype),
        "scalar": lambda: torch.tensor(1.5, dtype=dtype),
        "strided": lambda: torch.randn(n, m, generator=g, dtype=dtype).t(),
    }[z_shape]()
    got = KERNEL(x, w, b, CODE2, CONSTS2, [None, z], 0, [2, 4])
    want = _reference(x, w, b, z)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {}
    for gt, wt in zip(got, want):
        assert gt.shape == (m, n) and gt.dtype == dtype
        torch.testing.assert_close(gt, wt, **tol)
    # against numpy in float64
    y = x.double().numpy() @ w.double().numpy().T + (b.double().numpy() if bias else 0)
    ref = np.tanh(y * 0.5) + z.double().numpy()
    np.testing.assert_allclose(got[0].double().numpy(), ref, rtol=1e-4, atol=1e-4)


def test_the_product_may_sit_in_any_slot():
    x, w, b, z = torch.randn(40, 8), torch.randn(24, 8), torch.randn(24), torch.randn(40, 24)
    code, consts = _program(("sub", 2, 0, 1, 0.0))  # register 0 - register 1
    (first,) = KERNEL(x, w, b, code, consts, [None, z], 0, [2])
    (second,) = KERNEL(x, w, b, code, consts, [z, None], 1, [2])
    torch.testing.assert_close(first, F.linear(x, w, b) - z)
    torch.testing.assert_close(second, z - F.linear(x, w, b))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("m, k, n, n2", [(1, 3, 5, 2), (300, 64, 256, 64), (70, 9, 700, 33)])
@pytest.mark.parametrize("z_shape", ["full", "row", "col"])
@pytest.mark.parametrize("bias2", [True, False])
def test_kernel_with_a_second_linear(dtype, m, k, n, n2, z_shape, bias2):
    # an MLP block: F.linear(group(F.linear(x, w, b), z), w2, b2), the group's one output
    g = torch.Generator().manual_seed(m * n + n2)
    x, w = torch.randn(m, k, generator=g, dtype=dtype), torch.randn(n, k, generator=g, dtype=dtype)
    b = torch.randn(n, generator=g, dtype=dtype)
    w2 = torch.randn(n2, n, generator=g, dtype=dtype)
    b2 = torch.randn(n2, generator=g, dtype=dtype) if bias2 else None
    z = {"full": (m, n), "row": (n,), "col": (m, 1)}[z_shape]
    z = torch.randn(*z, generator=g, dtype=dtype)
    (got,) = KERNEL(x, w, b, CODE2, CONSTS2, [None, z], 0, [2], w2, b2)
    want = F.linear(_reference(x, w, b, z)[0], w2, b2)
    assert got.shape == (m, n2) and got.dtype == dtype
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == torch.float32 else {}
    torch.testing.assert_close(got, want, **tol)
    y = x.double().numpy() @ w.double().numpy().T + b.double().numpy()
    h = np.tanh(y * 0.5) + z.double().numpy()
    ref = h @ w2.double().numpy().T + (b2.double().numpy() if bias2 else 0)
    np.testing.assert_allclose(got.double().numpy(), ref, rtol=1e-3, atol=1e-3)


def test_a_second_linear_refuses_bad_operands():
    code, consts = _program(("relu", 1, 0, 0, 0.0))
    x, w = torch.randn(4, 3), torch.randn(5, 3)
    with pytest.raises(RuntimeError, match=r"weight2 of shape \(N2, 5\), got \(2, 4\)"):
        KERNEL(x, w, None, code, consts, [None], 0, [1], torch.randn(2, 4))
    with pytest.raises(RuntimeError, match="contiguous weight2"):
        KERNEL(x, w, None, code, consts, [None], 0, [1], torch.randn(5, 2).t())
    with pytest.raises(RuntimeError, match=r"bias2 of shape \(2\)"):
        KERNEL(x, w, None, code, consts, [None], 0, [1], torch.randn(2, 5), torch.randn(5))
    with pytest.raises(TypeError, match="weight2"):
        KERNEL(x, w, None, code, consts, [None], 0, [1], torch.randn(2, 5).double())
    with pytest.raises(ValueError, match="bias2 without weight2"):
        KERNEL(x, w, None, code, consts, [None], 0, [1], None, torch.randn(2))
    two, consts2 = _program(("relu", 1, 0, 0, 0.0), ("neg", 2, 0, 0, 0.0))
    with pytest.raises(ValueError, match="one output, got 2"):
        KERNEL(x, w, None, two, consts2, [None], 0, [1, 2], torch.randn(2, 5))
    # an empty hidden layer (N = 0): the caller makes it apart
    w0 = torch.randn(0, 3)
    assert KERNEL(x, w0, None, code, consts, [None], 0, [1], torch.randn(2, 0)) is None


def test_empty_products():
    code, consts = _program(("relu", 1, 0, 0, 0.0))
    (out,) = KERNEL(torch.randn(0, 4), torch.randn(3, 4), None, code, consts, [None], 0, [1])
    assert out.shape == (0, 3)
    (out,) = KERNEL(
        torch.randn(5, 0), torch.randn(3, 0), torch.ones(3), code, consts, [None], 0, [1]
    )
    torch.testing.assert_close(out, torch.ones(5, 3))  # (K = 0: the bias alone)


def test_an_output_of_a_smaller_input_answers_none():
    code, consts = _program(("mulc", 2, 1, 0, 2.0), ("add", 3, 0, 2, 0.0))
    x, w = torch.randn(6, 4), torch.randn(5, 4)
    assert KERNEL(x, w, None, code, consts, [None, torch.randn(5)], 0, [2]) is None
    (out,) = KERNEL(x, w, None, code, consts, [None, torch.randn(6, 5)], 0, [2, 3][1:])
    assert out.shape == (6, 5)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda c, k: KERNEL(torch.randn(4, 3), torch.randn(5, 2), None, c, k, [None], 0, [1]),
            RuntimeError,
            r"\(4, 3\) and \(5, 2\)",
        ),
        (
            lambda c, k: KERNEL(
                torch.randn(4, 3).t(), torch.randn(5, 4), None, c, k, [None], 0, [1]
            ),
            RuntimeError,
            "contiguous",
        ),
        (
            lambda c, k: KERNEL(
                torch.randn(4, 3), torch.randn(5, 3), torch.randn(4), c, k, [None], 0, [1]
            ),
            RuntimeError,
            "bias",
        ),
        (
            lambda c, k: KERNEL(
                torch.randn(4, 3), torch.randn(5, 3).double(), None, c, k, [None], 0, [1]
            ),
            TypeError,
            "weight",
        ),
        (
            lambda c, k: KERNEL(
                torch.ones(4, 3, dtype=torch.int64),
                torch.ones(5, 3, dtype=torch.int64),
                None,
                c,
                k,
                [None],
                0,
                [1],
            ),
            TypeError,
            "int64",
        ),
        (
            lambda c, k: KERNEL(
                torch.randn(4, 3), torch.randn(5, 3), None, c, k, [torch.randn(4, 5)], 0, [1]
            ),
            ValueError,
            "must be None",
        ),
        (
            lambda c, k: KERNEL(torch.randn(4, 3), torch.randn(5, 3), None, c, k, [None], 1, [1]),
            ValueError,
            "must be None",
        ),
        (
            lambda c, k: KERNEL(
                torch.randn(4, 3),
                torch.randn(5, 3),
                None,
                [CODE["add"], 2, 0, 1],
                [0.0],
                [None, torch.randn(3, 5)],
                0,
                [2],
            ),
            RuntimeError,
            "broadcast",
        ),
    ],
)
def test_bad_calls_raise(call, error, match):
    code, consts = _program(("relu", 1, 0, 0, 0.0))
    with pytest.raises(error, match=match):
        call(code, consts)


class Block(nn.Module):
    """Linear, then a GELU written with elementwise ops (reads the product alone), then
    another Linear."""

    def __init__(self, d=16, h=48):
        super().__init__()
        self.fc, self.proj = nn.Linear(d, h), nn.Linear(h, d)

    def forward(self, x):
        h = self.fc(x)
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
        return self.proj(h)


def _kinds(traced):
    return [n.kind for n in _executable(traced.graph).nodes]


@pytest.mark.parametrize("shape", [(50, 16), (4, 13, 16)])
def test_traced_block_absorbs_the_product_and_equals_eager(shape, monkeypatch):
    torch.manual_seed(0)
    model, x = Block(), torch.randn(*shape)
    traced = torch.jit.trace(model, x)
    assert _kinds(traced) == ["prim::LinearFusionGroup"]  # (proj joined: ``then``)
    assert _executable(traced.graph).nodes[0].attrs["then"]
    runs = []
    monkeypatch.setattr(
        torch._C, "_fused_linear_elementwise", lambda *a: runs.append(1) or KERNEL(*a)
    )
    with torch.no_grad():
        got, want = traced(x), model(x)
    assert runs == [1]
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


def test_gradients_and_subclasses_take_the_linear_then_group_path():
    torch.manual_seed(0)
    model, x = Block(), torch.randn(20, 16)
    traced = torch.jit.trace(model, x)
    traced(x).sum().backward()  # (parameters require grad: the product and group apart)
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for g, p in zip(got, model.parameters()):
        torch.testing.assert_close(g, p.grad)


def test_a_product_read_elsewhere_stays_apart():
    class Both(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            h = self.fc(x)
            return torch.tanh(h * 2.0) + 1.0, h  # (h is an output too)

    model, x = Both(), torch.randn(10, 8)
    traced = torch.jit.trace(model, x)
    assert _kinds(traced) == ["F.linear", "prim::FusionGroup"]
    with torch.no_grad():
        for got, want in zip(traced(x), model(x)):
            torch.testing.assert_close(got, want)


def test_a_group_with_a_smaller_output_stays_apart():
    class Reduce(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x, s):
            t = s * 3.0
            return torch.tanh(self.fc(x) * t) + 1.0, t  # (t: a group output of s's shape)

    model, args = Reduce(), (torch.randn(10, 8), torch.randn(8))
    traced = torch.jit.trace(model, args)
    assert _kinds(traced) == ["F.linear", "prim::FusionGroup"]  # (the group outputs t)
    with torch.no_grad():
        for got, want in zip(traced(*args), model(*args)):
            torch.testing.assert_close(got, want)


def test_other_input_forms_fall_back_to_linear_then_group():
    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 6)

        def forward(self, x, c):
            return torch.sigmoid(self.fc(x)) * c + c * 0.5

    model = WithState()
    x, c = torch.randn(3, 4, 6), torch.randn(3, 4, 6)
    traced = torch.jit.trace(model, (x, c))
    assert _kinds(traced) == ["prim::LinearFusionGroup"]
    with torch.no_grad():
        torch.testing.assert_close(traced(x, c), model(x, c))  # (c reshaped to rows)
        c2 = torch.randn(3, 1, 6)  # broadcasts, but not as a (rows, n) operand: apart
        torch.testing.assert_close(traced(x, c2), model(x, c2))
        xd, cd = x.double(), c.double()  # (float64 parameters would differ: float32 kept)
        with pytest.raises(RuntimeError):
            model(xd, cd)
        with pytest.raises(RuntimeError):
            traced(xd, cd)


def test_a_second_linear_joins_only_where_it_alone_reads_the_group():
    class Shared(nn.Module):  # the activation is also an output: proj stays apart
        def __init__(self):
            super().__init__()
            self.fc, self.proj = nn.Linear(8, 16), nn.Linear(16, 8)

        def forward(self, x):
            h = torch.tanh(self.fc(x) * 2.0)
            return self.proj(h), h

    class Later(nn.Module):  # proj's weight is made after the group: stays apart
        def __init__(self):
            super().__init__()
            self.fc, self.proj = nn.Linear(8, 16), nn.Linear(16, 8)

        def forward(self, x):
            h = torch.tanh(self.fc(x) * 2.0)
            return F.linear(h, self.proj.weight * 0.5, self.proj.bias)

    x = torch.randn(10, 8)
    for model, kinds in [
        (Shared(), ["prim::LinearFusionGroup", "F.linear"]),
        (Later(), ["prim::LinearFusionGroup", "Tensor.__mul__", "F.linear"]),
    ]:
        traced = torch.jit.trace(model, x)
        nodes = _executable(traced.graph).nodes
        assert sorted(n.kind for n in nodes) == sorted(kinds)
        assert not any(n.attrs.get("then") for n in nodes)
        with torch.no_grad():
            got, want = traced(x), model(x)
        for a, b in zip(
            got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)
        ):
            torch.testing.assert_close(a, b)


def test_an_mlp_block_with_gradients_or_other_dtypes_falls_back():
    torch.manual_seed(0)
    model, x = Block(), torch.randn(2, 7, 16)
    traced = torch.jit.trace(model, x)
    with torch.no_grad():
        torch.testing.assert_close(traced(x), model(x), rtol=1e-6, atol=1e-6)
    traced(x).sum().backward()  # (parameters require grad: products and group apart)
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for g, p in zip(got, model.parameters()):
        torch.testing.assert_close(g, p.grad)
