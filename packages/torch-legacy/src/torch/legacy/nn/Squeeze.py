from .Module import Module, _check_input


class Squeeze(Module):
    """Removes dimension ``dim`` if it has size 1, or every size-1 dimension when ``dim``
    is None. With ``numInputDims``, a batch dimension in front is kept (even of size 1)."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    numInputDims = None

    def __init__(self, dim=None, numInputDims=None):
        super().__init__()
        self.dim = dim
        self.numInputDims = numInputDims

    def updateOutput(self, input):
        _check_input(self, input)
        batched = self.numInputDims is not None and input.dim() == self.numInputDims + 1
        if self.dim is not None:
            self.output = input.squeeze(self.dim + (1 if batched else 0))
        elif batched:
            sample = input.view(input.shape[1:]).squeeze() if input.dim() > 1 else input
            self.output = sample.view(input.size(0), *sample.shape)
        else:
            self.output = input.squeeze()
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput.contiguous().view(input.shape)
        return self.gradInput
