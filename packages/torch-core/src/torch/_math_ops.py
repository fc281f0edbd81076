"""Math ops written as compositions of the core's tensor ops: elementwise binary helpers
(copysign, fmax, hypot, logaddexp, gcd, ...), reductions and array tools (aminmax, diff,
gradient, trapezoid, cov, histogram, isin, ...), small linear algebra (addbmm, addr, inner,
block_diag, cdist, matrix_exp) and special functions (lgamma, digamma, polygamma, mvlgamma,
the modified Bessel functions i0/i0e/i1/i1e).

Every op is built from differentiable core ops, so with torch-autograd installed they have
gradients with no formulas of their own. Ops are looked up on ``torch`` at call time, so
that the autograd wrappers are the ones called. Where a branch of a formula is undefined on
some inputs (``log(0)``, ``0/0``), the input of that branch is replaced before the op, so
that no NaN reaches the gradient of the branch ``where`` does not take.

The special functions are evaluated in float64 (complex128 for matrix_exp of complex
inputs) and cast back to the result dtype:

* ``lgamma`` and ``digamma`` shift the argument up by the recurrences
  Gamma(x + 1) = x Gamma(x) and psi(x + 1) = psi(x) + 1/x until it is at least 10, then use
  their Stirling/asymptotic series; negative arguments go through the reflection formulas.
* ``polygamma(n, x)`` for n >= 1 is (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta function
  summed directly up to a shifted argument and finished with its Euler-Maclaurin tail.
* ``i0``/``i1`` use the power series for |x| <= 25 (all terms of one sign, so there is no
  cancellation) and the large-argument asymptotic expansion above it.
* ``matrix_exp`` scales the matrix to 1-norm <= 1/2, sums an 18-term Taylor series and
  squares back.
"""

import builtins
import itertools
import math

import torch
from torch._checks import (
    check_castable,
    check_given,
    check_tensor,
    dtype_name,
    numpy_args,
    numpy_dim,
    write_out,
    write_outs,
)
from torch._functional import _method_as_function, result_type
from torch._tensor import tensor_method

Tensor = torch.Tensor

# torch.f_(input, ...) for the in-place Tensor methods made here (torch.gcd_(x, y) is x.gcd_(y))
_INPLACE_FUNCTIONS = (
    "square_", "xlogy_", "logit_", "i0_", "sinc_", "erfc_", "gcd_", "lcm_", "ldexp_", "deg2rad_",
    "rad2deg_",
)  # fmt: skip
__all__ = [
    "addbmm", "addr", "aminmax", "block_diag", "cdist", "combinations", "copysign", "corrcoef",
    "cov", "cumulative_trapezoid", "deg2rad", "diff", "digamma", "float_power", "fmax", "fmin",
    "frexp", "gcd", "gradient", "heaviside", "histogram", "hypot", "i0", "inner", "isin",
    "lcm", "ldexp", "lgamma", "logaddexp", "logaddexp2", "matrix_exp", "mvlgamma", "polygamma",
    "positive", "rad2deg", "ravel", "renorm", "rsub", "signbit", "trapezoid", "trapz",
    "isposinf", "isneginf", "isreal", "nextafter", "vander", "is_nonzero", "is_signed",
    "is_same_size", *_INPLACE_FUNCTIONS,
]  # fmt: skip


# ---------------------------------------------------------------- named results


_aminmax = result_type("aminmax", ["min", "max"])
_frexp = result_type("frexp", ["mantissa", "exponent"])
_histogram = result_type("histogram", ["hist", "bin_edges"])


# ---------------------------------------------------------------- argument helpers


def _not_implemented(op, dtype):
    raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dtype_name(dtype)}'")


def _float_dtype(dtype):
    """The floating dtype an op over ``dtype`` computes in (integers and bools: the default)."""
    return dtype if (dtype.is_floating_point or dtype.is_complex) else torch.get_default_dtype()


def _as_float(x):
    """``x`` as a tensor of its floating dtype (integers and bools go to the default dtype)."""
    if not isinstance(x, Tensor):
        x = torch.as_tensor(x, dtype=torch.get_default_dtype())
    dt = _float_dtype(x.dtype)
    return x if x.dtype == dt else x.to(dt)


def _float_pair(a, b, op, scalars=True):
    """Two operands in their promoted floating dtype (a number promotes weakly)."""
    if scalars:
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise TypeError(f"{op}(): expected at least one Tensor argument")
    else:
        check_tensor(a, op, "input", 1)
        check_tensor(b, op, "other", 2)
    dtype = _float_dtype(torch.result_type(a, b))
    a = a.to(dtype) if isinstance(a, Tensor) else torch.full((), a, dtype=dtype)
    b = b.to(dtype) if isinstance(b, Tensor) else torch.full((), b, dtype=dtype)
    return a, b


def _real_float_pair(a, b, op):
    """Tensor operands of a real floating op (integers promote to the default dtype only when
    mixed with a float; two integer tensors raise like PyTorch's kernels)."""
    check_tensor(a, op, "input", 1)
    check_tensor(b, op, "other", 2)
    dtype = torch.result_type(a, b)
    if not dtype.is_floating_point:
        _not_implemented(op, dtype)
    return a.to(dtype), b.to(dtype)


def _safe(mask, x, fill):
    """x where mask is False, ``fill`` where it is True (mask is taken without gradient)."""
    return torch.where(mask, fill, x)


def _f64(x):
    """x in float64 (complex128 for complex) and the dtype its result goes back to."""
    x = _as_float(x)
    dt = x.dtype
    return x.to(torch.complex128 if dt.is_complex else torch.float64), dt


def _inplace(fn, name):
    def method(self, *args, **kwargs):
        result = fn(self, *args, **kwargs)
        check_castable(result.dtype, self.dtype)
        if tuple(result.shape) != tuple(self.shape):
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                f"{list(result.shape)}"
            )
        return self.copy_(result)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = (
        f"In-place :func:`torch.{name[:-1]}` with ``self`` as the first argument: the result "
        "must keep ``self``'s shape and be castable to its dtype. Returns ``self``."
    )
    return method


# ---------------------------------------------------------------- elementwise


def signbit(input, *, out=None):
    """True where the sign of ``input`` is negative (including -0.0)."""
    check_tensor(input, "signbit")
    if input.dtype.is_complex:
        raise RuntimeError("signbit is not implemented for complex tensors.")
    if input.dtype == torch.bool:
        r = torch.zeros(input.shape, dtype=torch.bool, device=input.device)
    elif not input.dtype.is_floating_point:
        r = input < 0
    else:
        x = input.detach()
        zero = x == 0
        r = torch.logical_or(x < 0, torch.logical_and(zero, (1 / _safe(~zero, x, 1.0)) < 0))
    return write_out(r, out)


def copysign(input, other, *, out=None):
    """``|input|`` with the sign of ``other`` (a float result; -0.0 counts as negative)."""
    a, b = _float_pair(input, other, "copysign")
    neg = signbit(b)
    # a product, not a negation: the core's neg(0.0) is +0.0
    return write_out(torch.abs(a) * torch.where(neg, -1.0, 1.0).to(a.dtype), out)


