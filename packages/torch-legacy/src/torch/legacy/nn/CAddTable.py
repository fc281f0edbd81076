from ._tables import check_tensor_table
from .Module import Module


class CAddTable(Module):
    """``y = input[0] + input[1] + ...`` (tensors of one size)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def updateOutput(self, input):
        check_tensor_table(self, input, same_size=True)
        out = input[0] if self.inplace else input[0].clone()
        for t in input[1:]:
            out.add_(t)
        self.output = out
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = [gradOutput if self.inplace else gradOutput.clone() for _ in input]
        return self.gradInput
