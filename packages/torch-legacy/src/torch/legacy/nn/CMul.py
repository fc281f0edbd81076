import math

import torch

from .Module import Module, _check_input, _name


class CMul(Module):
    """``y = x * w`` element-wise with a learnt ``weight`` of shape ``size``; an input with
    more elements holds a batch in dimension 0."""

    def __init__(self, *size):
        super().__init__()
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        self.size = tuple(size)
        self.weight = torch.empty(self.size)
        self.gradWeight = torch.zeros(self.size)
        self.reset()

    def reset(self, stdv=None):
        stdv = stdv if stdv is not None else 1.0 / math.sqrt(self.weight.numel())
        self.weight.uniform_(-stdv, stdv)
        return self

    def _rows(self, input):
        """input as (batch, n) and weight as (1, n)."""
        _check_input(self, input)
        n = self.weight.numel()
        if input.numel() == n:
            return input.reshape(1, n), self.weight.view(1, n)
        if input.dim() < 1 or input[0].numel() != n:
            raise RuntimeError(
                f"{_name(self)}: input of size {tuple(input.shape)} does not hold samples "
                f"of size {self.size}"
            )
        return input.reshape(input.size(0), n), self.weight.view(1, n)

    def updateOutput(self, input):
        x, w = self._rows(input)
        self.output = (x * w).view(input.shape)
        return self.output

    def updateGradInput(self, input, gradOutput):
        x, w = self._rows(input)
        self.gradInput = (gradOutput.reshape(x.shape) * w).view(input.shape)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        x, _ = self._rows(input)
        contrib = (x * gradOutput.reshape(x.shape)).sum(0).view(self.weight.shape)
        self.gradWeight.add_(contrib, alpha=scale)

    def __repr__(self):
        return "nn.CMul(" + "x".join(map(str, self.size)) + ")"
