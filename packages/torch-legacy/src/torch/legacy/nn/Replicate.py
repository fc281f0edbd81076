from .Module import Module, _check_input, _name


class Replicate(Module):
    """Repeats the input ``nfeature`` times along a new dimension ``dim`` (a stride-0 view,
    no copy); with ``ndim``, an input of ``ndim + 1`` dimensions has a batch in front."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    ndim = None

    def __init__(self, nfeature, dim=0, ndim=None):
        super().__init__()
        self.nfeatures = nfeature
        self.dim = dim
        self.ndim = ndim

    def _dim(self, input):
        _check_input(self, input)
        dim = self.dim + (1 if self.ndim is not None and input.dim() == self.ndim + 1 else 0)
        if not 0 <= dim <= input.dim():
            raise RuntimeError(
                f"{_name(self)}: cannot replicate along dimension {dim} of an input of size "
                f"{tuple(input.shape)}"
            )
        return dim

    def updateOutput(self, input):
        dim = self._dim(input)
        shape = list(input.shape)
        shape.insert(dim, self.nfeatures)
        self.output = input.unsqueeze(dim).expand(shape)
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput.sum(self._dim(input)).view(input.shape)
        return self.gradInput
