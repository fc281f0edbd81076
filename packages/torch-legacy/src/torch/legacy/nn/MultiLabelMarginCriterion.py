import torch

from .Criterion import Criterion, check_tensor


class MultiLabelMarginCriterion(Criterion):
    """Multi-label hinge loss. input is (C) or (N, C); target has the same shape and lists
    each sample's 0-based target classes, ended by the first -1. Per sample: sum over
    targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C; summed over samples and
    divided by N if ``sizeAverage``."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _terms(self, input, target):
        name = "nn.MultiLabelMarginCriterion"
        check_tensor("MultiLabelMarginCriterion", "input", input)
        check_tensor("MultiLabelMarginCriterion", "target", target)
        if input.dim() not in (1, 2) or tuple(target.shape) != tuple(input.shape):
            raise ValueError(
                f"{name}: expected input of shape (C) or (N, C) and a target of the same "
                f"shape, got input {tuple(input.shape)} and target {tuple(target.shape)}"
            )
        x = input.reshape(1, -1) if input.dim() == 1 else input
        n, c = x.shape
        t = target.reshape(n, c).to(torch.int64)
        listed = (t == -1).to(torch.int64).cumsum(1) == 0  # before the first -1
        if bool(((t < 0) | (t >= c)).where(listed, False).any()):
            raise IndexError(f"{name}: target classes must lie in [0, {c - 1}], got {t.tolist()}")
        # onehot[n, j, k]: the j-th listed target of sample n is class k
        onehot = (t.reshape(n, c, 1) == torch.arange(c).reshape(1, 1, c)) & listed.reshape(n, c, 1)
        is_target = onehot.any(1)  # (n, c)
        x_target = (onehot.to(x.dtype) * x.reshape(n, 1, c)).sum(2)  # x[t[n, j]]
        h = 1 - x_target.reshape(n, c, 1) + x.reshape(n, 1, c)  # h[n, j, i]
        active = (h > 0) & listed.reshape(n, c, 1) & ~is_target.reshape(n, 1, c)
        scale = 1.0 / c / (n if self.sizeAverage else 1)
        return h, active, onehot, scale

    def updateOutput(self, input, target):
        h, active, _, scale = self._terms(input, target)
        self.output = h.where(active, 0.0).sum().item() * scale
        return self.output

    def updateGradInput(self, input, target):
        h, active, onehot, scale = self._terms(input, target)
        a = active.to(h.dtype)
        grad = a.sum(1) - (onehot.to(h.dtype) * a.sum(2, keepdim=True)).sum(1)
        self.gradInput = (grad * scale).reshape(input.shape)
        return self.gradInput
