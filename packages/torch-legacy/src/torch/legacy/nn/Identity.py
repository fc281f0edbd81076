from .Module import Module


class Identity(Module):
    """Passes its input (tensor or table) through unchanged."""

    def updateOutput(self, input):
        self.output = input
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput
        return self.gradInput
