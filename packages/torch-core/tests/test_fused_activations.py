"""The core's one-pass activation kernels (``_C._gelu``, ``_gelu_tanh``, ``_silu``) and their
gradients ``g * f'(x)`` against float64 NumPy/SciPy formulas, over a range that reaches the
tails, in float32 (the vectorised polynomial paths) and float64."""

import math

import numpy as np
import pytest
from scipy.special import erf, expit

import torch
from torch import _C, _packages

# the backward tests need torch-autograd (the core-only session runs without it)
needs_autograd = pytest.mark.skipif(
    not _packages.installed(torch.__path__, "autograd"), reason="needs torch-autograd"
)

K = math.sqrt(2 / math.pi)
C = 0.044715


def gelu(x):
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def gelu_grad(x):
    return 0.5 * (1 + erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(K * (x + C * x**3)))


def gelu_tanh_grad(x):
    t = np.tanh(K * (x + C * x**3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * K * (1 + 3 * C * x * x)


def silu(x):
    return x * expit(x)


def silu_grad(x):
    s = expit(x)
    return s * (1 + x * (1 - s))


CASES = [
    ("_gelu", "_gelu_grad", gelu, gelu_grad),
    ("_gelu_tanh", "_gelu_tanh_grad", gelu_tanh, gelu_tanh_grad),
    ("_silu", "_silu_grad", silu, silu_grad),
]
# absolute error allowed on values of order 1 (and relative beyond): float32's kernels are
# polynomial approximations within a few ulp
TOL = {torch.float32: 2e-6, torch.float64: 1e-13}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("fwd,bwd,f,df", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_the_formulas(fwd, bwd, f, df, dtype):
    x64 = np.concatenate([np.linspace(-12, 12, 100_003), [-80.0, -30.0, 0.0, 30.0, 80.0]])
    x = torch.tensor(x64, dtype=dtype)
    xr = x.double().numpy()  # the values the kernel actually saw
    g = torch.linspace(-2, 2, x.numel(), dtype=dtype)
    tol = TOL[dtype]
    y = getattr(_C, fwd)(x)
    assert y.dtype == dtype and y.shape == x.shape
    ref = f(xr)
    np.testing.assert_allclose(y.double().numpy(), ref, rtol=tol, atol=tol)
    gx = getattr(_C, bwd)(g, x)
    assert gx.dtype == dtype
    np.testing.assert_allclose(gx.double().numpy(), g.double().numpy() * df(xr), rtol=tol, atol=tol)


# float32 gelu = x Phi(x): ulp of the result by range (measured 1.47, 10.7, 41.1 on dense
# grids; the lower tail's Phi is 2^Q(|x|), whose float32 rounding grows with |Q|), then -0.0
# below -5.5 (|error| < 1.1e-7); its gradient within 2e-7 absolute (measured 1.6e-7).
@pytest.mark.parametrize("lo,hi,bound", [(0, 10, 2), (-2, 0, 12), (-5.5, -2, 48)])
def test_gelu_float32_error_bound(lo, hi, bound):
    x = np.linspace(lo, hi, 1_000_001, dtype=np.float32)
    xd = x.astype(np.float64)
    exact = gelu(xd)
    got = _C._gelu(torch.from_numpy(x)).numpy().astype(np.float64)
    ulp = np.spacing(np.maximum(np.abs(exact).astype(np.float32), 1e-38))
    assert (np.abs(got - exact) / ulp).max() <= bound
    gx = _C._gelu_grad(torch.ones(x.size), torch.from_numpy(x)).numpy()
    assert np.abs(gx - gelu_grad(xd)).max() <= 2e-7


def test_gelu_float32_lower_tail_and_signed_zero():
    x = np.linspace(-40, -5.5, 100_001, dtype=np.float32)
    got = _C._gelu(torch.from_numpy(x)).numpy()
    assert np.abs(got - gelu(x.astype(np.float64))).max() < 1.1e-7
    z = _C._gelu(torch.tensor([0.0, -0.0])).numpy()
    assert (z == 0).all() and list(np.signbit(z)) == [False, True]


@pytest.mark.parametrize("fwd,bwd,f,df", CASES, ids=[c[0] for c in CASES])
def test_special_values(fwd, bwd, f, df):
    # NaN stays NaN; +inf is inf; -inf gives NaN (inf * 0), as PyTorch's kernels give
    y = getattr(_C, fwd)(torch.tensor([float("nan"), float("inf"), -float("inf"), -100.0, 100.0]))
    assert math.isnan(y[0].item()) and y[1].item() == math.inf and math.isnan(y[2].item())
    assert y[3].item() == 0.0 and y[4].item() == 100.0
    g = getattr(_C, bwd)(torch.ones(3), torch.tensor([float("nan"), -100.0, 100.0]))
    assert math.isnan(g[0].item()) and g[1].item() == 0.0 and g[2].item() == 1.0


@pytest.mark.parametrize("fwd,bwd,f,df", CASES, ids=[c[0] for c in CASES])
def test_strided_and_half_inputs(fwd, bwd, f, df):
    base = torch.linspace(-5, 5, 600).reshape(20, 30)
    x = base.t()  # non-contiguous
    np.testing.assert_allclose(
        getattr(_C, fwd)(x).numpy(), f(x.double().numpy()), rtol=2e-6, atol=2e-6
    )
    h = base.to(torch.bfloat16)
    yh = getattr(_C, fwd)(h)
    assert yh.dtype == torch.bfloat16
    np.testing.assert_allclose(yh.float().numpy(), f(h.double().numpy()), rtol=1e-2, atol=1e-2)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946

# name, (a, b), f(x, a, b), f'(x, a, b): the activations with parameters
PARAM_CASES = [
    ("_leaky_relu", (0.2, 0.0), lambda x, a, b: np.where(x > 0, x, a * x),
     lambda x, a, b: np.where(x > 0, 1.0, a)),
    ("_elu", (1.5, 1.0), lambda x, a, b: np.where(x > 0, x, a * np.expm1(b * x)),
     lambda x, a, b: np.where(x > 0, 1.0, a * b * np.exp(b * x))),
    ("_elu", (2.0, 0.5), lambda x, a, b: np.where(x > 0, x, a * np.expm1(b * x)),  # celu
     lambda x, a, b: np.where(x > 0, 1.0, a * b * np.exp(b * x))),
    ("_selu", (0.0, 0.0),
     lambda x, a, b: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
     lambda x, a, b: SELU_SCALE * np.where(x > 0, 1.0, SELU_ALPHA * np.exp(x))),
    ("_softplus", (2.0, 20.0),
     lambda x, a, b: np.where(a * x > b, x, np.log1p(np.exp(np.minimum(a * x, b))) / a),
     lambda x, a, b: np.where(a * x > b, 1.0, expit(a * x))),
    ("_hardtanh", (-0.5, 2.0), lambda x, a, b: np.clip(x, a, b),
     lambda x, a, b: np.where((x > a) & (x < b), 1.0, 0.0)),
]  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize(
    "name,params,f,df", PARAM_CASES, ids=[f"{c[0]}{c[1]}" for c in PARAM_CASES]
)
def test_parametrised_activations_and_gradients(name, params, f, df, dtype):
    x = torch.linspace(-15, 15, 30_001, dtype=dtype)
    xr = x.double().numpy()
    g = torch.linspace(-2, 2, x.numel(), dtype=dtype)
    tol = TOL[dtype]
    y = getattr(_C, name)(x, *params)
    assert y.dtype == dtype
    np.testing.assert_allclose(y.double().numpy(), f(xr, *params), rtol=tol, atol=tol)
    gx = getattr(_C, name + "_grad")(g, x, *params)
    expect = g.double().numpy() * df(xr, *params)
    np.testing.assert_allclose(gx.double().numpy(), expect, rtol=tol, atol=tol)
    assert math.isnan(getattr(_C, name)(torch.tensor([float("nan")]), *params).item())


# tanh's and sigmoid's gradients from the forward's output y: g (1 - y^2) and g y (1 - y)
OUTPUT_GRAD_CASES = [
    ("_tanh_grad", np.tanh, lambda g, y: g * (1 - y * y)),
    ("_sigmoid_grad", expit, lambda g, y: g * y * (1 - y)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name,f,df", OUTPUT_GRAD_CASES, ids=[c[0] for c in OUTPUT_GRAD_CASES])
def test_gradients_from_the_output(name, f, df, dtype):
    y = torch.from_numpy(f(np.linspace(-8, 8, 4001))).to(dtype)
    g = torch.linspace(-3, 3, y.numel(), dtype=dtype)
    gx = getattr(_C, name)(g, y)
    assert gx.dtype == dtype and gx.shape == y.shape
    expect = df(g.double().numpy(), y.double().numpy())
    tol = 1e-2 if dtype == torch.bfloat16 else TOL[dtype]
    np.testing.assert_allclose(gx.double().numpy(), expect, rtol=tol, atol=tol)
    # broadcast and strided operands (sum's gradient is an expanded one)
    y2 = y[:4000].reshape(40, 100).t()
    gx2 = getattr(_C, name)(torch.ones((), dtype=dtype).expand(100, 40), y2)
    np.testing.assert_allclose(
        gx2.double().numpy(), df(1.0, y2.double().numpy()), rtol=tol, atol=tol
    )


@needs_autograd
@pytest.mark.parametrize("op", [torch.tanh, torch.sigmoid], ids=lambda f: f.__name__)
def test_tanh_sigmoid_backward_through_the_one_pass_kernels(op):
    x = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(op, (x,))
    assert torch.autograd.gradgradcheck(op, (x,))
    (g,) = torch.autograd.grad(op(x).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == op.__name__.capitalize() + "BackwardBackward0"
    z = torch.randn(4, dtype=torch.complex128, requires_grad=True)  # (the composite path)
    assert torch.autograd.gradcheck(op, (z,))
