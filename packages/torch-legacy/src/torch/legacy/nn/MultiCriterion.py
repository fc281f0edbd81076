from .Criterion import Criterion
from .ParallelCriterion import scaled


def _add(a, b):
    if isinstance(a, list):
        return [_add(x, y) for x, y in zip(a, b)]
    return a + b


class MultiCriterion(Criterion):
    """A weighted sum of criteria, each applied to the same input and target; gradInput is
    the weighted sum of their gradInputs."""

    def __init__(self):
        super().__init__()
        self.criterions = []
        self.weights = []

    def add(self, criterion, weight=1):
        """Appends ``criterion`` with ``weight``; returns self, so calls chain."""
        if not isinstance(criterion, Criterion):
            raise TypeError(
                f"nn.MultiCriterion.add: expected a Criterion, got {type(criterion).__name__}"
            )
        self.criterions.append(criterion)
        self.weights.append(weight)
        return self

    def updateOutput(self, input, target):
        self.output = 0
        for criterion, weight in zip(self.criterions, self.weights):
            self.output += weight * criterion.updateOutput(input, target)
        return self.output

    def updateGradInput(self, input, target):
        total = None
        for criterion, weight in zip(self.criterions, self.weights):
            g = scaled(criterion.updateGradInput(input, target), weight)
            total = g if total is None else _add(total, g)
        self.gradInput = total
        return self.gradInput
