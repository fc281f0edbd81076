import torch

from .Module import Module, _check_input


class SplitTable(Module):
    """Splits the input along ``dimension`` into a list of its slices (a negative
    dimension counts from the end); with ``nInputDims``, a batch in front shifts it."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    nInputDims = None

    def __init__(self, dimension, nInputDims=None):
        super().__init__()
        self.dimension = dimension
        self.nInputDims = nInputDims

    def _dim(self, input):
        _check_input(self, input)
        dim = self.dimension
        if dim < 0:
            dim += input.dim()
        elif self.nInputDims is not None and input.dim() == self.nInputDims + 1:
            dim += 1
        return dim

    def updateOutput(self, input):
        dim = self._dim(input)
        self.output = [input.select(dim, i) for i in range(input.size(dim))]
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = torch.stack(list(gradOutput), self._dim(input))
        return self.gradInput
