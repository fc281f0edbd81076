from .Criterion import ElementwiseCriterion


class MarginCriterion(ElementwiseCriterion):
    """Two-class hinge loss: sum(max(0, margin - y * x)) for labels y in {1, -1}, divided
    by the number of elements if ``sizeAverage``."""

    def __init__(self, margin=1, sizeAverage=True):
        super().__init__(sizeAverage)
        self.margin = margin

    def _loss(self, input, y):
        return (self.margin - y * input).clamp(min=0)

    def _grad(self, input, y):
        return (-y).where((self.margin - y * input) > 0, 0.0)
