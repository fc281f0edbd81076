"""Dropout: elementwise, of whole channels (feature dropout), and SELU's alpha dropout,
with PyTorch's torch.<name>_ in-place forms."""

import builtins
import warnings

from torch import _C
from torch._checks import check_tensor, dtype_name
from torch._nn_args import _HALF_FLOATS, _float

__all__ = [
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
    "dropout_",
    "alpha_dropout_",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
]


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
    check_tensor(input, op)
    if not input.is_floating_point():
        raise RuntimeError(
            f"{op}(): result type Float can't be cast to the desired output type "
            f"{dtype_name(input.dtype)} ({input.dtype})"
        )
    return _C.float32 if input.dtype in _HALF_FLOATS else input.dtype


def _apply_mask(input, mask, inplace):
    return input.mul_(mask) if inplace else input * mask


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the others by 1 / (1 - p)
    (identity when not ``training``). Draws from the default generator."""
    op = "dropout"
    check_tensor(input, op)
    p = _check_p(p, op)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    md = _dropout_input(input, op)
    mask = _C._dropout_mask(builtins.list(input.shape), p, md, True, None, input.device).to(
        input.dtype
    )
    return _apply_mask(input, mask, inplace)


def _feature_dropout(input, p, training, inplace, op, dims):
    """Zeroes whole channels: dims = (unbatched rank, batched rank)."""
    check_tensor(input, op)
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
    mask = _C._dropout_mask(shape, p, md, True, None, input.device).to(input.dtype)
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
    check_tensor(input, op)
    p = _check_p(p, op)
    if feature and input.dim() < 2:  # (in eval mode too, as PyTorch)
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    shape = builtins.list(input.shape)
    if feature:
        shape = shape[:2] + [1] * (len(shape) - 2)
    keep = _C._dropout_mask(shape, p, _dropout_input(input, op), False, None, input.device).to(
        input.dtype
    )
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


def dropout_(input, p=0.5, train=True):
    """In-place :func:`dropout` (``torch.dropout_``)."""
    return dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p=0.5, train=False):
    """In-place :func:`torch.nn.functional.alpha_dropout` (with ``train`` for ``training``); returns
    ``input``."""
    return alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p=0.5, train=False):
    """In-place :func:`torch.nn.functional.feature_alpha_dropout` (with ``train`` for ``training``);
    returns ``input``."""
    return feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p=0.5, train=True, inplace=False):
    """Zeroes whole channels (dim 1) of an input of 2 or more dims with probability ``p``,
    scaling the others by 1 / (1 - p) (``torch.feature_dropout``)."""
    op = "feature_dropout"
    check_tensor(input, op)
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
    mask = _C._dropout_mask(shape, p, md, True, None, input.device).to(input.dtype)
    return _apply_mask(input, mask, inplace)


def feature_dropout_(input, p=0.5, train=True):
    """In-place feature dropout: zeroes whole channels (dim 1) of ``input`` with probability ``p``
    when ``train``, scaling the rest by ``1 / (1 - p)``; returns ``input``."""
    return feature_dropout(input, p, train, inplace=True)
