from torch import _C

from ._spatial import check_grad_output
from .Module import Module, _check_input


class TemporalMaxPooling(Module):
    """Max over windows of kW frames stepping dW (default kW) of (nFrame, frameSize) or
    (N, nFrame, frameSize) input, per feature: (nOutputFrame, frameSize) with
    nOutputFrame = (nFrame - kW) // dW + 1."""

    def __init__(self, kW, dW=None):
        super().__init__()
        self.kW = kW
        self.dW = kW if dW is None else dW
        self.indices = None

    def clearState(self):
        self.indices = None
        return super().clearState()

    def _batch(self, input):
        """input as (N, frameSize, nFrame), the core kernel's layout."""
        _check_input(self, input, 2, 3)
        if input.shape[-2] < self.kW:
            raise RuntimeError(
                f"{self!r}: input of size {tuple(input.shape)} has fewer frames than kW = {self.kW}"
            )
        x = input if input.dim() == 3 else input.unsqueeze(0)
        return x.transpose(1, 2)

    def _unbatch(self, input, y):
        y = y.transpose(1, 2).contiguous()
        return y if input.dim() == 3 else y.squeeze(0)

    def updateOutput(self, input):
        x = self._batch(input)
        y, self.indices = _C._max_pool(x, [self.kW], [self.dW], [0], [1], False)
        self.output = self._unbatch(input, y)
        return self.output

    def updateGradInput(self, input, gradOutput):
        x = self._batch(input)
        check_grad_output(self, gradOutput, self.output)
        g = (gradOutput if input.dim() == 3 else gradOutput.unsqueeze(0)).transpose(1, 2)
        grad = _C._max_pool_backward(g.contiguous(), self.indices, list(x.shape), 1)
        self.gradInput = self._unbatch(input, grad)
        return self.gradInput

    def __repr__(self):
        return f"{super().__repr__()}({self.kW}, {self.dW})"
