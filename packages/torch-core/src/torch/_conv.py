"""Convolutions and unfold/fold (the kernels are in csrc/conv.cpp).

``torch.conv1d/2d/3d`` and ``torch.conv_transpose1d/2d/3d`` with torch.nn.functional's
signatures, plus ``unfold``/``fold`` (im2col/col2im; torch.nn.functional takes them from
here, they are not ``torch.*`` names).  The core ops work on batched inputs with one value
per spatial dim for every parameter:

* ``_C._conv(input, weight, bias, stride, padding, dilation, groups, transposed,
  output_padding)``: the convolution, or its transpose (the adjoint of the convolution with
  respect to its input: the weight is (in_channels, out_channels / groups, *kernel));
* ``_C._conv_weight_grad(input, grad, weight_size, stride, padding, dilation, groups)``;
* ``_C._im2col(input, kernel, dilation, padding, stride)`` and
  ``_C._col2im(input, output_size, kernel, dilation, padding, stride)``.

This module turns ints into tuples, handles unbatched inputs and ``padding='same'``/``'valid'``.
"""

import builtins
import operator

from torch import _C
from torch._checks import check_tensor

Tensor = _C.Tensor

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
]


def _int(value, op, name):
    if isinstance(value, builtins.bool) or isinstance(value, float):
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{op}(): argument '{name}' must be int, not {type(value).__name__}"
        ) from None


def _ints(value, nd, op, name):
    """An int or a sequence of nd ints (a 1-sequence is repeated) as a tuple of nd ints."""
    if isinstance(value, (list, tuple)):
        vals = [_int(v, op, name) for v in value]
        if len(vals) == 1:
            vals = vals * nd
        if len(vals) != nd:
            raise RuntimeError(
                f"{op}: expected {name} to be a single integer or a sequence of {nd} integers "
                f"(one per spatial dim), but got {name}={list(value)}"
            )
        return tuple(vals)
    if isinstance(value, Tensor) or isinstance(value, str) or not hasattr(value, "__index__"):
        raise TypeError(
            f"{op}(): argument '{name}' must be an int or a tuple of ints, "
            f"not {type(value).__name__}"
        )
    return (_int(value, op, name),) * nd


def _check_args(op, input, weight, bias):
    check_tensor(input, op)
    check_tensor(weight, op, "weight", None)
    check_tensor(bias, op, "bias", None, optional=True)


def _batched(op, input, nd):
    """(input with a batch dim, whether it had none)."""
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{op}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but got input "
            f"of size {list(input.shape)}"
        )
    if input.dim() == nd + 1:
        return input.unsqueeze(0), True
    return input, False


def _check_weight(op, weight, nd):
    if weight.dim() != nd + 2:
        raise RuntimeError(
            f"{op}: expected a {nd + 2}D weight (out_channels, in_channels / groups, "
            f"*kernel_size), but got weight of size {list(weight.shape)}"
        )


