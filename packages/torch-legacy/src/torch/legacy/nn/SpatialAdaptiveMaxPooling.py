from torch import _C

from ._spatial import as_batch, check_grad_output
from .Module import Module


class SpatialAdaptiveMaxPooling(Module):
    """Max pooling of (C, H, W) or (N, C, H, W) input to a fixed output of h x w: output
    cell i covers rows floor(i * H / h) to ceil((i + 1) * H / h) (same in W)."""

    def __init__(self, w, h):
        super().__init__()
        self.w, self.h = w, h
        self.indices = None

    def clearState(self):
        self.indices = None
        return super().clearState()

    def updateOutput(self, input):
        x, restore = as_batch(self, input, 2)
        if self.h > x.shape[2] or self.w > x.shape[3] or self.h < 1 or self.w < 1:
            raise RuntimeError(
                f"{self!r}: cannot pool input of size {tuple(input.shape)} to {self.h}x{self.w}"
            )
        out, self.indices = _C._adaptive_max_pool(x, [self.h, self.w])
        self.output = restore(out)
        return self.output

    def updateGradInput(self, input, gradOutput):
        x, restore = as_batch(self, input, 2)
        check_grad_output(self, gradOutput, self.output)
        g = gradOutput if input.dim() == 4 else gradOutput.unsqueeze(0)
        self.gradInput = restore(_C._max_pool_backward(g, self.indices, list(x.shape), 2))
        return self.gradInput

    def __repr__(self):
        return f"{super().__repr__()}({self.w}x{self.h})"
