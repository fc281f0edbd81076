"""Elementwise ops give a new output the memory layout of their inputs (Note [Output layout]
in csrc/iter.cpp): a transposed, permuted or channels-last input gives a result laid out the
same way, as in PyTorch 2.13 and NumPy's order='K'. Strides are checked against NumPy where the
two agree and against PyTorch's (written out) where they differ: mixed layouts, where PyTorch's
first input wins and NumPy falls back to row-major, and broadcast dims. Only dims of size > 1
are compared (PyTorch's own strides for size-1 dims vary from op to op). The file uses only
public API, so it runs under real PyTorch too."""

import numpy as np
import pytest

import torch
from torch import _packages

# the backward tests need torch-autograd (the core-only session runs without it)
needs_autograd = pytest.mark.skipif(
    not _packages.installed(torch.__path__, "autograd"), reason="needs torch-autograd"
)

CL = torch.channels_last
rng = np.random.default_rng(0)


def laid_out(shape, order, dtype=np.float64):
    """A NumPy array of `shape` whose dims lie in memory in `order`, slowest first."""
    base = rng.standard_normal([shape[d] for d in order]).astype(dtype)
    return base.transpose(np.argsort(order))


def elem_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def assert_layout(t, strides):
    """t's strides are `strides` on every dim of size > 1."""
    got = [s for s, n in zip(t.stride(), t.shape) if n > 1]
    want = [s for s, n in zip(strides, t.shape) if n > 1]
    assert got == want, f"strides {tuple(t.stride())}, expected {tuple(strides)}"


def check(result, expected, strides=None):
    """Values (and dtype) as NumPy's; layout as NumPy's order='K' result or `strides`."""
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert str(result.dtype).replace("torch.", "") == str(expected.dtype)
    assert_layout(result, elem_strides(expected) if strides is None else strides)


def tensor(a):
    t = torch.from_numpy(a)
    assert t.stride() == elem_strides(a)
    return t


def expanded(base, shape):
    """An expanded (stride-0) tensor and the NumPy array it equals."""
    return torch.from_numpy(base).expand(shape), np.broadcast_to(base, shape)


TRANSPOSED = ((3, 4), (1, 0))
CHANNELS_LAST = ((2, 3, 4, 5), (0, 2, 3, 1))
PERMUTED_3D = ((2, 3, 4), (2, 0, 1))
LAYOUTS = [TRANSPOSED, CHANNELS_LAST, PERMUTED_3D]
LAYOUT_IDS = ["transposed", "channels_last", "permuted_3d"]

