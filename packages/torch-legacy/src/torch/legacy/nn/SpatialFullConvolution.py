import math

import torch

from ._spatial import (
    add_scaled_,
    as_batch,
    check_dtype,
    check_grad_output,
    conv_grad_weight,
    full_conv,
    full_conv_grad_input,
)
from .Module import Module


class SpatialFullConvolution(Module):
    """The transposed ("full", fractionally strided) 2-D convolution: the adjoint of
    SpatialConvolution. Output size (H - 1) * dH - 2 * padH + kH + adjH (same in W).
    weight is (nInputPlane, nOutputPlane, kH, kW)."""

    def __init__(
        self, nInputPlane, nOutputPlane, kW, kH, dW=1, dH=1, padW=0, padH=0, adjW=0, adjH=0
    ):
        super().__init__()
        self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW, self.padH, self.adjW, self.adjH = padW, padH, adjW, adjH
        if adjW > dW - 1 or adjH > dH - 1:
            raise ValueError(
                f"nn.SpatialFullConvolution: adjW ({adjW}) and adjH ({adjH}) must be smaller "
                f"than dW ({dW}) and dH ({dH})"
            )
        self.weight = torch.empty(nInputPlane, nOutputPlane, kH, kW)
        self.bias = torch.empty(nOutputPlane)
        self.gradWeight = torch.zeros(nInputPlane, nOutputPlane, kH, kW)
        self.gradBias = torch.zeros(nOutputPlane)
        self.reset()

    def reset(self, stdv=None):
        if stdv is not None:
            stdv = stdv * math.sqrt(3)
        else:
            stdv = 1.0 / math.sqrt(self.kW * self.kH * self.nInputPlane)
        self.weight.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.uniform_(-stdv, stdv)
        return self

    def noBias(self):
        self.bias = None
        self.gradBias = None
        return self

    def _args(self):
        # files from older Lua versions have no padding or adj fields
        return [self.dH, self.dW], [getattr(self, "padH", 0), getattr(self, "padW", 0)]

    def _adj(self):
        return [getattr(self, "adjH", 0), getattr(self, "adjW", 0)]

    def _batch(self, input):
        x, restore = as_batch(self, input, 2, self.nInputPlane)
        check_dtype(self, input, self.weight)
        return x, restore

    def _grad_output(self, input, gradOutput):
        check_grad_output(self, gradOutput, self.output)
        return gradOutput if input.dim() == 4 else gradOutput.unsqueeze(0)

    def updateOutput(self, input):
        x, restore = self._batch(input)
        stride, padding = self._args()
        out_size = [
            (n - 1) * s - 2 * p + k
            for n, s, p, k in zip(x.shape[2:], stride, padding, [self.kH, self.kW])
        ]
        if min(out_size) < 1:
            raise RuntimeError(
                f"{self!r}: input of size {tuple(input.shape)} gives an empty output "
                f"{tuple(out_size)}"
            )
        y = full_conv(x, self.weight, self.bias, stride, padding, self._adj())
        self.output = restore(y)
        return self.output

    def updateGradInput(self, input, gradOutput):
        x, restore = self._batch(input)
        g = self._grad_output(input, gradOutput)
        grad = full_conv_grad_input(g, self.weight, list(x.shape[2:]), *self._args())
        self.gradInput = restore(grad)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        x, _ = self._batch(input)
        g = self._grad_output(input, gradOutput)
        stride, padding = self._args()
        # y = full_conv(x, w) is conv's input gradient, so dw = conv_weight_grad(g, x)
        add_scaled_(
            self.gradWeight, conv_grad_weight(g, x, self.weight, stride, padding, [1, 1]), scale
        )
        if self.bias is not None:
            add_scaled_(self.gradBias, g.sum([0, 2, 3]), scale)

    def __repr__(self):
        (padH, padW), (adjH, adjW) = self._args()[1], self._adj()
        text = f"{super().__repr__()}({self.nInputPlane} -> {self.nOutputPlane}, "
        text += f"{self.kW}x{self.kH}"
        if self.dW != 1 or self.dH != 1 or padW or padH:
            text += f", {self.dW},{self.dH}"
        if padW or padH or adjW or adjH:
            text += f", {padW},{padH}"
        if adjW or adjH:
            text += f", {adjW},{adjH}"
        return text + (")" if self.bias is not None else ") without bias")
