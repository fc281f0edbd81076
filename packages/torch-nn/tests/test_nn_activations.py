"""Activations: each module and function against a NumPy formula, gradcheck in float64,
in-place forms and reprs."""

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F

_erf = np.vectorize(math.erf)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# values away from every kink (0, +-0.5, +-1, +-3, 6) so that gradcheck is well defined
X = np.array([[-4.1, -2.7, -1.3, -0.55, -0.2], [0.35, 0.8, 1.6, 2.4, 6.5]])
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

# name -> (module, functional form, NumPy reference)
CASES = {
    "relu": (nn.ReLU(), F.relu, lambda x: np.maximum(x, 0)),
    "relu6": (nn.ReLU6(), F.relu6, lambda x: np.clip(x, 0, 6)),
    "leaky_relu": (
        nn.LeakyReLU(0.2),
        lambda x: F.leaky_relu(x, 0.2),
        lambda x: np.where(x > 0, x, 0.2 * x),
    ),
    "elu": (nn.ELU(0.7), lambda x: F.elu(x, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    "selu": (nn.SELU(), F.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    "celu": (
        nn.CELU(2.0),
        lambda x: F.celu(x, 2.0),
        lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0)),
    ),
    "gelu": (nn.GELU(), F.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (
        nn.GELU("tanh"),
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "silu": (nn.SiLU(), F.silu, lambda x: x * _sigmoid(x)),
    "mish": (nn.Mish(), F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "tanh": (nn.Tanh(), torch.tanh, np.tanh),
    "sigmoid": (nn.Sigmoid(), torch.sigmoid, _sigmoid),
    "hardtanh": (
        nn.Hardtanh(-2.0, 2.0),
        lambda x: F.hardtanh(x, -2.0, 2.0),
        lambda x: np.clip(x, -2, 2),
    ),
    "hardsigmoid": (nn.Hardsigmoid(), F.hardsigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    "hardswish": (nn.Hardswish(), F.hardswish, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    "softplus": (nn.Softplus(), F.softplus, lambda x: np.log1p(np.exp(x))),
    "softplus_beta": (
        nn.Softplus(beta=2.0, threshold=5.0),
        lambda x: F.softplus(x, 2.0, 5.0),
        lambda x: np.where(2 * x > 5, x, np.log1p(np.exp(2 * x)) / 2),
    ),
    "softsign": (nn.Softsign(), F.softsign, lambda x: x / (1 + np.abs(x))),
    "threshold": (
        nn.Threshold(0.5, -3.0),
        lambda x: F.threshold(x, 0.5, -3.0),
        lambda x: np.where(x > 0.5, x, -3.0),
    ),
    "logsigmoid": (nn.LogSigmoid(), F.logsigmoid, lambda x: -np.log1p(np.exp(-x))),
    "tanhshrink": (nn.Tanhshrink(), F.tanhshrink, lambda x: x - np.tanh(x)),
    "softshrink": (
        nn.Softshrink(0.5),
        F.softshrink,
        lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)),
    ),
    "hardshrink": (nn.Hardshrink(0.5), F.hardshrink, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_matches_numpy(name):
    module, fn, ref = CASES[name]
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor(X, dtype=dtype)
        expected = ref(X)
        rtol = 1e-5 if dtype == torch.float32 else 1e-10
        np.testing.assert_allclose(module(x).numpy(), expected, rtol=rtol, atol=rtol)
        np.testing.assert_allclose(fn(x).numpy(), expected, rtol=rtol, atol=rtol)
        assert module(x).dtype == dtype


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    module, fn, _ = CASES[name]
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(module, (x,))
    assert torch.autograd.gradcheck(fn, (x,))


def test_large_inputs_stay_finite():
    x = torch.tensor([-200.0, -50.0, 50.0, 200.0], requires_grad=True)
    for fn in (F.elu, F.selu, F.celu, F.softplus, F.logsigmoid, F.mish, F.silu, F.gelu):
        y = fn(x)
        y.sum().backward()
        assert bool(torch.isfinite(x.grad).all()), fn.__name__
        x.grad = None
    np.testing.assert_allclose(F.softplus(x).detach().numpy(), [0, 0, 50, 200], atol=1e-6)
    np.testing.assert_allclose(F.logsigmoid(x).detach().numpy(), [-200, -50, 0, 0], atol=1e-6)


@pytest.mark.parametrize(
    "fn,inplace",
    [
        (F.relu, F.relu_),
        (F.elu, F.elu_),
        (F.leaky_relu, F.leaky_relu_),
        (F.hardtanh, F.hardtanh_),
        (F.selu, F.selu_),
        (F.celu, F.celu_),
    ],
)
def test_inplace_forms(fn, inplace):
    x = torch.tensor(X)
    expected = fn(x.clone())
    out = inplace(x)
    assert out is x
    assert torch.allclose(x, expected)
    y = torch.tensor(X)
    assert fn(y, inplace=True) is y and torch.allclose(y, expected)


def test_inplace_module_modifies_input_and_keeps_gradients():
    base = torch.tensor(X, requires_grad=True)
    x = base * 1.0
    y = nn.ReLU(inplace=True)(x)
    assert y is x
    y.sum().backward()
    assert base.grad.tolist() == (np.asarray(X) > 0).astype(float).tolist()


# Every in-place form under autograd: the gradient equals the out-of-place form's (their
# formulas keep the input, which the in-place write must not overwrite: DCGAN's
# LeakyReLU(inplace=True) raised "modified by an inplace operation" in backward).
@pytest.mark.parametrize(
    "call",
    [
        lambda x, ip: F.threshold(x, 0.5, -2.0, inplace=ip),
        lambda x, ip: F.hardtanh(x, -1.0, 2.0, inplace=ip),
        lambda x, ip: F.relu6(x, inplace=ip),
        lambda x, ip: F.leaky_relu(x, 0.2, inplace=ip),
        lambda x, ip: F.elu(x, 0.7, inplace=ip),
        lambda x, ip: F.selu(x, inplace=ip),
        lambda x, ip: F.celu(x, 1.3, inplace=ip),
        lambda x, ip: F.rrelu(x, inplace=ip),
        lambda x, ip: F.silu(x, inplace=ip),
        lambda x, ip: F.mish(x, inplace=ip),
        lambda x, ip: F.hardsigmoid(x, inplace=ip),
        lambda x, ip: F.hardswish(x, inplace=ip),
        lambda x, ip: F.softsign(x) if not ip else F.softsign_(x),
    ],
)
def test_inplace_forms_give_the_out_of_place_gradients(call):
    grads = []
    for ip in (False, True):
        base = torch.tensor(X, requires_grad=True)
        x = base * 1.0
        y = call(x, ip)
        assert (y is x) == ip
        (y * torch.arange(10.0, dtype=torch.float64).reshape(2, 5)).sum().backward()
        grads.append(base.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)


def test_prelu_per_channel():
    m = nn.PReLU(3, init=0.1)
    assert m.weight.shape == (3,) and m.weight.tolist() == pytest.approx([0.1] * 3)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([0.1, 0.2, 0.3]))
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    w = np.array([0.1, 0.2, 0.3]).reshape(1, 3, 1)
    xn = x.numpy()
    np.testing.assert_allclose(m.double()(x).detach().numpy(), np.where(xn > 0, xn, w * xn))
    xg = x.clone().requires_grad_()
    assert torch.autograd.gradcheck(lambda a, b: F.prelu(a, b), (xg, m.weight))
    with pytest.raises(RuntimeError):
        nn.PReLU(4)(torch.randn(2, 3, 4))


def test_glu():
    x = torch.randn(2, 6, dtype=torch.float64, requires_grad=True)
    a, b = x.detach().numpy()[:, :3], x.detach().numpy()[:, 3:]
    np.testing.assert_allclose(nn.GLU()(x).detach().numpy(), a * _sigmoid(b))
    np.testing.assert_allclose(F.glu(x.t(), 0).detach().numpy(), (a * _sigmoid(b)).T)
    assert torch.autograd.gradcheck(F.glu, (x,))
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(torch.randn(3))


def test_rrelu_eval_uses_mean_slope_and_train_slopes_in_range():
    x = torch.tensor([-1.0, 2.0])
    m = nn.RReLU(0.1, 0.3).eval()
    np.testing.assert_allclose(m(x).numpy(), [-0.2, 2.0], rtol=1e-6)
    m.train()
    y = m(-torch.ones(1000))
    assert bool(((y <= -0.1) & (y >= -0.3)).all())


def test_gelu_rejects_unknown_approximation():
    with pytest.raises(RuntimeError):
        F.gelu(torch.ones(1), approximate="fast")


def test_hardtanh_arguments_checked():
    with pytest.raises((ValueError, AssertionError)):  # PyTorch asserts
        nn.Hardtanh(1.0, -1.0)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.leaky_relu(x, 0.2),
        lambda x: F.elu(x, 0.7),
        lambda x: F.celu(x, 2.0),
        F.selu,
        lambda x: F.softplus(x, beta=2.0, threshold=3.0),
        lambda x: F.hardtanh(x, -2.0, 2.0),
        F.gelu,
        lambda x: F.gelu(x, approximate="tanh"),
        F.silu,
    ],
    ids=["leaky_relu", "elu", "celu", "selu", "softplus", "hardtanh", "gelu", "gelu_tanh", "silu"],
)
def test_fused_activations_have_second_derivatives(fn):
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(fn, (x,))
    assert torch.autograd.gradgradcheck(fn, (x,))
