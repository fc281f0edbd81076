"""Shared by the Spatial*, Temporal* and Volumetric* modules: batching of unbatched input
and the core's convolution kernels with their gradients (Lua computes them by hand; so do
we, with ``torch._C`` kernels and no autograd)."""

import math

from torch import _C

from .Module import Module, _check_input


def as_batch(module, input, D, channels=None):
    """``input`` of D + 1 (unbatched) or D + 2 (batched) dims as a batch (N, C, *D sizes),
    and a function that gives a result back the input's batching. ``channels``: the
    number of planes dim C must have."""
    _check_input(module, input, D + 1, D + 2)
    x = input if input.dim() == D + 2 else input.unsqueeze(0)
    if channels is not None and x.shape[1] != channels:
        raise RuntimeError(
            f"{module!r}: input of size {tuple(input.shape)} has {x.shape[1]} planes in "
            f"dimension {input.dim() - D - 1}, expected {channels}"
        )

    def restore(t):
        return t if input.dim() == D + 2 else t.squeeze(0)

    return x, restore


def check_grad_output(module, gradOutput, output):
    _check_input(module, gradOutput, name="gradOutput")
    if tuple(gradOutput.shape) != tuple(output.shape):
        raise RuntimeError(
            f"{module!r}: gradOutput of size {tuple(gradOutput.shape)} does not match the "
            f"output's size {tuple(output.shape)}"
        )


def check_window(module, size, kernel, padding, dilation=None):
    """Raises unless the (dilated) kernel fits in the padded input, per dim."""
    dilation = dilation or [1] * len(kernel)
    for n, k, p, d in zip(size, kernel, padding, dilation):
        if n + 2 * p < d * (k - 1) + 1:
            raise RuntimeError(
                f"{module!r}: input of spatial size {tuple(size)} (padding {tuple(padding)}) "
                f"is smaller than the kernel {tuple(kernel)}"
            )


def conv(x, w, b, stride, padding, dilation):
    """The convolution of batch x by weight w (out, in, *k), plus bias b."""
    return _C._conv(x, w, b, stride, padding, dilation, 1, False, [0] * len(stride))


def conv_grad_input(g, w, size, stride, padding, dilation):
    """The gradient of conv(x, w) with respect to x, of spatial size ``size``: the
    transposed convolution, its output padding bringing it to x's size."""
    k = w.shape[2:]
    adj = [
        size[i] - ((g.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k[i] - 1) + 1)
        for i in range(len(k))
    ]
    return _C._conv(g, w, None, stride, padding, dilation, 1, True, adj)


def conv_grad_weight(x, g, w, stride, padding, dilation):
    """The gradient of conv(x, w) with respect to w."""
    return _C._conv_weight_grad(x, g, list(w.shape), stride, padding, dilation, 1)


def full_conv(x, w, b, stride, padding, adj):
    """The transposed ("full") convolution of batch x by weight w (in, out, *k)."""
    return _C._conv(x, w, b, stride, padding, [1] * len(stride), 1, True, adj)


def full_conv_grad_input(g, w, size, stride, padding):
    """The gradient of full_conv(x, w) with respect to x: conv(g, w) cut to x's size."""
    out = conv(g, w, None, stride, padding, [1] * len(stride))
    for i, n in enumerate(size):
        if out.shape[2 + i] != n:
            out = out.narrow(2 + i, 0, n)
    return out


def add_scaled_(target, value, scale):
    """target += scale * value, in place (so flattened parameter views stay valid)."""
    target.add_(value.reshape(target.shape), alpha=scale)


def check_dtype(module, input, weight):
    if input.dtype != weight.dtype:
        raise TypeError(
            f"{module!r}: input is {input.dtype} but the parameters are {weight.dtype}; convert "
            f"the module with .type()/.float()/.double() or the input with .to()"
        )


class Fields2d:
    """A 2-D module's kernel, step and padding from Lua's fields (kH, kW, dH, dW, padH, padW;
    files from older Lua versions have no padding fields)."""

    def _kernel(self):
        return [self.kH, self.kW]

    def _stride(self):
        return [self.dH, self.dW]

    def _padding(self):
        return [getattr(self, "padH", 0), getattr(self, "padW", 0)]


class Fields3d:
    """The same for volumetric modules (kT, kH, kW, dT, ..., padT, ...)."""

    def _kernel(self):
        return [self.kT, self.kH, self.kW]

    def _stride(self):
        return [self.dT, self.dH, self.dW]

    def _padding(self):
        return [getattr(self, n, 0) for n in ("padT", "padH", "padW")]


