import math

import torch

from .Module import Module, _check_input, _check_size


class Linear(Module):
    """``y = W x + b`` for a 1D input or each row of a 2D one; ``W`` is (out, in)."""

    def __init__(self, inputSize, outputSize, bias=True):
        super().__init__()
        self.weight = torch.empty(outputSize, inputSize)
        self.gradWeight = torch.zeros(outputSize, inputSize)
        self.bias = torch.empty(outputSize) if bias else None
        self.gradBias = torch.zeros(outputSize) if bias else None
        self.reset()

    def noBias(self):
        self.bias = None
        self.gradBias = None
        return self

    def reset(self, stdv=None):
        """Draws weight and bias from U(-stdv, stdv), by default stdv = 1/sqrt(inputSize)."""
        stdv = stdv if stdv is not None else 1.0 / math.sqrt(self.weight.size(1))
        self.weight.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.uniform_(-stdv, stdv)
        return self

    def _rows(self, input):
        _check_input(self, input, 1, 2)
        _check_size(self, input, -1, self.weight.size(1), "inputSize")
        return input.view(1, -1) if input.dim() == 1 else input

    def updateOutput(self, input):
        x = self._rows(input)
        out = x.mm(self.weight.t())
        if self.bias is not None:
            out = out + self.bias
        self.output = out.view(-1) if input.dim() == 1 else out
        return self.output

    def updateGradInput(self, input, gradOutput):
        x = self._rows(input)
        g = gradOutput.reshape(x.size(0), self.weight.size(0))
        self.gradInput = g.mm(self.weight).view(input.shape)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        x = self._rows(input)
        g = gradOutput.reshape(x.size(0), self.weight.size(0))
        self.gradWeight.add_(g.t().mm(x), alpha=scale)
        if self.bias is not None:
            self.gradBias.add_(g.sum(0), alpha=scale)

    def __repr__(self):
        s = f"nn.Linear({self.weight.size(1)} -> {self.weight.size(0)})"
        return s + (" without bias" if self.bias is None else "")
