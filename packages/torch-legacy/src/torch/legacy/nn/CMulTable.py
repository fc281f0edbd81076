from ._tables import check_tensor_table
from .Module import Module


class CMulTable(Module):
    """``y = input[0] * input[1] * ...`` (element-wise)."""

    def updateOutput(self, input):
        check_tensor_table(self, input, same_size=True)
        out = input[0].clone()
        for t in input[1:]:
            out.mul_(t)
        self.output = out
        return self.output

    def updateGradInput(self, input, gradOutput):
        # The product of the others (not output / input[i], which fails on zeros).
        grads = []
        for i in range(len(input)):
            g = gradOutput.clone()
            for j, t in enumerate(input):
                if j != i:
                    g.mul_(t)
            grads.append(g)
        self.gradInput = grads
        return self.gradInput
