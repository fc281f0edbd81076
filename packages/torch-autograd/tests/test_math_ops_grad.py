"""Gradients of the torch._math_ops composites: finite differences (gradcheck) in float64,
and a few known derivatives (d lgamma = digamma, d digamma = trigamma, d i0 = i1)."""

import math

import numpy as np
import pytest
import scipy.special as sp

import torch
from torch.autograd import gradcheck, gradgradcheck

D = torch.float64


def _leaf(values):
    return torch.tensor(values, dtype=D, requires_grad=True)


X = [-2.7, -0.4, 0.3, 0.9, 1.7, 4.2, 13.5]


@pytest.mark.parametrize(
    "fn",
    [
        torch.lgamma,
        torch.digamma,
        lambda x: torch.polygamma(1, x),
        lambda x: torch.polygamma(3, x),
        torch.i0,
        torch.special.i0e,
        torch.special.i1,
        torch.special.i1e,
        lambda x: torch.mvlgamma(x.abs() + 2, 3),
        torch.deg2rad,
        lambda x: torch.float_power(x.abs() + 0.5, 1.5),
        lambda x: torch.renorm(x[:6].reshape(2, 3), 2, 0, 1.0),
        lambda x: torch.diff(x, n=2),
        lambda x: torch.gradient(x, edge_order=2)[0],
        lambda x: torch.trapezoid(x),
        lambda x: torch.cumulative_trapezoid(x, dx=0.5),
        lambda x: torch.cov(x[:6].reshape(2, 3)),
        lambda x: torch.corrcoef(x[:6].reshape(2, 3)),
        lambda x: torch.block_diag(x[:2], x[2:6].reshape(2, 2)),
    ],
)
def test_gradcheck_unary(fn):
    x = _leaf(X)
    assert gradcheck(fn, (x,))


@pytest.mark.parametrize(
    "fn",
    [
        torch.hypot,
        torch.logaddexp,
        torch.logaddexp2,
        torch.fmax,
        torch.copysign,
        torch.inner,
        lambda a, b: torch.addr(a[:1].reshape(1, 1), a, b, beta=0.5, alpha=2),
    ],
)
def test_gradcheck_binary(fn):
    a = _leaf([1.3, -0.4, 2.0, -3.1, 0.7])
    b = _leaf([-0.6, 2.2, 0.5, 1.9, -4.0])
    assert gradcheck(fn, (a, b))


def test_hypot_and_logaddexp_special_points():
    a = _leaf([0.0, 1e200, 3.0])
    b = _leaf([0.0, 1e200, 3.0])
    torch.hypot(a, b).sum().backward()
    assert a.grad.tolist() == pytest.approx([0.0, math.sqrt(0.5), math.sqrt(0.5)])
    a = _leaf([2.0, -math.inf])
    b = _leaf([2.0, 1.0])
    torch.logaddexp(a, b).sum().backward()
    assert a.grad.tolist() == pytest.approx([0.5, 0.0])
    assert b.grad.tolist() == pytest.approx([0.5, 1.0])


def test_gradgradcheck_special():
    x = _leaf([0.3, 1.7, 4.2])
    assert gradgradcheck(torch.lgamma, (x,))
    assert gradgradcheck(torch.digamma, (x,))


def test_known_derivatives():
    x = _leaf(X)
    (g,) = torch.autograd.grad(torch.lgamma(x).sum(), x)
    assert g.tolist() == pytest.approx(sp.digamma(X).tolist(), rel=1e-12)
    (g,) = torch.autograd.grad(torch.digamma(x).sum(), x)
    assert g.tolist() == pytest.approx(sp.polygamma(1, X).tolist(), rel=1e-12)
    (g,) = torch.autograd.grad(torch.i0(x).sum(), x)
    assert g.tolist() == pytest.approx(sp.i1(X).tolist(), rel=1e-12)


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("mode", ["donot_use_mm_for_euclid_dist", "use_mm_for_euclid_dist"])
def test_cdist(p, mode):
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(2, 4, 3, dtype=D, generator=gen).requires_grad_()
    b = torch.randn(2, 5, 3, dtype=D, generator=gen).requires_grad_()
    assert gradcheck(lambda a, b: torch.cdist(a, b, p=p, compute_mode=mode), (a, b))


def test_cdist_zero_distance_gradient_is_finite():
    a = _leaf([[1.0, 2.0], [3.0, 4.0]])
    for mode in ("donot_use_mm_for_euclid_dist", "use_mm_for_euclid_dist"):
        (g,) = torch.autograd.grad(torch.cdist(a, a, compute_mode=mode).sum(), a)
        assert torch.isfinite(g).all()


@pytest.mark.parametrize("scale", [0.3, 3.0])
def test_matrix_exp(scale):
    gen = torch.Generator().manual_seed(1)
    a = (torch.randn(2, 3, 3, dtype=D, generator=gen) * scale).requires_grad_()
    assert gradcheck(torch.matrix_exp, (a,))
    assert gradcheck(torch.linalg.matrix_exp, (a,))


def test_pow_by_products_keeps_its_gradient():
    # the core computes x ** 2, 3, -1, -2 as products; the recorded op is still pow
    x = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
    for e in (2, 3, -1, -2):
        (g,) = torch.autograd.grad(x.pow(e).sum(), x)
        np.testing.assert_allclose(g.numpy(), e * x.detach().numpy() ** (e - 1), rtol=1e-14)
