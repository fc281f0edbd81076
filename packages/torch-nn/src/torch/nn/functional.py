"""torch.nn.functional: the layers, activations and losses as functions.

Two kinds live here.  The heavy kernels (convolution, pooling, normalisation, softmax,
nll/cross-entropy, embedding, dropout, interpolation, padding) are torch-core ops in
``torch._conv`` and ``torch._nn_ops`` with these exact signatures; they are looked up when
first used (module ``__getattr__``), so this module imports even with a core that lacks
them.  Everything else (activations, most losses, attention, distances) is written here
as a composition of differentiable core ops, so autograd needs nothing more.
"""

import importlib
import itertools
import math
import warnings

import torch
from torch import _C

Tensor = torch.Tensor

# The kernels that torch-core provides: name -> module.
_CONV_OPS = "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d unfold fold"
_NN_OPS = (
    "max_pool1d max_pool2d max_pool3d avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d "
    "adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d "
    "adaptive_max_pool3d max_unpool1d max_unpool2d max_unpool3d feature_alpha_dropout softmax "
    "log_softmax softmin batch_norm layer_norm group_norm instance_norm nll_loss cross_entropy "
    "embedding embedding_bag dropout dropout1d dropout2d dropout3d alpha_dropout interpolate pad"
)
_CORE_KERNELS = {
    **{n: "torch._conv" for n in _CONV_OPS.split()},
    **{n: "torch._nn_ops" for n in _NN_OPS.split()},
}


def __getattr__(name):
    module = _CORE_KERNELS.get(name)
    if module is None:
        raise AttributeError(f"module 'torch.nn.functional' has no attribute '{name}'")
    fn = getattr(importlib.import_module(module), name, None)
    if fn is None:
        raise NotImplementedError(
            f"torch.nn.functional.{name} is the core kernel {module}.{name}, which this "
            "build of torch-core does not provide: update torch-core"
        )
    globals()[name] = fn  # later lookups find it directly
    return fn


def _kernel(name):
    """A core kernel by name, for use inside this module (globals skip __getattr__)."""
    fn = globals().get(name)
    return fn if fn is not None else __getattr__(name)


def __dir__():
    return sorted(set(globals()) | set(_CORE_KERNELS))


# ---------------------------------------------------------------- helpers
def _check_tensor(x, op, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def _inplace(input, result):
    """Write result into input (the in-place forms): recorded by autograd as a copy."""
    return input.copy_(result)


class _Reduction:
    @staticmethod
    def legacy_get_string(size_average, reduce, emit_warning=True):
        """The reduction that the old ``size_average``/``reduce`` flags mean."""
        if size_average is None:
            size_average = True
        if reduce is None:
            reduce = True
        if size_average and reduce:
            ret = "mean"
        elif reduce:
            ret = "sum"
        else:
            ret = "none"
        if emit_warning:
            warnings.warn(
                f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
                "instead.",
                stacklevel=3,
            )
        return ret

    @staticmethod
    def get_enum(reduction):
        return {"none": 0, "mean": 1, "elementwise_mean": 1, "sum": 2}[reduction]


def _reduction_of(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _tensors(op, **tensors):
    """TypeError for each of the named arguments that is not a tensor (None is allowed for
    the optional ones: pass only required ones, or check None before)."""
    for name, t in tensors.items():
        _check_tensor(t, op, name)


def _warn_size_mismatch(input, target, op="loss"):
    _tensors(op, input=input, target=target)
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _weighted(loss, weight):
    return loss if weight is None else loss * weight


# ---------------------------------------------------------------- linear layers
def _same_dtype(op, **tensors):
    """TypeError for a non-tensor, RuntimeError where the tensors' dtypes differ (PyTorch
    promotes none of these operands)."""
    given = {k: t for k, t in tensors.items() if t is not None}
    for name, t in given.items():
        _check_tensor(t, op, name)
    if len({t.dtype for t in given.values()}) > 1:
        kinds = ", ".join(f"{k}: {t.dtype}" for k, t in given.items())
        raise RuntimeError(f"{op}(): expected all tensors to have the same dtype, got {kinds}")


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: input (*, in_features), weight (out_features,
    in_features), bias (out_features) or None."""
    _tensors("linear", input=input, weight=weight)
    _same_dtype("linear", input=input, weight=weight, bias=bias)
    if weight.dim() not in (1, 2):
        raise RuntimeError(
            f"linear(): expected weight to be 1-D or 2-D, got shape {tuple(weight.shape)}"
        )
    if bias is None:
        return torch.matmul(input, weight.t())
    if input.dim() == 2 and (input.requires_grad or not _C.is_grad_enabled()):
        return torch.addmm(bias, input, weight.t())
    # (an input that needs no gradient: mm's backward skips the product addmm's would make)
    return torch.matmul(input, weight.t()) + bias


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T W_k x2 + b_k``: input1 (*, in1), input2 (*, in2), weight
    (out, in1, in2), bias (out)."""
    _tensors("bilinear", input1=input1, input2=input2, weight=weight)
    _same_dtype("bilinear", input1=input1, input2=input2, weight=weight, bias=bias)
    if input1.dim() == 0 or input2.dim() == 0:
        raise RuntimeError("bilinear(): input1 and input2 must have at least 1 dimension")
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear(): input1 and input2 must have the same size except in the last "
            f"dimension, got {list(input1.shape)} and {list(input2.shape)}"
        )
    if (
        weight.dim() != 3
        or weight.shape[1] != input1.shape[-1]
        or weight.shape[2] != input2.shape[-1]
    ):
        raise RuntimeError(
            f"bilinear(): expected weight of shape (out, {input1.shape[-1]}, "
            f"{input2.shape[-1]}), got {list(weight.shape)}"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got bias of shape "
            f"{tuple(bias.shape)} but expected ({weight.shape[0]},)"
        )
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out, n1, n2 = weight.shape
    # (B, in1) @ (in1, out*in2) -> (B, out, in2), then contract in2 with x2
    t = torch.matmul(x1, weight.permute(1, 0, 2).reshape(n1, out * n2)).reshape(-1, out, n2)
    y = torch.matmul(t, x2.unsqueeze(-1)).squeeze(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, out)


# ---------------------------------------------------------------- activations
def _float_only(input, op):
    """The activations whose kernels exist for floating-point dtypes only (as in PyTorch):
    NotImplementedError for an integer or bool input."""
    from torch._nn_ops import _require_float

    _require_float(input, op)


def _scalar(value, dtype, op, arg):
    """A Number argument as an element of dtype (RuntimeError where it overflows it)."""
    from torch._nn_ops import _scalar_to

    return _scalar_to(value, dtype, op, arg)


def _opmath(value, input, op, arg):
    """A Number argument of a floating-point activation as the float it is applied in:
    TypeError for a non-number, OverflowError for an int beyond int64, RuntimeError for a
    value that float32 (float64 for a float64 input) cannot hold (PyTorch's checks)."""
    from torch._nn_ops import _FLOAT_MAX, _number

    v = _number(value, op, arg)
    if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
        raise OverflowError(f"{op}(): argument '{arg}' ({v}): int too big to convert")
    v = float(v)
    big = _FLOAT_MAX[torch.float32]
    if input.dtype != torch.float64 and math.isfinite(v) and abs(v) > big:
        raise RuntimeError(
            f"{op}(): {arg} {v} cannot be converted to type float without overflow (largest "
            f"finite float32: {big})"
        )
    return v


def relu(input, inplace=False):
    """max(0, x)."""
    _check_tensor(input, "relu")
    return input.relu_() if inplace else torch.relu(input)


def relu_(input):
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
    r = input.masked_fill(input <= th, val)
    return _inplace(input, r) if inplace else r


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, True)