def _fminmax(op, pick, input, other, out):
    check_tensor(input, op, "input", 1)
    check_tensor(other, op, "other", 2)
    if input.dtype.is_complex or other.dtype.is_complex:
        raise RuntimeError(f"{op} not implemented for complex tensors.")
    r = pick(input, other)
    if r.dtype.is_floating_point:
        a_nan = torch.isnan(input.detach())
        b_nan = torch.isnan(other.detach())
        dt = r.dtype
        r = torch.where(b_nan, input.to(dt), torch.where(a_nan, other.to(dt), r))
    return write_out(r, out)


def fmax(input, other, *, out=None):
    """Elementwise maximum that ignores NaN (NaN only where both are NaN)."""
    return _fminmax("fmax", torch.maximum, input, other, out)


def fmin(input, other, *, out=None):
    """Elementwise minimum that ignores NaN (NaN only where both are NaN)."""
    return _fminmax("fmin", torch.minimum, input, other, out)


def hypot(input, other, *, out=None):
    """sqrt(input**2 + other**2), with both scaled by a power of two near the larger magnitude
    first, so that neither the result nor its gradient overflows or underflows."""
    a, b = _real_float_pair(input, other, "hypot")
    ad, bd = a.detach(), b.detach()
    big = torch.maximum(torch.abs(ad), torch.abs(bd))
    zero = big == 0
    inf = torch.logical_or(torch.isinf(ad), torch.isinf(bd))
    e = torch.floor(torch.log2(torch.where(torch.logical_or(zero, ~torch.isfinite(big)), 1.0, big)))
    half = torch.floor(e / 2)  # two factors, each representable even for subnormal inputs
    s1, s2 = torch.exp2(-half), torch.exp2(half - e)
    x, y = a * s1 * s2, b * s1 * s2
    r = torch.sqrt(_safe(zero, x * x + y * y, 1.0)) / s2 / s1
    r = torch.where(zero, 0.0, r)  # gradient 0 at (0, 0) (PyTorch's is NaN there)
    r = torch.where(inf, math.inf, r)
    return write_out(r, out)


def _logaddexp(op, input, other, out, base2):
    a, b = _real_float_pair(input, other, op)
    ad, bd = a.detach(), b.detach()
    same = ad == bd  # also inf == inf, where a - b is NaN
    m = torch.maximum(a, b)
    d = _safe(same, a - b, 0.0)
    ad_ = torch.abs(d)
    if base2:
        r = m + torch.log1p(torch.exp2(-ad_)) / math.log(2.0)
        r = torch.where(same, (a + b) / 2 + 1.0, r)
    else:
        r = m + torch.log1p(torch.exp(-ad_))
        r = torch.where(same, (a + b) / 2 + math.log(2.0), r)
    return write_out(r, out)


def logaddexp(input, other, *, out=None):
    """log(exp(input) + exp(other)) without overflow."""
    return _logaddexp("logaddexp", input, other, out, False)


def logaddexp2(input, other, *, out=None):
    """log2(2**input + 2**other) without overflow."""
    return _logaddexp("logaddexp2", input, other, out, True)


def positive(input):
    """``input`` itself (unary plus); bool tensors raise, as in PyTorch."""
    check_tensor(input, "positive")
    if input.dtype == torch.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    """The elements of ``input`` as a contiguous 1-D tensor (a view when possible)."""
    check_tensor(input, "ravel")
    return input.reshape(-1)


def rsub(input, other, *, alpha=1):
    """other - alpha * input."""
    check_tensor(input, "rsub")
    if not isinstance(other, Tensor):
        other = torch.full((), other, dtype=torch.result_type(input, other))
    return torch.sub(other, input, alpha=alpha)


def heaviside(input, values, *, out=None):
    """0 where input < 0, ``values`` where input == 0, 1 where input > 0."""
    check_tensor(input, "heaviside", "input", 1)
    check_tensor(values, "heaviside", "values", 2)
    if input.dtype.is_complex or values.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x = input.detach()
    r = torch.where(x == 0, values, (x > 0).to(input.dtype))
    return write_out(r, out)


def _angle_scale(op, input, factor, out):
    check_tensor(input, op)
    if input.dtype.is_complex:
        raise RuntimeError(f"{op} is not supported for complex tensors.")
    return write_out(_as_float(input) * factor, out)


def deg2rad(input, *, out=None):
    """Degrees to radians."""
    return _angle_scale("deg2rad", input, math.pi / 180.0, out)


def rad2deg(input, *, out=None):
    """Radians to degrees."""
    return _angle_scale("rad2deg", input, 180.0 / math.pi, out)


def _float_power_dtype(input, exponent):
    cplx = any(
        isinstance(v, complex) or (isinstance(v, Tensor) and v.is_complex())
        for v in (input, exponent)
    )
    return torch.complex128 if cplx else torch.float64


