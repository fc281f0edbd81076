import torch

from .Criterion import Criterion
from .L1HingeEmbeddingCriterion import _pair

_EPS = 1e-12  # Lua's guard added to the squared norms


class CosineEmbeddingCriterion(Criterion):
    """For pairs [x1, x2] of shape (D) or (N, D), with cosine similarity c per row and labels
    y in {1, -1}: 1 - c where y = 1, max(0, c - margin) where y = -1; summed, divided by N
    if ``sizeAverage``."""

    def __init__(self, margin=0, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _terms(self, input, target):
        x1, x2 = _pair("CosineEmbeddingCriterion", input)
        if x1.dim() not in (1, 2):
            raise ValueError(
                f"nn.CosineEmbeddingCriterion: expected inputs of shape (D) or (N, D), got "
                f"{tuple(x1.shape)}"
            )
        a, b = (x1, x2) if x1.dim() == 2 else (x1.reshape(1, -1), x2.reshape(1, -1))
        n = a.shape[0]
        y = target if isinstance(target, torch.Tensor) else torch.tensor([float(target)])
        if y.numel() != n:
            raise ValueError(
                f"nn.CosineEmbeddingCriterion: expected {n} labels for inputs of shape "
                f"{tuple(x1.shape)}, got target of shape {tuple(y.shape)}"
            )
        y = y.to(a.dtype).reshape(n, 1)
        dot = (a * b).sum(1, keepdim=True)
        aa = (a * a).sum(1, keepdim=True) + _EPS
        bb = (b * b).sum(1, keepdim=True) + _EPS
        cos = dot / (aa * bb).sqrt()
        scale = 1.0 / n if self.sizeAverage else 1.0
        return a, b, y, aa, bb, cos, scale

    def updateOutput(self, input, target):
        _, _, y, _, _, cos, scale = self._terms(input, target)
        loss = (1 - cos).where(y == 1, 0.0) + (cos - self.margin).clamp(min=0).where(y == -1, 0.0)
        self.output = loss.sum().item() * scale
        return self.output

    def updateGradInput(self, input, target):
        a, b, y, aa, bb, cos, scale = self._terms(input, target)
        norm = (aa * bb).sqrt()
        dcos_a = b / norm - cos * a / aa
        dcos_b = a / norm - cos * b / bb
        # d loss / d cos: -1 where y = 1, +1 where y = -1 and cos > margin, else 0
        sign = (-torch.ones_like(y)).where(y == 1, (cos > self.margin).to(y.dtype))
        sign = sign.where((y == 1) | (y == -1), 0.0) * scale
        self.gradInput = [
            (sign * dcos_a).reshape(input[0].shape),
            (sign * dcos_b).reshape(input[1].shape),
        ]
        return self.gradInput
