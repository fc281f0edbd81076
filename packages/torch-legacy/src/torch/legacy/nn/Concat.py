import torch

from .Container import Container
from .Module import _check_input, _name


class Concat(Container):
    """Feeds the same input to every child and concatenates their outputs along the
    0-based ``dimension``."""

    def __init__(self, dimension):
        super().__init__()
        self.dimension = dimension
        self.outputSize = None

    def _offsets(self):
        """(child, offset, size) of each child's slice of the output (after forward)."""
        offset = 0
        for m in self.modules:
            size = m.output.size(self.dimension)
            yield m, offset, size
            offset += size

    def _join(self, outputs):
        try:
            return torch.cat(outputs, self.dimension)
        except (RuntimeError, ValueError, IndexError) as e:
            shapes = [tuple(o.shape) for o in outputs]
            raise RuntimeError(
                f"{_name(self)}: cannot concatenate outputs of sizes {shapes} along "
                f"dimension {self.dimension}: {e}"
            ) from e

    def updateOutput(self, input):
        _check_input(self, input)
        self.output = self._join([m.updateOutput(input) for m in self.modules])
        self.outputSize = self.output.shape
        return self.output

    def _slice(self, gradOutput, offset, size, m):
        return gradOutput.narrow(self.dimension, offset, size)

    def updateGradInput(self, input, gradOutput):
        grad = None
        for m, offset, size in self._offsets():
            g = m.updateGradInput(input, self._slice(gradOutput, offset, size, m))
            grad = g.clone() if grad is None else grad.add_(g)
        self.gradInput = grad
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, offset, size in self._offsets():
            m.accGradParameters(input, self._slice(gradOutput, offset, size, m), scale)

    def backward(self, input, gradOutput, scale=1):
        grad = None
        for m, offset, size in self._offsets():
            g = m.backward(input, self._slice(gradOutput, offset, size, m), scale)
            grad = g.clone() if grad is None else grad.add_(g)
        self.gradInput = grad
        return self.gradInput

    def accUpdateGradParameters(self, input, gradOutput, lr):
        for m, offset, size in self._offsets():
            m.accUpdateGradParameters(input, self._slice(gradOutput, offset, size, m), lr)

    def __repr__(self):
        from .ConcatTable import _repr_table

        return _repr_table(self)
