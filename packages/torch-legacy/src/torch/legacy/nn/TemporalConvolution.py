import math

import torch

from ._spatial import (
    add_scaled_,
    check_dtype,
    check_grad_output,
    conv,
    conv_grad_input,
    conv_grad_weight,
)
from .Module import Module, _check_input


class TemporalConvolution(Module):
    """1-D convolution over time of (nFrame, inputFrameSize) or (N, nFrame, inputFrameSize)
    input: output frame t is weight @ (frames t*dW .. t*dW + kW - 1, concatenated) + bias,
    giving (nOutputFrame, outputFrameSize), nOutputFrame = (nFrame - kW) // dW + 1. weight
    is (outputFrameSize, kW * inputFrameSize)."""

    def __init__(self, inputFrameSize, outputFrameSize, kW, dW=1):
        super().__init__()
        self.inputFrameSize, self.outputFrameSize = inputFrameSize, outputFrameSize
        self.kW, self.dW = kW, dW
        self.weight = torch.empty(outputFrameSize, inputFrameSize * kW)
        self.bias = torch.empty(outputFrameSize)
        self.gradWeight = torch.zeros(outputFrameSize, inputFrameSize * kW)
        self.gradBias = torch.zeros(outputFrameSize)
        self.reset()

    def reset(self, stdv=None):
        if stdv is not None:
            stdv = stdv * math.sqrt(3)
        else:
            stdv = 1.0 / math.sqrt(self.kW * self.inputFrameSize)
        self.weight.uniform_(-stdv, stdv)
        self.bias.uniform_(-stdv, stdv)
        return self

    def _batch(self, input):
        """input as (N, inputFrameSize, nFrame), the layout of the core's conv."""
        _check_input(self, input, 2, 3)
        check_dtype(self, input, self.weight)
        if input.shape[-1] != self.inputFrameSize:
            raise RuntimeError(
                f"{self!r}: input of size {tuple(input.shape)} has frames of "
                f"{input.shape[-1]} values, expected inputFrameSize {self.inputFrameSize}"
            )
        if input.shape[-2] < self.kW:
            raise RuntimeError(
                f"{self!r}: input of size {tuple(input.shape)} has fewer frames than kW = {self.kW}"
            )
        x = input if input.dim() == 3 else input.unsqueeze(0)
        return x.transpose(1, 2)

    def _weight(self):
        # weight[o, k * inputFrameSize + i] is the conv kernel's [o, i, k]
        w = self.weight.reshape(self.outputFrameSize, self.kW, self.inputFrameSize)
        return w.transpose(1, 2).contiguous()

    def _unbatch(self, input, y):
        y = y.transpose(1, 2).contiguous()
        return y if input.dim() == 3 else y.squeeze(0)

    def _grad_output(self, input, gradOutput):
        check_grad_output(self, gradOutput, self.output)
        g = gradOutput if input.dim() == 3 else gradOutput.unsqueeze(0)
        return g.transpose(1, 2)

    def updateOutput(self, input):
        y = conv(self._batch(input), self._weight(), self.bias, [self.dW], [0], [1])
        self.output = self._unbatch(input, y)
        return self.output

    def updateGradInput(self, input, gradOutput):
        x = self._batch(input)
        g = self._grad_output(input, gradOutput)
        grad = conv_grad_input(g, self._weight(), [x.shape[2]], [self.dW], [0], [1])
        self.gradInput = self._unbatch(input, grad)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        x = self._batch(input)
        g = self._grad_output(input, gradOutput)
        gw = conv_grad_weight(x, g, self._weight(), [self.dW], [0], [1])  # (out, in, kW)
        add_scaled_(self.gradWeight, gw.transpose(1, 2).contiguous(), scale)
        add_scaled_(self.gradBias, g.sum([0, 2]), scale)

    def __repr__(self):
        return (
            f"{super().__repr__()}({self.inputFrameSize} -> {self.outputFrameSize}, "
            f"{self.kW}, {self.dW})"
        )