def float_power(input, exponent, *, out=None):
    """input ** exponent computed in double precision (float64, or complex128 when either
    operand is complex)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): expected at least one Tensor argument")
    dt = _float_power_dtype(input, exponent)
    base = input.to(dt) if isinstance(input, Tensor) else torch.full((), input, dtype=dt)
    exp = exponent.to(dt) if isinstance(exponent, Tensor) else exponent
    if isinstance(exp, builtins.bool):
        exp = builtins.int(exp)
    return write_out(torch.pow(base, exp), out)


def _float_power_(self, exponent):
    """In-place :func:`torch.float_power`: ``self`` must already be float64 (or complex128), the
    dtype the result has; returns ``self``."""
    dt = _float_power_dtype(self, exponent)
    if self.dtype != dt:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {dtype_name(self.dtype)} but the "
            f"operation's result requires dtype {dtype_name(dt)}"
        )
    return self.copy_(float_power(self, exponent))


def ldexp(input, other, *, out=None):
    """input * 2**other."""
    check_tensor(input, "ldexp", "input", 1)
    check_tensor(other, "ldexp", "other", 2)
    dtype = _float_dtype(torch.result_type(input, other))
    return write_out(input.to(dtype) * torch.exp2(other.to(dtype)), out)


def frexp(input, *, out=None):
    """(mantissa, exponent) with input = mantissa * 2**exponent and ``0.5 <= |mantissa| < 1``;
    the exponent is int32, and 0, inf and NaN have exponent 0."""
    check_tensor(input, "frexp")
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with torch.no_grad():
        x = input.detach().to(torch.float64)
        a = torch.abs(x)
        ok = torch.logical_and(torch.isfinite(a), a > 0)
        sa = _safe(~ok, a, 1.0)
        e = torch.floor(torch.log2(sa)) + 1
        m = sa * torch.exp2(-e)
        e = torch.where(m >= 1, e + 1, torch.where(m < 0.5, e - 1, e))
        e = torch.where(ok, e, 0.0)
    mantissa = (
        input / torch.exp2(e).to(input.dtype)
        if input.dtype == torch.float64
        else ((input.to(torch.float64) / torch.exp2(e)).to(input.dtype))
    )
    exponent = e.to(torch.int32)
    return write_outs(_frexp(mantissa, exponent), out)


def _int_pair(input, other, op):
    check_tensor(input, op, "input", 1)
    check_tensor(other, op, "other", 2)
    dtype = torch.result_type(input, other)
    if dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
        _not_implemented(op, dtype)
    a, b = torch.broadcast_tensors(input.to(dtype), other.to(dtype))
    return a, b


def _gcd(a, b):
    a, b = torch.abs(a), torch.abs(b)
    while True:
        nz = b != 0
        if not bool(nz.any()):
            return a
        r = torch.where(nz, torch.remainder(a, torch.where(nz, b, 1)), 0)
        a = torch.where(nz, b, a)
        b = r


def gcd(input, other, *, out=None):
    """The greatest common divisor of integer tensors (non-negative; gcd(0, 0) = 0)."""
    a, b = _int_pair(input, other, "gcd")
    return write_out(_gcd(a, b).to(a.dtype), out)


def lcm(input, other, *, out=None):
    """The least common multiple of integer tensors (non-negative; 0 when either is 0)."""
    a, b = _int_pair(input, other, "lcm")
    g = _gcd(a, b).to(a.dtype)
    zero = g == 0
    r = torch.abs(torch.div(a, torch.where(zero, 1, g), rounding_mode="trunc") * b)
    return write_out(torch.where(zero, 0, r).to(a.dtype), out)


def _isinf_signed(input, out, op, value):
    check_tensor(input, op)
    if input.dtype.is_complex:
        raise RuntimeError(f"{op} does not support complex inputs.")
    if input.dtype.is_floating_point:
        result = torch.eq(input, value)
    else:
        result = torch.zeros(input.shape, dtype=torch.bool, device=input.device)
    return write_out(result, out)


def isposinf(input, *, out=None):
    """True where ``input`` is positive infinity (never for integers; complex raises)."""
    return _isinf_signed(input, out, "isposinf", math.inf)


def isneginf(input, *, out=None):
    """True where ``input`` is negative infinity (never for integers; complex raises)."""
    return _isinf_signed(input, out, "isneginf", -math.inf)


def isreal(input):
    """True where the imaginary part of ``input`` is zero (everywhere for real dtypes)."""
    check_tensor(input, "isreal")
    if input.dtype.is_complex:
        return torch.eq(input.imag, 0)
    return torch.ones(input.shape, dtype=torch.bool, device=input.device)


_SAME_WIDTH_INT = {
    torch.float64: torch.int64,
    torch.float32: torch.int32,
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
}


def _reinterpret(t, dtype):
    """The bytes of ``t`` read as ``dtype`` (of the same width), in a new contiguous tensor."""
    t = t.contiguous()
    return torch._C._tensor_from_storage(
        t.untyped_storage(), dtype, t.storage_offset(), tuple(t.shape), t.stride()
    ).clone()


def nextafter(input, other, *, out=None):
    """The next floating-point value after ``input`` towards ``other``, elementwise (in the
    promoted dtype): the bit pattern read as an integer, one step up or down."""
    a, b = _real_float_pair(input, other, "nextafter")
    a, b = torch.broadcast_tensors(a.detach(), b.detach())
    bits = _reinterpret(a, _SAME_WIDTH_INT[a.dtype])
    # away from zero when moving the way the sign points: the magnitude grows, so do the bits
    step = torch.where(torch.gt(b, a) == torch.gt(a, 0), 1, -1).to(bits.dtype)
    result = _reinterpret(torch.add(bits, step), a.dtype)
    tiny = _reinterpret(torch.ones((), dtype=bits.dtype), a.dtype)  # the least subnormal
    result = torch.where(torch.eq(a, 0), torch.copysign(tiny, b), result)
    result = torch.where(torch.eq(a, b), b, result)
    result = torch.where(torch.isnan(a) | torch.isnan(b), a + b, result)
    return write_out(result, out)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: column j is ``x ** (N - 1 - j)`` (``x ** j``
    with ``increasing``); N defaults to ``len(x)``. Integers and bools compute in int64."""
    check_tensor(x, "vander", "x")
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(torch.int64)
    ones = torch.ones((x.shape[0], builtins.min(n, 1)), dtype=x.dtype, device=x.device)
    powers = x.unsqueeze(1).expand(x.shape[0], builtins.max(n - 1, 0))
    result = torch.cat([ones, powers], 1).cumprod(1)
    return result if increasing else result.flip(1)


def is_nonzero(input):
    """``bool(input)`` for a one-element tensor: False only for a zero; more or fewer elements
    raise."""
    check_tensor(input, "is_nonzero")
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item())


def is_signed(input):
    """True when ``input``'s dtype holds negative values (not for uint8 or bool)."""
    check_tensor(input, "is_signed")
    return input.dtype not in (torch.uint8, torch.bool)


def is_same_size(input, other):
    """True when the two tensors have the same shape."""
    check_tensor(input, "is_same_size")
    check_tensor(other, "is_same_size", "other", 2)
    return input.shape == other.shape


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor of the shape of ``elements``: whether each element is in
    ``test_elements`` (either may be a number, not both)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): expected at least one Tensor argument")
    dtype = torch.result_type(elements, test_elements)
    e = (
        elements.to(dtype)
        if isinstance(elements, Tensor)
        else torch.full((), elements, dtype=dtype)
    )
    t = (
        test_elements.to(dtype)
        if isinstance(test_elements, Tensor)
        else torch.full((), test_elements, dtype=dtype)
    )
    e, t = e.detach(), t.detach().reshape(-1)
    if t.numel() == 0:
        found = torch.zeros(e.shape, dtype=torch.bool, device=e.device)
    else:
        s = torch.sort(t).values
        idx = torch.clamp(torch.searchsorted(s, e.reshape(-1)), max=s.numel() - 1)
        found = (s[idx] == e.reshape(-1)).reshape(e.shape)
    return torch.logical_not(found) if invert else found


# ---------------------------------------------------------------- reductions and array tools


def aminmax(input, *, dim=None, keepdim=False, out=None, axis=None, keepdims=None):
    """(min, max) over ``dim`` (all elements by default)."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("aminmax", dim, keepdim, axis, keepdims, None)
    check_tensor(input, "aminmax")
    if input.numel() == 0 and (dim is None or input.shape[dim] == 0):
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity."
        )
    if dim is None:
        lo, hi = torch.amin(input), torch.amax(input)
        if keepdim:
            shape = (1,) * input.dim()
            lo, hi = lo.reshape(shape), hi.reshape(shape)
    else:
        lo, hi = torch.amin(input, dim, keepdim), torch.amax(input, dim, keepdim)
    return write_outs(_aminmax(lo, hi), out)


def diff(input, n=1, dim=-1, prepend=None, append=None, *, axis=None):
    """The n-th forward difference along ``dim`` (logical xor for bools)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("diff", dim, axis, -1)
    check_tensor(input, "diff")
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = [p for p in (prepend, input, append) if p is not None]
    if len(parts) > 1:
        x = torch.cat([p if p.dim() else p.expand(1) for p in parts], dim=dim)
    else:
        x = input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        hi, lo = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = torch.logical_xor(hi, lo) if x.dtype == torch.bool else hi - lo
    return x


