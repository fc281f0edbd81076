from .Module import Module, _check_input


class Transpose(Module):
    """Swaps dimension pairs in order: ``Transpose((0, 1), (1, 2))``."""

    def __init__(self, *args):
        super().__init__()
        self.permutations = [tuple(p) for p in args]

    def updateOutput(self, input):
        out = _check_input(self, input)
        for a, b in self.permutations:
            out = out.transpose(a, b)
        self.output = out
        return self.output

    def updateGradInput(self, input, gradOutput):
        grad = gradOutput
        for a, b in reversed(self.permutations):
            grad = grad.transpose(a, b)
        self.gradInput = grad
        return self.gradInput
