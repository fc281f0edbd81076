from .Criterion import Criterion


def scaled(grad, weight):
    """``grad`` (a tensor or a nested list of them) times ``weight``, as new tensors."""
    if isinstance(grad, (list, tuple)):
        return [scaled(g, weight) for g in grad]
    return grad * weight


class ParallelCriterion(Criterion):
    """A weighted sum of criteria, criterion i applied to input[i] and target[i] (or to the
    whole target, with ``repeatTarget``). gradInput is the list of their weighted
    gradInputs."""

    def __init__(self, repeatTarget=False):
        super().__init__()
        self.criterions = []
        self.weights = []
        self.gradInput = []
        self.repeatTarget = repeatTarget

    def add(self, criterion, weight=1):
        """Appends ``criterion`` with ``weight``; returns self, so calls chain."""
        if not isinstance(criterion, Criterion):
            raise TypeError(
                f"nn.ParallelCriterion.add: expected a Criterion, got {type(criterion).__name__}"
            )
        self.criterions.append(criterion)
        self.weights.append(weight)
        return self

    def _check(self, input):
        if not isinstance(input, (list, tuple)) or len(input) != len(self.criterions):
            got = len(input) if isinstance(input, (list, tuple)) else type(input).__name__
            raise ValueError(
                f"nn.ParallelCriterion: expected a list of {len(self.criterions)} inputs (one "
                f"per criterion), got {got}"
            )

    def updateOutput(self, input, target):
        self._check(input)
        self.output = 0
        for i, (criterion, weight) in enumerate(zip(self.criterions, self.weights)):
            t = target if self.repeatTarget else target[i]
            self.output += weight * criterion.updateOutput(input[i], t)
        return self.output

    def updateGradInput(self, input, target):
        self._check(input)
        self.gradInput = []
        for i, (criterion, weight) in enumerate(zip(self.criterions, self.weights)):
            t = target if self.repeatTarget else target[i]
            self.gradInput.append(scaled(criterion.updateGradInput(input[i], t), weight))
        return self.gradInput
