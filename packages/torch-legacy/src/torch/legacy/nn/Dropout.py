from torch import _C

from .Module import Module, _check_input, _check_same_size


class Dropout(Module):
    """In training, zeroes each element with probability ``p`` and scales the others by
    ``1 / (1 - p)``; in evaluation (``evaluate()``), passes the input through."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    inplace = False

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"nn.Dropout: p must be in [0, 1), got {p}")
        self.p = p
        self.inplace = inplace
        self.train = True
        self.noise = None

    def updateOutput(self, input):
        _check_input(self, input)
        if self.train and self.p > 0:
            self.noise = _C._dropout_mask(
                list(input.shape), float(self.p), input.dtype, True, None, input.device
            )
            self.output = input.mul_(self.noise) if self.inplace else input * self.noise
        else:
            self.output = input
        return self.output

    def updateGradInput(self, input, gradOutput):
        _check_same_size(self, input, gradOutput)
        if self.train and self.p > 0:
            g = gradOutput.mul_(self.noise) if self.inplace else gradOutput * self.noise
            self.gradInput = g
        else:
            self.gradInput = gradOutput
        return self.gradInput

    def setp(self, p):
        self.p = p

    def __repr__(self):
        return f"nn.Dropout({self.p:.4f})"
