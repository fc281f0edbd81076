from .Module import Module, _check_input


class Contiguous(Module):
    """``y = x`` laid out contiguously."""

    def updateOutput(self, input):
        self.output = _check_input(self, input).contiguous()
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput.contiguous()
        return self.gradInput
