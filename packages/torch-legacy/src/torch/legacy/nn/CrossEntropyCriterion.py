from torch import _C

from .ClassNLLCriterion import ClassNLLCriterion
from .Criterion import Criterion, check_tensor


class CrossEntropyCriterion(Criterion):
    """LogSoftMax followed by ClassNLLCriterion: input (C) or (N, C) of scores (squeezed
    first, as in Lua), 0-based class targets."""

    def __init__(self, weights=None, sizeAverage=True):
        super().__init__()
        self.nll = ClassNLLCriterion(weights, sizeAverage)

    def _log_probs(self, input):
        check_tensor("CrossEntropyCriterion", "input", input)
        x = input.squeeze() if input.numel() > 1 else input.reshape(1)
        if x.dim() not in (1, 2):
            raise ValueError(
                f"nn.CrossEntropyCriterion: expected input of shape (C) or (N, C), got "
                f"{tuple(input.shape)}"
            )
        dim = x.dim() - 1
        return _C._log_softmax(x, dim), dim

    def updateOutput(self, input, target):
        logp, _ = self._log_probs(input)
        self.output = self.nll.updateOutput(logp, _squeezed(target))
        return self.output

    def updateGradInput(self, input, target):
        logp, dim = self._log_probs(input)
        g = self.nll.updateGradInput(logp, _squeezed(target))
        self.gradInput = _C._log_softmax_backward(g, logp, dim).reshape(input.shape)
        return self.gradInput


def _squeezed(target):
    return target if isinstance(target, int) else target.reshape(-1)
