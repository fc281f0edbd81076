from .Module import Module, _check_input, _name


class Padding(Module):
    """Inserts ``|pad|`` entries of ``value`` along ``dim``: after the data when ``pad > 0``,
    before it when ``pad < 0``; ``index`` (0-based) moves the insertion point that many
    entries inwards. With ``nInputDim``, a batch dimension in front shifts ``dim``."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    nInputDim = None
    value = 0
    index = 0

    def __init__(self, dim, pad, nInputDim=None, value=0, index=0):
        super().__init__()
        self.dim = dim
        self.pad = pad
        self.nInputDim = nInputDim
        self.value = value
        self.index = index

    def _where(self, input):
        """(dimension, entries before the padding, padding length)."""
        _check_input(self, input)
        dim = self.dim
        if self.nInputDim is not None and input.dim() != self.nInputDim:
            dim += 1
        n = input.size(dim)
        before = n - self.index if self.pad > 0 else self.index
        if not 0 <= before <= n:
            raise RuntimeError(
                f"{_name(self)}: index {self.index} is outside dimension {dim} of an input "
                f"of size {tuple(input.shape)}"
            )
        return dim, before, abs(self.pad)

    def updateOutput(self, input):
        dim, before, pad = self._where(input)
        shape = list(input.shape)
        shape[dim] += pad
        out = input.new_full(shape, self.value)
        n = input.size(dim)
        out.narrow(dim, 0, before).copy_(input.narrow(dim, 0, before))
        out.narrow(dim, before + pad, n - before).copy_(input.narrow(dim, before, n - before))
        self.output = out
        return self.output

    def updateGradInput(self, input, gradOutput):
        dim, before, pad = self._where(input)
        n = input.size(dim)
        grad = gradOutput.new_empty(input.shape)
        grad.narrow(dim, 0, before).copy_(gradOutput.narrow(dim, 0, before))
        grad.narrow(dim, before, n - before).copy_(gradOutput.narrow(dim, before + pad, n - before))
        self.gradInput = grad
        return self.gradInput
