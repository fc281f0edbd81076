from .ConcatTable import _repr_table
from .Container import Container
from .Module import _check_table


class ParallelTable(Container):
    """Child ``i`` gets ``input[i]``; ``output`` and ``gradInput`` are lists."""

    def _pairs(self, input):
        _check_table(self, input, len(self.modules))
        return zip(self.modules, input)

    def updateOutput(self, input):
        self.output = [m.updateOutput(x) for m, x in self._pairs(input)]
        return self.output

    def updateGradInput(self, input, gradOutput):
        pairs = self._pairs(input)
        self.gradInput = [m.updateGradInput(x, g) for (m, x), g in zip(pairs, gradOutput)]
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        for (m, x), g in zip(self._pairs(input), gradOutput):
            m.accGradParameters(x, g, scale)

    def backward(self, input, gradOutput, scale=1):
        pairs = self._pairs(input)
        self.gradInput = [m.backward(x, g, scale) for (m, x), g in zip(pairs, gradOutput)]
        return self.gradInput

    def accUpdateGradParameters(self, input, gradOutput, lr):
        for (m, x), g in zip(self._pairs(input), gradOutput):
            m.accUpdateGradParameters(x, g, lr)

    def __repr__(self):
        return _repr_table(self)
