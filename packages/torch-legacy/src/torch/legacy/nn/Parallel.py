import torch

from .Container import Container
from .Module import _check_input, _check_size, _name


class Parallel(Container):
    """Child ``i`` gets ``input.select(inputDimension, i)``; the outputs are concatenated
    along ``outputDimension`` (both 0-based)."""

    def __init__(self, inputDimension, outputDimension):
        super().__init__()
        self.inputDimension = inputDimension
        self.outputDimension = outputDimension

    def _inputs(self, input):
        _check_input(self, input)
        _check_size(self, input, self.inputDimension, len(self.modules), "one per child")
        return [input.select(self.inputDimension, i) for i in range(len(self.modules))]

    def updateOutput(self, input):
        outputs = [m.updateOutput(x) for m, x in zip(self.modules, self._inputs(input))]
        try:
            self.output = torch.cat(outputs, self.outputDimension)
        except (RuntimeError, ValueError, IndexError) as e:
            shapes = [tuple(o.shape) for o in outputs]
            raise RuntimeError(
                f"{_name(self)}: cannot concatenate outputs of sizes {shapes} along "
                f"dimension {self.outputDimension}: {e}"
            ) from e
        return self.output

    def _each(self, input, gradOutput, call):
        """``call(m, x_i, gradOutput slice)`` for each child, in order."""
        offset = 0
        results = []
        for m, x in zip(self.modules, self._inputs(input)):
            size = m.output.size(self.outputDimension)
            results.append(call(m, x, gradOutput.narrow(self.outputDimension, offset, size)))
            offset += size
        return results

    def _stack(self, input, grads):
        grad = input.new_zeros(input.shape)
        for i, g in enumerate(grads):
            grad.select(self.inputDimension, i).copy_(g)
        return grad

    def updateGradInput(self, input, gradOutput):
        grads = self._each(input, gradOutput, lambda m, x, g: m.updateGradInput(x, g))
        self.gradInput = self._stack(input, grads)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        self._each(input, gradOutput, lambda m, x, g: m.accGradParameters(x, g, scale))

    def backward(self, input, gradOutput, scale=1):
        grads = self._each(input, gradOutput, lambda m, x, g: m.backward(x, g, scale))
        self.gradInput = self._stack(input, grads)
        return self.gradInput

    def accUpdateGradParameters(self, input, gradOutput, lr):
        self._each(input, gradOutput, lambda m, x, g: m.accUpdateGradParameters(x, g, lr))

    def __repr__(self):
        from .ConcatTable import _repr_table

        return _repr_table(self)
