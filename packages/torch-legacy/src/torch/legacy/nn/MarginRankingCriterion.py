import torch

from .Criterion import Criterion
from .L1HingeEmbeddingCriterion import _pair


class MarginRankingCriterion(Criterion):
    """For a pair [x1, x2] of N scores and labels y in {1, -1} (N of them, or one number):
    sum(max(0, -y * (x1 - x2) + margin)), divided by N if ``sizeAverage``. y = 1 means x1
    should rank higher."""

    def __init__(self, margin=0, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _args(self, input, target):
        x1, x2 = _pair("MarginRankingCriterion", input)
        y = target if isinstance(target, torch.Tensor) else torch.tensor(float(target))
        if y.numel() not in (1, x1.numel()):
            raise ValueError(
                f"nn.MarginRankingCriterion: expected 1 or {x1.numel()} labels for inputs of "
                f"shape {tuple(x1.shape)}, got target of shape {tuple(y.shape)}"
            )
        y = y.to(x1.dtype).reshape(-1) if y.numel() > 1 else y.to(x1.dtype).reshape(())
        x1, x2 = x1.reshape(-1), x2.reshape(-1)
        scale = 1.0 / x1.numel() if self.sizeAverage and x1.numel() > 1 else 1.0
        return x1, x2, y, scale

    def updateOutput(self, input, target):
        x1, x2, y, scale = self._args(input, target)
        self.output = (-y * (x1 - x2) + self.margin).clamp(min=0).sum().item() * scale
        return self.output

    def updateGradInput(self, input, target):
        x1, x2, y, scale = self._args(input, target)
        active = (-y * (x1 - x2) + self.margin) > 0
        g = (y * scale).expand_as(x1).where(active, 0.0)
        self.gradInput = [(-g).reshape(input[0].shape), g.reshape(input[1].shape)]
        return self.gradInput
