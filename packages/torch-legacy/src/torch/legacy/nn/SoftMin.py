from torch import _C

from ._softmax import _SoftMaxBase
from .Module import _check_same_size


class SoftMin(_SoftMaxBase):
    """``y = softmax(-x)`` over the feature dimension."""

    def updateOutput(self, input):
        self.output = _C._softmax(-input, self._dim(input))
        return self.output

    def updateGradInput(self, input, gradOutput):
        _check_same_size(self, input, gradOutput)
        self.gradInput = -_C._softmax_backward(gradOutput, self.output, self._dim(input))
        return self.gradInput
