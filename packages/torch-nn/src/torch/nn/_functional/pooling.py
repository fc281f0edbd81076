"""The ``*_with_indices`` forms of max pooling (the pooling functions themselves are
core kernels)."""

from torch.nn._functional.common import _kernel


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
