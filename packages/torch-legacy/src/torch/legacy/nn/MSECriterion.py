from .Criterion import ElementwiseCriterion


class MSECriterion(ElementwiseCriterion):
    """sum((input - target)^2), divided by the number of elements if ``sizeAverage``."""

    def _loss(self, input, target):
        diff = input - target
        return diff * diff

    def _grad(self, input, target):
        return (input - target) * 2.0
