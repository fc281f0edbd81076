from .Criterion import Criterion, check_same_size


class SmoothL1Criterion(Criterion):
    """Huber loss with threshold 1: 0.5 * d^2 where |d| < 1, |d| - 0.5 elsewhere
    (d = input - target), divided by the number of elements if ``sizeAverage``."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        d = input - check_same_size("SmoothL1Criterion", input, target)
        a = d.abs()
        loss = (0.5 * d * d).where(a < 1, a - 0.5)
        self.output = loss.sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        d = input - check_same_size("SmoothL1Criterion", input, target)
        self.gradInput = d.clamp(-1.0, 1.0) * self._scale(input)
        return self.gradInput
