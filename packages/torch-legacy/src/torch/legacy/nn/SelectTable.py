from ._tables import zeros_like_table
from .Module import Module, _check_table, _name


class SelectTable(Module):
    """``y = input[index]`` (a negative index counts from the end)."""

    def __init__(self, index):
        super().__init__()
        self.index = index

    def _index(self, input):
        _check_table(self, input)
        if not -len(input) <= self.index < len(input):
            raise RuntimeError(f"{_name(self)}: index {self.index} out of a list of {len(input)}")
        return self.index % len(input)

    def updateOutput(self, input):
        self.output = input[self._index(input)]
        return self.output

    def updateGradInput(self, input, gradOutput):
        index = self._index(input)
        grads = [zeros_like_table(x) for x in input]
        grads[index] = gradOutput
        self.gradInput = grads
        return self.gradInput

    def __repr__(self):
        return f"nn.SelectTable({self.index})"