def _trunc(v):
    """A finite float limit truncated toward zero (what an integer dtype keeps of it)."""
    return math.trunc(v) if isinstance(v, float) and math.isfinite(v) else v


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val], in the input's dtype (integer inputs truncate the
    limits); the gradient is 1 strictly inside the limits and 0 elsewhere."""
    op = "hardtanh"
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
    if lo != lo or hi != hi:  # a NaN limit: clamp's NaN result
        r = torch.clamp(input, lo, hi)
    else:
        r = input.masked_fill(input <= lo, lo).masked_fill(input >= hi, hi)
    return _inplace(input, r) if inplace else r


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    """min(max(0, x), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x."""
    _float_only(input, "leaky_relu")
    negative_slope = _opmath(negative_slope, input, "leaky_relu", "negative_slope")
    r = torch.where(input > 0, input, input * negative_slope)
    return _inplace(input, r) if inplace else r


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def _negative_part(input, positive):
    """x where not positive, else 0 (so that exp() of it never overflows)."""
    return torch.where(positive, 0.0, input)


def _elu(input, alpha, op):
    _float_only(input, op)
    alpha = _opmath(alpha, input, op, "alpha")
    pos = input > 0
    return torch.where(pos, input, torch.expm1(_negative_part(input, pos)) * alpha)


def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    r = _elu(input, alpha, "elu")
    return _inplace(input, r) if inplace else r


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    r = _elu(input, _SELU_ALPHA, "selu") * _SELU_SCALE
    return _inplace(input, r) if inplace else r


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    _float_only(input, "celu")
    alpha = _opmath(alpha, input, "celu", "alpha")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu(): alpha cannot be 0 for CELU")
    pos = input > 0
    r = torch.where(pos, input, torch.expm1(_negative_part(input, pos) / alpha) * alpha)
    return _inplace(input, r) if inplace else r


def celu_(input, alpha=1.0):
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
    pos = input > 0
    if training:
        slope = torch.empty_like(input).uniform_(lower, upper) if lower < upper else lower
        r = torch.where(pos, input, input * slope)
    else:
        r = torch.where(pos, input, input * ((lower + upper) / 2))
    return _inplace(input, r) if inplace else r


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


_SQRT1_2 = math.sqrt(0.5)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)


def gelu(input, approximate="none"):
    """x * Phi(x) (Phi: the normal CDF); ``approximate='tanh'`` uses
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    if not isinstance(approximate, str):
        raise TypeError(
            f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}"
        )
    _float_only(input, "gelu")
    half = input * 0.5
    if approximate == "none":
        return torch.addcmul(half, half, torch.erf(input * _SQRT1_2))
    if approximate == "tanh":
        inner = torch.addcmul(input, input * input, input, value=0.044715) * _SQRT_2_PI
        return torch.addcmul(half, half, torch.tanh(inner))
    raise RuntimeError(f"approximate argument must be either none or tanh, got '{approximate}'")


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    _float_only(input, "silu")
    r = input * torch.sigmoid(input)
    return _inplace(input, r) if inplace else r


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    _float_only(input, "mish")
    r = input * torch.tanh(softplus(input))
    return _inplace(input, r) if inplace else r


