from .Criterion import ElementwiseCriterion


class HingeEmbeddingCriterion(ElementwiseCriterion):
    """For targets y in {1, -1}: x where y = 1, max(0, margin - x) where y = -1; summed,
    divided by the number of elements if ``sizeAverage``."""

    def __init__(self, margin=1, sizeAverage=True):
        super().__init__(sizeAverage)
        self.margin = margin

    def _loss(self, input, y):
        return input.where(y == 1, 0.0) + (self.margin - input).clamp(min=0).where(y == -1, 0.0)

    def _grad(self, input, y):
        return y.where((y == 1) | (input <= self.margin), 0.0)