class Convolution(Module):
    """The shared body of Spatial/VolumetricConvolution. A subclass sets Lua's fields and
    says how to read them: ``D`` spatial dims, ``_kernel()``, ``_stride()``,
    ``_padding()`` and ``_dilation()`` (lists, outermost dim first). The fields are read
    at every call, so a module loaded from a .t7 file (fields only) works too."""

    D = 2

    def _dilation(self):
        return [1] * self.D

    def _weight(self):
        # old .t7 files store the weight as (nOutputPlane, nInputPlane * prod(kernel))
        return self.weight.reshape(self.nOutputPlane, self.nInputPlane, *self._kernel())

    def _args(self):
        return self._stride(), self._padding(), self._dilation()

    def reset(self, stdv=None):
        """Weight and bias from U(-stdv, stdv); Lua's default stdv is 1/sqrt(fan-in), a
        given stdv is scaled by sqrt(3) (the uniform with that standard deviation)."""
        if stdv is not None:
            stdv = stdv * math.sqrt(3)
        else:
            stdv = 1.0 / math.sqrt(self.nInputPlane * math.prod(self._kernel()))
        self.weight.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.uniform_(-stdv, stdv)
        return self

    def noBias(self):
        self.bias = None
        self.gradBias = None
        return self

    def _batch(self, input):
        x, restore = as_batch(self, input, self.D, self.nInputPlane)
        check_dtype(self, input, self.weight)
        return x, restore

    def updateOutput(self, input):
        x, restore = self._batch(input)
        stride, padding, dilation = self._args()
        check_window(self, x.shape[2:], self._kernel(), padding, dilation)
        self.output = restore(conv(x, self._weight(), self.bias, stride, padding, dilation))
        return self.output

    def _grad_output(self, input, gradOutput):
        check_grad_output(self, gradOutput, self.output)
        return gradOutput if input.dim() == self.D + 2 else gradOutput.unsqueeze(0)

    def updateGradInput(self, input, gradOutput):
        x, restore = self._batch(input)
        g = self._grad_output(input, gradOutput)
        size = list(x.shape[2:])
        self.gradInput = restore(conv_grad_input(g, self._weight(), size, *self._args()))
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        x, _ = self._batch(input)
        g = self._grad_output(input, gradOutput)
        gw = conv_grad_weight(x, g, self._weight(), *self._args())
        add_scaled_(self.gradWeight, gw.reshape(self.gradWeight.shape), scale)  # 2-D in MM
        if self.bias is not None:
            add_scaled_(self.gradBias, g.sum([0, *range(2, g.dim())]), scale)

    def __repr__(self):
        k, s, p = self._kernel()[::-1], self._stride()[::-1], self._padding()[::-1]
        text = f"{super().__repr__()}({self.nInputPlane} -> {self.nOutputPlane}, "
        text += "x".join(map(str, k))
        if any(v != 1 for v in s) or any(p):
            text += ", " + ",".join(map(str, s))
        if any(p):
            text += ", " + ",".join(map(str, p))
        return text + (")" if self.bias is not None else ") without bias")


def pooled_size(module, size, kernel, stride, padding, ceil_mode):
    """Lua's pooling output size per dim; raises when a window does not fit or the
    padding is more than half the kernel."""
    out = []
    for n, k, s, p in zip(size, kernel, stride, padding):
        if p > k // 2:
            raise RuntimeError(
                f"{module!r}: padding {tuple(padding)} must be at most half the kernel "
                f"{tuple(kernel)}"
            )
        span = n + 2 * p - k
        o = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (o - 1) * s >= n + p:
            o -= 1  # the last window must start inside the input or left padding
        if span < 0 or o < 1:
            raise RuntimeError(
                f"{module!r}: input of spatial size {tuple(size)} (padding {tuple(padding)}) "
                f"is smaller than the kernel {tuple(kernel)}"
            )
        out.append(o)
    return out


