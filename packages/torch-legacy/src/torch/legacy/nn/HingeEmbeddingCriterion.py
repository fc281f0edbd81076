from .Criterion import Criterion, check_same_size


class HingeEmbeddingCriterion(Criterion):
    """For targets y in {1, -1}: x where y = 1, max(0, margin - x) where y = -1; summed,
    divided by the number of elements if ``sizeAverage``."""

    def __init__(self, margin=1, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        y = check_same_size("HingeEmbeddingCriterion", input, target)
        loss = input.where(y == 1, 0.0) + (self.margin - input).clamp(min=0).where(y == -1, 0.0)
        self.output = loss.sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        y = check_same_size("HingeEmbeddingCriterion", input, target)
        grad = y.where((y == 1) | (input <= self.margin), 0.0)
        self.gradInput = grad * self._scale(input)
        return self.gradInput
