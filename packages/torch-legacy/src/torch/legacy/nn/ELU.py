import torch

from ._pointwise import _Pointwise


class ELU(_Pointwise):
    """``y = x if x > 0 else alpha * (exp(x) - 1)``."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def _output(self, x):
        return torch.where(x > 0, x, (x.clamp(max=0).exp() - 1) * self.alpha)

    def _grad(self, x, y, g):
        # dy/dx = y + alpha where x <= 0 (y <= 0 there too when alpha >= 0)
        return torch.where(y > 0, g, g * (y + self.alpha))

    def __repr__(self):
        return f"nn.ELU (alpha:{self.alpha})"