def _dims_arg(dim, ndim):
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, builtins.int):
        return [dim % ndim if ndim else dim]
    return [d % ndim for d in dim]


def gradient(input, *, spacing=1, dim=None, edge_order=1, axis=None):
    """The gradient of ``input`` sampled on a grid, by second-order central differences inside
    and one-sided differences of order ``edge_order`` (1 or 2) at the edges; one tensor per
    dimension in ``dim``. ``spacing`` is one number (for every dimension), a list of numbers
    (one per dimension), or a list of 1-D coordinate tensors."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("gradient", dim, axis, None)
    check_tensor(input, "gradient")
    if edge_order not in (1, 2):
        raise RuntimeError(
            f"torch.gradient only supports edge_order=1 and edge_order=2. Got {edge_order}"
        )
    dims = _dims_arg(dim, input.dim())
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                f"and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}."
            )
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    x = (
        input
        if (input.dtype.is_floating_point or input.dtype.is_complex)
        else input.to(torch.get_default_dtype())
    )
    return tuple(_gradient_1d(x, d, h, edge_order) for d, h in zip(dims, spacings))


def _along(t, d, ndim):
    """A 1-D tensor shaped to broadcast along dimension d of an ndim-D tensor."""
    shape = [1] * ndim
    shape[d] = -1
    return t.reshape(shape)


def _gradient_1d(f, d, h, edge_order):
    n = f.shape[d]
    nd = f.dim()

    def sl(start, length):
        return f.narrow(d, start, length)

    if isinstance(h, Tensor) and h.dim() == 1:
        if h.shape[0] != n:
            raise RuntimeError(
                f"torch.gradient expected each tensor to be on the same device and with the "
                f"size of the given dimension, but got {h.shape[0]} coordinates for a "
                f"dimension of size {n}"
            )
        x = h.to(f.dtype) if f.dtype.is_floating_point else h
        dx = x[1:] - x[:-1]
        hs, hd = _along(dx[:-1], d, nd), _along(dx[1:], d, nd)
        interior = (
            hs * hs * sl(2, n - 2) + (hd * hd - hs * hs) * sl(1, n - 2) - hd * hd * sl(0, n - 2)
        ) / (hs * hd * (hd + hs))
        if edge_order == 1:
            first = (sl(1, 1) - sl(0, 1)) / dx[0]
            last = (sl(n - 1, 1) - sl(n - 2, 1)) / dx[-1]
        else:
            a1, a2 = dx[0], dx[1]
            first = (
                -(2 * a1 + a2) / (a1 * (a1 + a2)) * sl(0, 1)
                + (a1 + a2) / (a1 * a2) * sl(1, 1)
                - a1 / (a2 * (a1 + a2)) * sl(2, 1)
            )
            b1, b2 = dx[-2], dx[-1]
            last = (
                b2 / (b1 * (b1 + b2)) * sl(n - 3, 1)
                - (b1 + b2) / (b1 * b2) * sl(n - 2, 1)
                + (2 * b2 + b1) / (b2 * (b1 + b2)) * sl(n - 1, 1)
            )
    else:
        if isinstance(h, Tensor):
            h = h.item()
        interior = (sl(2, n - 2) - sl(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (sl(1, 1) - sl(0, 1)) / h
            last = (sl(n - 1, 1) - sl(n - 2, 1)) / h
        else:
            first = (-1.5 * sl(0, 1) + 2 * sl(1, 1) - 0.5 * sl(2, 1)) / h
            last = (0.5 * sl(n - 3, 1) - 2 * sl(n - 2, 1) + 1.5 * sl(n - 1, 1)) / h
    return torch.cat([first, interior, last], dim=d)


def _trapezoid_parts(y, x, dx, dim, op):
    check_tensor(y, op, "y", 1)
    if x is not None and dx is not None:
        raise TypeError(f"{op}(): pass either x or dx, not both")
    d = dim % y.dim() if y.dim() else dim
    n = y.shape[d]
    yf = y if (y.dtype.is_floating_point or y.dtype.is_complex) else y.to(torch.get_default_dtype())
    if n == 0:
        return yf, d, n
    avg = (yf.narrow(d, 1, n - 1) + yf.narrow(d, 0, n - 1)) / 2
    if x is not None:
        check_tensor(x, op, "x", 2)
        xf = x if x.dtype.is_floating_point else x.to(yf.dtype)
        if xf.dim() == 1:
            if xf.shape[0] != n:
                raise RuntimeError(
                    f"{op}: There must be one `x` value for each sample point, but got "
                    f"{xf.shape[0]} for {n} samples"
                )
            spans = _along(xf[1:] - xf[:-1], d, y.dim())
        else:
            m = xf.shape[d]
            spans = xf.narrow(d, 1, m - 1) - xf.narrow(d, 0, m - 1)
        return avg * spans, d, n
    return avg * (1 if dx is None else dx), d, n


def trapezoid(y, x=None, *, dx=None, dim=-1, axis=None):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, over sample points ``x``
    or with uniform spacing ``dx`` (1 by default)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("trapezoid", dim, axis, -1)
    parts, d, n = _trapezoid_parts(y, x, dx, dim, "trapezoid")
    if n == 0:
        return torch.sum(parts, d) * 0
    return torch.sum(parts, d)


def trapz(y, x=None, *, dx=None, dim=-1, axis=None):
    """:func:`trapezoid` (the older name)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("trapz", dim, axis, -1)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1, axis=None):
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule (one value fewer
    than ``y`` along ``dim``)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("cumulative_trapezoid", dim, axis, -1)
    parts, d, n = _trapezoid_parts(y, x, dx, dim, "cumulative_trapezoid")
    if n == 0:
        return parts
    return torch.cumsum(parts, d)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in its
    columns), with optional integer frequency weights and real observation weights."""
    check_tensor(input, "cov")
    if input.dim() > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions"
        )
    x = input if input.dim() == 2 else input.reshape(1, -1)
    x = _as_float(x)
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dtype.is_floating_point or fweights.dtype.is_complex:
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        if fweights.dim() > 1 or fweights.numel() != nobs:
            raise RuntimeError(
                f"cov(): expected fweights to have one dimension and {nobs} elements"
            )
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights.to(x.dtype)
    if aweights is not None:
        if not aweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype")
        if aweights.dim() > 1 or aweights.numel() != nobs:
            raise RuntimeError(
                f"cov(): expected aweights to have one dimension and {nobs} elements"
            )
        if bool((aweights.detach() < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        aw = aweights.to(x.dtype)
        w = aw if w is None else w * aw
    if w is None:
        w_sum = float(nobs)
        avg = torch.mean(x, 1, keepdim=True)
    else:
        w_sum = torch.sum(w)
        avg = torch.sum(x * w, 1, keepdim=True) / w_sum
    if w is None:
        norm = w_sum - correction
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * torch.sum(w * aw) / w_sum
    if isinstance(norm, Tensor):
        norm = torch.clamp(norm, min=0)
    else:
        norm = builtins.max(norm, 0.0)
    xm = x - avg
    xw = xm if w is None else xm * w
    other = xm.conj() if xm.is_complex() else xm
    c = torch.matmul(xw, other.transpose(0, 1)) / norm
    return c.reshape(()) if input.dim() < 2 else c


def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of ``input``."""
    check_tensor(input, "corrcoef")
    if input.dim() > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions"
        )
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = torch.diagonal(c)
    if c.is_complex():
        d = d.real
    s = torch.sqrt(d)
    c = c / s.unsqueeze(1) / s.unsqueeze(0)
    if c.is_complex():
        return c
    return torch.clamp(c, -1, 1)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """(hist, bin_edges): counts (or summed ``weight``) of ``input`` in ``bins`` equal bins
    over ``range`` (the data's span by default), or in bins with the given edges; the last
    bin includes its right edge. With ``density`` the counts become a density."""
    check_tensor(input, "histogram")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{dtype_name(input.dtype)}'"
        )
    dtype = input.dtype
    x = input.detach().reshape(-1)
    if isinstance(bins, Tensor):
        if bins.dim() != 1:
            raise RuntimeError(
                "torch.histogram: bins tensor should have one dimension, but got "
                f"{bins.dim()} dimensions"
            )
        if bins.dtype != dtype:
            raise RuntimeError(
                "torch.histogram: input tensor and bins tensors should have the same dtype, "
                f"but got input {dtype} and bins {bins.dtype}"
            )
        edges = bins.detach()
        nbins = edges.numel() - 1
        if nbins < 1:
            raise RuntimeError("torch.histogram: bin tensor should have at least 1 element")
    else:
        nbins = builtins.int(bins)
        if nbins <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {nbins} for dimension 0"
            )
        if range is not None:
            lo, hi = builtins.float(range[0]), builtins.float(range[1])
            if lo > hi:
                raise RuntimeError(
                    f"torch.histogram: min should not exceed max, but got min {lo} max {hi}"
                )
        elif x.numel():
            lo, hi = builtins.float(torch.amin(x)), builtins.float(torch.amax(x))
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogram: range of [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = torch.linspace(lo, hi, nbins + 1, dtype=dtype)
    lo_e, hi_e = edges[0], edges[-1]
    inside = torch.logical_and(x >= lo_e, x <= hi_e)
    idx = torch.searchsorted(edges, x, right=True) - 1
    idx = torch.clamp(idx, 0, nbins - 1)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(
                "torch.histogram: if weight tensor is provided it should have the same shape "
                "as the input tensor"
            )
        vals = torch.where(inside, weight.reshape(-1).to(dtype), 0.0)
    else:
        vals = inside.to(dtype)
    hist = torch.zeros(nbins, dtype=dtype, device=vals.device).index_add(0, idx, vals)
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (torch.sum(hist) * widths)
    if out is not None:
        return write_outs(_histogram(hist, edges.to(dtype)), out)
    return _histogram(hist, edges.clone() if isinstance(bins, Tensor) else edges)


def renorm(input, p=None, dim=None, maxnorm=None, *, out=None, axis=None):
    """``input`` with each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to
    norm ``maxnorm``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None or p is None or maxnorm is None:
        dim = numpy_dim("renorm", dim, axis, required=True)
        check_given("renorm", p=p, maxnorm=maxnorm)
    check_tensor(input, "renorm")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        _not_implemented("renorm", input.dtype)
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions"
        )
    d = dim % input.dim()
    others = [i for i in builtins.range(input.dim()) if i != d]
    norm = torch.linalg.vector_norm(input, p, dim=others, keepdim=True)
    nd = norm.detach()
    factor = torch.where(nd > maxnorm, maxnorm / (norm + 1e-7), 1.0).to(input.dtype)
    return write_out(input * factor, out)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of a 1-D tensor, one per row."""
    check_tensor(input, "combinations")
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    n = input.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(gen(builtins.range(n), r))
    if not idx:
        return input.new_empty(0, r)
    index = torch.tensor(idx, dtype=torch.int64)
    return input[index.reshape(-1)].reshape(len(idx), r)


# ---------------------------------------------------------------- linear algebra


def _check_beta_alpha(dtype, beta, alpha):
    if not (dtype.is_floating_point or dtype.is_complex):
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, builtins.float) and not v.is_integer():
                raise RuntimeError(
                    f"For integral input tensors, argument {name} must not be a floating point "
                    "number."
                )


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * sum_i batch1[i] @ batch2[i]."""
    check_tensor(input, "addbmm")
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        check_tensor(b, "addbmm", name, 2)
        if b.dim() < 3:  # PyTorch reads size(2) of each first
            d = builtins.max(b.dim(), 1)
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], but got "
                f"{builtins.min(d, 2)})"
            )
        if b.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
            f"{batch2.shape[0]}"
        )
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
            f"{batch2.shape[1]}x{batch2.shape[2]})"
        )
    _check_beta_alpha(input.dtype, beta, alpha)
    if batch1.shape[0] == 0:
        prod = torch.zeros(
            batch1.shape[1], batch2.shape[2], dtype=torch.result_type(batch1, batch2)
        )
    else:
        prod = torch.sum(torch.bmm(batch1, batch2), 0)
    prod = prod.expand(batch1.shape[1], batch2.shape[2])
    return write_out(_addlike(input, prod, beta, alpha), out)


def _addlike(input, prod, beta, alpha):
    term = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return term + torch.zeros(term.shape, dtype=input.dtype)
    return (input if beta == 1 else input * beta) + term


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2) (logical and/or for bool tensors)."""
    check_tensor(input, "addr")
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        check_tensor(v, "addr", name, 2)
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    if input.dtype == torch.bool:
        prod = torch.logical_and(vec1.unsqueeze(1), vec2.unsqueeze(0))
        if not alpha:
            prod = torch.zeros_like(prod)
        base = (
            torch.logical_and(input, torch.tensor(builtins.bool(beta)))
            if beta
            else torch.zeros_like(input)
        )
        return write_out(torch.logical_or(base, prod), out)
    _check_beta_alpha(input.dtype, beta, alpha)
    prod = vec1.unsqueeze(1) * vec2.unsqueeze(0)
    return write_out(_addlike(input, prod, beta, alpha), out)


