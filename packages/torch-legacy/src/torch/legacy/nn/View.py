import math

from .Module import Module, _check_input, _name


class View(Module):
    """A view of the input with sizes ``View(*sizes)`` (one of them may be -1, inferred).
    Extra leading elements form a batch dimension; ``setNumInputDims(n)`` says how many
    trailing dimensions are one sample, so any leading ones are the batch."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    numInputDims = None

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            args = tuple(args[0])
        self.resetSize(*args)
        self.numInputDims = None

    def resetSize(self, *sizes):
        self.size = tuple(int(n) for n in sizes)
        if sum(1 for n in self.size if n == -1) > 1:
            raise ValueError(f"nn.View: at most one size may be -1, got {self.size}")
        self.numElements = math.prod(n for n in self.size if n != -1)
        return self

    def setNumInputDims(self, numInputDims):
        self.numInputDims = numInputDims
        return self

    def _batch_size(self, input):
        """The batch size, or None when the input is one sample (as Lua's View decides)."""
        ndim = input.dim()
        sample_dims = self.numInputDims if self.numInputDims is not None else ndim
        sample = math.prod(input.shape[ndim - sample_dims :])
        if self.numElements == 0 or sample % self.numElements != 0:
            raise RuntimeError(
                f"{_name(self)}: input of size {tuple(input.shape)} does not match the "
                f"view {self.size}"
            )
        batch = 1 if -1 in self.size else sample // self.numElements
        if sample_dims == ndim and batch == 1:
            return None
        return batch * math.prod(input.shape[: ndim - sample_dims])

    def updateOutput(self, input):
        _check_input(self, input)
        batch = self._batch_size(input)
        shape = self.size if batch is None else (batch, *self.size)
        self.output = input.view(shape)
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput.contiguous().view(input.shape)
        return self.gradInput

    def __repr__(self):
        return "nn.View(" + ", ".join(map(str, self.size)) + ")"
