from .Criterion import ElementwiseCriterion


class SoftMarginCriterion(ElementwiseCriterion):
    """Two-class logistic loss: sum(log(1 + exp(-y * x))) for labels y in {1, -1},
    divided by the number of elements if ``sizeAverage``."""

    def _loss(self, input, y):
        z = -y * input
        return z.clamp(min=0) + (-z.abs()).exp().log1p()  # log(1 + exp(z)), no overflow

    def _grad(self, input, y):
        return -y * (-y * input).sigmoid()