UNARY = [
    (torch.exp, np.exp),
    (torch.neg, np.negative),
    (torch.abs, np.abs),
    (torch.relu, lambda a: np.maximum(a, 0)),
    (torch.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    (lambda t: t.clamp(-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
]
BINARY = [
    (torch.add, np.add),
    (torch.mul, np.multiply),
    (torch.maximum, np.maximum),
    (torch.gt, np.greater),
    (torch.eq, np.equal),
]


@pytest.mark.parametrize("shape,order", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("fn,np_fn", UNARY)
def test_unary(shape, order, fn, np_fn):
    a = laid_out(shape, order)
    check(fn(tensor(a)), np_fn(a))


@pytest.mark.parametrize("shape,order", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("fn,np_fn", BINARY)
def test_binary_same_layout(shape, order, fn, np_fn):
    a, b = laid_out(shape, order), laid_out(shape, order)
    check(fn(tensor(a), tensor(b)), np_fn(a, b))


@pytest.mark.parametrize("shape,order", LAYOUTS, ids=LAYOUT_IDS)
def test_tensor_scalar(shape, order):
    a = laid_out(shape, order)
    t = tensor(a)
    check(t * 2, a * 2)
    check(2 - t, 2 - a)
    check(t + 1, a + 1)
    check(t**2, a**2)
    check(t > 0, a > 0)
    check(torch.where(t > 0, t, 0.0), np.where(a > 0, a, 0.0))


def test_channels_last_is_channels_last():
    a = laid_out(*CHANNELS_LAST)
    t = tensor(a)
    assert t.is_contiguous(memory_format=CL) and not t.is_contiguous()
    for r in (t.relu(), t * 2, t + t, t.exp(), t > 0, torch.where(t > 0, t, t), t.clamp(0, 1)):
        assert r.is_contiguous(memory_format=CL), r.stride()
    # (the same through .to(memory_format=...), the usual way to get one)
    y = torch.randn(2, 3, 4, 5).to(memory_format=CL)
    assert y.relu().stride() == (60, 1, 15, 3)
    assert (y + 1).is_contiguous(memory_format=CL)


def test_transposed_strides_spelled_out():
    x = torch.randn(3, 4).t()
    assert (x + 1).stride() == (1, 4)
    assert x.exp().stride() == (1, 4)
    assert (x * x).stride() == (1, 4)


BROADCAST = [  # a layout and operands broadcast against it: rows, columns, per-channel values
    (TRANSPOSED, [(4,), (3, 1), (1, 4)]),
    (CHANNELS_LAST, [(5,), (4, 1), (3, 1, 1), (1, 3, 1, 1)]),
    (PERMUTED_3D, [(4,), (3, 1), (2, 3, 1), (2, 1, 1)]),
]


@pytest.mark.parametrize("layout,others", BROADCAST, ids=LAYOUT_IDS)
def test_broadcast_row_and_column(layout, others):
    a = laid_out(*layout)
    for shape in others:
        b = rng.standard_normal(shape)
        for x, y in ((a, b), (b, a)):
            check(tensor(x) + tensor(y), x + y)
            check(torch.mul(tensor(x), tensor(y)), x * y)


def test_broadcast_dims_do_not_decide():
    # PyTorch's strides: NumPy orders a broadcast dim differently here.
    t, a = expanded(rng.standard_normal((5, 1, 3)), (5, 4, 3))
    t, a = t.permute(2, 1, 0), a.transpose(2, 1, 0)  # (3, 4, 5), strides (1, 0, 3)
    check(t + 1, a + 1, strides=(1, 3, 12))
    x = laid_out(*TRANSPOSED)  # (3, 4), strides (1, 3); a (2, 1, 1) operand adds a dim
    z = rng.standard_normal((2, 1, 1))
    check(tensor(x) + tensor(z), x + z, strides=(12, 1, 3))
    check(tensor(z) + tensor(x), z + x, strides=(12, 1, 3))


@pytest.mark.parametrize("shape,order", LAYOUTS, ids=LAYOUT_IDS)
def test_type_promotion(shape, order):
    ints = (laid_out(shape, order) * 10).astype(np.int64)
    floats = laid_out(shape, order)
    t, f32 = tensor(ints), np.float32  # (int tensors meet Python floats in float32)
    check(t + 1.5, (ints + 1.5).astype(f32))
    check(t * tensor(floats), ints * floats)
    check(tensor(floats) - t, floats - ints)
    check(t / 3, (ints / 3).astype(f32))  # true division: int to float
    check(t.exp(), np.exp(ints).astype(f32))
    check(t > 2.5, ints > 2.5)


def test_where():
    a, b = laid_out(*CHANNELS_LAST), laid_out(*CHANNELS_LAST)
    cond = a > b
    check(torch.where(tensor(cond), tensor(a), tensor(b)), np.where(cond, a, b))
    check(torch.where(tensor(cond), tensor(a), 0.5), np.where(cond, a, 0.5))
    # the condition is the first input: a row-major one makes the result row-major
    c = np.ascontiguousarray(cond)
    t = torch.where(tensor(c), tensor(a), tensor(b))
    check(t, np.where(c, a, b), strides=(60, 20, 5, 1))


def test_mixed_layouts_first_input_wins():
    # NumPy makes these row-major; PyTorch takes the first input's layout.
    t, c = laid_out(*TRANSPOSED), laid_out(TRANSPOSED[0], (0, 1))
    check(tensor(t) + tensor(c), t + c, strides=(1, 3))
    check(tensor(c) + tensor(t), c + t, strides=(4, 1))
    cl, cc = laid_out(*CHANNELS_LAST), laid_out(CHANNELS_LAST[0], (0, 1, 2, 3))
    r = tensor(cl) * tensor(cc)
    check(r, cl * cc, strides=(60, 1, 15, 3))
    assert r.is_contiguous(memory_format=CL)
    r = tensor(cc) * tensor(cl)
    check(r, cc * cl, strides=(60, 20, 5, 1))
    assert r.is_contiguous()
    col = rng.standard_normal((2, 3, 4, 1))  # row-major where it is not broadcast
    check(tensor(cl) + tensor(col), cl + col, strides=(60, 1, 15, 3))
    check(tensor(col) + tensor(cl), col + cl, strides=(60, 20, 5, 1))
    # an input that cannot order the dims (expanded, a number) leaves it to the next one
    te, e = expanded(rng.standard_normal((4, 1)), (4, 3))
    x = laid_out((4, 3), (1, 0))
    check(te + tensor(x), e + x, strides=(1, 4))


def test_expanded_and_overlapping_inputs_give_row_major():
    te, e = expanded(rng.standard_normal((4, 1)), (4, 5))
    check(te + 1, e + 1, strides=(5, 1))
    check(te.exp(), np.exp(e), strides=(5, 1))
    te, e = expanded(rng.standard_normal((1, 4)), (5, 4))
    check(te.t() * 2, e.T * 2, strides=(5, 1))  # input strides (1, 0)
    u = torch.arange(10.0).unfold(0, 3, 1)  # (8, 3), strides (1, 1): overlapping windows
    r = u + 1
    assert r.stride() == (3, 1)
    np.testing.assert_array_equal(r.numpy(), u.numpy() + 1)
    s = torch.arange(20.0).as_strided((3, 4), (1, 2))  # overlapping, dim 0 faster
    assert (s + 1).stride() == (1, 3)


def test_non_dense_input_keeps_its_order():
    # PyTorch orders the dims of a sliced (non-dense) input too; the result is dense.
    a = laid_out((8, 6), (1, 0))[::2]  # (4, 6), strides (2, 8)
    check(tensor(a) + 1, a + 1, strides=(1, 4))
    b = laid_out((8, 6), (0, 1))[:, ::2]  # row-major order, gaps between rows' elements
    check(tensor(b) * 2, b * 2, strides=(3, 1))


def test_empty_and_zero_dim():
    assert (torch.randn(0, 3).t() + 1).shape == (3, 0)
    assert (torch.tensor(2.0) * 3).stride() == ()
    assert torch.tensor(2.0).exp().item() == pytest.approx(np.exp(2.0))


def test_out_keeps_its_own_layout():
    x = torch.randn(3, 4).t()
    out = torch.empty(4, 3)
    torch.add(x, 1, out=out)
    assert out.stride() == (3, 1)
    np.testing.assert_allclose(out.numpy(), x.numpy() + 1)
    y = x.clone()
    y.mul_(2)  # in place keeps the tensor's strides
    np.testing.assert_allclose(y.numpy(), x.numpy() * 2)


def test_result_views_like_pytorch():
    # a transposed result is not viewable as 1-D, as in PyTorch; reshape copies
    x = torch.arange(12.0).reshape(3, 4).t()
    r = x + 0
    assert not r.is_contiguous()
    assert r.reshape(-1).tolist() == x.reshape(-1).tolist()
    assert r.t().is_contiguous()
    assert r.t().view(-1).tolist() == list(range(12))


@needs_autograd
def test_gradients_through_channels_last():
    x = torch.randn(2, 3, 2, 2, dtype=torch.float64).to(memory_format=CL).requires_grad_()
    w = torch.randn(2, 3, 2, 2, dtype=torch.float64).to(memory_format=CL).requires_grad_()
    assert torch.autograd.gradcheck(lambda a: torch.relu(a + 0.1), (x,))
    assert torch.autograd.gradcheck(lambda a, b: (a + b).relu() * a, (x, w))
    x.grad = None
    (x.relu() * 3 + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (x.detach().numpy() > 0) * 3.0 + 1.0)