def _conv(op, nd, input, weight, bias, stride, padding, dilation, groups):
    _check_args(op, input, weight, bias)
    x, unbatched = _batched(op, input, nd)
    _check_weight(op, weight, nd)
    stride = _ints(stride, nd, op, "stride")
    dilation = _ints(dilation, nd, op, "dilation")
    groups = _int(groups, op, "groups")
    trim = ()  # dims whose output lost its first element ('same' with an odd total padding)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            if builtins.any(s != 1 for s in stride):
                raise RuntimeError(
                    f"{op}: padding='same' is not supported for strided convolutions "
                    f"(got stride={list(stride)})"
                )
            # total padding d * (k - 1): total // 2 before, the rest after. When that is odd,
            # pad the larger half on both sides and drop the output's first element.
            total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
            padding = tuple(t - t // 2 for t in total)
            trim = tuple(i for i, t in enumerate(total) if t % 2)
        else:
            raise RuntimeError(
                f"{op}: invalid padding string {padding!r}, expected 'same' or 'valid' "
                f"(or an int or a tuple of ints)"
            )
    else:
        padding = _ints(padding, nd, op, "padding")
    out = _C._conv(x, weight, bias, stride, padding, dilation, groups, False, (0,) * nd)
    if trim:
        for i in trim:
            out = out.narrow(2 + i, 1, x.shape[2 + i])
        out = out.contiguous()
    return out.squeeze(0) if unbatched else out


def _conv_transpose(op, nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    _check_args(op, input, weight, bias)
    x, unbatched = _batched(op, input, nd)
    if weight.dim() != nd + 2:
        raise RuntimeError(
            f"{op}: expected a {nd + 2}D weight (in_channels, out_channels / groups, "
            f"*kernel_size), but got weight of size {list(weight.shape)}"
        )
    args = (
        _ints(stride, nd, op, "stride"),
        _ints(padding, nd, op, "padding"),
        _ints(dilation, nd, op, "dilation"),
        _int(groups, op, "groups"),
        True,
        _ints(output_padding, nd, op, "output_padding"),
    )
    out = _C._conv(x, weight, bias, *args)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) of input (N, C_in, L) or (C_in, L) with weight
    (C_out, C_in / groups, k). padding: an int, a tuple, 'valid' or 'same' (stride 1)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of input (N, C_in, H, W) or (C_in, H, W) with weight
    (C_out, C_in / groups, kH, kW). padding: an int, a tuple, 'valid' or 'same' (stride 1)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (cross-correlation) of input (N, C_in, D, H, W) or (C_in, D, H, W) with
    weight (C_out, C_in / groups, kD, kH, kW). padding: an int, a tuple, 'valid' or 'same'."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 1-D convolution of input (N, C_in, L) or (C_in, L) with weight
    (C_in, C_out / groups, k): the gradient of conv1d with respect to its input."""
    return _conv_transpose(
        "conv_transpose1d",
        1,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 2-D convolution of input (N, C_in, H, W) or (C_in, H, W) with weight
    (C_in, C_out / groups, kH, kW): the gradient of conv2d with respect to its input."""
    return _conv_transpose(
        "conv_transpose2d",
        2,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 3-D convolution of input (N, C_in, D, H, W) or (C_in, D, H, W) with weight
    (C_in, C_out / groups, kD, kH, kW): the gradient of conv3d with respect to its input."""
    return _conv_transpose(
        "conv_transpose3d",
        3,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a batch of images (im2col): (N, C, H, W) -> (N, C * kH * kW, L),
    L the number of blocks; (C, H, W) -> (C * kH * kW, L)."""
    check_tensor(input, "unfold")
    if input.dim() not in (3, 4):
        raise RuntimeError(
            f"unfold: expected a 3D (unbatched) or 4D (batched) input, but got input of size "
            f"{list(input.shape)}"
        )
    x = input.unsqueeze(0) if input.dim() == 3 else input
    out = _C._im2col(
        x,
        _ints(kernel_size, 2, "unfold", "kernel_size"),
        _ints(dilation, 2, "unfold", "dilation"),
        _ints(padding, 2, "unfold", "padding"),
        _ints(stride, 2, "unfold", "stride"),
    )
    return out.squeeze(0) if input.dim() == 3 else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold (col2im): sums the blocks ``(N, C * kH * kW, L)`` back into
    images ``(N, C, *output_size)``, overlapping values added; ``(C * kH * kW, L)`` ->
    ``(C, *output_size)``."""
    check_tensor(input, "fold")
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"fold: expected a 2D (unbatched) or 3D (batched) input, but got input of size "
            f"{list(input.shape)}"
        )
    x = input.unsqueeze(0) if input.dim() == 2 else input
    out = _C._col2im(
        x,
        _ints(output_size, 2, "fold", "output_size"),
        _ints(kernel_size, 2, "fold", "kernel_size"),
        _ints(dilation, 2, "fold", "dilation"),
        _ints(padding, 2, "fold", "padding"),
        _ints(stride, 2, "fold", "stride"),
    )
    return out.squeeze(0) if input.dim() == 2 else out
