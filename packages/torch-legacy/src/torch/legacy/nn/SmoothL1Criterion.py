from .Criterion import ElementwiseCriterion


class SmoothL1Criterion(ElementwiseCriterion):
    """Huber loss with threshold 1: ``0.5 * d^2`` where ``|d| < 1``, ``|d| - 0.5`` elsewhere
    (d = input - target), divided by the number of elements if ``sizeAverage``."""

    def _loss(self, input, target):
        d = input - target
        a = d.abs()
        return (0.5 * d * d).where(a < 1, a - 0.5)

    def _grad(self, input, target):
        return (input - target).clamp(-1.0, 1.0)