def _relu6_of_x_plus_3(input):
    """min(max(x + 3, 0), 6), with gradient 1 strictly between the limits, 0 elsewhere."""
    t = input + 3
    return t.masked_fill(t <= 0, 0).masked_fill(t >= 6, 6)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    _float_only(input, "hardsigmoid")
    r = _relu6_of_x_plus_3(input) / 6
    return _inplace(input, r) if inplace else r


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    _float_only(input, "hardswish")
    r = input * _relu6_of_x_plus_3(input) / 6
    return _inplace(input, r) if inplace else r


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta; linear (x) where beta x > threshold."""
    _float_only(input, "softplus")
    beta = _opmath(beta, input, "softplus", "beta")
    threshold = _opmath(threshold, input, "softplus", "threshold")
    bx = input * beta if beta != 1 else input
    linear_part = bx > threshold
    # exp() only of values that stay on the soft side (no overflow, no NaN gradient)
    soft = torch.log1p(torch.exp(bx.masked_fill(linear_part, 0)))
    if beta != 1:
        soft = soft / beta
    return torch.where(linear_part, input, soft)


def softsign(input):
    """x / (1 + |x|)."""
    return input / (torch.abs(input) + 1)


def logsigmoid(input):
    """log(sigmoid(x)), computed without overflow: min(x, 0) - log1p(exp(-|x|))."""
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
    """x where |x| > lambd, else 0."""
    _float_only(input, "hardshrink")
    lambd = _opmath(lambd, input, "hardshrink", "lambd")
    # |x| <= lambd gives 0; with a NaN lambd nothing does (as PyTorch)
    return input.masked_fill((input >= -lambd) & (input <= lambd), 0)


def tanh(input):
    return torch.tanh(input)


def sigmoid(input):
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
    return _inplace(input, softsign(input))


# ---------------------------------------------------------------- distances, normalisation
def _sum_sq(x, dim, keepdim):
    return (x * x).sum(dim, keepdim=keepdim)


def _pnorm(x, p, dim, keepdim):
    """||x||_p along dim, differentiable (p = 2 with a zero vector has a NaN gradient; the
    callers keep away from it)."""
    if p == 2:
        return _sum_sq(x, dim, keepdim).sqrt()
    a = torch.abs(x)
    if p == 1:
        return a.sum(dim, keepdim=keepdim)
    if p == math.inf:
        return a.amax(dim, keepdim=keepdim)
    if p == -math.inf:
        return a.amin(dim, keepdim=keepdim)
    if p == 0:
        return (a != 0).to(x.dtype).sum(dim, keepdim=keepdim)
    if p < 0:
        return a.pow(p).sum(dim, keepdim=keepdim).pow(1.0 / p)
    # m * ||x / m||_p with m = max |x|: neither a large p nor large values overflow
    m = a.amax(dim, keepdim=True)
    safe = torch.where((m > 0) & (m < math.inf), m, 1.0)
    r = (a / safe).pow(p).sum(dim, keepdim=True).pow(1.0 / p) * safe
    r = torch.where(m == math.inf, m, r)
    return r if keepdim else r.squeeze(dim)


def _clamped_l2(x, dim, eps):
    """max(||x||_2, eps) along dim (kept): as sqrt(max(sum x^2, eps^2)) where eps^2 is a
    normal number, so that zero vectors get no NaN gradient."""
    if 0 < eps < 1e150:
        return torch.clamp(_sum_sq(x, dim, True), min=eps * eps).sqrt()
    return torch.clamp(_sum_sq(x, dim, True).sqrt(), min=eps)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along dim."""
    op = "normalize"
    _check_tensor(input, op)
    if not input.is_floating_point():
        raise RuntimeError(
            f"{op}(): linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {input.dtype}"
        )
    eps = _opmath(eps, input, op, "eps")
    p = 2.0 if p is None else p
    if p == 2:
        denom = _clamped_l2(input, dim, eps)
    else:
        denom = torch.clamp(_pnorm(input, p, dim, True), min=eps)
    r = input / denom
    if out is not None:
        return out.copy_(r)
    return r


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / (max(||x1||, eps) * max(||x2||, eps)) along dim, after broadcasting x1 and
    x2 to one shape (dim counts in that shape): each input is divided by its clamped norm,
    then the products are summed."""
    op = "cosine_similarity"
    _check_tensor(x1, op, "x1")
    _check_tensor(x2, op, "x2")
    if isinstance(dim, bool):
        raise TypeError(f"{op}(): argument 'dim' must be int, not bool")
    dtype = torch.result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{op}(): expected common dtype to be floating point, yet common dtype is {dtype} "
            f"(x1: {x1.dtype}, x2: {x2.dtype})"
        )
    x1, x2 = torch.broadcast_tensors(x1.to(dtype), x2.to(dtype))
    eps = _opmath(eps, x1, op, "eps")
    if not eps >= 0:  # (NaN too)
        raise RuntimeError(f"{op}(): eps must be non-negative, got: {eps}")
    from torch._functional import wrap_dim

    d = wrap_dim(dim, x1.dim(), op)
    return ((x1 / _clamped_l2(x1, d, eps)) * (x2 / _clamped_l2(x2, d, eps))).sum(d)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dimension."""
    _check_tensor(x1, "pairwise_distance", "x1")
    _check_tensor(x2, "pairwise_distance", "x2")
    dim = -1 if max(x1.dim(), x2.dim()) > 0 else 0
    return _pnorm(x1 - x2 + eps, p, dim, keepdim)


def pdist(input, p=2):
    """Distances between all pairs of rows of a 2-d input (the upper triangle, row by row)."""
    _check_tensor(input, "pdist")
    if input.dtype in (torch.float16, torch.bfloat16):
        raise NotImplementedError(f"pdist(): not implemented for {input.dtype}")
    if not input.is_floating_point():
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype}")
    if not p >= 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    i, j = torch.triu_indices(n, n, 1)
    return _pnorm(input.index_select(0, i) - input.index_select(0, j), p, 1, False)


def one_hot(tensor, num_classes=-1):
    """An int64 tensor with a trailing dimension of size num_classes, 1 at each index."""
    from torch._nn_ops import _int

    _check_tensor(tensor, "one_hot")
    num_classes = _int(num_classes, "one_hot", "num_classes")
    if tensor.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return torch.zeros(*tensor.shape, num_classes, dtype=torch.int64)
    lo, hi = int(tensor.min()), int(tensor.max())
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = hi + 1
    elif hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = torch.zeros(*tensor.shape, num_classes, dtype=torch.int64)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


