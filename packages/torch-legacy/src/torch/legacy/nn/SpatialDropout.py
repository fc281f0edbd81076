from torch import _C

from ._spatial import check_grad_output
from .Module import Module, _check_input


class SpatialDropout(Module):
    """In training, zeroes whole planes of (C, H, W) or (N, C, H, W) input, each with
    probability p (no rescaling, as in Lua); in evaluation multiplies by 1 - p."""

    def __init__(self, p=0.5):
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"nn.SpatialDropout: p must be in [0, 1), got {p}")
        self.p = p
        self.train = True
        self.noise = None

    def clearState(self):
        self.noise = None
        return super().clearState()

    def updateOutput(self, input):
        _check_input(self, input, 3, 4)
        if self.train:
            lead = 2 if input.dim() == 4 else 1
            shape = list(input.shape[:lead]) + [1] * (input.dim() - lead)
            self.noise = _C._dropout_mask(
                shape, float(self.p), input.dtype, False, None, input.device
            )
            self.output = input * self.noise
        else:
            self.output = input * (1 - self.p)
        return self.output

    def updateGradInput(self, input, gradOutput):
        check_grad_output(self, gradOutput, self.output)
        if self.train:
            self.gradInput = gradOutput * self.noise
        else:
            self.gradInput = gradOutput * (1 - self.p)
        return self.gradInput

    def __repr__(self):
        return f"{super().__repr__()}({self.p})"
