from .Module import Module, _check_input, _name


class Unsqueeze(Module):
    """Inserts a size-1 dimension at ``dim`` (0 .. input.dim()); with ``numInputDims``,
    a leading batch dimension shifts it by one."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    numInputDims = None

    def __init__(self, dim, numInputDims=None):
        super().__init__()
        self.dim = dim
        self.numInputDims = numInputDims

    def setNumInputDims(self, numInputDims):
        self.numInputDims = numInputDims
        return self

    def updateOutput(self, input):
        _check_input(self, input)
        batched = self.numInputDims is not None and input.dim() > self.numInputDims
        dim = self.dim + (1 if batched else 0)
        if not 0 <= dim <= input.dim():
            raise RuntimeError(
                f"{_name(self)}: cannot insert dimension {dim} into an input of size "
                f"{tuple(input.shape)}"
            )
        self.output = input.unsqueeze(dim)
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput.contiguous().view(input.shape)
        return self.gradInput

    def __repr__(self):
        return f"nn.Unsqueeze({self.dim})"
