"""The activation functions: written over differentiable core ops (softmax and its
kin are core kernels, found in torch.nn.functional)."""

import math
import warnings

import torch
from torch import _C
from torch._nn_ops import _FLOAT_MAX
from torch.nn._functional.common import (
    _check_tensor,
    _float_only,
    _inplace,
    _operand,
    _opmath,
    _scalar,
)

Tensor = torch.Tensor
_F32_MAX = _FLOAT_MAX[torch.float32]
_F32_64 = (torch.float32, torch.float64)


def _plain(value):
    """A plain float within float32's range (the defaults): none of _opmath's checks apply."""
    return value.__class__ is float and -_F32_MAX <= value <= _F32_MAX


def relu(input, inplace=False):
    """max(0, x)."""
    _check_tensor(input, "relu")
    return input.relu_() if inplace else torch.relu(input)


def relu_(input):
    """In-place :func:`relu`: ``max(0, x)`` written into ``input``, which is returned."""
    _check_tensor(input, "relu_")
    return input.relu_()


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value (the input's dtype; NaN stays NaN)."""
    op = "threshold"
    _check_tensor(input, op)
    if input.dtype == torch.bool:
        raise NotImplementedError(f"{op}(): not implemented for 'Bool' (torch.bool)")
    if input.is_floating_point():
        th = _opmath(threshold, input, op, "threshold")  # compared at full precision
    else:
        th = _scalar(threshold, input.dtype, op, "threshold")
    val = _scalar(value, input.dtype, op, "value")
    # x <= threshold: NaN compares false and is kept, as in PyTorch
    x = _operand(input, inplace)
    r = x.masked_fill(x <= th, val)
    return _inplace(input, r) if inplace else r


def threshold_(input, threshold, value):
    """In-place :func:`threshold`: ``value`` where ``x <= threshold``; returns ``input``."""
    return globals()["threshold"](input, threshold, value, True)


def _trunc(v):
    """A finite float limit truncated toward zero (what an integer dtype keeps of it)."""
    return math.trunc(v) if isinstance(v, float) and math.isfinite(v) else v


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val], in the input's dtype (integer inputs truncate the
    limits); the gradient is 1 strictly inside the limits and 0 elsewhere."""
    op = "hardtanh"
    if (  # the common call: a float tensor, plain float limits (none of the checks below)
        input.__class__ is Tensor
        and input.dtype in _F32_64
        and _plain(min_val)
        and _plain(max_val)
        and min_val <= max_val
        and not (inplace and input.requires_grad)
    ):
        r = _C._hardtanh(input, min_val, max_val)
        return _inplace(input, r) if inplace else r
    _check_tensor(input, op)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype == torch.bool:
        raise RuntimeError(f"{op}(): Bool inputs not supported for hardtanh")
    if not input.is_floating_point():  # integer inputs truncate the limits toward zero
        min_val, max_val = _trunc(min_val), _trunc(max_val)
    if input.dtype == torch.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError(
            f"{op}(): cannot do hardtanh on an unsigned type with negative limits (got "
            f"min_val={min_val}, max_val={max_val} for a uint8 input)"
        )
    lo = _scalar(min_val, input.dtype, op, "min_val")
    hi = _scalar(max_val, input.dtype, op, "max_val")
    x = _operand(input, inplace)
    if lo != lo or hi != hi:  # a NaN limit: clamp's NaN result
        r = torch.clamp(x, lo, hi)
    elif x.is_floating_point():
        r = _C._hardtanh(x, lo, hi)
    else:
        r = x.masked_fill(x <= lo, lo).masked_fill(x >= hi, hi)
    return _inplace(input, r) if inplace else r


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`: clamps ``input`` to [min_val, max_val] and returns it."""
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    """min(max(0, x), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x."""
    _float_only(input, "leaky_relu")
    if not _plain(negative_slope):
        negative_slope = _opmath(negative_slope, input, "leaky_relu", "negative_slope")
    r = _C._leaky_relu(_operand(input, inplace), negative_slope)
    return _inplace(input, r) if inplace else r


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`; returns ``input``."""
    return leaky_relu(input, negative_slope, True)


def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    _float_only(input, "elu")
    alpha = alpha if _plain(alpha) else _opmath(alpha, input, "elu", "alpha")
    r = _C._elu(_operand(input, inplace), alpha, 1.0)
    return _inplace(input, r) if inplace else r


def elu_(input, alpha=1.0):
    """In-place :func:`elu`; returns ``input``."""
    return elu(input, alpha, True)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants (scale 1.0507..., alpha
    1.6733...)."""
    _float_only(input, "selu")
    r = _C._selu(_operand(input, inplace))
    return _inplace(input, r) if inplace else r


def selu_(input):
    """In-place :func:`selu`; returns ``input``."""
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    _float_only(input, "celu")
    alpha = _opmath(alpha, input, "celu", "alpha")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu(): alpha cannot be 0 for CELU")
    r = _C._elu(_operand(input, inplace), alpha, 1.0 / alpha)
    return _inplace(input, r) if inplace else r


def celu_(input, alpha=1.0):
    """In-place :func:`celu`; returns ``input``."""
    return celu(input, alpha, True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn uniformly from [lower, upper] per element in
    training, and is their mean in evaluation."""
    _float_only(input, "rrelu")
    lower = _opmath(lower, input, "rrelu", "lower")
    upper = _opmath(upper, input, "rrelu", "upper")
    for name, v in (("lower", lower), ("upper", upper)):
        if not math.isfinite(v):
            raise RuntimeError(f"rrelu(): {name} bound must be finite, got {v}")
    if training and input.dtype == torch.float16:  # (as PyTorch's CPU kernel; bfloat16 runs)
        raise NotImplementedError(
            f"rrelu(): training mode (random slopes) is not implemented for {input.dtype}"
        )
    if lower > upper:
        raise RuntimeError(
            f"rrelu(): Lower bound should be less than or equal to the upper bound, got "
            f"lower={lower}, upper={upper}"
        )
    x = _operand(input, inplace)
    pos = x > 0
    if training:
        slope = torch.empty_like(x).uniform_(lower, upper) if lower < upper else lower
        r = torch.where(pos, x, x * slope)
    else:
        r = torch.where(pos, x, x * ((lower + upper) / 2))
    return _inplace(input, r) if inplace else r


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu`; returns ``input``."""
    return rrelu(input, lower, upper, training, True)


def gelu(input, approximate="none"):
    """x * Phi(x) (Phi: the normal CDF); ``approximate='tanh'`` uses
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    if not isinstance(approximate, str):
        raise TypeError(
            f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}"
        )
    _float_only(input, "gelu")
    if approximate == "none":
        return _C._gelu(input)
    if approximate == "tanh":
        return _C._gelu_tanh(input)
    raise RuntimeError(f"approximate argument must be either none or tanh, got '{approximate}'")


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    _float_only(input, "silu")
    r = _C._silu(_operand(input, inplace))
    return _inplace(input, r) if inplace else r


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    _float_only(input, "mish")
    x = _operand(input, inplace)
    r = x * torch.tanh(softplus(x))
    return _inplace(input, r) if inplace else r


