from .Criterion import Criterion, check_same_size


class MSECriterion(Criterion):
    """sum((input - target)^2), divided by the number of elements if ``sizeAverage``."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        diff = input - check_same_size("MSECriterion", input, target)
        self.output = (diff * diff).sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        diff = input - check_same_size("MSECriterion", input, target)
        self.gradInput = diff * (2.0 * self._scale(input))
        return self.gradInput
