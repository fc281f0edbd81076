from torch import _C

from ._spatial import check_grad_output
from .Module import Module, _check_input


class SpatialSoftMax(Module):
    """SoftMax over the planes at each pixel of (C, H, W) or (N, C, H, W) input."""

    def _dim(self, input):
        _check_input(self, input, 3, 4)
        return input.dim() - 3

    def updateOutput(self, input):
        self.output = _C._softmax(input, self._dim(input))
        return self.output

    def updateGradInput(self, input, gradOutput):
        dim = self._dim(input)
        check_grad_output(self, gradOutput, self.output)
        self.gradInput = _C._softmax_backward(gradOutput, self.output, dim)
        return self.gradInput
