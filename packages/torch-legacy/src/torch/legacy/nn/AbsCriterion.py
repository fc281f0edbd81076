from .Criterion import ElementwiseCriterion


class AbsCriterion(ElementwiseCriterion):
    """``sum(|input - target|)``, divided by the number of elements if ``sizeAverage``."""

    def _loss(self, input, target):
        return (input - target).abs()

    def _grad(self, input, target):
        return (input - target).sign()
