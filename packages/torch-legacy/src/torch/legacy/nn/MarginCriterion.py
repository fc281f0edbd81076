from .Criterion import Criterion, check_same_size


class MarginCriterion(Criterion):
    """Two-class hinge loss: sum(max(0, margin - y * x)) for labels y in {1, -1}, divided
    by the number of elements if ``sizeAverage``."""

    def __init__(self, margin=1, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        y = check_same_size("MarginCriterion", input, target)
        self.output = (self.margin - y * input).clamp(min=0).sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        y = check_same_size("MarginCriterion", input, target)
        active = (self.margin - y * input) > 0
        self.gradInput = (-y).where(active, 0.0) * self._scale(input)
        return self.gradInput
