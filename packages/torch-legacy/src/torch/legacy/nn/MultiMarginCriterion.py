import torch

from .Criterion import Criterion, check_tensor, class_indices


class MultiMarginCriterion(Criterion):
    """Multi-class hinge loss for input (C) or (N, C) and 0-based class targets: per sample,
    sum over i != y of max(0, margin - x[y] + x[i])^p * weights[y] / C; summed over
    samples, divided by N if ``sizeAverage``. p is 1 or 2."""

    def __init__(self, p=1, weights=None, margin=1, sizeAverage=True):
        super().__init__()
        if p not in (1, 2):
            raise ValueError(
                f"nn.MultiMarginCriterion: only p = 1 and p = 2 are supported, got {p}"
            )
        if weights is not None:
            check_tensor("MultiMarginCriterion", "weights", weights)
        self.p = p
        self.weights = weights
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _terms(self, input, target):
        """(h, active, factor, is_target): h = margin - x[y] + x[i], active where it counts,
        factor the per-sample weight / C (and / N)."""
        check_tensor("MultiMarginCriterion", "input", input)
        if input.dim() not in (1, 2):
            raise ValueError(
                f"nn.MultiMarginCriterion: expected input of shape (C) or (N, C), got "
                f"{tuple(input.shape)}"
            )
        x = input.reshape(1, -1) if input.dim() == 1 else input
        n, c = x.shape
        t = class_indices("MultiMarginCriterion", target, n)
        if bool(((t < 0) | (t >= c)).any()):
            raise IndexError(
                f"nn.MultiMarginCriterion: target {t.tolist()} out of range for {c} classes"
            )
        is_target = torch.arange(c).reshape(1, c) == t.reshape(n, 1)
        h = self.margin - x.gather(1, t.reshape(n, 1)) + x
        active = (h > 0) & ~is_target
        factor = torch.ones(n, 1, dtype=x.dtype) / c
        if self.weights is not None:
            factor = factor * self.weights.to(x.dtype)[t].reshape(n, 1)
        if self.sizeAverage:
            factor = factor / n
        return h, active, factor, is_target

    def updateOutput(self, input, target):
        h, active, factor, _ = self._terms(input, target)
        z = h.where(active, 0.0)
        self.output = ((z if self.p == 1 else z * z) * factor).sum().item()
        return self.output

    def updateGradInput(self, input, target):
        h, active, factor, is_target = self._terms(input, target)
        dz = (factor if self.p == 1 else 2 * h * factor).expand_as(h).where(active, 0.0)
        grad = dz - is_target.to(h.dtype) * dz.sum(1, keepdim=True)
        self.gradInput = grad.reshape(input.shape)
        return self.gradInput
