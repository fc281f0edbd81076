"""Convolutions: Conv1d/2d/3d and ConvTranspose1d/2d/3d (the kernels are torch-core's), and
their lazy forms, whose in_channels comes from the first input."""

import math

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.modules.module import Module
from torch.nn.modules.utils import _pair, _reverse_repeat_tuple, _single, _triple
from torch.nn.parameter import Parameter, UninitializedParameter

__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]  # fmt: skip

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """What the convolutions share: arguments, parameters, initialisation and repr.

    weight: (out_channels, in_channels / groups, *kernel_size), or for the transposed ones
    (in_channels, out_channels / groups, *kernel_size); both start from
    kaiming_uniform_(a=sqrt(5)), the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]  # fmt: skip
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {sorted(_PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for padding_mode != 'zeros': last dimension first, (left, right)
        if isinstance(padding, str):
            pads = []
            if padding == "same":
                for d, k in zip(reversed(dilation), reversed(kernel_size)):
                    total = d * (k - 1)
                    left = total // 2
                    pads += [left, total - left]
            else:
                pads = [0, 0] * len(kernel_size)
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = list(_reverse_repeat_tuple(padding, 2))
        kw = {"device": device, "dtype": dtype}
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(torch.empty(shape, **kw))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
        s += f", stride={self.stride}"
        if self.padding != (0,) * len(self.kernel_size):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"

    def _check_input(self, input):
        d = self._dims
        if input.dim() not in (d + 1, d + 2):
            raise RuntimeError(
                f"{self!r}: expected {d + 1}D (unbatched) or {d + 2}D (batched) input, got "
                f"{input.dim()}D input of shape {list(input.shape)}"
            )
        c = input.shape[-d - 1]
        if c != self.in_channels:
            raise RuntimeError(
                f"{self!r}: expected input with {self.in_channels} channels (dimension "
                f"{input.dim() - d - 1}), got shape {list(input.shape)}"
            )


class _Conv(_ConvNd):
    _conv_name = "conv2d"
    _tuple = staticmethod(_pair)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):  # fmt: skip
        t = self._tuple
        super().__init__(
            in_channels, out_channels, t(kernel_size), t(stride),
            padding if isinstance(padding, str) else t(padding), t(dilation), False, t(0),
            groups, bias, padding_mode, device, dtype,
        )  # fmt: skip

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, self._conv_name)
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(
                padded, weight, bias, self.stride, self._tuple(0), self.dilation, self.groups
            )
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        try:
            return self._conv_forward(input, self.weight, self.bias)
        except (RuntimeError, ValueError):
            self._check_input(input)
            raise


class Conv1d(_Conv):
    """1-d convolution over (N, C_in, L) or (C_in, L) input."""

    _conv_name = "conv1d"
    _tuple = staticmethod(_single)
    _dims = 1


class Conv2d(_Conv):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W) input."""

    _conv_name = "conv2d"
    _tuple = staticmethod(_pair)
    _dims = 2


class Conv3d(_Conv):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W) input."""

    _conv_name = "conv3d"
    _tuple = staticmethod(_triple)
    _dims = 3


class _ConvTransposeNd(_ConvNd):
    _conv_name = "conv_transpose2d"
    _tuple = staticmethod(_pair)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):  # fmt: skip
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        t = self._tuple
        super().__init__(
            in_channels, out_channels, t(kernel_size), t(stride), t(padding), t(dilation),
            True, t(output_padding), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output ``output_size`` (spatial dims, or with
        the batch and channel dims in front)."""
        if output_size is None:
            return self.output_padding
        d = self._dims
        output_size = list(output_size)
        if len(output_size) == d + 2 or (len(output_size) == d + 1 and input.dim() == d + 1):
            output_size = output_size[-d:]
        if len(output_size) != d:
            raise ValueError(
                f"ConvTranspose{d}D: for {input.dim()}D input, output_size must have {d} or "
                f"{d + 2} elements (got {len(output_size)})"
            )
        result = []
        for i in range(d):
            size_in = input.shape[input.dim() - d + i]
            smallest = (
                (size_in - 1) * self.stride[i]
                - 2 * self.padding[i]
                + self.dilation[i] * (self.kernel_size[i] - 1)
                + 1
            )
            largest = smallest + self.stride[i] - 1
            if not smallest <= output_size[i] <= largest:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{smallest} to {largest} (for an input of {list(input.shape[-d:])})"
                )
            result.append(output_size[i] - smallest)
        return tuple(result)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        conv = getattr(F, self._conv_name)
        try:
            return conv(input, self.weight, self.bias, self.stride, self.padding,
                        output_padding, self.groups, self.dilation)  # fmt: skip
        except (RuntimeError, ValueError):
            self._check_input(input)
            raise


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution (the gradient of conv1d with respect to its input)."""

    _conv_name = "conv_transpose1d"
    _tuple = staticmethod(_single)
    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution."""

    _conv_name = "conv_transpose2d"
    _tuple = staticmethod(_pair)
    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution."""

    _conv_name = "conv_transpose3d"
    _tuple = staticmethod(_triple)
    _dims = 3


# ---------------------------------------------------------------- lazy convolutions
class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels is the channel dimension of the first input; weight and bias are
    materialised and initialised then, and the module becomes ``cls_to_become``."""

    def _make_lazy(self, out_channels, bias, device, dtype):
        kw = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter(**kw)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**kw)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        d = self._dims
        if input.dim() not in (d + 1, d + 2):
            raise RuntimeError(
                f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == d + 2 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with torch.no_grad():
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):  # fmt: skip
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)  # fmt: skip
        self._make_lazy(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):  # fmt: skip
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)  # fmt: skip
        self._make_lazy(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """Conv1d whose in_channels is inferred from the first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """Conv2d whose in_channels is inferred from the first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """Conv3d whose in_channels is inferred from the first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """ConvTranspose1d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """ConvTranspose2d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """ConvTranspose3d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose3d