_INT64_MAX = 2**63 - 1


def _shuffle_factor(value, op, arg, square=True):
    """A pixel (un)shuffle factor: a positive int64 (whose square fits in int64 too, with
    ``square``)."""
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {type(value).__name__}")
    r = value.__index__()
    if r > _INT64_MAX:
        raise ValueError(f"{op}(): {arg}={r} overflows int64")
    if r <= 0:
        raise RuntimeError(f"{op} expects a positive {arg}, but got {r}")
    if square and r * r > _INT64_MAX:
        raise ValueError(f"{op}(): {arg} is too large, ({arg})^2 overflows int64: {arg}={r}")
    return r


def _shuffle_input(input, op):
    _check_tensor(input, op)
    if input.dim() < 3:
        raise RuntimeError(
            f"{op} expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s) (shape {tuple(input.shape)})"
        )


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    op = "pixel_shuffle"
    _shuffle_input(input, op)
    r = _shuffle_factor(upscale_factor, op, "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r} "
            f"(input shape {tuple(input.shape)}, upscale_factor={r})"
        )
    oc = c // (r * r)
    n = len(lead)
    x = input.reshape(*lead, oc, r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, oc, h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    op = "pixel_unshuffle"
    _shuffle_input(input, op)
    r = _shuffle_factor(downscale_factor, op, "downscale_factor", square=False)
    *lead, c, h, w = input.shape
    for name, size, d in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({d})={size} is not divisible by {r} (input shape "
                f"{tuple(input.shape)})"
            )
    if c * r * r > _INT64_MAX:
        raise RuntimeError(
            f"pixel_unshuffle: the output channel count {c} * {r}^2 overflows int64 (input "
            f"shape {tuple(input.shape)}, downscale_factor={r})"
        )
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


# ---------------------------------------------------------------- pooling / dropout wrappers
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    return _kernel("max_pool1d")(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    return _kernel("max_pool2d")(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    return _kernel("max_pool3d")(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _kernel("adaptive_max_pool1d")(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _kernel("adaptive_max_pool2d")(input, output_size, True)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn(
        "nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return _kernel("interpolate")(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return _kernel("interpolate")(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return _kernel("interpolate")(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------- losses
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target|, reduced."""
    _warn_size_mismatch(input, target, "l1_loss")
    reduction = _reduction_of(size_average, reduce, reduction)
    return _reduce(_weighted(torch.abs(input - target), weight), reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)^2, reduced."""
    _warn_size_mismatch(input, target, "mse_loss")
    reduction = _reduction_of(size_average, reduce, reduction)
    d = input - target
    return _reduce(_weighted(d * d, weight), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target)."""
    _warn_size_mismatch(input, target, "smooth_l1_loss")
    reduction = _reduction_of(size_average, reduce, reduction)
    if not beta >= 0:  # (NaN too)
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = torch.abs(input - target)
    if beta == 0:
        return _reduce(d, reduction)
    loss = torch.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    _warn_size_mismatch(input, target, "huber_loss")
    if not delta > 0:  # (NaN too)
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = torch.abs(input - target)
    loss = torch.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return _reduce(_weighted(loss, weight), reduction)


def _bce_shape_check(input, target):
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):  # fmt: skip
    """-(t log(x) + (1 - t) log(1 - x)), each log clamped to >= -100."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("binary_cross_entropy", input=input, target=target)
    _bce_shape_check(input, target)
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"binary_cross_entropy(): Found dtype {target.dtype} (target) but expected "
            f"{input.dtype} (the input's)"
        )
    if input.numel() and bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_x = torch.clamp(torch.log(input), min=-100.0)
    log_1mx = torch.clamp(torch.log(1 - input), min=-100.0)
    loss = -(target * (log_x - log_1mx) + log_1mx)
    return _reduce(_weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):  # fmt: skip
    """binary_cross_entropy(sigmoid(input), target), computed stably; ``pos_weight``
    weighs the positive term (one value per class, broadcast over the last dimension)."""
    reduction = _reduction_of(size_average, reduce, reduction)
    op = "binary_cross_entropy_with_logits"
    _tensors(op, input=input, target=target)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    _float_only(input, op)
    if not target.is_floating_point():
        raise RuntimeError(
            f"{op}(): result type Float can't be cast to the desired output type of the target "
            f"({target.dtype}); use a floating-point target"
        )
    # log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|))
    log_sig_neg = torch.clamp(-input, min=0.0) + torch.log1p(torch.exp(-torch.abs(input)))
    if pos_weight is None:
        loss = (1 - target) * input + log_sig_neg
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * log_sig_neg
    return _reduce(_weighted(loss, weight), reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) (input holds log-probabilities; target too when
    ``log_target``).  'batchmean' divides the sum by the batch size."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("kl_div", input=input, target=target)
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError(
            f"kl_div: Integral inputs not supported (input {input.dtype}, target {target.dtype})"
        )
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    if log_target:
        loss = torch.exp(target) * (target - input)
    else:
        safe = torch.where(target > 0, target, 1.0)
        loss = target * torch.log(safe) - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() else 1)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):  # fmt: skip
    """max(0, -target * (input1 - input2) + margin)."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("margin_ranking_loss", input1=input1, input2=input2, target=target)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce(torch.clamp(-target * (input1 - input2) + margin, min=0.0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):  # fmt: skip
    """x where target is 1, max(0, margin - x) where target is -1."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("hinge_embedding_loss", input=input, target=target)
    zeros = torch.zeros_like(input)
    margin_part = torch.where(target != 1, torch.clamp(margin - input, min=0.0), zeros)
    self_part = torch.where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input))."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("soft_margin_loss", input=input, target=target)
    z = -(target * input)  # (negating an unsigned target first would wrap around)
    loss = torch.clamp(z, min=0.0) + torch.log1p(torch.exp(-torch.abs(z)))
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):  # fmt: skip
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    if target.dim() > 1:
        raise RuntimeError(
            f"cosine_embedding_loss(): 0D or 1D target tensor expected, multi-target not "
            f"supported (got target of shape {tuple(target.shape)})"
        )
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2):
        raise RuntimeError(
            f"cosine_embedding_loss: expected 1D or 2D inputs of the same dimension, got "
            f"{list(input1.shape)} and {list(input2.shape)}"
        )
    dim = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag = torch.clamp(_sum_sq(input1, dim, False) * _sum_sq(input2, dim, False), min=eps).sqrt()
    cos = prod / mag
    zeros = torch.zeros_like(cos)
    pos = torch.where(target == 1, 1 - cos, zeros)
    neg = torch.where(target == -1, torch.clamp(cos - margin, min=0.0), zeros)
    return _reduce(pos + neg, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):  # fmt: skip
    """max(d(a, p) - d(a, n) + margin, 0) with d the pairwise p-norm distance; ``swap``
    uses min(d(a, n), d(p, n))."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss(): margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1 or dims[0] not in (1, 2):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions (1 or 2), but got: anchor {dims[0]}D, positive {dims[1]}D, and "
            f"negative {dims[2]}D inputs"
        )
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torch.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(torch.clamp(d_pos - d_neg + margin, min=0.0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):  # fmt: skip
    op = "triplet_margin_with_distance_loss"
    _tensors(op, anchor=anchor, positive=positive, negative=negative)
    if margin <= 0:
        raise ValueError(f"{op}(): margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            f"{op}(): The anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and "
            f"negative {dims[2]}D inputs"
        )
    _check_reduction(reduction)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = torch.minimum(d_neg, dist(positive, negative))
    return _reduce(torch.clamp(d_pos - d_neg + margin, min=0.0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):  # fmt: skip
    """-(t log sigmoid(x) + (1 - t) log sigmoid(-x)), averaged over the classes (last
    dimension), then reduced over the batch."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("multilabel_soft_margin_loss", input=input, target=target)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    loss = _weighted(loss, weight)
    # the class dim is the input's last (the loss may have more leading dims from target)
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):  # fmt: skip
    """exp(x) - t x (``log_input``) or x - t log(x + eps); ``full`` adds Stirling's term."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("poisson_nll_loss", input=input, target=target)
    from torch._nn_ops import _float

    eps = _float(eps, "poisson_nll_loss", "eps")
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input + eps)
    if full:
        stirling = target * torch.log(torch.where(target > 1, target, 1.0)) - target
        stirling = stirling + 0.5 * torch.log(2 * math.pi * torch.where(target > 1, target, 1.0))
        loss = loss + torch.where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi))."""
    if not isinstance(var, Tensor):
        var = torch.full_like(input, float(var))
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.shape[:-1] == var.shape[:-1] and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = torch.clamp(var, min=eps)
    d = input - target
    loss = 0.5 * (torch.log(var) + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):  # fmt: skip
    """sum_{i != y} max(0, margin - x[y] + x[i])^p / C per sample."""
    op = "multi_margin_loss"
    reduction = _reduction_of(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _tensors(op, input=input, target=target)
    if input.dtype in (torch.float16, torch.bfloat16):
        raise NotImplementedError(f"{op}(): not implemented for {input.dtype}")
    if input.dim() > 2 or input.numel() == 0 and (input.dim() < 2 or input.shape[1] == 0):
        raise RuntimeError(
            f"{op}(): Expected non-empty vector or matrix with optional 0-dim batch size, but "
            f"got: {list(input.shape)}"
        )
    n = input.shape[0] if input.dim() == 2 else 1
    if target.dim() > 1 or target.numel() != n or (input.dim() == 2 and target.dim() != 1):
        raise RuntimeError(
            f"{op}(): target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{n}], but got {list(target.shape)}. Input "
            f"size: {list(input.shape)}"
        )
    if target.dtype != torch.int64:
        raise RuntimeError(f"{op}(): expected target of scalar type Long but found {target.dtype}")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    c = x.shape[1]
    if weight is not None:
        _check_tensor(weight, op, "weight")
        if weight.dim() > 1 or weight.numel() != c:
            raise RuntimeError(
                f"{op}(): inconsistent weight size, expected {c} but got {list(weight.shape)}"
            )
    t = target.reshape(-1, 1)
    x_y = x.gather(1, t)
    z = margin - x_y + x
    m = torch.where(z > 0, z, 0.0)  # (a NaN margin adds nothing, as in PyTorch)
    if p == 2:
        m = m * m
    if weight is not None:
        m = m * weight.reshape(-1).index_select(0, t.reshape(-1)).unsqueeze(1)
    is_y = torch.zeros(x.shape, dtype=torch.bool).scatter_(1, t, True)
    loss = m.masked_fill(is_y, 0).sum(1) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-class multi-label hinge loss: per sample,
    sum over its targets j and its non-target classes i of max(0, 1 - (x[y_j] - x[i])) / C.

    input (C) or (N, C); target of the same shape, int64, holding the sample's target
    classes first and padded with -1 (the targets are those before the first -1)."""
    op = "multilabel_margin_loss"
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors(op, input=input, target=target)
    _check_reduction(reduction)
    if input.dim() > 2 or (input.numel() == 0 and (input.dim() < 2 or input.shape[1] == 0)):
        raise RuntimeError(
            f"{op}(): Expected non-empty vector or matrix with optional 0-dim batch size, but "
            f"got: {list(input.shape)}"
        )
    if target.shape != input.shape:
        raise RuntimeError(
            f"{op}(): inconsistent target size: {list(target.shape)} for input of size: "
            f"{list(input.shape)}"
        )
    if not input.is_floating_point() or input.dtype in (torch.float16, torch.bfloat16):
        raise NotImplementedError(f"{op}(): not implemented for {input.dtype}")
    if target.dtype != torch.int64:
        raise RuntimeError(f"{op}(): expected target of scalar type Long but found {target.dtype}")
    c = input.shape[-1] if input.dim() else 1
    x = input.reshape(-1, c)
    t = target.reshape(-1, c)
    if t.numel() and (bool((t < -1).any()) or bool((t >= c).any())):
        raise RuntimeError(f"{op}(): argument #2 'target' is out of range (classes 0..{c - 1})")
    # the targets of a row are the prefix before its first -1
    active = (t != -1).long().cumprod(1)
    k = int(active.sum(1).max()) if t.shape[0] else 0
    active, safe = active[:, :k].bool(), torch.where(active.bool(), t, 0)[:, :k]
    hits = torch.zeros(t.shape, dtype=torch.int64).scatter_add(1, safe, active.long())
    non_target = (hits == 0).unsqueeze(1)  # (N, 1, C)
    x_y = x.gather(1, safe).unsqueeze(2)  # (N, k, 1)
    z = 1 - x_y + x.unsqueeze(1)  # (N, k, C): the margin of target j over class i
    keep = active.unsqueeze(2) & non_target & (z > 0)
    loss = torch.where(keep, z, 0.0).sum((1, 2)) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


# ---------------------------------------------------------------- attention
def _causal_mask(L, S, dtype):
    """0 on and below the diagonal, -inf above, shape (L, S)."""
    keep = torch.ones(L, S, dtype=torch.bool).tril()
    return torch.zeros(L, S, dtype=dtype).masked_fill(keep.logical_not(), -math.inf)


def _mha_mask(mask, dtype):
    """A MultiheadAttention mask as an additive float mask (boolean: True is masked out)."""
    if mask is None or mask.dtype != torch.bool:
        return mask
    return torch.zeros(mask.shape, dtype=dtype).masked_fill(mask, -math.inf)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):  # fmt: skip
    """softmax(Q K^T * scale + mask) V over the last two dimensions.

    query (..., L, E), key (..., S, E), value (..., S, Ev).  ``attn_mask``: a boolean mask
    (True: take part in attention) or an additive float mask, broadcast to (..., L, S);
    ``is_causal``: each query attends to keys at its position and before; ``scale``
    defaults to 1/sqrt(E); ``dropout_p`` drops attention weights."""
    op = "scaled_dot_product_attention"
    _tensors(op, query=query, key=key, value=value)
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(
            f"{op}(): Expected query, key, and value to all be at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead."
        )
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            f"{op}(): Expected query, key, and value to have the same dtype, but got "
            f"query.dtype: {query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype}"
        )
    _float_only(query, op)
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(
            f"{op}(): dropout probability has to be between 0 and 1, but got {dropout_p}"
        )
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"{op}(): expected query (..., L, E), key (..., S, E) and value (..., S, Ev), got "
            f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}"
        )
    L, S = query.shape[-2], key.shape[-2]
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
        )
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    e = query.shape[-1]
    s = (1.0 / math.sqrt(e) if e else math.inf) if scale is None else scale
    scores = torch.matmul(query * s, key.transpose(-2, -1))
    if is_causal:
        scores = scores + _causal_mask(L, S, scores.dtype)
    elif attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    attn = _kernel("softmax")(scores, -1)
    # a query that may attend to no key (its whole row masked) gets zeros, not NaN
    attn = attn.masked_fill((scores == -math.inf).all(-1, keepdim=True), 0.0)
    if dropout_p > 0.0:
        attn = _kernel("dropout")(attn, dropout_p, True)
    return torch.matmul(attn, value)


def _in_projection(q, k, v, w, b, E, separate):
    if separate is not None:
        wq, wk, wv = separate
        bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
        return linear(q, wq, bq), linear(k, wk, bk), linear(v, wv, bv)
    if k is v and q is k:  # self-attention: one matmul
        return linear(q, w, b).chunk(3, -1)
    wq, wk, wv = w.chunk(3)
    bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
    return linear(q, wq, bq), linear(k, wk, bk), linear(v, wv, bv)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True,
                                 is_causal=False):  # fmt: skip
    """Multi-head attention on sequence-first inputs: query (L, N, E) or (L, E), key and
    value (S, N, E) or (S, E).  Returns (output (L, N, E), weights (N, L, S) averaged over
    heads, (N, H, L, S) otherwise, or None without ``need_weights``)."""
    if query.dim() not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
            f"query tensor"
        )
    batched = query.dim() == 3
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(
            f"For {'batched (3-D)' if batched else 'unbatched (2-D)'} `query`, expected `key` and "
            f"`value` to be {query.dim()}-D but found {key.dim()}-D and {value.dim()}-D tensors "
            f"respectively"
        )
    if not use_separate_proj_weight and in_proj_weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(
            f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}"
        )
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    if E != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}"
        )
    if E % num_heads:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    hd = E // num_heads
    if is_causal and attn_mask is None:
        attn_mask = _causal_mask(L, key.shape[0], query.dtype)
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, E, separate)
    attn_mask = _mha_mask(attn_mask, q.dtype)
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        k = torch.cat([k, bias_k.reshape(1, 1, E).expand(1, N, E)])
        v = torch.cat([v, bias_v.reshape(1, 1, E).expand(1, N, E)])
        if attn_mask is not None:
            attn_mask = torch.cat(
                [attn_mask, torch.zeros(*attn_mask.shape[:-1], 1, dtype=attn_mask.dtype)], -1
            )
        if key_padding_mask is not None:
            key_padding_mask = torch.cat(
                [key_padding_mask, torch.zeros(N, 1, dtype=key_padding_mask.dtype)], -1
            )
    # (L, N, E) -> (N * H, L, hd)
    q = q.reshape(L, N * num_heads, hd).transpose(0, 1)
    k = k.reshape(k.shape[0], N * num_heads, hd) if static_k is None else static_k
    v = v.reshape(v.shape[0], N * num_heads, hd) if static_v is None else static_v
    if static_k is None:
        k = k.transpose(0, 1)
    if static_v is None:
        v = v.transpose(0, 1)
    if add_zero_attn:
        k = torch.cat([k, torch.zeros(N * num_heads, 1, hd, dtype=k.dtype)], 1)
        v = torch.cat([v, torch.zeros(N * num_heads, 1, hd, dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = torch.cat(
                [attn_mask, torch.zeros(*attn_mask.shape[:-1], 1, dtype=attn_mask.dtype)], -1
            )
        if key_padding_mask is not None:
            key_padding_mask = torch.cat(
                [key_padding_mask, torch.zeros(N, 1, dtype=key_padding_mask.dtype)], -1
            )
    S = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape != (N, S):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(N, S)}, but got "
                f"{tuple(key_padding_mask.shape)}"
            )
        kpm = _mha_mask(key_padding_mask, q.dtype)
        kpm = kpm.reshape(N, 1, 1, S).expand(N, num_heads, 1, S).reshape(N * num_heads, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    scores = torch.matmul(q * (1.0 / math.sqrt(hd)), k.transpose(1, 2))
    if attn_mask is not None:
        scores = scores + attn_mask
    attn = _kernel("softmax")(scores, -1)
    if dropout_p > 0.0:
        attn = _kernel("dropout")(attn, dropout_p, True)
    out = torch.matmul(attn, v)  # (N * H, L, hd)
    out = out.transpose(0, 1).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    weights = None
    if need_weights:
        weights = attn.reshape(N, num_heads, L, S)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            weights = weights.squeeze(0)
    if not batched:
        out = out.squeeze(1)
    return out, weights


# ---------------------------------------------------------------- misc
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels)^beta."""
    from torch._nn_ops import _int

    op = "local_response_norm"
    _float_only(input, op)
    size = _int(size, op, "size")
    alpha = _opmath(alpha, input, op, "alpha")
    beta = _opmath(beta, input, op, "beta")
    k = _opmath(k, input, op, "k")
    if input.dim() < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)"
        )
    c = input.shape[1]
    sq = input * input
    shape = list(sq.shape)
    before, after = size // 2, (size - 1) // 2
    parts = [sq]
    if before:
        parts.insert(0, sq.new_zeros(*shape[:1], before, *shape[2:]))
    if after:
        parts.append(sq.new_zeros(*shape[:1], after, *shape[2:]))
    padded = torch.cat(parts, 1)
    total = padded.narrow(1, 0, c)
    for i in range(1, size):
        total = total + padded.narrow(1, i, c)
    return input / (total * (alpha / size) + k).pow(beta)


