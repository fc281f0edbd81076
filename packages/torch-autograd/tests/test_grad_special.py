"""Gradients of torch.special composites and nan_to_num: finite differences (gradcheck)
away from the special points, PyTorch 2.13's values at them."""

import math

import pytest

import torch
from torch.autograd import gradcheck, gradgradcheck

D = torch.float64


@pytest.mark.parametrize(
    "fn",
    [
        torch.special.expit,
        torch.special.erfc,
        torch.special.ndtr,
        torch.special.sinc,
        torch.special.entr,
        lambda x: torch.special.logit(x.abs() / 4 + 0.1),
        lambda x: torch.special.ndtri(x.abs() / 4 + 0.1),
        lambda x: torch.special.xlogy(x, x.abs() + 0.5),
        lambda x: torch.special.xlog1py(x, x.abs()),
        lambda x: torch.nan_to_num(x),
    ],
)
def test_gradcheck(fn):
    x = torch.tensor([-1.3, -0.4, 0.2, 0.9, 1.7], dtype=D, requires_grad=True)
    if fn is torch.special.entr:
        x = x.detach().abs().requires_grad_()
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_values_at_special_points():
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    torch.special.xlogy(x, torch.tensor([0.0, 1.0, 2.0])).sum().backward()
    assert x.grad.tolist() == pytest.approx([0.0, 0.0, math.log(2.0)])
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    torch.special.sinc(x).sum().backward()
    assert x.grad.tolist() == pytest.approx([0.0, -1.0, 0.5])
    x = torch.tensor([math.nan, 1.0, math.inf, -math.inf], requires_grad=True)
    torch.nan_to_num(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 0.0]
    y = torch.tensor([0.0, 2.0], requires_grad=True)
    torch.special.xlogy(torch.tensor([0.0, 0.0]), y).sum().backward()
    assert y.grad.tolist() == [0.0, 0.0]


def test_apply_refuses_tensors_that_require_grad():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.apply_(lambda v: v * 2)
    assert x.detach().apply_(lambda v: v * 2).tolist() == [2.0, 2.0]
