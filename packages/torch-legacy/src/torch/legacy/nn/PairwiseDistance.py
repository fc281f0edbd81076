import torch

from ._tables import check_tensor_table
from .Module import Module, _name


class PairwiseDistance(Module):
    """The p-norm ``|a - b|_p`` of ``input = [a, b]`` (1D vectors or 2D batches of rows);
    a 1D input gives a 1-element output. Where a distance is 0 its gradient is 0."""

    def __init__(self, p):
        super().__init__()
        if not p > 0:
            raise ValueError(f"nn.PairwiseDistance: the norm p must be positive, got {p}")
        self.norm = p

    def _diff(self, input):
        a, b = check_tensor_table(self, input, 2, same_size=True)
        if a.dim() not in (1, 2):
            raise RuntimeError(f"{_name(self)}: expected 1D or 2D inputs, got {tuple(a.shape)}")
        d = a - b
        return d.view(1, -1) if d.dim() == 1 else d

    def updateOutput(self, input):
        self.output = self._diff(input).abs().pow(self.norm).sum(1).pow(1.0 / self.norm)
        return self.output

    def updateGradInput(self, input, gradOutput):
        d = self._diff(input)
        p = self.norm
        dist = d.abs().pow(p).sum(1, keepdim=True).pow(1.0 / p)
        # d|d|_p / dd = sign(d) |d|^(p-1) / |d|_p^(p-1)
        g = torch.where(dist == 0, 0.0, gradOutput.reshape(dist.shape) / dist.pow(p - 1))
        grad = (d.sign() * d.abs().pow(p - 1) * g.to(d.dtype)).view(input[0].shape)
        self.gradInput = [grad, -grad]
        return self.gradInput
