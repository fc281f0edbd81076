from .BCECriterion import BCECriterion
from .Criterion import Criterion, check_tensor


class MultiLabelSoftMarginCriterion(Criterion):
    """Sigmoid followed by BCECriterion: for scores x and 0/1 targets t,
    -mean(t * log(sigmoid(x)) + (1 - t) * log(1 - sigmoid(x)))."""

    def __init__(self, weights=None, sizeAverage=True):
        super().__init__()
        self.nll = BCECriterion(weights, sizeAverage)  # Lua calls its BCE "nll"

    def updateOutput(self, input, target):
        check_tensor("MultiLabelSoftMarginCriterion", "input", input)
        self.output = self.nll.updateOutput(input.sigmoid(), target)
        return self.output

    def updateGradInput(self, input, target):
        check_tensor("MultiLabelSoftMarginCriterion", "input", input)
        s = input.sigmoid()
        self.gradInput = self.nll.updateGradInput(s, target) * s * (1 - s)
        return self.gradInput
