import math

import torch

from .Module import Module, _check_input


class Normalize(Module):
    """``y = x / |x|_p`` for a 1D input or each row of a 2D one, where
    ``|x|_p = (sum |x_i|^p + eps)^(1/p)``, or ``max |x_i| + eps`` for ``p = inf``."""

    def __init__(self, p, eps=1e-10):
        super().__init__()
        if not p > 0:
            raise ValueError(f"nn.Normalize: the norm p must be positive, got {p}")
        self.p = p
        self.eps = eps

    def _rows(self, input):
        _check_input(self, input, 1, 2)
        return input.view(1, -1) if input.dim() == 1 else input

    def _norm(self, x):
        if math.isinf(self.p):
            return x.abs().amax(1, keepdim=True) + self.eps
        return (x.abs().pow(self.p).sum(1, keepdim=True) + self.eps).pow(1.0 / self.p)

    def updateOutput(self, input):
        x = self._rows(input)
        self.output = (x / self._norm(x)).view(input.shape)
        return self.output

    def updateGradInput(self, input, gradOutput):
        x = self._rows(input)
        g = gradOutput.reshape(x.shape)
        n = self._norm(x)
        if math.isinf(self.p):
            # the norm moves only with the largest |x_i| (dn/dx_i = sign(x_i) there)
            top = x.abs().argmax(1, keepdim=True)
            dn = torch.zeros_like(x).scatter_(1, top, x.gather(1, top).sign())
        else:
            dn = x.sign() * x.abs().pow(self.p - 1) * n.pow(1 - self.p)
        grad = g / n - dn * (g * x).sum(1, keepdim=True) / (n * n)
        self.gradInput = grad.view(input.shape)
        return self.gradInput

    def __repr__(self):
        return f"nn.Normalize({self.p})"