# ---------------------------------------------------------------- spatial transformers
def _grid_axis(n, align_corners, dtype):
    """The n sample positions along one output axis, in [-1, 1] coordinates: the pixel
    centres (``align_corners=False``) or the corner pixels' centres at -1 and 1."""
    if n <= 1:
        return torch.zeros(n, dtype=dtype)
    r = torch.linspace(-1.0, 1.0, n, dtype=dtype)
    return r if align_corners else r * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps, for :func:`grid_sample`.

    theta (N, 2, 3) with size (N, C, H, W) gives a grid (N, H, W, 2); theta (N, 3, 4) with
    size (N, C, D, H, W) gives (N, D, H, W, 3).  Each output point, in normalised [-1, 1]
    coordinates (x, y[, z]), is mapped by theta; ``align_corners`` (default False) as in
    grid_sample."""
    _check_tensor(theta, "affine_grid", "theta")
    align_corners = bool(align_corners) if align_corners is not None else False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    dims = [int(s) for s in size]
    if len(dims) not in (4, 5):
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    d = len(dims) - 2
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (d, d + 1):
        raise ValueError(
            f"Expected a batch of {d}D affine matrices of shape Nx{d}x{d + 1} for size {size}. "
            f"Got {theta.shape}."
        )
    if min(dims) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, spatial = dims[0], dims[2:]
    if theta.shape[0] != n:
        raise RuntimeError(
            f"affine_grid(): theta holds {theta.shape[0]} matrices but size asks for a batch of {n}"
        )
    # base (*spatial, d + 1): (x, y[, z], 1), x along the last spatial dimension
    columns = []
    for k in range(d):
        axis = len(spatial) - 1 - k  # x is the last spatial dimension, y the one before
        shape = [1] * len(spatial)
        shape[axis] = spatial[axis]
        columns.append(_grid_axis(spatial[axis], align_corners, theta.dtype).reshape(shape))
    columns = [col.expand(*spatial) for col in columns]
    columns.append(torch.ones(spatial, dtype=theta.dtype))
    base = torch.stack(columns, -1).reshape(1, -1, d + 1).expand(n, -1, d + 1)
    grid = torch.bmm(base, theta.transpose(1, 2))  # (N, points, d)
    return grid.reshape(n, *spatial, d)


_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDINGS = ("zeros", "border", "reflection")


def _grid_unnormalize(coord, n, align_corners):
    """[-1, 1] grid coordinates to pixel positions along an axis of n pixels."""
    if align_corners:
        return (coord + 1) * ((n - 1) / 2)
    return ((coord + 1) * n - 1) / 2


def _grid_clip(coord, n):
    """Clamped to [0, n - 1] (NaN to 0), with gradient 1 strictly inside only."""
    coord = torch.where(coord > 0, coord, 0.0)
    return torch.where(coord < n - 1, coord, float(n - 1))


def _grid_reflect(coord, twice_low, twice_high):
    """coord reflected off the bounds twice_low / 2 and twice_high / 2 until inside."""
    if twice_low == twice_high:
        return torch.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    flips = torch.floor(coord.detach() / span)
    extra = coord - flips * span  # coord mod span, differentiable in coord
    even = torch.fmod(flips, 2) == 0
    return torch.where(even, extra + low, span - extra + low)


def _grid_pad(coord, n, padding_mode, align_corners):
    """Pixel positions outside the input moved inside (border, reflection) or kept."""
    if padding_mode == "border":
        return _grid_clip(coord, n)
    if padding_mode == "reflection":
        if align_corners:
            coord = _grid_reflect(coord, 0, 2 * (n - 1))
        else:
            coord = _grid_reflect(coord, -1, 2 * n - 1)
        return _grid_clip(coord, n)
    return coord


def _cubic_weights(t):
    """The four cubic-convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 from the
    floor, for the fractional position t."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _grid_gather(flat, taps, sizes):
    """sum over all combinations of one tap per spatial dimension of weight * value, where
    taps[k] is a list of (position (N, P), weight (N, P) or None) along dimension k; taps
    outside the input contribute 0.  flat: the input as (N, C, prod(sizes))."""
    n, c = flat.shape[0], flat.shape[1]
    strides = [math.prod(sizes[k + 1 :]) for k in range(len(sizes))]
    out = None
    for combo in itertools.product(*taps):
        valid = lin = w = None
        for k, (pos, weight) in enumerate(combo):
            inside = (pos >= 0) & (pos <= sizes[k] - 1)  # False for NaN
            term = torch.where(inside, pos, 0.0).long() * strides[k]
            valid = inside if valid is None else valid & inside
            lin = term if lin is None else lin + term
            if weight is not None:
                w = weight if w is None else w * weight
        lin = torch.where(valid, lin, 0)
        p = lin.shape[1]
        vals = flat.gather(2, lin.unsqueeze(1).expand(n, c, p))
        vals = torch.where(valid.unsqueeze(1), vals, 0.0)
        term = vals if w is None else vals * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input at the positions of grid.

    input (N, C, H, W) with grid (N, Ho, Wo, 2) gives (N, C, Ho, Wo); input (N, C, D, H, W)
    with grid (N, Do, Ho, Wo, 3) gives (N, C, Do, Ho, Wo).  grid[..., 0] is x (the input's
    width), grid[..., 1] y, grid[..., 2] z, normalised to [-1, 1]: the centres of the corner
    pixels with ``align_corners=True``, their outer edges otherwise (the default).  ``mode``
    'bilinear' (trilinear for 5-D), 'nearest' or 'bicubic' (4-D only); ``padding_mode``
    'zeros', 'border' or 'reflection' for points outside.  Differentiable in input and in
    grid (except for 'nearest', whose grid gradient is zero)."""
    op = "grid_sampler()"
    _tensors("grid_sample", input=input, grid=grid)
    if mode not in _GRID_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _GRID_PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    align_corners = bool(align_corners) if align_corners is not None else False
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"{op}: expected input and grid to have the same dtype, but input has "
            f"{input.dtype} and grid has {grid.dtype}"
        )
    if input.dim() >= 1 and grid.dim() >= 1:
        if input.shape[0] != grid.shape[0]:
            raise RuntimeError(
                f"{op}: expected grid and input to have same batch size, but got input with "
                f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
            )
        if grid.shape[-1] != input.dim() - 2:
            raise RuntimeError(
                f"{op}: expected grid to have size {input.dim() - 2} in last dimension, but got "
                f"grid with sizes {list(grid.shape)}"
            )
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(
            f"{op}: expected 4D or 5D input and grid with same number of dimensions, but got "
            f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{op}: expected input to have non-empty spatial dimensions, but input has "
                f"sizes {list(input.shape)} with dimension {i} being empty"
            )
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError(f"{op}: bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        raise NotImplementedError(f"grid_sample(): not implemented for {input.dtype}")
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])
    d = len(sizes)
    out_spatial = list(grid.shape[1:-1])
    g = grid.reshape(n, math.prod(out_spatial), d)
    # spatial dimension k of the input is addressed by grid[..., d - 1 - k]
    coords = [_grid_unnormalize(g[:, :, d - 1 - k], sizes[k], align_corners) for k in range(d)]
    taps = []
    for k, (coord, size) in enumerate(zip(coords, sizes)):
        if mode == "bicubic":
            low = torch.floor(coord.detach())
            weights = _cubic_weights(coord - low)
            taps.append([
                (_grid_pad(low + (j - 1), size, padding_mode, align_corners), weights[j])
                for j in range(4)
            ])  # fmt: skip
            continue
        coord = _grid_pad(coord, size, padding_mode, align_corners)
        if mode == "nearest":
            # weight 1 whose gradient is 0: grid still receives a (zero) gradient
            one = None
            if k == 0 and coord.requires_grad:
                one = torch.where(torch.zeros(coord.shape, dtype=torch.bool), coord, 1.0)
            taps.append([(torch.round(coord.detach()), one)])
        else:
            low = torch.floor(coord.detach())
            frac = coord - low
            taps.append([(low, 1 - frac), (low + 1, frac)])
    out = _grid_gather(input.reshape(n, c, math.prod(sizes)), taps, sizes)
    return out.reshape(n, c, *out_spatial)
