"""Neural-network kernels other than convolution: pooling, normalisation, softmax, losses,
embedding, dropout, interpolation, padding (the kernels are in csrc/nn_*.cpp).

The functions have ``torch.nn.functional``'s signatures and semantics; torch-nn re-exports
them as ``torch.nn.functional.<name>``. The C++ kernels behind them (``_C._max_pool``,
``_C._softmax``, ...) take float32 or float64 tensors; layer_norm, group_norm and
instance_norm run the batch-norm kernel on a reshaped input, and cross_entropy is
log_softmax followed by nll_loss.
"""

import builtins
import math
import operator
import warnings

from torch import _C
from torch._creation import arange, full, ones, zeros
from torch._functional import _check_tensor
from torch._indexing import searchsorted

Tensor = _C.Tensor

# torch.<name>: these have torch.nn.functional's signatures.  batch_norm, instance_norm and
# embedding are left out: PyTorch's torch.batch_norm/instance_norm/embedding take their
# arguments in another order, so they are reached only through torch.nn.functional.
__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d",
    "softmax", "log_softmax", "softmin", "layer_norm", "group_norm",
    "nll_loss", "cross_entropy", "embedding_bag", "dropout",
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "interpolate", "pad",
    # torch.<op> and torch.<op>_ forms PyTorch has for activations and dropouts
    "threshold", "threshold_", "selu", "selu_", "celu", "celu_", "rrelu", "rrelu_",
    "dropout_", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout",
    "feature_dropout_",
]  # fmt: skip


# ---------------------------------------------------------------- argument helpers


def _int(value, op, arg):
    if isinstance(value, builtins.bool):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{op}(): argument '{arg}' must be int, not {type(value).__name__}"
        ) from None
    if not -(2**63) <= v < 2**63:
        raise ValueError(f"{op}(): argument '{arg}' is {v}, which overflows int64")
    return v


def _float(value, op, arg):
    """A float argument: a real number (TypeError for strings, None, tensors, ...)."""
    if isinstance(value, (builtins.int, builtins.float)) or (
        hasattr(value, "__float__") and not isinstance(value, (Tensor, str, bytes, complex))
    ):
        return builtins.float(value)
    raise TypeError(f"{op}(): argument '{arg}' must be float, not {type(value).__name__}")


def _bool(value, op, arg):
    """A bool argument: bool (or NumPy's bool_), TypeError for anything else (as PyTorch)."""
    if isinstance(value, builtins.bool) or type(value).__name__ == "bool_":
        return builtins.bool(value)
    raise TypeError(f"{op}(): argument '{arg}' must be bool, not {type(value).__name__}")


_WIDE_FLOATS = (_C.float32, _C.float64)
_HALF_FLOATS = (_C.float16, _C.bfloat16)


def _compute_dtype(input, op):
    """The dtype the float32/float64 kernels run ``input`` in: its own, float32 for the 16-bit
    floats (the caller rounds the result back), NotImplementedError for integer and bool
    inputs (PyTorch's CPU kernels are floating-point only too)."""
    if input.dtype in _WIDE_FLOATS:
        return input.dtype
    if input.dtype in _HALF_FLOATS:
        return _C.float32
    raise NotImplementedError(
        f"{op}(): not implemented for '{_dtype_label(input.dtype)}' ({input.dtype}); expected "
        f"a floating-point input"
    )


def _check_out_size(shape, dtype, op):
    """RuntimeError where a result of ``shape`` could not exist (its byte size overflows
    int64), before any kernel allocates it."""
    n = math.prod(shape) if shape else 1
    if (
        builtins.any(v < 0 for v in shape)
        or n * _C.empty(0, dtype=dtype).element_size() > 2**63 - 1
    ):
        raise RuntimeError(
            f"{op}(): Storage size calculation overflowed with sizes={builtins.list(shape)}"
        )


def _ntuple(value, n, op, arg):
    """An int or a sequence of n ints, as a list of n ints."""
    if isinstance(value, (builtins.list, builtins.tuple)):
        if len(value) == 1:
            return [_int(value[0], op, arg)] * n
        if len(value) != n:
            raise RuntimeError(
                f"{op}(): {arg} must be a single int or a tuple of {n} ints, got {tuple(value)}"
            )
        return [_int(v, op, arg) for v in value]
    return [_int(value, op, arg)] * n


# PyTorch's names for the dtypes, as its "not implemented for 'Long'" messages spell them.
_DTYPE_LABELS = {
    _C.float64: "Double", _C.float32: "Float", _C.float16: "Half", _C.bfloat16: "BFloat16",
    _C.int64: "Long", _C.int32: "Int", _C.int16: "Short", _C.int8: "Char", _C.uint8: "Byte",
    _C.bool: "Bool",
}  # fmt: skip
_INT_RANGES = {
    _C.uint8: (0, 2**8 - 1), _C.int8: (-(2**7), 2**7 - 1), _C.int16: (-(2**15), 2**15 - 1),
    _C.int32: (-(2**31), 2**31 - 1), _C.int64: (-(2**63), 2**63 - 1),
}  # fmt: skip
_FLOAT_MAX = {
    _C.float16: 65504.0,
    _C.bfloat16: 3.3895313892515355e38,
    _C.float32: 3.4028234663852886e38,
}


def _dtype_label(dtype):
    return _DTYPE_LABELS.get(dtype, str(dtype))


def _require_float(input, op):
    """TypeError for a non-tensor, NotImplementedError for an integer or bool tensor (the
    kernels of ``op`` exist for floating-point dtypes only, as in PyTorch)."""
    _check_tensor(input, op)
    if not input.is_floating_point():
        raise NotImplementedError(
            f"{op}(): not implemented for '{_dtype_label(input.dtype)}' ({input.dtype}); "
            f"expected a floating-point input"
        )