def _relu6_of_x_plus_3(input):
    """min(max(x + 3, 0), 6), with gradient 1 strictly between the limits, 0 elsewhere."""
    t = input + 3
    return t.masked_fill(t <= 0, 0).masked_fill(t >= 6, 6)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    _float_only(input, "hardsigmoid")
    r = _relu6_of_x_plus_3(_operand(input, inplace)) / 6
    return _inplace(input, r) if inplace else r


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    _float_only(input, "hardswish")
    x = _operand(input, inplace)
    r = x * _relu6_of_x_plus_3(x) / 6
    return _inplace(input, r) if inplace else r


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta; linear (x) where beta x > threshold."""
    _float_only(input, "softplus")
    if not _plain(beta):
        beta = _opmath(beta, input, "softplus", "beta")
    if not _plain(threshold):
        threshold = _opmath(threshold, input, "softplus", "threshold")
    return _C._softplus(input, beta, threshold)


def softsign(input):
    """``x / (1 + |x|)``."""
    return input / (torch.abs(input) + 1)


def logsigmoid(input):
    """log(sigmoid(x)), computed without overflow: ``min(x, 0) - log1p(exp(-|x|))``."""
    _float_only(input, "logsigmoid")
    return torch.clamp(input, max=0.0) - torch.log1p(torch.exp(-torch.abs(input)))


def tanhshrink(input):
    """x - tanh(x)."""
    if isinstance(input, Tensor) and input.dtype == torch.bool:
        raise RuntimeError(
            "tanhshrink(): Subtraction, the `-` operator, with a bool tensor is not supported"
        )
    return input - torch.tanh(input)


def _check_lambda(lambd, input, op):
    from torch._nn_ops import _FLOAT_MAX

    big = _FLOAT_MAX.get(input.dtype, math.inf)
    if not 0 <= lambd <= big:  # (NaN fails too)
        raise RuntimeError(
            f"{op}(): lambda must be in range [0, {big}] for input dtype {input.dtype}, but "
            f"found {lambd}"
        )


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""
    _float_only(input, "softshrink")
    lambd = _opmath(lambd, input, "softshrink", "lambd")
    _check_lambda(lambd, input, "softshrink")
    return torch.where(
        input > lambd, input - lambd, torch.where(input < -lambd, input + lambd, 0.0)
    )


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0."""
    _float_only(input, "hardshrink")
    lambd = _opmath(lambd, input, "hardshrink", "lambd")
    # |x| <= lambd gives 0; with a NaN lambd nothing does (as PyTorch)
    return input.masked_fill((input >= -lambd) & (input <= lambd), 0)


