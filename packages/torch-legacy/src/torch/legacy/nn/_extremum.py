"""The shared base of Max and Min over one dimension."""

from .Module import Module, _check_input


class _Extremum(Module):
    """The max/min over ``dimension``; its gradient goes to the chosen element. The
    dimension is dropped unless the input is 1D; with ``nInputDims`` a batch shifts it."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    nInputDims = None

    def __init__(self, dimension=0, nInputDims=None):
        super().__init__()
        self.dimension = dimension
        self.nInputDims = nInputDims
        self._indices = None

    def _dim(self, input):
        _check_input(self, input)
        dim = self.dimension
        if dim < 0:
            dim += input.dim()
        elif self.nInputDims is not None and input.dim() > self.nInputDims:
            dim += 1
        return dim

    def updateOutput(self, input):
        dim = self._dim(input)
        values, self._indices = self._reduce(input, dim)
        self.output = values.squeeze(dim) if input.dim() > 1 else values
        return self.output

    def updateGradInput(self, input, gradOutput):
        dim = self._dim(input)
        grad = gradOutput.new_zeros(input.shape)
        grad.scatter_(dim, self._indices, gradOutput.reshape(self._indices.shape))
        self.gradInput = grad
        return self.gradInput

    def type(self, type=None, tensorCache=None):
        if type is not None:
            self._indices = None
        return super().type(type, tensorCache)
