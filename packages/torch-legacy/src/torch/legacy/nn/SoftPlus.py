import torch

from ._pointwise import _Pointwise


class SoftPlus(_Pointwise):
    """``y = log(1 + exp(beta * x)) / beta``; linear where ``beta * x > threshold``."""

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def _output(self, x):
        bx = x * self.beta
        soft = (bx.clamp(min=0) + (-bx.abs()).exp().log1p()) / self.beta
        return torch.where(bx > self.threshold, x, soft)

    def _grad(self, x, y, g):
        by = y * self.beta
        return torch.where(by > self.threshold, g, g * (1 - (-by).exp()))