def tanh(input):
    """:func:`torch.tanh`, elementwise."""
    return torch.tanh(input)


def sigmoid(input):
    """:func:`torch.sigmoid`: ``1 / (1 + exp(-x))``, elementwise."""
    return torch.sigmoid(input)


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of input along dim."""
    _float_only(input, "glu")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    from torch._functional import wrap_dim
    from torch._nn_ops import _int

    d = wrap_dim(_int(dim, "glu", "dim"), input.dim(), "glu")
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    return input.narrow(d, 0, n // 2) * torch.sigmoid(input.narrow(d, n // 2, n // 2))


def prelu(input, weight):
    """x where x > 0, else weight * x; weight has one value or one per channel (dim 1)."""
    _float_only(input, "prelu")
    _check_tensor(weight, "prelu", "weight")
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    if weight.dtype != input.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {input.dtype} and {weight.dtype}"
        )
    n = weight.numel()
    if n != 1:
        channels = input.shape[1] if input.dim() >= 2 else 1
        if channels != n:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {n} and channel size = {channels}."
            )
        weight = weight.reshape(n, *([1] * (input.dim() - 2)))
    else:
        weight = weight.reshape(())
    return torch.where(input > 0, input, weight * input)


def softsign_(input):
    """In-place :func:`softsign`; returns ``input``."""
    return _inplace(input, softsign(_operand(input, True)))


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample from the Gumbel-softmax (concrete) distribution over ``dim``:
    ``softmax((logits + g) / tau)`` with ``g = -log(E)``, E standard exponential draws from
    torch's generator (g is Gumbel(0, 1) noise). ``hard=True`` returns the one-hot vector of
    the sample's largest entry, with the soft sample's gradient (straight-through:
    ``y_hard - y_soft.detach() + y_soft``). ``eps`` is deprecated and unused."""
    _check_tensor(logits, "gumbel_softmax", "logits")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not logits.dtype.is_floating_point:
        raise RuntimeError(
            "gumbel_softmax(): Exponential distribution is a continuous probability "
            f"distribution. dtype must be a floating point but you specified {logits.dtype}"
        )
    gumbels = -torch.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
