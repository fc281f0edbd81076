import torch
from torch import _C

from .Criterion import Criterion, check_tensor, class_indices


def nll_loss(input, target, weights, sizeAverage, ignore_index):
    """-input[i, target[i]] (times weights[target[i]]) summed over samples, divided by the
    summed weights if ``sizeAverage``. input is (N, C, S) and target (N, S), 0-based.
    Returns (loss tensor, total weight) for the backward kernel."""
    weight = None if weights is None else weights.to(input.dtype)
    code = 1 if sizeAverage else 2  # the kernel's reductions: mean, sum
    return _C._nll_loss(input, target, weight, code, ignore_index)


def nll_grad(input, target, weights, sizeAverage, ignore_index):
    """The gradient of nll_loss(...) with respect to input (N, C, S)."""
    total = nll_loss(input, target, weights, sizeAverage, ignore_index)[1]
    weight = None if weights is None else weights.to(input.dtype)
    one = torch.ones((), dtype=input.dtype)
    code = 1 if sizeAverage else 2
    return _C._nll_loss_backward(one, target, weight, code, ignore_index, total, input.shape[1])


class ClassNLLCriterion(Criterion):
    """Negative log-likelihood of 0-based class targets: input is log-probabilities of
    shape (C) with one target, or (N, C) with N targets. ``weights`` (C) rescales each
    class; with ``sizeAverage`` the loss is divided by the summed weights of the targets."""

    def __init__(self, weights=None, sizeAverage=True, ignore_index=-100):
        super().__init__()
        if weights is not None:
            check_tensor("ClassNLLCriterion", "weights", weights)
            if weights.dim() != 1:
                raise ValueError(
                    f"nn.ClassNLLCriterion: weights must be 1-D (one per class), got shape "
                    f"{tuple(weights.shape)}"
                )
        self.weights = weights
        self.sizeAverage = sizeAverage
        self.ignore_index = ignore_index

    def _ignore_index(self):
        return getattr(self, "ignore_index", -100)  # absent from modules read from .t7 files

    def _args(self, input, target):
        check_tensor("ClassNLLCriterion", "input", input)
        if input.dim() not in (1, 2):
            raise ValueError(
                f"nn.ClassNLLCriterion: expected input of shape (C) or (N, C), got "
                f"{tuple(input.shape)}"
            )
        x = input.reshape(1, -1) if input.dim() == 1 else input
        t = class_indices("ClassNLLCriterion", target, x.shape[0])
        if self.weights is not None and self.weights.numel() != x.shape[1]:
            raise ValueError(
                f"nn.ClassNLLCriterion: weights has {self.weights.numel()} values but input "
                f"of shape {tuple(input.shape)} has {x.shape[1]} classes"
            )
        return x, t

    def updateOutput(self, input, target):
        x, t = self._args(input, target)
        out = nll_loss(x, t, self.weights, self.sizeAverage, self._ignore_index())[0]
        self.output = out.item()
        return self.output

    def updateGradInput(self, input, target):
        x, t = self._args(input, target)
        grad = nll_grad(x, t, self.weights, self.sizeAverage, self._ignore_index())
        self.gradInput = grad.reshape(input.shape)
        return self.gradInput
