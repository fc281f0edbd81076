from .Criterion import Criterion, check_same_size


class SoftMarginCriterion(Criterion):
    """Two-class logistic loss: sum(log(1 + exp(-y * x))) for labels y in {1, -1},
    divided by the number of elements if ``sizeAverage``."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        z = -check_same_size("SoftMarginCriterion", input, target) * input
        # log(1 + exp(z)) without overflow for large z
        loss = z.clamp(min=0) + (-z.abs()).exp().log1p()
        self.output = loss.sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        y = check_same_size("SoftMarginCriterion", input, target)
        self.gradInput = -y * (-y * input).sigmoid() * self._scale(input)
        return self.gradInput
