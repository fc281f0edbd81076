from ._tables import check_tensor_table
from .Module import Module


class CDivTable(Module):
    """``y = input[0] / input[1]`` (element-wise)."""

    def updateOutput(self, input):
        a, b = check_tensor_table(self, input, 2, same_size=True)
        self.output = a / b
        return self.output

    def updateGradInput(self, input, gradOutput):
        a, b = input
        g = gradOutput / b
        self.gradInput = [g, -g * a / b]
        return self.gradInput