class Pooling(Module):
    """The shared part of the Spatial/Volumetric pooling modules: a subclass sets ``D``
    and reads Lua's fields in ``_kernel()``, ``_stride()``, ``_padding()`` (outermost dim
    first)."""

    D = 2

    def ceil(self):
        self.ceil_mode = True
        return self

    def floor(self):
        self.ceil_mode = False
        return self

    def __repr__(self):
        k, s, p = self._kernel()[::-1], self._stride()[::-1], self._padding()[::-1]
        text = f"{super().__repr__()}({'x'.join(map(str, k))}, {','.join(map(str, s))}"
        if any(p):
            text += ", " + ",".join(map(str, p))
        return text + ")"


class MaxPooling(Pooling):
    """Max pooling, remembering the position of each max for the backward pass."""

    def clearState(self):
        self.indices = None
        return super().clearState()

    def updateOutput(self, input):
        x, restore = as_batch(self, input, self.D)
        k, s, p = self._kernel(), self._stride(), self._padding()
        ceil_mode = bool(getattr(self, "ceil_mode", False))
        pooled_size(self, x.shape[2:], k, s, p, ceil_mode)
        out, self.indices = _C._max_pool(x, k, s, p, [1] * self.D, ceil_mode)
        self.output = restore(out)
        return self.output

    def updateGradInput(self, input, gradOutput):
        x, restore = as_batch(self, input, self.D)
        check_grad_output(self, gradOutput, self.output)
        g = gradOutput if input.dim() == self.D + 2 else gradOutput.unsqueeze(0)
        self.gradInput = restore(_C._max_pool_backward(g, self.indices, list(x.shape), self.D))
        return self.gradInput


class AveragePooling(Pooling):
    """Average pooling; ``count_include_pad`` says whether padded zeros count in each
    window's divisor."""

    def setCountIncludePad(self):
        self.count_include_pad = True
        return self

    def setCountExcludePad(self):
        self.count_include_pad = False
        return self

    def _args(self):
        ceil_mode = bool(getattr(self, "ceil_mode", False))
        include = bool(getattr(self, "count_include_pad", True))
        return self._kernel(), self._stride(), self._padding(), ceil_mode, include, 0

    def updateOutput(self, input):
        x, restore = as_batch(self, input, self.D)
        args = self._args()
        pooled_size(self, x.shape[2:], *args[:4])
        self.output = restore(_C._avg_pool(x, *args))
        return self.output

    def updateGradInput(self, input, gradOutput):
        x, restore = as_batch(self, input, self.D)
        check_grad_output(self, gradOutput, self.output)
        g = gradOutput if input.dim() == self.D + 2 else gradOutput.unsqueeze(0)
        self.gradInput = restore(_C._avg_pool_backward(g, list(x.shape), *self._args()))
        return self.gradInput


class Padding2d(Module):
    """The shared body of the Spatial*Padding modules: pads (or, with negative values,
    crops) the last two dims of (C, H, W) or (N, C, H, W) input by pad_l, pad_r (width) and
    pad_t, pad_b (height); ``_mode`` is the core kernel's mode."""

    _mode = 0

    def __init__(self, pad_l, pad_r=None, pad_t=None, pad_b=None):
        super().__init__()
        self.pad_l = pad_l
        self.pad_r = pad_l if pad_r is None else pad_r
        self.pad_t = pad_l if pad_t is None else pad_t
        self.pad_b = pad_l if pad_b is None else pad_b

    def _pads(self, input):
        _check_input(self, input, 3, 4)
        pads = [self.pad_l, self.pad_r, self.pad_t, self.pad_b]
        h, w = input.shape[-2], input.shape[-1]
        if h + self.pad_t + self.pad_b < 1 or w + self.pad_l + self.pad_r < 1:
            raise RuntimeError(f"{self!r}: input of size {tuple(input.shape)} would be empty")
        if self._mode == 1 and (
            max(self.pad_l, self.pad_r) >= w or max(self.pad_t, self.pad_b) >= h
        ):
            raise RuntimeError(
                f"{self!r}: reflection padding must be smaller than the input's size, got "
                f"input of size {tuple(input.shape)}"
            )
        return pads

    def updateOutput(self, input):
        pads = self._pads(input)
        self.output = _C._pad(input, pads, self._mode, 0.0)
        return self.output

    def updateGradInput(self, input, gradOutput):
        pads = self._pads(input)
        check_grad_output(self, gradOutput, self.output)
        self.gradInput = _C._pad_backward(gradOutput, list(input.shape), pads, self._mode)
        return self.gradInput

    def __repr__(self):
        return (
            f"{super().__repr__()}(l={self.pad_l}, r={self.pad_r}, t={self.pad_t}, b={self.pad_b})"
        )
