import torch

from ._pointwise import _Pointwise


class LeakyReLU(_Pointwise):
    """``y = x if x > 0 else negval * x``."""

    def __init__(self, negval=1 / 100, ip=False):
        super().__init__()
        self.negval = negval
        self.inplace = ip

    def _output(self, x):
        return torch.where(x > 0, x, x * self.negval)

    def _grad(self, x, y, g):
        return torch.where((y if self.inplace else x) > 0, g, g * self.negval)

    def __repr__(self):
        return f"nn.LeakyReLU({self.negval})"
