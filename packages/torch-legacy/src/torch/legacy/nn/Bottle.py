import math

from .Container import Container
from .Module import _check_input, _name


class Bottle(Container):
    """Applies ``module`` (which takes ``nInputDim``-D input and gives ``nOutputDim``-D
    output) to an input with extra leading dimensions, by folding them into the first."""

    def __init__(self, module, nInputDim=2, nOutputDim=None):
        super().__init__()
        self.nInputDim = nInputDim
        self.nOutputDim = nOutputDim if nOutputDim is not None else nInputDim
        self.add(module)

    def _fold(self, input):
        """input reshaped to nInputDim dimensions, and the leading sizes folded away."""
        _check_input(self, input)
        if input.dim() < self.nInputDim:
            raise RuntimeError(
                f"{_name(self)}: expected at least {self.nInputDim} dimensions, got an input "
                f"of size {tuple(input.shape)}"
            )
        lead = tuple(input.shape[: input.dim() - self.nInputDim + 1])
        rest = tuple(input.shape[input.dim() - self.nInputDim + 1 :])
        return input.reshape(math.prod(lead), *rest), lead

    def _unfold(self, output, lead):
        return output.reshape(*lead, *output.shape[1:]) if len(lead) > 1 else output

    def updateOutput(self, input):
        x, lead = self._fold(input)
        out = self.modules[0].updateOutput(x)
        if out.dim() != self.nOutputDim:
            raise RuntimeError(
                f"{_name(self)}: the module gave a {out.dim()}D output, expected "
                f"nOutputDim={self.nOutputDim}"
            )
        self.output = self._unfold(out, lead)
        return self.output

    def _grad_out(self, gradOutput):
        return gradOutput.reshape(self.modules[0].output.shape)

    def updateGradInput(self, input, gradOutput):
        x, _ = self._fold(input)
        g = self.modules[0].updateGradInput(x, self._grad_out(gradOutput))
        self.gradInput = g.reshape(input.shape)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        x, _ = self._fold(input)
        self.modules[0].accGradParameters(x, self._grad_out(gradOutput), scale)

    def __repr__(self):
        inner = repr(self.modules[0]).replace("\n", "\n  ")
        return f"nn.Bottle {{\n  {inner}\n}}"
