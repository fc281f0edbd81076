from .Criterion import Criterion, check_same_size


class DistKLDivCriterion(Criterion):
    """Kullback-Leibler divergence of a target distribution from log-probabilities
    ``input``: sum over target > 0 of t * (log t - x), divided by the number of elements
    if ``sizeAverage``."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        t = check_same_size("DistKLDivCriterion", input, target)
        positive = t > 0
        safe = t.where(positive, 1.0)  # log(1) = 0 where the target is 0
        loss = (t * (safe.log() - input)).where(positive, 0.0)
        self.output = loss.sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        t = check_same_size("DistKLDivCriterion", input, target)
        self.gradInput = (-t).where(t > 0, 0.0) * self._scale(input)
        return self.gradInput
