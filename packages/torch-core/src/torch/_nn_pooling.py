"""Pooling: max, average, adaptive and unpooling over 1-3 spatial dims (csrc/nn_*.cpp)."""

import builtins
import math

from torch import _C
from torch._creation import full, ones, zeros
from torch._index_ops import searchsorted
from torch._nn_args import (
    _HALF_FLOATS,
    _WIDE_FLOATS,
    _bool,
    _check_out_size,
    _compute_dtype,
    _int,
    _ntuple,
    _spatial_input,
)

Tensor = _C.Tensor

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


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