def inner(input, other, *, out=None):
    """The dot product over the last dimension of both tensors (a plain product when either
    is 0-d); the result has shape input.shape[:-1] + other.shape[:-1]."""
    check_tensor(input, "inner", "input", 1)
    check_tensor(other, "inner", "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        return write_out(input * other, out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    k = input.shape[-1]
    b = other.reshape(-1, k).transpose(0, 1)
    r = torch.matmul(input.reshape(-1, k), b)
    return write_out(r.reshape(*input.shape[:-1], *other.shape[:-1]), out)


def block_diag(*tensors):
    """A block-diagonal matrix with the given tensors (0-, 1- or 2-D) as its blocks."""
    mats = []
    for i, t in enumerate(tensors):
        check_tensor(t, "block_diag", "tensors", 1)
        if t.dim() > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} "
                f"has {t.dim()} dimensions"
            )
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not mats:
        return torch.empty(1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = torch.promote_types(dtype, m.dtype)
    cols = builtins.sum(m.shape[1] for m in mats)
    rows, before = [], 0
    for m in mats:
        r, c = m.shape
        rows.append(
            torch.cat(
                [
                    torch.zeros(r, before, dtype=dtype),
                    m.to(dtype),
                    torch.zeros(r, cols - before - c, dtype=dtype),
                ],
                dim=1,
            )
        )
        before += c
    return torch.cat(rows, dim=0)


_CDIST_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): a (..., P, R) tensor. For p = 2 with more than 25 rows (or always, with
    ``compute_mode="use_mm_for_euclid_dist"``) the squared distances are computed as
    ``|a|^2 - 2 a.b + |b|^2`` by a matrix product, clamped at 0."""
    check_tensor(x1, "cdist", "x1", 1)
    check_tensor(x2, "cdist", "x2", 2)
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {dtype_name(x.dtype)}"
            )
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in _CDIST_MODES and compute_mode is not None:
        raise RuntimeError(f"{compute_mode} is not a valid value for compute_mode")
    dtype = torch.promote_types(x1.dtype, x2.dtype)
    batch = torch.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    a = x1.to(dtype).expand(*batch, *x1.shape[-2:])
    b = x2.to(dtype).expand(*batch, *x2.shape[-2:])
    P, R = a.shape[-2], b.shape[-2]
    mode = compute_mode or _CDIST_MODES[0]
    use_mm = p == 2 and (
        mode == "use_mm_for_euclid_dist" or (mode == _CDIST_MODES[0] and (P > 25 or R > 25))
    )
    if a.shape[-1] == 0 or P == 0 or R == 0:
        return torch.zeros(*batch, P, R, dtype=dtype) + 0 * (a.sum() + b.sum())
    if use_mm:
        an = torch.sum(a * a, -1, keepdim=True)
        bn = torch.sum(b * b, -1, keepdim=True).transpose(-2, -1)
        d2 = an - 2 * torch.matmul(a, b.transpose(-2, -1)) + bn
        d2 = torch.clamp(d2, min=0)
        pos = d2.detach() > 0
        return torch.where(pos, torch.sqrt(_safe(~pos, d2, 1.0)), 0.0)
    diff_ = a.unsqueeze(-2) - b.unsqueeze(-3)
    return torch.linalg.vector_norm(diff_, p, dim=-1)


def matrix_exp(A):
    """The matrix exponential of square matrices (..., n, n), by scaling and squaring: the
    matrices are scaled by 2^-s to 1-norm <= 1/2, an 18-term Taylor series is summed in
    float64 (complex128 for complex inputs) and the result is squared s times."""
    check_tensor(A, "matrix_exp", "A", 1)
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_exp: A must be batches of square matrices, but they are "
            f"{A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1] if A.dim() else 1} matrices"
        )
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
            f"{dtype_name(A.dtype)}"
        )
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    dt = A.dtype
    a = A.to(torch.complex128 if dt.is_complex else torch.float64)
    with torch.no_grad():
        norm = builtins.float(torch.amax(torch.sum(torch.abs(a.detach()), -2)))
    if not math.isfinite(norm):
        return (a * math.nan).to(dt)
    squarings = builtins.max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    if squarings:
        a = a / (2.0**squarings)
    eye = torch.eye(n, dtype=a.dtype).expand(a.shape)
    result = eye + a
    term = a
    for k in builtins.range(2, 19):  # ||a|| <= 1/2: the remainder is below 2^-19 / 19!
        term = torch.matmul(term, a) / k
        result = result + term
    for _ in builtins.range(squarings):
        result = torch.matmul(result, result)
    return result.to(dt)


# ---------------------------------------------------------------- special functions

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# Bernoulli numbers B_2k, k = 1..10
_B2K = (
    1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
    -174611 / 330,
)  # fmt: skip


def _shift_up(x, limit, accumulate):
    """Raise x to at least ``limit`` one step at a time; ``accumulate(acc, x, moving)`` folds in
    each value left behind. Returns the shifted x and the accumulator."""
    acc = None
    steps = 0
    with torch.no_grad():
        finite = torch.isfinite(x.detach())
        low = torch.where(finite, x.detach(), limit)
        if low.numel():
            steps = builtins.max(0, math.ceil(limit - builtins.float(torch.amin(low))))
    for _ in builtins.range(steps):
        moving = torch.logical_and(x.detach() < limit, finite)
        acc = accumulate(acc, x, moving)
        x = torch.where(moving, x + 1, x)
    return x, acc


def _sincospi(x):
    """sin(pi x) and cos(pi x), reduced exactly to |r| <= 1/2 first."""
    r = x - torch.round(x.detach())
    return torch.sin(math.pi * r), torch.cos(math.pi * r)


def _lgamma_pos(x):
    """log Gamma(x) for x > 0 (finite): shift to x >= 10, then Stirling's series."""

    def acc_log(acc, x, moving):
        term = torch.log(torch.where(moving, x, 1.0))
        return term if acc is None else acc + term

    z, acc = _shift_up(x, 10.0, acc_log)
    zs = torch.where(torch.isfinite(z.detach()), z, 10.0)
    inv = 1 / zs
    inv2 = inv * inv
    series = 0
    power = inv
    for k, b in enumerate(_B2K[:8], start=1):
        series = series + b / (2 * k * (2 * k - 1)) * power
        power = power * inv2
    r = (zs - 0.5) * torch.log(zs) - zs + _HALF_LOG_2PI + series
    r = torch.where(torch.isinf(z.detach()), math.inf, r)
    return r if acc is None else r - acc


