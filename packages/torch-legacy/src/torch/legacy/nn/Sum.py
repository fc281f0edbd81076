from .Module import Module, _check_input


class Sum(Module):
    """Sums over ``dimension`` (negative: from the end), dividing by its size with
    ``sizeAverage``; with ``nInputDims``, a batch in front shifts the dimension. The summed
    dimension is dropped (``squeeze``) unless the input is 1D."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    nInputDims = None
    sizeAverage = False
    squeeze = True

    def __init__(self, dimension=0, nInputDims=None, sizeAverage=False, squeeze=True):
        super().__init__()
        self.dimension = dimension
        self.nInputDims = nInputDims
        self.sizeAverage = sizeAverage
        self.squeeze = True if squeeze is None else squeeze

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
        out = input.sum(dim, keepdim=True)
        if self.sizeAverage:
            out = out / input.size(dim)
        if self.squeeze and out.dim() > 1:
            out = out.squeeze(dim)
        self.output = out
        return self.output

    def updateGradInput(self, input, gradOutput):
        dim = self._dim(input)
        keep = list(input.shape)
        keep[dim] = 1
        grad = gradOutput.reshape(keep).expand(input.shape).clone()
        if self.sizeAverage:
            grad = grad / input.size(dim)
        self.gradInput = grad
        return self.gradInput
