import math

import torch

from .Module import Module, _check_input, _check_size


class Euclidean(Module):
    """``y_k = |x - w_k|`` for each column ``w_k`` of the learnt ``weight``
    (inputSize, outputSize); a 1D input or a 2D batch of rows. Where a distance is 0 its
    gradient is taken as 0."""

    def __init__(self, inputSize, outputSize):
        super().__init__()
        self.weight = torch.empty(inputSize, outputSize)
        self.gradWeight = torch.zeros(inputSize, outputSize)
        self.reset()

    def reset(self, stdv=None):
        stdv = stdv if stdv is not None else 1.0 / math.sqrt(self.weight.size(0))
        self.weight.uniform_(-stdv, stdv)
        return self

    def _diff(self, input):
        """(x - w_k) as (N, inputSize, outputSize)."""
        _check_input(self, input, 1, 2)
        _check_size(self, input, -1, self.weight.size(0), "inputSize")
        x = input.view(1, -1) if input.dim() == 1 else input
        return x.unsqueeze(2) - self.weight.unsqueeze(0)

    def updateOutput(self, input):
        out = self._diff(input).pow(2).sum(1).sqrt()
        self.output = out.view(-1) if input.dim() == 1 else out
        return self.output

    def _scaled_diff(self, input, gradOutput):
        """gradOutput_k (x - w_k) / y_k, as (N, inputSize, outputSize)."""
        diff = self._diff(input)
        dist = diff.pow(2).sum(1, keepdim=True).sqrt()
        g = gradOutput.reshape(dist.shape)
        return diff * torch.where(dist == 0, 0.0, g / dist).to(diff.dtype)

    def updateGradInput(self, input, gradOutput):
        self.gradInput = self._scaled_diff(input, gradOutput).sum(2).view(input.shape)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        self.gradWeight.add_(self._scaled_diff(input, gradOutput).sum(0), alpha=-scale)

    def __repr__(self):
        return f"nn.Euclidean({self.weight.size(0)} -> {self.weight.size(1)})"