def lgamma(input, *, out=None):
    """``log |Gamma(x)|`` (inf at 0 and the negative integers)."""
    check_tensor(input, "lgamma")
    x, dt = _f64(input)
    if x.is_complex():
        raise RuntimeError("lgamma is not implemented for complex tensors.")
    xd = x.detach()
    neg = xd < 0.5
    pole = torch.logical_and(xd <= 0, torch.floor(xd) == xd)
    bad = torch.logical_or(pole, torch.isinf(xd))
    # reflection: log|Gamma(x)| = log(pi / |sin(pi x)|) - log Gamma(1 - x) for x < 1/2
    xp = torch.where(neg, 1 - torch.where(bad, 0.0, x), x)
    r = _lgamma_pos(_safe(torch.isnan(xp.detach()), xp, 1.0))
    s, _ = _sincospi(torch.where(neg, _safe(bad, x, 0.5), 0.5))
    refl = math.log(math.pi) - torch.log(torch.abs(s)) - r
    r = torch.where(neg, refl, r)
    r = torch.where(bad, math.inf, r)
    r = torch.where(torch.isnan(xd), math.nan, r)
    return write_out(r.to(dt), out)


def _digamma_pos(x):
    """psi(x) for x > 0: shift to x >= 10 by psi(x) = psi(x + 1) - 1/x, then the asymptotic
    series log x - 1/(2x) - sum B_2k / (2k x^2k)."""

    def acc_inv(acc, x, moving):
        term = torch.where(moving, 1 / torch.where(moving, x, 1.0), 0.0)
        return term if acc is None else acc + term

    z, acc = _shift_up(x, 10.0, acc_inv)
    zs = torch.where(torch.isfinite(z.detach()), z, 10.0)
    inv = 1 / zs
    inv2 = inv * inv
    series = 0
    power = inv2
    for k, b in enumerate(_B2K[:8], start=1):
        series = series + b / (2 * k) * power
        power = power * inv2
    r = torch.log(zs) - 0.5 * inv - series
    r = torch.where(torch.isinf(z.detach()), math.inf, r)
    return r if acc is None else r - acc


