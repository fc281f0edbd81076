import math

from .Module import Module, _check_input, _name


class Reshape(Module):
    """Reshapes to ``size`` (``Reshape(2, 3)``), or to ``(N, *size)`` when the input holds
    a batch: ``batchMode=True``, or None and the input has more elements than ``size``."""

    def __init__(self, *args):
        super().__init__()
        self.batchMode = None
        if args and isinstance(args[-1], bool):
            self.batchMode, args = args[-1], args[:-1]
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            args = tuple(args[0])
        self.size = tuple(int(n) for n in args)
        self.nelement = math.prod(self.size)

    def updateOutput(self, input):
        _check_input(self, input)
        batch = self.batchMode
        if batch is None:
            batch = input.numel() != self.nelement and input.dim() > 0
        shape = (input.size(0), *self.size) if batch else self.size
        if math.prod(shape) != input.numel():
            raise RuntimeError(
                f"{_name(self)}: input of size {tuple(input.shape)} "
                f"({input.numel()} elements) cannot be reshaped to {shape}"
            )
        self.output = input.contiguous().view(shape)
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput.contiguous().view(input.shape)
        return self.gradInput

    def __repr__(self):
        batch = "nx" if self.batchMode else ""
        return f"nn.Reshape({batch}" + "x".join(map(str, self.size)) + ")"
