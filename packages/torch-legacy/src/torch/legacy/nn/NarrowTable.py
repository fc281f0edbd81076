from ._tables import zeros_like_table
from .Module import Module, _check_table, _name


class NarrowTable(Module):
    """``y = input[offset : offset + length]``; a negative length counts from the end."""

    def __init__(self, offset, length=1):
        super().__init__()
        self.offset = offset
        self.length = length

    def _length(self, input):
        _check_table(self, input)
        n = len(input)
        length = self.length if self.length >= 0 else n - self.offset + self.length + 1
        if not (0 <= self.offset and length >= 0 and self.offset + length <= n):
            raise RuntimeError(
                f"{_name(self)}: cannot take {length} entries from offset {self.offset} of a "
                f"list of {n}"
            )
        return length

    def updateOutput(self, input):
        self.output = list(input[self.offset : self.offset + self._length(input)])
        return self.output

    def updateGradInput(self, input, gradOutput):
        length = self._length(input)
        grads = [zeros_like_table(x) for x in input]
        grads[self.offset : self.offset + length] = list(gradOutput)
        self.gradInput = grads
        return self.gradInput
