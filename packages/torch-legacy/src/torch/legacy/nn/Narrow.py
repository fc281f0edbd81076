from .Module import Module, _check_input, _name


class Narrow(Module):
    """``input.narrow(dimension, offset, length)``; a negative ``length`` counts from the
    end (-1: up to the last element)."""

    def __init__(self, dimension, offset, length=1):
        super().__init__()
        self.dimension = dimension
        self.index = offset
        self.length = length

    def _length(self, input):
        _check_input(self, input)
        n = input.size(self.dimension)
        length = self.length if self.length >= 0 else n - self.index + self.length + 1
        if not (0 <= self.index and length >= 0 and self.index + length <= n):
            raise RuntimeError(
                f"{_name(self)}: cannot take {length} elements from offset {self.index} of "
                f"dimension {self.dimension} in an input of size {tuple(input.shape)}"
            )
        return length

    def updateOutput(self, input):
        self.output = input.narrow(self.dimension, self.index, self._length(input))
        return self.output

    def updateGradInput(self, input, gradOutput):
        grad = gradOutput.new_zeros(input.shape)
        grad.narrow(self.dimension, self.index, self._length(input)).copy_(gradOutput)
        self.gradInput = grad
        return self.gradInput

    def __repr__(self):
        return f"nn.Narrow({self.dimension}, {self.index}, {self.length})"
