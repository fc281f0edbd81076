import torch

from .Module import Module, _check_input


class Mul(Module):
    """``y = w * x`` with one learnt scalar ``w`` (``weight`` of size 1)."""

    def __init__(self):
        super().__init__()
        self.weight = torch.empty(1)
        self.gradWeight = torch.zeros(1)
        self.reset()

    def reset(self, stdv=None):
        stdv = stdv if stdv is not None else 1.0
        self.weight.uniform_(-stdv, stdv)
        return self

    def updateOutput(self, input):
        self.output = _check_input(self, input) * self.weight[0]
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput * self.weight[0]
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        self.gradWeight.add_((input * gradOutput).sum().view(1), alpha=scale)
