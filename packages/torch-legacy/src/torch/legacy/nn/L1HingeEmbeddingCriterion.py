from .Criterion import Criterion, check_tensor


def _pair(name, input):
    if not isinstance(input, (list, tuple)) or len(input) != 2:
        raise TypeError(f"nn.{name}: input must be a list of two tensors [x1, x2], got {input!r}")
    x1, x2 = input
    check_tensor(name, "input[0]", x1)
    check_tensor(name, "input[1]", x2)
    if x1.numel() != x2.numel():
        raise ValueError(
            f"nn.{name}: the two inputs must have the same number of elements, got shapes "
            f"{tuple(x1.shape)} and {tuple(x2.shape)}"
        )
    return x1, x2.reshape(x1.shape)


def _label(name, target):
    """A target given as a number or a one-element tensor, as a float."""
    if hasattr(target, "numel"):
        if target.numel() != 1:
            raise ValueError(f"nn.{name}: expected one target, got shape {tuple(target.shape)}")
        return float(target.reshape(-1)[0].item())
    return float(target)


class L1HingeEmbeddingCriterion(Criterion):
    """For a pair [x1, x2] at L1 distance d and a label y: d if y = 1, max(0, margin - d)
    if y = -1."""

    def __init__(self, margin=1):
        super().__init__()
        self.margin = margin

    def updateOutput(self, input, target):
        x1, x2 = _pair("L1HingeEmbeddingCriterion", input)
        d = (x1 - x2).abs().sum().item()
        y = _label("L1HingeEmbeddingCriterion", target)
        self.output = d if y == 1 else max(0.0, self.margin - d)
        return self.output

    def updateGradInput(self, input, target):
        x1, x2 = _pair("L1HingeEmbeddingCriterion", input)
        y = _label("L1HingeEmbeddingCriterion", target)
        g = (x1 - x2).sign()
        if y == -1:
            d = (x1 - x2).abs().sum().item()
            g = g * (-1.0 if d < self.margin else 0.0)
        self.gradInput = [g, -g.reshape(input[1].shape)]
        return self.gradInput