def digamma(input, *, out=None):
    """psi(x) = d/dx log Gamma(x); -inf at +0, +inf at -0, NaN at the negative integers."""
    check_tensor(input, "digamma")
    x, dt = _f64(input)
    if x.is_complex():
        raise RuntimeError("digamma is not implemented for complex tensors.")
    r = _digamma_f64(x)
    return write_out(r.to(dt), out)


def _digamma_f64(x):
    xd = x.detach()
    neg = xd < 0
    zero = xd == 0
    pole = torch.logical_and(neg, torch.floor(xd) == xd)
    bad = torch.logical_or(
        torch.logical_or(pole, zero), torch.logical_or(torch.isinf(xd), torch.isnan(xd))
    )
    xs = _safe(bad, x, 0.5)
    # reflection: psi(x) = psi(1 - x) - pi / tan(pi x) for x < 0
    xp = torch.where(neg, 1 - xs, xs)
    r = _digamma_pos(xp)
    s, c = _sincospi(xs)
    s_safe = _safe(~neg, s, 1.0)
    r = torch.where(neg, r - math.pi * c / s_safe, r)
    r = torch.where(zero, torch.where(signbit(xd), math.inf, -math.inf), r)
    r = torch.where(pole, math.nan, r)
    r = torch.where(torch.isinf(xd), torch.where(xd > 0, math.inf, math.nan), r)
    return torch.where(torch.isnan(xd), math.nan, r)


def _zeta_f64(s, q):
    """The Hurwitz zeta function zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2, by
    direct summation up to q + k >= 10 + s and the Euler-Maclaurin tail."""
    limit = 10.0 + s
    if s >= _ZETA_WINDOW_S:  # steep terms: no walk of ~s steps (s may be 2^31)
        near = q.detach() < limit
        if bool(near.any()):
            window = _zeta_window(s, torch.where(near, q, 0.5))
            return torch.where(near, window, _zeta_f64_tail(s, torch.where(near, limit, q)))
        return _zeta_f64_tail(s, q)
    return _zeta_f64_tail(s, q)


_ZETA_WINDOW_S = 40
_ZETA_WINDOW_K = 72


def _zeta_window(s, q):
    """zeta(s, q) for s >= 40 and q < s + 10: the terms fall off so steeply that the 72 values
    of k nearest the smallest |q + k| carry the sum to below 1e-14 relative."""
    start = torch.clamp(torch.floor(-q.detach()) - 8, min=0)
    total = None
    for j in builtins.range(_ZETA_WINDOW_K):
        term = torch.pow(q + (start + j), -s)
        total = term if total is None else total + term
    return total


def _zeta_f64_tail(s, q):
    limit = 10.0 + s

    def acc_pow(acc, x, moving):
        term = torch.where(moving, torch.pow(torch.where(moving, x, 1.0), -s), 0.0)
        return term if acc is None else acc + term

    a, acc = _shift_up(q, limit, acc_pow)
    fin = torch.isfinite(a.detach())
    a = torch.where(fin, a, limit)
    tail = torch.pow(a, 1 - s) / (s - 1) + 0.5 * torch.pow(a, -s)
    # sum_j B_2j / (2j)! * s (s+1) ... (s+2j-2) * a^(-s-2j+1)
    coef = builtins.float(s)
    fact = 2.0
    power = torch.pow(a, -s - 1)
    inv2 = 1 / (a * a)
    for j, b in enumerate(_B2K, start=1):
        tail = tail + b / fact * coef * power
        coef *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
        power = power * inv2
    r = tail if acc is None else tail + acc
    return torch.where(fin, r, 0.0)


def polygamma(n, input, *, out=None):
    """The n-th derivative of the digamma function (n = 0 is digamma itself)."""
    check_tensor(input, "polygamma", "input", 2)
    n = builtins.int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x, dt = _f64(input)
    if x.is_complex():
        raise RuntimeError("polygamma is not implemented for complex tensors.")
    if n == 0:
        return write_out(_digamma_f64(x).to(dt), out)
    xd = x.detach()
    pole = torch.logical_and(xd <= 0, torch.floor(xd) == xd)
    bad = torch.logical_or(pole, torch.logical_or(torch.isinf(xd), torch.isnan(xd)))
    z = _zeta_f64(n + 1, _safe(bad, x, 1.0))
    sign = 1.0 if n % 2 else -1.0
    # n! as a float: inf past 170 (never the exact integer: n may be 2^31)
    r = sign * (math.exp(math.lgamma(n + 1)) if n <= 170 else math.inf) * z
    r = torch.where(pole, sign * math.inf, r)
    r = torch.where(xd == math.inf, 0.0 if n == 1 else math.nan, r)
    r = torch.where(torch.logical_or(xd == -math.inf, torch.isnan(xd)), math.nan, r)
    return write_out(r.to(dt), out)


def mvlgamma(input, p, *, out=None):
    """The log of the multivariate gamma function of dimension ``p``:
    p (p - 1) / 4 log(pi) + sum_{i < p} lgamma(x - i / 2) (finite for x > (p - 1) / 2; like
    PyTorch, other x are not rejected)."""
    check_tensor(input, "mvlgamma")
    if input.dtype == torch.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _as_float(input)
    r = p * (p - 1) / 4 * math.log(math.pi)
    for i in builtins.range(p):
        r = r + lgamma(x - i / 2)
    return write_out(r, out)


_BESSEL_SWITCH = 25.0


