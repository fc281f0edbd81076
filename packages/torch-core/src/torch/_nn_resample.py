"""Resampling: interpolate (nearest, linear, area) and pad (constant, reflect, replicate,
circular)."""

import builtins
import math
import operator

from torch import _C
from torch._checks import check_tensor
from torch._creation import arange, full, zeros
from torch._nn_args import _check_out_size, _compute_dtype, _float, _int, _scalar_to

Tensor = _C.Tensor

__all__ = ["interpolate", "pad"]


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
    """Resamples the spatial dims of ``(N, C, *spatial)`` to ``size`` (or ``scale_factor`` times
    the input's): 'nearest', 'nearest-exact', 'linear' (3-D input), 'bilinear' (4-D),
    'trilinear' (5-D) or 'area' (adaptive average pooling). ``align_corners`` (linear modes)
    maps the corner pixels' centres onto each other."""
    op = "interpolate"
    check_tensor(input, op)
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
    check_tensor(input, op)
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
