from ._tables import check_tensor_table
from .Module import Module


class CSubTable(Module):
    """``y = input[0] - input[1]``."""

    def updateOutput(self, input):
        a, b = check_tensor_table(self, input, 2, same_size=True)
        self.output = a - b
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = [gradOutput.clone(), -gradOutput]
        return self.gradInput