def _number(value, op, arg):
    """A Number argument (bool, int, float or a one-element tensor) as a Python scalar."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise TypeError(
                f"{op}(): argument '{arg}' must be Number, not a Tensor of shape "
                f"{tuple(value.shape)}"
            )
        return value.item()
    if isinstance(value, (builtins.bool, builtins.int, builtins.float)):
        return value
    if hasattr(value, "__index__"):
        return operator.index(value)
    if hasattr(value, "__float__") and not isinstance(value, (str, bytes, complex)):
        return builtins.float(value)
    raise TypeError(f"{op}(): argument '{arg}' must be Number, not {type(value).__name__}")


def _scalar_to(value, dtype, op, arg="value"):
    """The Python number ``value`` as an element of ``dtype`` holds it (int for integer
    dtypes, truncated toward zero; bool; float), or RuntimeError where it does not fit:
    NaN, infinities and out-of-range values for integers, finite values beyond the largest
    finite one for 16- and 32-bit floats (PyTorch's overflow check)."""
    value = _number(value, op, arg)
    if isinstance(value, builtins.int) and not -(2**63) <= value < 2**64:
        raise OverflowError(f"{op}(): argument '{arg}' ({value}): int too big to convert")
    if dtype == _C.bool:
        return builtins.bool(value)
    rng = _INT_RANGES.get(dtype)
    if rng is not None:
        ok = (math.isfinite(value) if isinstance(value, builtins.float) else True) and rng[
            0
        ] <= value <= rng[1]
        if not ok:
            raise RuntimeError(
                f"{op}(): {arg} {value} cannot be converted to type {dtype} without overflow "
                f"(its range is [{rng[0]}, {rng[1]}])"
            )
        return builtins.int(value)
    v = builtins.float(value)
    big = _FLOAT_MAX.get(dtype)
    if big is not None and math.isfinite(v) and builtins.abs(v) > big:
        raise RuntimeError(
            f"{op}(): {arg} {value} cannot be converted to type {dtype} without overflow (its "
            f"largest finite value is {big})"
        )
    return v


def _spatial_input(input, D, op, empty_channels=False):
    _check_tensor(input, op)
    if input.dim() not in (D + 1, D + 2):
        raise RuntimeError(
            f"{op}(): expected {D + 1}D (unbatched) or {D + 2}D (batched) input, got input of "
            f"shape {tuple(input.shape)}"
        )
    first = 1 if input.dim() == D + 2 else 0  # only the batch dim may be empty
    if empty_channels:  # (adaptive average pooling allows no channels too)
        first = input.dim() - D
    if builtins.any(n == 0 for n in input.shape[first:]):
        raise RuntimeError(
            f"{op}(): expected {D + 1}D or {D + 2}D (batch mode) tensor with optional 0 dim "
            f"batch size for input, and non-zero sizes for the other dims, but got: "
            f"{builtins.list(input.shape)}"
        )


# ---------------------------------------------------------------- pooling


def _max_pool(D, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    op = f"max_pool{D}d"
    _spatial_input(input, D, op)
    k = _ntuple(kernel_size, D, op, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, D, op, "stride")
    p = _ntuple(padding, D, op, "padding")
    d = _ntuple(dilation, D, op, "dilation")
    ceil = _bool(ceil_mode, op, "ceil_mode")
    dt = input.dtype
    if dt in _WIDE_FLOATS or dt in _HALF_FLOATS:
        out, indices = _C._max_pool(input.to(_compute_dtype(input, op)), k, s, p, d, ceil)
        return (out.to(dt), indices) if return_indices else out.to(dt)
    if dt == _C.bool or (D == 1 and not return_indices):
        _compute_dtype(input, op)  # NotImplementedError, as PyTorch's kernels for these
    # Integer inputs: find the windows' maxima through float64, then take the values from
    # the input itself. Beyond 2^53 float64 would merge neighbouring values: pool their ranks
    # among the input's values instead (exact, and the same order).
    keys = input
    if input.numel() and builtins.bool(((input > 2**53) | (input < -(2**53))).any()):
        keys = searchsorted(input.reshape(-1).sort()[0], input)
    _, indices = _C._max_pool(keys.to(_C.float64), k, s, p, d, ceil)
    lead = builtins.list(input.shape[: input.dim() - D])
    out = input.reshape(lead + [-1]).gather(-1, indices.reshape(lead + [-1]))
    out = out.reshape(indices.shape)
    return (out, indices) if return_indices else out


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling over (N, C, L) or (C, L); with ``return_indices`` also the position of
    each max within its input row."""
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling over (N, C, H, W) or (C, H, W); indices are flat (h * W + w)."""
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); indices are flat in D*H*W."""
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_pool(D, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor):
    op = f"avg_pool{D}d"
    _spatial_input(input, D, op)
    k = _ntuple(kernel_size, D, op, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, D, op, "stride")
    p = _ntuple(padding, D, op, "padding")
    if divisor is None:
        divisor = 0  # the kernel's "no override"
    else:
        divisor = _int(divisor, op, "divisor_override")
        if divisor == 0:
            raise RuntimeError(f"{op}(): divisor must be not zero")
    # The kernel takes a divisor <= 0 as "no override"; a negative override divides by its
    # magnitude and flips the sign (x / -d is exactly -(x / d)).
    ceil = _bool(ceil_mode, op, "ceil_mode")
    count_pad = _bool(count_include_pad, op, "count_include_pad")
    if input.dtype == _C.int64:
        return _avg_pool_int64(input, k, s, p, ceil, count_pad, divisor)
    x = input.to(_compute_dtype(input, op))
    out = _C._avg_pool(x, k, s, p, ceil, count_pad, builtins.abs(divisor)).to(input.dtype)
    return -out if divisor < 0 else out


def _avg_pool_int64(input, k, s, p, ceil, count_pad, divisor):
    """Average pooling of int64 (as PyTorch's CPU kernel): each window's int64 sum divided
    by its divisor, truncated toward zero. The float kernel sums three 21-bit slices of the
    values, each exactly, and the slices are recombined in int64."""
    shift = 2**21
    hi = _C.div(input, shift * shift, rounding_mode="floor")
    rest = input - hi * (shift * shift)  # in [0, 2^42)
    mid = _C.div(rest, shift, rounding_mode="floor")
    lo = rest - mid * shift

    def window_sums(t):
        return _C._avg_pool(t.to(_C.float64), k, s, p, ceil, count_pad, 1).round().to(_C.int64)

    sums = (window_sums(hi) * shift + window_sums(mid)) * shift + window_sums(lo)
    if divisor:
        div = full(builtins.list(sums.shape), divisor, dtype=_C.int64)
    else:  # the windows' own divisors: the sum of ones over the mean of ones
        one = ones(builtins.list(input.shape), dtype=_C.float64)
        counts = _C._avg_pool(one, k, s, p, ceil, count_pad, 1)
        div = (counts / _C._avg_pool(one, k, s, p, ceil, count_pad, 0)).round().to(_C.int64)
    return _C.div(sums, div, rounding_mode="trunc")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling; ``count_include_pad`` counts the zero padding in the divisor."""
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """2-D average pooling; ``divisor_override`` replaces the window size as the divisor."""
    return _avg_pool(
        2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """3-D average pooling (see :func:`avg_pool2d`)."""
    return _avg_pool(
        3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def _output_size(input, D, output_size, op):
    if output_size is None:
        raise TypeError(f"{op}(): argument 'output_size' must be tuple of ints, not NoneType")
    sizes = (
        builtins.list(output_size)
        if isinstance(output_size, (builtins.list, builtins.tuple))
        else [output_size] * D
    )
    if len(sizes) == 1 and D > 1:
        sizes = sizes * D
    if len(sizes) != D:
        raise RuntimeError(f"{op}(): output_size must have {D} values, got {tuple(sizes)}")
    if D == 1 and sizes[0] is None:  # (only the 2-D and 3-D forms keep a size for None)
        raise TypeError(f"{op}(): argument 'output_size' must be tuple of ints, not NoneType")
    out = [
        input.shape[input.dim() - D + i] if v is None else _int(v, op, "output_size")
        for i, v in enumerate(sizes)
    ]
    _check_out_size(builtins.list(input.shape[: input.dim() - D]) + out, input.dtype, op)
    return out


def _adaptive_avg(D, input, output_size):
    op = f"adaptive_avg_pool{D}d"
    _spatial_input(input, D, op, empty_channels=True)
    size = _output_size(input, D, output_size, op)
    return _C._adaptive_avg_pool(input.to(_compute_dtype(input, op)), size).to(input.dtype)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling to ``output_size`` positions: window i covers
    [floor(i * L / out), ceil((i + 1) * L / out))."""
    return _adaptive_avg(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling (an entry of ``output_size`` may be None: keep that size)."""
    return _adaptive_avg(2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling."""
    return _adaptive_avg(3, input, output_size)


def _adaptive_max(D, input, output_size, return_indices):
    op = f"adaptive_max_pool{D}d"
    _spatial_input(input, D, op)
    size = _output_size(input, D, output_size, op)
    out, indices = _C._adaptive_max_pool(input.to(_compute_dtype(input, op)), size)
    out = out.to(input.dtype)
    return (out, indices) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to ``output_size`` positions (windows as in adaptive_avg_pool1d)."""
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D adaptive max pooling."""
    return _adaptive_max(2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling."""
    return _adaptive_max(3, input, output_size, return_indices)


def _max_unpool(D, input, indices, kernel_size, stride, padding, output_size):
    op = f"max_unpool{D}d"
    _spatial_input(input, D, op)
    if not isinstance(indices, Tensor) or indices.shape != input.shape:
        raise RuntimeError(f"{op}(): expected indices of the input's shape {tuple(input.shape)}")
    k = _ntuple(kernel_size, D, op, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, D, op, "stride")
    p = _ntuple(padding, D, op, "padding")
    lead = builtins.list(input.shape[: input.dim() - D])
    default = [(input.shape[-D + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(D)]
    if output_size is None:
        spatial = default
    else:
        if isinstance(output_size, Tensor) or not hasattr(output_size, "__len__"):
            raise TypeError(
                f"{op}(): output_size must be a sequence, not {type(output_size).__name__}"
            )
        sizes = builtins.list(output_size)
        if len(sizes) == D + 2:
            sizes = sizes[2:]
        if len(sizes) != D:
            raise ValueError(
                f"{op}(): output_size should be a sequence containing {D} or {D + 2} elements, "
                f"but it has a length of '{len(sizes)}'"
            )
        spatial = [_int(v, op, "output_size") for v in sizes]
        for i in range(D):  # within a stride of the default size (as PyTorch)
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < spatial[i] < hi:
                raise ValueError(
                    f'{op}(): invalid output_size "{tuple(spatial)}" (dim {i} must be between '
                    f"{lo} and {hi})"
                )
    for i, v in enumerate(spatial):
        if v < 0:
            raise ValueError(
                f"{op}(): max_unpooling: output_size must contain non-negative spatial "
                f"dimensions, but got output_size[{i}]={v}"
            )
    _check_out_size(lead + spatial, input.dtype, op)
    n = math.prod(spatial)
    flat = input.reshape(lead + [-1]) if input.numel() else input.reshape(lead + [0])
    idx = indices.reshape(flat.shape)
    if idx.numel() and (builtins.bool((idx < 0).any()) or builtins.bool((idx >= n).any())):
        raise RuntimeError(f"{op}(): found an invalid max index (output size {tuple(spatial)})")
    out = zeros(lead + [n], dtype=input.dtype)
    return out.scatter(-1, idx, flat).reshape(lead + spatial)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: each value back at its index, zeros elsewhere."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d."""
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------- softmax


def _softmax_args(name, input, dim, stacklevel, dtype):
    _check_tensor(input, name)
    if isinstance(stacklevel, _C.dtype):  # torch.softmax(x, dim, dtype) passes it third
        dtype, stacklevel = stacklevel, 3
    if dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(
            f"{name}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
        )
    if dim is None:
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            f"include dim=X as an argument.",
            UserWarning,
            stacklevel=stacklevel,
        )
        dim = 0 if input.dim() in (0, 1, 3) else 1
    if dtype is not None:
        input = input.to(dtype)
    return input, _int(dim, name, "dim")


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim`` (computed as exp(x - max) / sum(exp(x - max)))."""
    input, dim = _softmax_args("softmax", input, dim, _stacklevel, dtype)
    return _C._softmax(input.to(_compute_dtype(input, "softmax")), dim).to(input.dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along ``dim``, without overflow."""
    input, dim = _softmax_args("log_softmax", input, dim, _stacklevel, dtype)
    x = input.to(_compute_dtype(input, "log_softmax"))
    return _C._log_softmax(x, dim).to(input.dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``."""
    input, dim = _softmax_args("softmin", input, dim, _stacklevel, dtype)
    x = input.to(_compute_dtype(input, "softmin"))
    return _C._softmax(-x, dim).to(input.dtype)


def _softmax_method(self, dim, dtype=None):
    return softmax(self, dim, dtype=dtype)


def _log_softmax_method(self, dim, dtype=None):
    return log_softmax(self, dim, dtype=dtype)


_softmax_method.__name__, _log_softmax_method.__name__ = "softmax", "log_softmax"
Tensor.softmax = _softmax_method
Tensor.log_softmax = _log_softmax_method


# ---------------------------------------------------------------- normalisation


def _param(t, op, name):
    if t is not None and not isinstance(t, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor or None, not {type(t).__name__}")
    return t


def batch_norm(
    input,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
):
    """Normalises each channel (dim 1) of (N, C, *) by its mean and variance: the batch's in
    training (updating the running stats in place with ``momentum`` and the unbiased
    variance), the running stats otherwise; then scales by ``weight`` and adds ``bias``."""
    op = "batch_norm"
    _check_tensor(input, op)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        _param(t, op, name)
    _param(weight, op, "weight"), _param(bias, op, "bias")
    if input.dim() < 2:
        raise ValueError(f"{op}(): expected 2D or higher input (N, C, *), got {tuple(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    s = math.prod(input.shape[2:])
    if training and n * s == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{tuple(input.shape)}"
        )
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"{op}(): running_mean and running_var must be defined in eval mode")
    momentum = _float(momentum, op, "momentum")
    eps = _float(eps, op, "eps")
    if eps < 0:
        raise ValueError(f"{op}(): batch_norm eps must be non-negative, but got {eps}")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.dim() != 1:
            raise RuntimeError(
                f"{op}(): expected {name} to be a 1-D tensor, got shape {tuple(t.shape)}"
            )
    cd = _compute_dtype(input, op)
    weight, bias = _in_dtype(weight, input, cd), _in_dtype(bias, input, cd)
    stats = [_in_dtype(t, input, cd) for t in (running_mean, running_var)]
    out = _C._batch_norm(
        input.reshape(n, c, s).to(cd),
        weight,
        bias,
        stats[0],
        stats[1],
        builtins.bool(training),
        momentum,
        eps,
    )[0]
    for t, run in zip((running_mean, running_var), stats):
        if t is not None and run is not t:  # 16-bit running stats: updated in float32
            t.detach().copy_(run.detach())
    return out.reshape(input.shape).to(input.dtype)


def _in_dtype(t, input, cd):
    """A parameter of a 16-bit float input's normalisation, in the float32 that the kernel
    runs (others are left for the kernel's dtype check)."""
    if t is None or cd == input.dtype or t.dtype != input.dtype:
        return t
    return t.to(cd)


def _check_affine_dtype(input, op, *params):
    """Weight and bias have the input's dtype (or float32 for a 16-bit float input)."""
    for name, t in params:
        if _param(t, op, name) is None:
            continue
        if t.dtype != input.dtype and not (input.dtype in _HALF_FLOATS and t.dtype == _C.float32):
            raise RuntimeError(
                f"{op}(): mixed dtype (CPU): expected {name} to have the input's dtype "
                f"{input.dtype}, got {t.dtype}"
            )


def _normalize_rows(x, rows, eps, op):
    """x (any shape, numel = rows * L) with each of its rows of L values normalised."""
    cd = _compute_dtype(x, op)
    length = x.numel() // rows if rows else 0
    x3 = x.reshape(1, rows, length).to(cd)
    out = _C._batch_norm(x3, None, None, None, None, True, 0.0, eps)[0]
    return out.reshape(x.shape)


def _affine(y, weight, bias):
    if weight is not None and bias is not None:
        return _C.addcmul(bias, y, weight)
    if weight is not None:
        return y * weight
    if bias is not None:
        return y + bias
    return y


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalises over the last dims (``normalized_shape``), then applies the elementwise
    ``weight`` and ``bias`` (of that shape)."""
    op = "layer_norm"
    _check_tensor(input, op)
    shape = (
        (_int(normalized_shape, op, "normalized_shape"),)
        if not isinstance(normalized_shape, (builtins.list, builtins.tuple))
        else builtins.tuple(_int(v, op, "normalized_shape") for v in normalized_shape)
    )
    k = len(shape)
    if k == 0 or input.dim() < k or builtins.tuple(input.shape[input.dim() - k :]) != shape:
        raise RuntimeError(
            f"{op}(): expected input with shape [*, {', '.join(map(str, shape))}], but got "
            f"input of size {tuple(input.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if _param(t, op, name) is not None and builtins.tuple(t.shape) != shape:
            raise RuntimeError(f"{op}(): expected {name} of shape {shape}, got {tuple(t.shape)}")
    _check_affine_dtype(input, op, ("weight", weight), ("bias", bias))
    rows = math.prod(input.shape[: input.dim() - k])
    y = _normalize_rows(input, rows, _float(eps, op, "eps"), op)
    return _affine(y, weight, bias).to(input.dtype)


def _channel_affine(y, weight, bias, op, dtype):
    c = y.shape[1]
    view = [c] + [1] * (y.dim() - 2)
    for name, t in (("weight", weight), ("bias", bias)):
        if _param(t, op, name) is not None and (t.dim() != 1 or t.shape[0] != c):
            raise RuntimeError(
                f"{op}(): expected {name} to be a vector of {c} values (one per channel), got "
                f"shape {tuple(t.shape)}"
            )
    out = _affine(
        y,
        None if weight is None else weight.reshape(view),
        None if bias is None else bias.reshape(view),
    )
    return out.to(dtype)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalises each group of C / num_groups channels of each sample (N, C, *), then
    applies the per-channel ``weight`` and ``bias``."""
    op = "group_norm"
    _check_tensor(input, op)
    g = _int(num_groups, op, "num_groups")
    if input.dim() < 2:
        raise RuntimeError(
            f"{op}(): expected at least 2D input (N, C, *), got {tuple(input.shape)}"
        )
    n, c = input.shape[0], input.shape[1]
    if g <= 0 or c % g:
        raise RuntimeError(
            f"{op}(): expected the number of channels ({c}) to be divisible by num_groups ({g})"
        )
    _check_affine_dtype(input, op, ("weight", weight), ("bias", bias))
    y = _normalize_rows(input, n * g, _float(eps, op, "eps"), op)
    return _channel_affine(y, weight, bias, op, input.dtype)


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Normalises each channel of each sample (N, C, *) over its spatial dims (or by the
    running stats when ``use_input_stats`` is False); running stats, when given, are
    updated with the batch average of the per-instance statistics."""
    op = "instance_norm"
    _check_tensor(input, op)
    if input.dim() < 3:
        raise ValueError(f"{op}(): expected 3D or higher input (N, C, *), got {tuple(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    s = math.prod(input.shape[2:])
    if s == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size "
            f"{tuple(input.shape)}"
        )
    cd = _compute_dtype(input, op)
    _check_affine_dtype(input, op, ("weight", weight), ("bias", bias))
    stats = []
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if _param(t, op, name) is not None and t.numel() != c:
            raise RuntimeError(f"{op}(): {name} should contain {c} elements not {t.numel()}")
        stats.append(None if t is None else t.detach().to(cd).reshape(-1).repeat(n))
    y = _C._batch_norm(
        input.reshape(1, n * c, s).to(cd),
        None,
        None,
        stats[0],
        stats[1],
        True,
        _float(momentum, op, "momentum"),
        _float(eps, op, "eps"),
    )[0].reshape(input.shape)
    for t, rep in zip((running_mean, running_var), stats):
        if t is not None:
            t.detach().copy_(rep.reshape(n, c).mean(0).reshape(t.shape))
    return _channel_affine(y, weight, bias, op, input.dtype)


# ---------------------------------------------------------------- losses

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _reduction(reduction, size_average, reduce, op):
    if size_average is not None or reduce is not None:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use reduction='"
            f"{_legacy_reduction(size_average, reduce)}' instead.",
            UserWarning,
            stacklevel=3,
        )
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _class_target(target, op):
    if not isinstance(target, Tensor):
        raise TypeError(f"{op}(): argument 'target' must be Tensor, not {type(target).__name__}")
    if target.is_floating_point():
        raise RuntimeError(
            f"{op}(): expected target to hold class indices (an integer tensor, int64), got "
            f"{target.dtype}; floating-point targets (class probabilities) are only accepted by "
            f"cross_entropy with a target of the input's shape"
        )
    if target.dtype not in (_C.int64, _C.uint8):
        raise RuntimeError(
            f"{op}(): expected target dtype to be Long or Byte (int64 or uint8 class indices), "
            f"but got {_dtype_label(target.dtype)} ({target.dtype})"
        )
    return target if target.dtype == _C.int64 else target.to(_C.int64)


def _nll(input, target, weight, ignore_index, reduction, op):
    """nll_loss on validated arguments (reduction a string)."""
    _check_tensor(input, op)
    target = _class_target(target, op)
    if input.dim() == 0:
        raise ValueError(
            f"{op}(): expected input of 1 or more dims (C or N, C, ...), got a 0-d input"
        )
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    nd = input.dim()
    out_shape = None
    if nd == 2 and target.dim() == 1 and target.shape[0] == input.shape[0]:
        x3, t2 = input, target  # the common case, which the kernel takes as it is
    elif nd == 1:
        if target.dim() != 0:
            raise ValueError(
                f"{op}(): expected a 0-d target for a 1-D input of shape {tuple(input.shape)}, "
                f"got target of shape {tuple(target.shape)}"
            )
        x3, t2, out_shape = input.reshape(1, input.shape[0]), target.reshape(1), ()
    else:
        shape = builtins.tuple(input.shape)
        n, c = shape[0], shape[1]
        if target.dim() == 0 or target.shape[0] != n:
            raise ValueError(
                f"{op}(): expected input batch_size ({n}) to match target batch_size "
                f"({target.shape[0] if target.dim() else 'a 0-d target'}); input shape {shape}, "
                f"target shape {tuple(target.shape)}"
            )
        if builtins.tuple(target.shape) != shape[:1] + shape[2:]:
            raise RuntimeError(
                f"{op}(): expected target of shape {shape[:1] + shape[2:]} for input of shape "
                f"{shape}, got target of shape {tuple(target.shape)}"
            )
        s = math.prod(shape[2:])
        x3, t2, out_shape = input.reshape(n, c, s), target.reshape(n, s), shape[:1] + shape[2:]
    c = x3.shape[1]
    if weight is not None and (weight.dim() != 1 or weight.shape[0] != c):
        raise RuntimeError(
            f"{op}(): expected weight to be a 1-D tensor of {c} values (one per class), got "
            f"shape {tuple(weight.shape)}"
        )
    code = _REDUCTIONS[reduction]
    cd = _compute_dtype(input, op)
    if cd != input.dtype:  # 16-bit floats: run in float32, round the loss back
        x3 = x3.to(cd)
        weight = _in_dtype(weight, input, cd)
    out = _C._nll_loss(x3, t2, weight, code, _int(ignore_index, op, "ignore_index"))[0]
    out = out.to(input.dtype)
    return out.reshape(out_shape) if code == 0 and out_shape is not None else out


def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
):
    """The negative log-likelihood loss: -weight[t] * input[n, t] per sample (input holds
    log-probabilities, (N, C), (N, C, d1, ...) or (C,); target the class indices); 'mean'
    divides by the summed weights of the targets that are not ``ignore_index``."""
    reduction = _reduction(reduction, size_average, reduce, "nll_loss")
    return _nll(input, target, weight, ignore_index, reduction, "nll_loss")


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """log_softmax over the class dim followed by nll_loss (class-index targets), or
    -sum(target * log_softmax) per sample (class-probability targets of the input's shape);
    ``label_smoothing`` mixes the targets with the uniform distribution."""
    op = "cross_entropy"
    reduction = _reduction(reduction, size_average, reduce, op)
    _check_tensor(input, op)
    if not isinstance(target, Tensor):
        raise TypeError(f"{op}(): argument 'target' must be Tensor, not {type(target).__name__}")
    ls = _float(label_smoothing, op, "label_smoothing")
    if not ls <= 1.0:  # (PyTorch lets negative values through; NaN and > 1 fail)
        raise RuntimeError(f"{op}(): label_smoothing must be between 0.0 and 1.0. Got: {ls}")
    if input.dim() == 0:
        raise ValueError(
            f"{op}(): expected input of 1 or more dims (C or N, C, ...), got a 0-d input"
        )
    cdim = 0 if input.dim() == 1 else 1
    c = input.shape[cdim]
    logp = log_softmax(input, cdim)
    wview = None
    if weight is not None:
        if not isinstance(weight, Tensor) or weight.dim() != 1 or weight.shape[0] != c:
            raise RuntimeError(f"{op}(): expected weight to be a 1-D tensor of {c} values")
        wview = weight.reshape([c] + [1] * (input.dim() - cdim - 1))
    if target.is_floating_point():
        if target.shape != input.shape:
            raise RuntimeError(
                f"{op}(): expected a floating-point target (class probabilities) of the input's "
                f"shape {tuple(input.shape)}, got {tuple(target.shape)} ({target.dtype}); class "
                f"index targets must be an integer tensor"
            )
        if ls > 0:
            target = target * (1 - ls) + ls / c
        prod = logp * target if wview is None else logp * target * wview
        loss = -prod.sum(cdim)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return loss.sum()
        return loss.sum() / (input.numel() // c if c else 0)
    loss = _nll(logp, target, weight, ignore_index, reduction, op)
    if not ls > 0:  # (PyTorch smooths only with a positive label_smoothing)
        return loss
    target = _class_target(target, op)
    smooth = -(logp.sum(cdim) if wview is None else (logp * wview).sum(cdim))
    ignored = target == ignore_index
    smooth = _C.where(ignored, 0.0, smooth)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        kept = _C.logical_not(ignored)
        if weight is None:
            smooth = smooth.sum() / kept.sum()
        else:
            safe = _C.where(ignored, 0, target)
            smooth = smooth.sum() / _C.where(kept, weight[safe], 0.0).sum()
    return (1 - ls) * loss + smooth * (ls / c)


# ---------------------------------------------------------------- embedding


def _renorm_rows_(weight, indices, max_norm, norm_type):
    """Rescales (in place, untracked) the rows of weight referenced by indices whose
    ``norm_type``-norm exceeds ``max_norm`` to that norm."""
    from torch._grad_mode import no_grad

    with no_grad():
        rows = indices.reshape(-1).unique()
        if rows.numel() == 0:
            return
        sel = weight[rows]
        norms = sel.norm(norm_type, 1, keepdim=True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = sel * scale


def _indices(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(
            f"{op}(): expected input to hold indices (an integer tensor, int64 or int32), got "
            f"{input.dtype}"
        )
    return input if input.dtype == _C.int64 else input.to(_C.int64)


def _padding_idx(padding_idx, num, op):
    if padding_idx is None:
        return -1
    p = _int(padding_idx, op, "padding_idx")
    if not -num <= p < num:
        raise AssertionError(f"{op}(): Padding_idx must be within num_embeddings ({num}), got {p}")
    return p % num


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """The rows of ``weight`` (num_embeddings, dim) at the indices ``input``: shape
    (*input.shape, dim). The ``padding_idx`` row gets no gradient; ``scale_grad_by_freq``
    divides each row's gradient by how often it occurs in ``input``; ``max_norm`` first
    rescales (in place) the referenced rows whose norm exceeds it."""
    op = "embedding"
    idx = _indices(input, op)
    if not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    if weight.dim() != 2:
        raise RuntimeError(f"{op}(): expected a 2-D weight, got shape {tuple(weight.shape)}")
    if sparse:
        raise NotImplementedError(f"{op}(): sparse gradients are not supported (use sparse=False)")
    pad = _padding_idx(padding_idx, weight.shape[0], op)
    if max_norm is not None:
        max_norm = _float(max_norm, op, "max_norm")
        _renorm_rows_(weight, idx, max_norm, _float(norm_type, op, "norm_type"))
    if weight.dtype in _WIDE_FLOATS or weight.dtype in _HALF_FLOATS:
        w = weight.to(_compute_dtype(weight, op))
        return _C._embedding(w, idx, pad, builtins.bool(scale_grad_by_freq)).to(weight.dtype)
    # integer and bool tables are looked up as they are (nothing to differentiate)
    n = weight.shape[0]
    if idx.numel() and (builtins.bool((idx < 0).any()) or builtins.bool((idx >= n).any())):
        raise IndexError(f"{op}(): index out of range in self (a weight of {n} rows)")
    return weight.index_select(0, idx.reshape(-1)).reshape(builtins.list(idx.shape) + [-1])


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, averages or takes the max of the embeddings of each bag: the rows of a 2-D
    ``input``, or the runs of a 1-D ``input`` that start at ``offsets``. Entries equal to
    ``padding_idx`` are left out; an empty bag gives zeros."""
    op = "embedding_bag"
    idx = _indices(input, op)
    if not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    if weight.dim() != 2:
        raise ValueError(
            f"{op}(): weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if not weight.is_floating_point():
        raise RuntimeError(
            f"{op}(): expected weight to have a floating-point dtype (Half, BFloat16, Float, "
            f"Double), got {weight.dtype}"
        )
    n = weight.shape[0]
    if idx.numel() and (builtins.bool((idx < 0).any()) or builtins.bool((idx >= n).any())):
        bad = idx[(idx < 0) | (idx >= n)].reshape(-1)[0]
        raise RuntimeError(
            f"{op}(): input holds the index {builtins.int(bad)}, which is not in the valid "
            f"range [0, {n})"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"{op}(): mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"{op}(): per_sample_weights is only supported for mode='sum' (got mode="
                f"'{mode}'). Please open a feature request on GitHub."
            )
        if per_sample_weights.shape != idx.shape:
            raise ValueError(
                f"{op}(): per_sample_weights of shape {tuple(per_sample_weights.shape)} must "
                f"match input of shape {tuple(idx.shape)}"
            )
    if idx.dim() == 2:
        if offsets is not None:
            raise ValueError(f"{op}(): if input is 2D, then offsets has to be None")
        nbags, length = idx.shape
        bag = arange(nbags).reshape(-1, 1).expand(nbags, length).reshape(-1)
        flat = idx.reshape(-1)
    elif idx.dim() == 1:
        if offsets is None:
            raise ValueError(f"{op}(): offsets has to be a 1D Tensor but got None")
        offsets = _indices(offsets, op)
        if offsets.dim() != 1:
            raise ValueError(f"{op}(): offsets has to be a 1D Tensor")
        starts = offsets[:-1] if include_last_offset else offsets
        nbags = starts.shape[0]
        if nbags and (builtins.int(starts[0]) != 0):
            raise RuntimeError(
                f"{op}(): offsets[0] has to be 0 (the first bag starts at position 0), got "
                f"{builtins.int(starts[0])}"
            )
        if offsets.numel() and builtins.int(offsets[-1]) > idx.shape[0]:
            raise RuntimeError(
                f"{op}(): offsets[-1] can not be greater than input's length {idx.shape[0]} "
                f"but got offsets[-1] of {builtins.int(offsets[-1])}"
            )
        if offsets.numel() > 1 and builtins.bool((offsets[1:] < offsets[:-1]).any()):
            raise RuntimeError(f"{op}(): offsets must be non-decreasing, got {offsets.tolist()}")
        flat = idx
        pos = arange(idx.shape[0])
        bag = (searchsorted(starts, pos, right=True) - 1) if nbags else pos
    else:
        raise ValueError(
            f"{op}(): input has to be 1D or 2D Tensor, but got Tensor of dimension {idx.dim()}"
        )
    psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    pad = _padding_idx(padding_idx, weight.shape[0], op)
    if pad >= 0:
        keep = flat != pad
        flat, bag = flat[keep], bag[keep]
        psw = None if psw is None else psw[keep]
    emb = embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq)
    d = weight.shape[1]
    if mode == "max":
        out = zeros(nbags, d, dtype=weight.dtype)
        if flat.numel() == 0:
            return out
        return out.scatter_reduce(
            0, bag.reshape(-1, 1).expand(-1, d), emb, "amax", include_self=False
        )
    if psw is not None:
        emb = emb * psw.reshape(-1, 1)
    out = zeros(nbags, d, dtype=weight.dtype).index_add(0, bag, emb)
    if mode == "mean":
        counts = zeros(nbags, dtype=weight.dtype).index_add(
            0, bag, ones(bag.shape[0], dtype=weight.dtype)
        )
        out = out / counts.clamp(min=1).reshape(-1, 1)
    return out


# ---------------------------------------------------------------- dropout


def _check_p(p, op):
    p = _float(p, op, "p")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"{op}(): dropout probability has to be between 0 and 1, but got {p}")
    if p != p:
        raise RuntimeError(f"{op}(): dropout probability has to be between 0 and 1, but got nan")
    return p


def _dropout_input(input, op):
    """The dtype a dropout mask is drawn in (float32 for 16-bit floats); RuntimeError for
    integer and bool inputs, whose dtype cannot hold the scaled values."""
    _check_tensor(input, op)
    if not input.is_floating_point():
        raise RuntimeError(
            f"{op}(): result type Float can't be cast to the desired output type "
            f"{_dtype_label(input.dtype)} ({input.dtype})"
        )
    return _C.float32 if input.dtype in _HALF_FLOATS else input.dtype


def _apply_mask(input, mask, inplace):
    return input.mul_(mask) if inplace else input * mask


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the others by 1 / (1 - p)
    (identity when not ``training``). Draws from the default generator."""
    op = "dropout"
    _check_tensor(input, op)
    p = _check_p(p, op)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    md = _dropout_input(input, op)
    mask = _C._dropout_mask(builtins.list(input.shape), p, md, True, None).to(input.dtype)
    return _apply_mask(input, mask, inplace)


def _feature_dropout(input, p, training, inplace, op, dims):
    """Zeroes whole channels: dims = (unbatched rank, batched rank)."""
    _check_tensor(input, op)
    p = _check_p(p, op)
    nd = input.dim()
    if nd < 2 and op != "dropout1d":
        raise RuntimeError(
            f"{op}(): Feature dropout requires at least 2 dimensions in the input, got shape "
            f"{tuple(input.shape)}"
        )
    if nd not in dims:
        if op == "dropout1d":
            raise RuntimeError(
                f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that "
                f"dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                f"dimension, a channel dimension, and an optional batch dimension (i.e. 2D or "
                f"3D inputs)."
            )
        warnings.warn(
            f"{op}: Received a {nd}-D input to {op}, which is deprecated and will result in an "
            f"error in a future release. To retain the behavior and silence this warning, "
            f"please use dropout instead. Note that {op} exists to provide channel-wise "
            f"dropout on inputs with {dims[0] - 1} spatial dimensions, a channel dimension, "
            f"and an optional batch dimension (i.e. {dims[0]}D or {dims[1]}D inputs).",
            UserWarning,
            stacklevel=3,
        )
    if op == "dropout2d" and nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
            stacklevel=3,
        )
    if not training or p == 0.0 or input.numel() == 0:
        return input
    batched = nd != dims[0] or (op == "dropout2d" and nd == 3)
    lead = 2 if batched and nd >= 2 else 1
    shape = builtins.list(input.shape[:lead]) + [1] * (nd - lead)
    md = _dropout_input(input, op)
    mask = _C._dropout_mask(shape, p, md, True, None).to(input.dtype)
    return _apply_mask(input, mask, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) with probability ``p``, scaling the
    others by 1 / (1 - p)."""
    return _feature_dropout(input, p, training, inplace, "dropout1d", (2, 3))


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) (see :func:`dropout1d`)."""
    return _feature_dropout(input, p, training, inplace, "dropout2d", (3, 4))


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W)."""
    return _feature_dropout(input, p, training, inplace, "dropout3d", (4, 5))


_SELU_ALPHA_PRIME = -1.7580993408473766  # -scale * alpha of SELU: where a dropped unit goes


def _alpha_dropout(input, p, training, inplace, op, feature):
    _check_tensor(input, op)
    p = _check_p(p, op)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    shape = builtins.list(input.shape)
    if feature:
        shape = shape[:2] + [1] * (len(shape) - 2)
    keep = _C._dropout_mask(shape, p, _dropout_input(input, op), False, None).to(input.dtype)
    a = ((1 - p) * (1 + p * _SELU_ALPHA_PRIME**2)) ** -0.5
    b = -a * _SELU_ALPHA_PRIME * p
    scale = keep * a
    shift = (1 - keep) * (_SELU_ALPHA_PRIME * a) + b
    if inplace:
        return input.mul_(scale).add_(shift)
    return _C.addcmul(shift, input, scale)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped units take SELU's negative saturation value and
    the result is rescaled to keep zero mean and unit variance."""
    return _alpha_dropout(input, p, training, inplace, "alpha_dropout", False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels."""
    return _alpha_dropout(input, p, training, inplace, "feature_alpha_dropout", True)


def _from_functional(name):
    """torch.<name> for an activation whose one implementation is torch.nn.functional's
    (torch-nn); without torch-nn installed the call names the package to install."""

    def fn(*args, **kwargs):
        import torch.nn.functional as F

        return getattr(F, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}`` is ``torch.nn.functional.{name}``."
    return fn


threshold, threshold_ = _from_functional("threshold"), _from_functional("threshold_")
selu, selu_ = _from_functional("selu"), _from_functional("selu_")
celu, celu_ = _from_functional("celu"), _from_functional("celu_")
rrelu, rrelu_ = _from_functional("rrelu"), _from_functional("rrelu_")


def dropout_(input, p=0.5, train=True):
    """In-place :func:`dropout` (``torch.dropout_``)."""
    return dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p=0.5, train=False):
    return alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p=0.5, train=False):
    return feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p=0.5, train=True, inplace=False):
    """Zeroes whole channels (dim 1) of an input of 2 or more dims with probability ``p``,
    scaling the others by 1 / (1 - p) (``torch.feature_dropout``)."""
    op = "feature_dropout"
    _check_tensor(input, op)
    p = _check_p(p, op)
    if input.dim() < 2:
        raise RuntimeError(
            f"{op}(): Feature dropout requires at least 2 dimensions in the input, got shape "
            f"{tuple(input.shape)}"
        )
    if not train or p == 0.0 or input.numel() == 0:
        return input
    shape = builtins.list(input.shape[:2]) + [1] * (input.dim() - 2)
    md = _dropout_input(input, op)
    mask = _C._dropout_mask(shape, p, md, True, None).to(input.dtype)
    return _apply_mask(input, mask, inplace)


def feature_dropout_(input, p=0.5, train=True):
    return feature_dropout(input, p, train, inplace=True)


# ---------------------------------------------------------------- interpolation and padding

_INTERP = {"nearest": 0, "nearest-exact": 1, "linear": 2, "bilinear": 2, "trilinear": 2}
_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resamples the spatial dims of (N, C, *spatial) to ``size`` (or ``scale_factor`` times
    the input's): 'nearest', 'nearest-exact', 'linear' (3-D input), 'bilinear' (4-D),
    'trilinear' (5-D) or 'area' (adaptive average pooling). ``align_corners`` (linear modes)
    maps the corner pixels' centres onto each other."""
    op = "interpolate"
    _check_tensor(input, op)
    if input.dim() < 3 or input.dim() > 5:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
            f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
            f"(got {mode})"
        )
    D = input.dim() - 2
    if mode in ("bicubic",) or antialias:
        raise NotImplementedError(f"{op}(): mode '{mode}' (antialias={antialias}) is not supported")
    if mode not in _INTERP and mode != "area":
        raise NotImplementedError(
            f"{op}(): unknown mode '{mode}' (expected nearest, nearest-exact, linear, bilinear, "
            f"trilinear or area)"
        )
    if mode in _LINEAR_DIMS and _LINEAR_DIMS[mode] != D:
        need = _LINEAR_DIMS[mode] + 2
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {need}D input")
    if align_corners is not None and mode not in _LINEAR_DIMS:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    align = builtins.bool(align_corners) if align_corners is not None else False
    if builtins.any(n == 0 for n in input.shape[1:]):
        raise RuntimeError(
            f"{op}(): Non-empty {input.dim()}D data tensor expected but got a tensor with sizes "
            f"{builtins.list(input.shape)} (only the batch dim may be empty)"
        )
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = builtins.list(input.shape[2:])
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes = (
            builtins.list(size) if isinstance(size, (builtins.list, builtins.tuple)) else [size] * D
        )
        if len(sizes) != D:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {in_sizes} and output size of {sizes}. Please "
                f"provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, "
                f"o2, ...,oK) format."
            )
        out = [_int(v, op, "size") for v in sizes]
        scales = []
    elif scale_factor is not None:
        factors = (
            builtins.list(scale_factor)
            if isinstance(scale_factor, (builtins.list, builtins.tuple))
            else [scale_factor] * D
        )
        if len(factors) != D:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {in_sizes} and scale_factor of {factors}."
            )
        factors = [_float(f, op, "scale_factor") for f in factors]
        out = []
        for n, f in zip(in_sizes, factors):
            v = builtins.float(n) * f
            if not math.isfinite(v) or builtins.abs(v) >= 2.0**63:
                raise RuntimeError(
                    f"{op}(): the output size {v} (input size {n} times scale_factor {f}) "
                    f"cannot be converted to type int64 without overflow"
                )
            out.append(math.floor(v))
        scales = [] if recompute_scale_factor else factors
    else:
        raise ValueError("either size or scale_factor should be defined")
    if builtins.all(v > 0 for v in out):
        _check_out_size(builtins.list(input.shape[:2]) + out, input.dtype, op)
    if mode == "area":
        return _C._adaptive_avg_pool(input.to(_compute_dtype(input, op)), out).to(input.dtype)
    if input.dtype == _C.uint8 and mode != "area":
        # images: nearest copies values (exact through float32), the linear modes round
        y = _C._interpolate(input.to(_C.float32), out, scales, _INTERP[mode], align)
        if not mode.startswith("nearest"):
            y = y.round().clamp(0, 255)
        return y.to(_C.uint8)
    x = input.to(_compute_dtype(input, op))
    return _C._interpolate(x, out, scales, _INTERP[mode], align).to(input.dtype)


_PAD_MODES = {"constant": 0, "reflect": 1, "replicate": 2, "circular": 3}
_PAD_KERNEL_NAMES = {"reflect": "reflection_pad", "replicate": "replication_pad"}


def _pad_list(pad, op):
    if isinstance(pad, Tensor) or not isinstance(pad, (builtins.list, builtins.tuple)):
        raise TypeError(f"{op}(): argument 'pad' must be tuple of ints, not {type(pad).__name__}")
    pads = []
    for i, v in enumerate(pad):
        if isinstance(v, builtins.bool) or not hasattr(v, "__index__"):
            raise TypeError(
                f"{op}(): argument 'pad' must be tuple of ints, but found element of type "
                f"{type(v).__name__} at pos {i}"
            )
        v = operator.index(v)
        if not -(2**63) <= v < 2**63:
            raise TypeError(f"{op}(): argument 'pad' element {v} at pos {i} overflows int64")
        pads.append(v)
    return pads


def _pad_value(value, op):
    """The fill value as PyTorch takes it: None or a float (a 0-d tensor gives its value)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise TypeError(
                f"{op}(): argument 'value' must be float, not a Tensor of shape "
                f"{tuple(value.shape)}"
            )
        value = value.item()
    if isinstance(value, (str, bytes, complex)) or not (
        isinstance(value, (builtins.int, builtins.float)) or hasattr(value, "__float__")
    ):
        raise TypeError(f"{op}(): argument 'value' must be float, not {type(value).__name__}")
    return builtins.float(value)


def _pad_index(L, before, after, mode):
    """For one padded dim of size L: the input index that each output position reads."""
    o = arange(L + before + after)
    if mode == "reflect":
        s = (o - before).abs()
        return _C.where(s >= L, 2 * (L - 1) - s, s)
    if mode == "replicate":
        return (o - before).clamp(0, L - 1)
    # circular: negative padding crops first; the rest wraps around the cropped range
    kept = L + builtins.min(before, 0) + builtins.min(after, 0)
    return (o - builtins.max(before, 0)).remainder(kept) + builtins.max(-before, 0)


def _pad_by_index(input, pads, mode):
    """Non-constant padding of any dtype by gathering (exact for every dtype)."""
    x = input
    for i in range(len(pads) // 2):
        d = input.dim() - 1 - i
        x = x.index_select(d, _pad_index(input.shape[d], pads[2 * i], pads[2 * i + 1], mode))
    return x


def _pad_other_dtype(input, pads, value):
    """Constant padding of the dtypes the kernel lacks (integers, bool, 16-bit floats): crop,
    then copy into a filled tensor."""
    x = input
    nd = x.dim()
    for i in range(len(pads) // 2):
        d = nd - 1 - i
        lo, hi = pads[2 * i], pads[2 * i + 1]
        start, stop = builtins.max(-lo, 0), x.shape[d] - builtins.max(-hi, 0)
        x = x.narrow(d, start, stop - start)
    shape = builtins.list(x.shape)
    index = [builtins.slice(None)] * nd
    for i in range(len(pads) // 2):
        d = nd - 1 - i
        lo, hi = builtins.max(pads[2 * i], 0), builtins.max(pads[2 * i + 1], 0)
        index[d] = builtins.slice(lo, lo + shape[d])
        shape[d] += lo + hi
    out = full(shape, value, dtype=input.dtype)
    out[builtins.tuple(index)] = x
    return out


def _check_pad_sizes(input, pads, mode, op):
    """The output shape, after PyTorch's checks of each padded dim for ``mode``."""
    nd, k = input.dim(), len(pads) // 2
    shape = builtins.list(input.shape)
    if mode in ("reflect", "replicate"):
        first = 1 if nd == k + 2 else 0  # the batch dim may be empty, no other
        if any(n == 0 for n in shape[first:]):
            raise RuntimeError(
                f"{op}(): expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                f"batch size and other non-zero dimensions for input, but got: {shape}"
            )
    for i in range(k):
        d = nd - 1 - i
        L, before, after = shape[d], pads[2 * i], pads[2 * i + 1]
        n = L + before + after
        where = f"padding ({before}, {after}) at dim {d} of size {L}"
        if mode == "reflect" and not (before < L and after < L):
            raise RuntimeError(
                f"{op}(): reflect padding must be smaller than the input size (padding size "
                f"should be less than the corresponding input dimension), got {where}"
            )
        if mode == "circular" and not (before <= L and after <= L):
            raise RuntimeError(
                f"{op}(): circular padding may not wrap around more than once (padding value "
                f"causes wrapping around more than once), got {where}"
            )
        if n < 0:
            raise RuntimeError(
                f"{op}(): the input size {L} at dim {d} plus padding ({before}, {after}) gives "
                f"a negative output size {n}"
            )
        if n == 0 and mode in ("reflect", "replicate"):
            raise RuntimeError(
                f"{op}(): input size {L} at dim {d} is too small: with padding ({before}, "
                f"{after}) the calculated output size is 0 ({mode} padding)"
            )
        shape[d] = n
    nbytes = math.prod(shape) * input.element_size()
    if nbytes > 2**63 - 1:
        raise RuntimeError(
            f"{op}(): Storage size calculation overflowed with sizes={shape} (output of {where} "
            f"and the other pads)"
        )
    return shape


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad) // 2 dims: ``pad`` = (left, right) of the last dim, then of the
    one before, .... 'constant' (``value``; negative padding crops) pads any dims;
    'reflect' (mirror without repeating the edge), 'replicate' (repeat the edge) and
    'circular' (wrap around) pad the last 1-3 dims of a 2-5-D input."""
    op = "pad"
    _check_tensor(input, op)
    pads = _pad_list(pad, op)
    if not isinstance(mode, str):
        raise TypeError(f"{op}(): argument 'mode' must be str, not {type(mode).__name__}")
    value = _pad_value(value, op)
    if mode not in _PAD_MODES:
        raise NotImplementedError(
            f"Unrecognised padding mode {mode} (expected constant, reflect, replicate or circular)"
        )
    if len(pads) % 2:
        raise RuntimeError(f"{op}(): Padding length must be divisible by 2, got {len(pads)}")
    if len(pads) // 2 > input.dim():
        raise RuntimeError(
            f"{op}(): Padding length should be less than or equal to two times the input "
            f"dimension but got padding length {len(pads)} and input of dimension {input.dim()}"
        )
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f'{op}(): Padding mode "{mode}" doesn\'t take in value argument')
        k = len(pads) // 2
        if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
            raise NotImplementedError(
                f"{op}(): padding size {len(pads)} is not supported for {input.dim()}D input "
                f"tensor with {mode} padding (it pads the last {k} dims of a {k + 1}D or "
                f"{k + 2}D input; only 2D, 3D, 4D, 5D padding with non-constant padding are "
                f"supported)"
            )
        if input.dtype == _C.bool and mode in _PAD_KERNEL_NAMES:
            raise NotImplementedError(
                f"{op}(): \"{_PAD_KERNEL_NAMES[mode]}{k}d\" not implemented for 'Bool'"
            )
    shape = _check_pad_sizes(input, pads, mode, op)
    if mode == "circular" and 0 in shape[input.dim() - len(pads) // 2 :]:
        return zeros(shape, dtype=input.dtype)  # everything cropped away
    if mode == "constant":
        fill = _scalar_to(0.0 if value is None else value, input.dtype, op, "value")
        if input.dtype in (_C.float32, _C.float64):
            return _C._pad(input, pads, 0, fill)
        return _pad_other_dtype(input, pads, fill)
    if input.dtype in (_C.float32, _C.float64):
        return _C._pad(input, pads, _PAD_MODES[mode], 0.0)
    return _pad_by_index(input, pads, mode)
