"""Gradients of convolutions and unfold/fold: gradcheck and gradgradcheck (float64, small
shapes) through the public functions, which reach the core's torch._C._conv,
_conv_weight_grad, _im2col and _col2im (formulas/conv.py)."""

import numpy as np
import pytest

import torch
from torch import _C
from torch._conv import fold, unfold
from torch.autograd import gradcheck, gradgradcheck

F64 = torch.float64
CONV = {1: torch.conv1d, 2: torch.conv2d, 3: torch.conv3d}
CONV_T = {1: torch.conv_transpose1d, 2: torch.conv_transpose2d, 3: torch.conv_transpose3d}


def randn(*shape, seed=0):
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def check(fn, *inputs):
    inputs = [t.detach().requires_grad_() if isinstance(t, torch.Tensor) else t for t in inputs]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


# (input shape, weight shape, kwargs)
CONV_CASES = [
    ((2, 2, 7), (3, 2, 3), dict(stride=2, padding=1)),
    ((1, 4, 8), (4, 2, 2), dict(dilation=3, groups=2, padding=2)),
    ((2, 2, 5, 4), (3, 2, 3, 2), {}),
    ((2, 4, 5, 6), (4, 2, 3, 3), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ((1, 3, 4, 4), (3, 1, 3, 3), dict(padding=1, groups=3)),
    ((2, 3, 3, 4), (2, 3, 1, 1), {}),
    ((1, 2, 4, 3, 4), (2, 2, 2, 2, 3), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
]


@pytest.mark.parametrize("xs, ws, kw", CONV_CASES)
def test_conv_grad(xs, ws, kw):
    conv = CONV[len(xs) - 2]
    check(lambda x, w, b: conv(x, w, b, **kw), randn(*xs), randn(*ws, seed=1), randn(ws[0], seed=2))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_grad_unbatched_no_bias(nd):
    check(
        lambda x, w: CONV[nd](x, w, padding=1), randn(2, *[3] * nd), randn(2, 2, *[2] * nd, seed=1)
    )


@pytest.mark.parametrize(
    "ws, dilation", [((2, 2, 3, 3), 1), ((2, 2, 2, 3), 1), ((2, 2, 2, 2), (2, 1))]
)
def test_conv_grad_padding_same(ws, dilation):
    def fn(x, w):
        return torch.conv2d(x, w, padding="same", dilation=dilation)

    check(fn, randn(1, 2, 4, 5), randn(*ws, seed=1))


# (input shape, weight shape, kwargs)
CONV_T_CASES = [
    ((2, 2, 4), (2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ((1, 4, 3), (4, 1, 2), dict(stride=3, dilation=2, groups=2, output_padding=2)),
    ((2, 2, 3, 3), (2, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
    ((1, 2, 3, 3), (2, 2, 2, 2), dict(dilation=2, output_padding=1)),  # output_padding >= stride
    ((1, 4, 3, 2), (4, 1, 2, 2), dict(groups=4, stride=2)),
    ((2, 3, 3, 2), (3, 2, 1, 1), {}),
    ((1, 2, 2, 3, 2), (2, 2, 2, 2, 2), dict(stride=2, padding=(0, 1, 0), output_padding=(1, 0, 0))),
]


@pytest.mark.parametrize("xs, ws, kw", CONV_T_CASES)
def test_conv_transpose_grad(xs, ws, kw):
    conv_t = CONV_T[len(xs) - 2]
    groups = kw.get("groups", 1)
    check(
        lambda x, w, b: conv_t(x, w, b, **kw),
        randn(*xs),
        randn(*ws, seed=1),
        randn(ws[1] * groups, seed=2),
    )


def test_conv_transpose_grad_unbatched():
    check(
        lambda x, w: torch.conv_transpose2d(x, w, stride=2),
        randn(2, 3, 2),
        randn(2, 2, 2, 3, seed=1),
    )


def test_conv_weight_grad_op():
    """The core op behind the weight's gradient is differentiable in both its tensors."""
    args = ((2, 2, 3, 3), (1, 1), (1, 0), (1, 2), 1)

    def fn(x, g):
        return _C._conv_weight_grad(x, g, *args)

    x, g = randn(2, 2, 5, 6), randn(2, 2, 5, 2, seed=1)
    check(fn, x, g)


@pytest.mark.parametrize(
    "kw", [{}, dict(stride=2, padding=1), dict(dilation=(2, 1), stride=(1, 2))]
)
def test_unfold_fold_grad(kw):
    check(lambda x: unfold(x, (2, 3), **kw), randn(2, 2, 5, 6))
    cols = unfold(torch.zeros(2, 2, 5, 6, dtype=F64), (2, 3), **kw).shape
    check(lambda c: fold(c, (5, 6), (2, 3), **kw), randn(*cols))
    check(lambda x: unfold(x, 2, **kw), randn(2, 4, 5))  # unbatched


def test_conv_backward_matches_closed_form():
    """float32 gradients of a two-layer step against the same gradients built from unfold:
    dW = g @ cols^T, dx = fold(W^T @ g)."""
    x = randn(4, 1, 10, 10).float().requires_grad_()
    w1 = randn(3, 1, 3, 3, seed=1).float().requires_grad_()
    w2 = randn(5, 3, 3, 3, seed=2).float().requires_grad_()
    h = torch.conv2d(x, w1)
    y = torch.conv2d(h, w2, padding=1)
    g = randn(*y.shape, seed=3).float()
    y.backward(g)
    hd = h.detach()
    cols = unfold(hd, 3, padding=1)  # (4, 27, 64)
    g2 = g.reshape(4, 5, 64)
    np.testing.assert_allclose(
        w2.grad.numpy(),
        (g2 @ cols.transpose(1, 2)).sum(0).reshape(5, 3, 3, 3).numpy(),
        rtol=1e-4,
        atol=1e-4,
    )
    gh = fold(w2.detach().reshape(5, 27).t() @ g2, (8, 8), 3, padding=1)
    cols1 = unfold(x.detach(), 3)
    gh2 = gh.reshape(4, 3, 64)
    np.testing.assert_allclose(
        w1.grad.numpy(),
        (gh2 @ cols1.transpose(1, 2)).sum(0).reshape(3, 1, 3, 3).numpy(),
        rtol=1e-4,
        atol=1e-4,
    )
    gx = fold(w1.detach().reshape(3, 9).t() @ gh2, (10, 10), 3)
    np.testing.assert_allclose(x.grad.numpy(), gx.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch, size", [(1, 12), (8, 6), (16, 3), (1, 64), (3, 64)])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("groups", [2, 8])  # 8: one channel per group (the direct kernels)
def test_conv_gradients_are_adjoints(batch, size, threads, groups):
    """Sizes that cut the work differently (Note [Blocks] in conv.cpp): the gradients satisfy
    <dW, V> = <g, conv(x, V)> and <dx, U> = <g, conv(U, w)> for any V and U."""
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        x = randn(batch, 8, size, size).requires_grad_()
        w = randn(16, 8 // groups, 3, 3, seed=1).requires_grad_()
        kw = dict(padding=1, groups=groups)
        y = torch.conv2d(x, w, **kw)
        g = randn(*y.shape, seed=2)
        y.backward(g)
        V, U = randn(*w.shape, seed=3), randn(*x.shape, seed=4)
        with torch.no_grad():
            np.testing.assert_allclose(
                (w.grad * V).sum().item(), (g * torch.conv2d(x, V, **kw)).sum().item(), rtol=1e-10
            )
            np.testing.assert_allclose(
                (x.grad * U).sum().item(), (g * torch.conv2d(U, w, **kw)).sum().item(), rtol=1e-10
            )
    finally:
        torch.set_num_threads(old)


def test_conv_ops_are_gated():
    names = {"_conv", "_conv_weight_grad", "_im2col", "_col2im"}
    assert all(torch._C._grad_gates[n].formula is not None for n in names)
