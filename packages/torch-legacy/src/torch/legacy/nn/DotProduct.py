from ._tables import check_tensor_table
from .Module import Module


class DotProduct(Module):
    """``y = sum(a * b)`` over the last dimension, for ``input = [a, b]`` (1D vectors, or
    2D batches of rows); a 1D input gives a 1-element output."""

    def updateOutput(self, input):
        a, b = check_tensor_table(self, input, 2, same_size=True)
        self.output = (a * b).sum(-1).reshape(-1)
        return self.output

    def updateGradInput(self, input, gradOutput):
        a, b = input
        g = gradOutput.reshape(*a.shape[:-1], 1)
        self.gradInput = [g * b, g * a]
        return self.gradInput
