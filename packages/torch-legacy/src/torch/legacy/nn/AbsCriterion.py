from .Criterion import Criterion, check_same_size


class AbsCriterion(Criterion):
    """sum(|input - target|), divided by the number of elements if ``sizeAverage``."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        diff = input - check_same_size("AbsCriterion", input, target)
        self.output = diff.abs().sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        diff = input - check_same_size("AbsCriterion", input, target)
        self.gradInput = diff.sign() * self._scale(input)
        return self.gradInput
