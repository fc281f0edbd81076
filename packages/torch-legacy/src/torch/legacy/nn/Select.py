from .Module import Module, _check_input, _name


class Select(Module):
    """``input.select(dimension, index)`` (a negative index counts from the end)."""

    def __init__(self, dimension, index):
        super().__init__()
        self.dimension = dimension
        self.index = index

    def _index(self, input):
        _check_input(self, input)
        n = input.size(self.dimension)
        index = self.index if self.index >= 0 else n + self.index
        if not 0 <= index < n:
            raise RuntimeError(
                f"{_name(self)}: index {self.index} out of range for dimension "
                f"{self.dimension} of an input of size {tuple(input.shape)}"
            )
        return index

    def updateOutput(self, input):
        self.output = input.select(self.dimension, self._index(input))
        return self.output

    def updateGradInput(self, input, gradOutput):
        grad = gradOutput.new_zeros(input.shape)
        grad.select(self.dimension, self._index(input)).copy_(gradOutput)
        self.gradInput = grad
        return self.gradInput
