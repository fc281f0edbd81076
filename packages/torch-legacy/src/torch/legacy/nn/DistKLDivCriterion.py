from .Criterion import ElementwiseCriterion


class DistKLDivCriterion(ElementwiseCriterion):
    """Kullback-Leibler divergence of a target distribution from log-probabilities
    ``input``: sum over target > 0 of t * (log t - x), divided by the number of elements
    if ``sizeAverage``."""

    def _loss(self, input, t):
        positive = t > 0
        safe = t.where(positive, 1.0)  # log(1) = 0 where the target is 0
        return (t * (safe.log() - input)).where(positive, 0.0)

    def _grad(self, input, t):
        return (-t).where(t > 0, 0.0)
