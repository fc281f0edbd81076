"""torch.special: special functions, as in ``scipy.special``, written over the core's ops.

Each function is a composite of differentiable core ops, so with torch-autograd installed
they have gradients (and double gradients) with no formulas of their own. Where a branch of
a formula is undefined (``log(0)`` in :func:`xlogy`, ``0/0`` in :func:`sinc`), the input of
that branch is replaced before the op, so that no NaN reaches the gradient of the branch
``where`` does not take.

``erfc``, ``ndtr`` and ``log_ndtr`` are computed from ``erf``: their absolute error is
float epsilon, but far in the tails (``erfc(x)`` for x > ~4 in float32, > ~6 in float64)
the relative error is large, unlike scipy's, until the core has an ``erfc`` kernel.
"""

import math

import torch
from torch import _C
from torch._checks import numpy_dim as _numpy_dim
from torch._checks import write_out as _write_out

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0",
    "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax",
    "xlog1py", "xlogy",
]  # fmt: skip


def _float(x):
    """A tensor in a floating dtype (integers and bools go to the default dtype)."""
    x = x if isinstance(x, torch.Tensor) else torch.as_tensor(x, dtype=torch.get_default_dtype())
    return x if x.dtype.is_floating_point else x.to(torch.get_default_dtype())


def _pair(a, b):
    """Two operands as tensors of their promoted floating dtype (a number promotes weakly)."""
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        raise TypeError("expected at least one Tensor argument")
    dtype = torch.result_type(a, b)
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    a = a.to(dtype) if isinstance(a, torch.Tensor) else torch.full((), a, dtype=dtype)
    b = b.to(dtype) if isinstance(b, torch.Tensor) else torch.full((), b, dtype=dtype)
    return a, b


def expit(input, *, out=None):
    """The logistic sigmoid 1 / (1 + exp(-x))."""
    return _write_out(torch.sigmoid(input), out)


def logit(input, eps=None, *, out=None):
    """log(p / (1 - p)); with ``eps``, p is first clamped to [eps, 1 - eps]."""
    x = _float(input)
    if eps is not None:
        x = torch.clamp(x, eps, 1 - eps)
    return _write_out(torch.log(x / (1 - x)), out)


def erf(input, *, out=None):
    return _write_out(torch.erf(input), out)


def erfc(input, *, out=None):
    """1 - erf(x) (see the module's note on the tails)."""
    return _write_out(1 - torch.erf(_float(input)), out)


def erfinv(input, *, out=None):
    return _write_out(torch.erfinv(input), out)


def ndtr(input, *, out=None):
    """The standard normal distribution function, (1 + erf(x / sqrt 2)) / 2."""
    x = _float(input)
    return _write_out(0.5 * (1 + torch.erf(x * math.sqrt(0.5))), out)


def log_ndtr(input, *, out=None):
    return _write_out(torch.log(ndtr(input)), out)


def ndtri(input, *, out=None):
    """The inverse of :func:`ndtr`: sqrt 2 * erfinv(2p - 1), computed in float64 (2p - 1
    cancels near p = 0, where erfinv is steep)."""
    p = _float(input)
    r = math.sqrt(2.0) * torch.erfinv(2 * p.to(torch.float64) - 1)
    return _write_out(r.to(p.dtype), out)


def xlogy(input, other, *, out=None):
    """x * log(y), and 0 where x == 0 (unless y is NaN)."""
    return _write_out(_x_log(input, other, torch.log, 0.0), out)


def xlog1py(input, other, *, out=None):
    """x * log1p(y), and 0 where x == 0 (unless y is NaN)."""
    return _write_out(_x_log(input, other, torch.log1p, -1.0), out)


def _x_log(x, y, log, pole):
    x, y = _pair(x, y)
    # x == 0 gives 0 whatever y is (NaN aside); only where log(y) is not finite does that
    # need a branch, whose y is replaced so that its gradient stays finite
    special = _C.logical_and(
        _C.eq(x.detach(), 0), _C.logical_or(_C.le(y.detach(), pole), _C.isinf(y.detach()))
    )
    safe_y = torch.where(special, 1.0 + pole if pole else 1.0, y)
    return torch.where(special, 0.0, x * log(safe_y))


def entr(input, *, out=None):
    """-x log x for x > 0, 0 at 0, -inf for x < 0 (NaN stays NaN)."""
    x = _float(input)
    positive = _C.gt(x.detach(), 0)
    safe = torch.where(positive, x, 1.0)
    r = torch.where(positive, -safe * torch.log(safe), torch.where(x == 0, 0.0, -math.inf))
    return _write_out(torch.where(_C.isnan(x.detach()), x, r), out)


def sinc(input, *, out=None):
    """The normalised sinc, sin(pi x) / (pi x), and 1 at 0."""
    x = _float(input)
    zero = _C.eq(x.detach(), 0)
    pix = torch.where(zero, 1.0, x * math.pi)
    return _write_out(torch.where(zero, 1.0, torch.sin(pix) / pix), out)


def round(input, *, decimals=0, out=None):  # noqa: A001
    if decimals:
        scale = 10.0**decimals
        return _write_out(torch.round(input * scale) / scale, out)
    return _write_out(torch.round(input), out)


def exp2(input, *, out=None):
    return _write_out(torch.exp2(input), out)


def expm1(input, *, out=None):
    return _write_out(torch.expm1(input), out)


def log1p(input, *, out=None):
    return _write_out(torch.log1p(input), out)


def softmax(input, dim=None, *, dtype=None, axis=None):
    if axis is not None or dim is None:  # NumPy's axis= for dim=
        dim = _numpy_dim("softmax", dim, axis, required=True)
    return torch.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, *, dtype=None, axis=None):
    if axis is not None or dim is None:  # NumPy's axis= for dim=
        dim = _numpy_dim("log_softmax", dim, axis, required=True)
    return torch.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    return torch.logsumexp(input, dim, keepdim, out=out, axis=axis, keepdims=keepdims)


# log-gamma, digamma and friends, and the modified Bessel functions: written in
# torch._math_ops (see its notes on their accuracy)


def gammaln(input, *, out=None):
    """``log |Gamma(x)|`` (torch.lgamma)."""
    return torch.lgamma(input, out=out)


def digamma(input, *, out=None):
    """The logarithmic derivative of the gamma function (torch.digamma)."""
    return torch.digamma(input, out=out)


def psi(input, *, out=None):
    """:func:`digamma` under its other name."""
    return torch.digamma(input, out=out)


def polygamma(n, input, *, out=None):
    """The n-th derivative of :func:`digamma` (torch.polygamma)."""
    return torch.polygamma(n, input, out=out)


def multigammaln(input, p, *, out=None):
    """The log of the multivariate gamma function (torch.mvlgamma)."""
    return torch.mvlgamma(input, p, out=out)


def i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0 (torch.i0)."""
    return torch.i0(input, out=out)


def i0e(input, *, out=None):
    """``exp(-|x|) * i0(x)``, without overflow for large ``|x|``."""
    return torch._math_ops._i0e(input, out=out)


def i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1."""
    return torch._math_ops._i1(input, out=out)


def i1e(input, *, out=None):
    """``exp(-|x|) * i1(x)``, without overflow for large ``|x|``."""
    return torch._math_ops._i1e(input, out=out)
