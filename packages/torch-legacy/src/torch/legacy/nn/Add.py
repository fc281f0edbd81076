import math

import torch

from .Module import Module, _check_input, _name


class Add(Module):
    """``y = x + b`` with a learnt ``bias`` of ``inputSize`` elements (or one shared scalar
    with ``scalar=True``); an input with more elements holds a batch in dimension 0."""

    def __init__(self, inputSize, scalar=False):
        super().__init__()
        self.scalar = scalar
        size = 1 if scalar else inputSize
        self.bias = torch.empty(size)
        self.gradBias = torch.zeros(size)
        self.reset()

    def reset(self, stdv=None):
        stdv = stdv if stdv is not None else 1.0 / math.sqrt(self.bias.size(0))
        self.bias.uniform_(-stdv, stdv)
        return self

    def _bias_like(self, input):
        _check_input(self, input)
        if self.scalar:
            return self.bias[0]
        n = self.bias.numel()
        if input.numel() == n:
            return self.bias.view(input.shape)
        if input.dim() < 1 or input[0].numel() != n:
            raise RuntimeError(
                f"{_name(self)}: input of size {tuple(input.shape)} does not hold "
                f"samples of {n} elements"
            )
        return self.bias.view(1, *input.shape[1:])

    def updateOutput(self, input):
        self.output = input + self._bias_like(input)
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput.clone()
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        self._bias_like(input)
        if self.scalar:
            self.gradBias.add_(gradOutput.sum().view(1), alpha=scale)
        elif input.numel() == self.bias.numel():
            self.gradBias.add_(gradOutput.reshape(-1), alpha=scale)
        else:
            self.gradBias.add_(gradOutput.reshape(input.size(0), -1).sum(0), alpha=scale)
