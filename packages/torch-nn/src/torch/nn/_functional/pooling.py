"""The ``*_with_indices`` forms of max pooling (the pooling functions themselves are
core kernels) and power-average (LP) pooling, composed of them."""

import math

import torch
from torch.nn._functional.common import _check_tensor, _kernel


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    """:func:`max_pool1d` returning ``(output, indices)``: the flat positions of the maxima
    within each input row."""
    return _kernel("max_pool1d")(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    """:func:`max_pool2d` returning ``(output, indices)``: the flat positions of the maxima
    within each input plane."""
    return _kernel("max_pool2d")(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    """:func:`max_pool3d` returning ``(output, indices)``: the flat positions of the maxima
    within each input volume."""
    return _kernel("max_pool3d")(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool1d` returning ``(output, indices)`` of the maxima."""
    return _kernel("adaptive_max_pool1d")(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` returning ``(output, indices)`` of the maxima."""
    return _kernel("adaptive_max_pool2d")(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool3d` returning ``(output, indices)`` of the maxima."""
    return _kernel("adaptive_max_pool3d")(input, output_size, True)


def _window_size(kernel_size, D):
    """The number of elements in a window: the product of ``kernel_size`` (one int for all
    D dims, or D of them)."""
    if isinstance(kernel_size, (list, tuple)):
        sizes = list(kernel_size)
        if len(sizes) == 1:
            sizes = sizes * D
    else:
        sizes = [kernel_size] * D
    return math.prod(sizes)


def _lp_pool(D, input, norm_type, kernel_size, stride, ceil_mode):
    op = f"lp_pool{D}d"
    _check_tensor(input, op)
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        # The limits p -> +-inf: the largest (smallest) magnitude in each window.
        pool = _kernel(f"max_pool{D}d")
        if norm_type > 0:
            return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    # The mean of x^p over each window (a window cut short by ceil_mode is averaged over
    # the part inside the input), times the full window size: the sum of x^p.
    mean = _kernel(f"avg_pool{D}d")(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    # sign(s) * relu(|s|) is s itself, except that its gradient at s = 0 is 0 (PyTorch's
    # form, kept for the same gradients); a negative sum (odd p) gives NaN for a fractional
    # root, as in PyTorch.
    total = (torch.sign(mean) * torch.relu(mean.abs())).mul(_window_size(kernel_size, D))
    return total.pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of (N, C, L) or (C, L) input: ``(sum of x^p over each
    window)^(1/p)`` with ``p = norm_type`` (p = inf: the largest ``|x|``). No padding;
    ``stride`` defaults to ``kernel_size``."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-D power-average pooling of (N, C, H, W) or (C, H, W) input (see
    :func:`lp_pool1d`)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-D power-average pooling of (N, C, D, H, W) or (C, D, H, W) input (see
    :func:`lp_pool1d`)."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
