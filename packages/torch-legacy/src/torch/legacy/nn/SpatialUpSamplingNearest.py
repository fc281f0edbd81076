from torch import _C

from ._spatial import as_batch, check_grad_output
from .Module import Module


class SpatialUpSamplingNearest(Module):
    """Repeats each pixel of (C, H, W) or (N, C, H, W) input scale x scale times."""

    def __init__(self, scale):
        super().__init__()
        if int(scale) != scale or scale < 1:
            raise ValueError(
                f"nn.SpatialUpSamplingNearest: scale must be an integer >= 1, got {scale}"
            )
        self.scale_factor = int(scale)

    def updateOutput(self, input):
        x, restore = as_batch(self, input, 2)
        s = self.scale_factor
        size = [x.shape[2] * s, x.shape[3] * s]
        self.output = restore(_C._interpolate(x, size, [float(s)] * 2, 0, False))
        return self.output

    def updateGradInput(self, input, gradOutput):
        x, restore = as_batch(self, input, 2)
        check_grad_output(self, gradOutput, self.output)
        g = gradOutput if input.dim() == 4 else gradOutput.unsqueeze(0)
        s = float(self.scale_factor)
        self.gradInput = restore(_C._interpolate_backward(g, list(x.shape), [s, s], 0, False, 2))
        return self.gradInput

    def __repr__(self):
        return f"{super().__repr__()}({self.scale_factor})"