def _bessel(x, order, scaled):
    """I_order(x) for order 0 or 1 (times exp(-|x|) when ``scaled``), x in float64."""
    ax = torch.abs(x)
    axd = ax.detach()
    small = axd <= _BESSEL_SWITCH
    # power series: sum_k (x/2)^(2k + order) / (k! (k + order)!)
    xs = torch.where(small, x, 0.0)
    h = xs / 2
    h2 = h * h
    term = h if order else torch.ones_like(h)
    total = term
    for k in builtins.range(1, 60):
        term = term * h2 / (k * (k + order))
        total = total + term
    if scaled:
        total = total * torch.exp(-torch.abs(xs))
    # asymptotic: exp(|x|) / sqrt(2 pi |x|) *
    #     sum_k (-1)^k prod_{j <= k} (4 nu^2 - (2j - 1)^2) / (k! (8|x|)^k)
    xl = torch.where(small, _BESSEL_SWITCH + 1, ax)
    mu = 4.0 * order * order
    inv = 1 / (8 * xl)
    term = torch.ones_like(xl)
    asym = term
    for k in builtins.range(1, 31):
        term = term * (-(mu - (2 * k - 1) ** 2) / k) * inv
        asym = asym + term
    asym = asym / torch.sqrt(2 * math.pi * xl)
    if not scaled:
        asym = asym * torch.exp(xl)
    if order:
        asym = torch.where(x.detach() < 0, -asym, asym)
    r = torch.where(small, total, asym)
    return torch.where(torch.isnan(x.detach()), math.nan, r)


def _bessel_op(input, out, order, scaled, op):
    check_tensor(input, op)
    x, dt = _f64(input)
    if x.is_complex():
        raise RuntimeError(f"{op} is not implemented for complex tensors.")
    return write_out(_bessel(x, order, scaled).to(dt), out)


def i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0."""
    return _bessel_op(input, out, 0, False, "i0")


def _i0e(input, *, out=None):
    return _bessel_op(input, out, 0, True, "i0e")


def _i1(input, *, out=None):
    return _bessel_op(input, out, 1, False, "i1")


def _i1e(input, *, out=None):
    return _bessel_op(input, out, 1, True, "i1e")


# ---------------------------------------------------------------- Tensor methods


def _polygamma_method(self, n):
    """``torch.polygamma(n, self)``: the n-th derivative of the digamma function of
    each element."""
    return polygamma(n, self)


def _special(name):
    def method(self, *args, **kwargs):
        return getattr(torch.special, name)(self, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"``torch.special.{name}(self, ...)``: see :func:`torch.special.{name}`."
    return method


def _fill_diagonal_(self, fill_value, wrap=False):
    """Writes ``fill_value`` on the main diagonal (all indices equal) in place; a tall matrix
    restarts the diagonal after every ``cols + 1`` rows with ``wrap``. Returns ``self``."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and builtins.len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = builtins.min(self.shape)
    rows = torch.arange(n, device=self.device)
    if self.dim() == 2 and wrap and self.shape[0] > self.shape[1] + 1:
        period = self.shape[1] + 1  # rows between restarts, as in the flat layout
        starts = torch.arange(0, self.shape[0], period, device=self.device)
        rows = (starts.unsqueeze(1) + rows.unsqueeze(0)).reshape(-1)
        rows = rows[rows < self.shape[0]]
        cols = rows % period
        return self.index_put_((rows, cols), torch.tensor(fill_value, dtype=self.dtype))
    index = (rows,) * self.dim()
    return self.index_put_(index, torch.tensor(fill_value, dtype=self.dtype))


def _sum_to_size(self, *size):
    """The sum of ``self`` down to ``size``, to which ``self`` must be expandable."""
    size = (
        tuple(size[0])
        if builtins.len(size) == 1 and not isinstance(size[0], builtins.int)
        else size
    )
    shape = tuple(self.shape)
    lead = builtins.len(shape) - builtins.len(size)
    if lead < 0 or builtins.any(s != 1 and s != n for s, n in zip(size, shape[lead:], strict=True)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    result = self.sum(tuple(builtins.range(lead))) if lead else self
    dims = tuple(i for i, s in enumerate(size) if s == 1 and result.shape[i] != 1)
    return result.sum(dims, keepdim=True) if dims else result


_METHODS = {
    "addbmm": addbmm, "addr": addr, "aminmax": aminmax, "copysign": copysign,
    "corrcoef": corrcoef, "cov": cov, "deg2rad": deg2rad, "diff": diff, "digamma": digamma,
    "float_power": float_power, "fmax": fmax, "fmin": fmin, "frexp": frexp, "gcd": gcd,
    "heaviside": heaviside, "histogram": histogram, "hypot": hypot, "i0": i0, "inner": inner,
    "lcm": lcm, "ldexp": ldexp, "lgamma": lgamma, "logaddexp": logaddexp,
    "logaddexp2": logaddexp2, "matrix_exp": matrix_exp, "mvlgamma": mvlgamma,
    "positive": positive, "rad2deg": rad2deg, "ravel": ravel, "renorm": renorm,
    "signbit": signbit, "polygamma": _polygamma_method,
    "erfc": _special("erfc"), "logit": _special("logit"), "sinc": _special("sinc"),
    "xlogy": _special("xlogy"), "isposinf": isposinf, "isneginf": isneginf, "isreal": isreal,
    "nextafter": nextafter, "is_nonzero": is_nonzero, "is_signed": is_signed,
    "is_same_size": is_same_size, "fill_diagonal_": _fill_diagonal_,
    "sum_to_size": _sum_to_size,
}  # fmt: skip
_INPLACE_METHODS = (
    "addbmm", "addr", "copysign", "deg2rad", "digamma", "gcd", "heaviside", "hypot", "i0",
    "lcm", "ldexp", "lgamma", "mvlgamma", "rad2deg", "renorm", "erfc", "logit", "sinc", "xlogy",
)  # fmt: skip

for _name, _fn in _METHODS.items():
    tensor_method(_fn, _name)
for _name in _INPLACE_METHODS:
    tensor_method(_inplace(_METHODS[_name], _name + "_"))
tensor_method(_inplace(nextafter, "nextafter_"))


def _subtract_(self, other, *, alpha=1):
    """:meth:`sub_` under PyTorch's other name."""
    return self.sub_(other, alpha=alpha)


def _divide_(self, other, *, rounding_mode=None):
    """:meth:`div_` under PyTorch's other name."""
    return self.div_(other, rounding_mode=rounding_mode)


def _true_divide_(self, other):
    """:meth:`div_` without a rounding mode."""
    return self.div_(other)


def _square_(self):
    """Squares each element in place; returns ``self``."""
    return self.pow_(2)


for _name, _fn in (("subtract_", _subtract_), ("divide_", _divide_),
                   ("true_divide_", _true_divide_), ("square_", _square_)):  # fmt: skip
    tensor_method(_fn, _name)
for _name in _INPLACE_FUNCTIONS:
    globals()[_name] = _method_as_function(_name)
tensor_method(_float_power_, "float_power_")
tensor_method(_inplace(_polygamma_method, "polygamma_"))
del _name, _fn
