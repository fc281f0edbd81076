"""Pixel and channel shuffling and the deprecated upsample functions (interpolate and pad are core
kernels)."""

import warnings

from torch.nn._functional.common import _check_tensor, _kernel

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


def channel_shuffle(input, groups):
    """``(N, C, *) -> (N, C, *)`` with the channels regrouped: channel ``g * (C / groups) + k``
    moves to ``k * groups + g``."""
    op = "channel_shuffle"
    _check_tensor(input, op)
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if isinstance(groups, bool) or not hasattr(groups, "__index__"):
        raise TypeError(f"{op}(): argument 'groups' must be int, not {type(groups).__name__}")
    g = groups.__index__()
    if g <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{g}"
        )
    n, c, *rest = input.shape
    if c % g:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {g} groups."
        )
    return input.reshape(n, g, c // g, *rest).transpose(1, 2).reshape(input.shape)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated (warns): :func:`interpolate` with the same arguments."""
    warnings.warn(
        "nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return _kernel("interpolate")(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated (warns): ``interpolate(input, size, scale_factor, mode='nearest')``."""
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return _kernel("interpolate")(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated (warns): ``interpolate(input, size, scale_factor, mode='bilinear',
    align_corners=True)``."""
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return _kernel("interpolate")(input, size, scale_factor, mode="bilinear", align_corners=True)
