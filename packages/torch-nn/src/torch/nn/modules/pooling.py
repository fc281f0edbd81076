"""Pooling modules: max, average and adaptive pooling (the kernels are torch-core's)."""

from torch.nn import functional as F
from torch.nn.modules.module import Module
from torch.nn.modules.utils import _pair, _single, _triple

__all__ = [
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
    "LPPool1d", "LPPool2d", "LPPool3d",
]  # fmt: skip


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]
    _fn = "max_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, self._fn)(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices,
        )  # fmt: skip

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of (N, C, L) or (C, L) input."""

    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of (N, C, H, W) or (C, H, W) input."""

    _fn = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    """Max over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""

    _fn = "max_pool3d"


class AvgPool1d(Module):
    """Mean over sliding windows of (N, C, L) or (C, L) input."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):  # fmt: skip
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)  # fmt: skip

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]  # fmt: skip
    _fn = "avg_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding,
                                    self.ceil_mode, self.count_include_pad,
                                    self.divisor_override)  # fmt: skip

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Mean over sliding windows of (N, C, H, W) or (C, H, W) input."""

    _fn = "avg_pool2d"


class AvgPool3d(_AvgPoolNd):
    """Mean over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""

    _fn = "avg_pool3d"


class _AdaptivePool(Module):
    __constants__ = ["output_size"]
    _fn = "adaptive_avg_pool2d"

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """Mean pooling to a fixed output length."""

    _fn = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptivePool):
    """Mean pooling to a fixed (H, W) (None keeps that size of the input)."""

    _fn = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptivePool):
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) input to a fixed (D, H, W)
    ``output_size`` (None keeps that dim)."""

    _fn = "adaptive_avg_pool3d"


class _AdaptiveMaxPool(_AdaptivePool):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """Max pooling of (N, C, L) or (C, L) input to a fixed length ``output_size``; with
    ``return_indices`` also the positions of the maxima."""

    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """Max pooling to a fixed (H, W)."""

    _fn = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) input to a fixed (D, H, W)
    ``output_size`` (None keeps that dim)."""

    _fn = "adaptive_max_pool3d"


class _MaxUnpoolNd(Module):
    """The partial inverse of max pooling: the pooled values go back to the positions
    ``indices`` (from ``MaxPoolNd(return_indices=True)``) name, zeros elsewhere."""

    __constants__ = ["kernel_size", "stride", "padding"]
    _fn = "max_unpool2d"
    _tuple = staticmethod(_pair)

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        t = self._tuple
        self.kernel_size = t(kernel_size)
        self.stride = t(stride if stride is not None else kernel_size)
        self.padding = t(padding)

    def forward(self, input, indices, output_size=None):
        """``output_size`` (the spatial sizes, or the full shape) picks among the sizes that
        pooled to input's: needed where the pooling dropped a remainder."""
        return getattr(F, self._fn)(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of MaxPool1d on (N, C, L) or (C, L) input."""

    _fn = "max_unpool1d"
    _tuple = staticmethod(_single)


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of MaxPool2d on (N, C, H, W) or (C, H, W) input."""

    _fn = "max_unpool2d"
    _tuple = staticmethod(_pair)


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of MaxPool3d on (N, C, D, H, W) or (C, D, H, W) input."""

    _fn = "max_unpool3d"
    _tuple = staticmethod(_triple)


class _LPPoolNd(Module):
    """Power-average pooling: ``(sum of x^p over each window)^(1/p)``, p = ``norm_type``
    (p = 1: sum pooling; p = inf: max pooling of ``|x|``)."""

    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _fn = "lp_pool2d"

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, self._fn)(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over sliding windows of (N, C, L) or (C, L) input."""

    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    """Power-average pooling over sliding windows of (N, C, H, W) or (C, H, W) input."""

    _fn = "lp_pool2d"


class LPPool3d(_LPPoolNd):
    """Power-average pooling over sliding windows of (N, C, D, H, W) or (C, D, H, W)
    input."""

    _fn = "lp_pool3d"
