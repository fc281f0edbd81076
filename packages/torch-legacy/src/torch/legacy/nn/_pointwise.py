"""The shared base of element-wise modules (activations, Abs, Exp, ..., constants)."""

from .Module import Module, _check_input, _check_same_size


class _Pointwise(Module):
    """Subclasses define ``_output(x)`` and ``_grad(x, y, gradOutput)`` (dL/dx from dL/dy).
    With ``inplace`` the result overwrites ``input`` (and the gradient ``gradOutput``), as
    in Lua; ``input`` must then not be needed elsewhere."""

    inplace = False  # the default for modules without the flag (and old .t7 files)

    def updateOutput(self, input):
        _check_input(self, input)
        out = self._output(input)
        if self.inplace:
            self.output = input.copy_(out)
        else:
            self.output = out
        return self.output

    def updateGradInput(self, input, gradOutput):
        _check_same_size(self, input, gradOutput)
        # In place, input already holds the output: _grad must then use only y.
        grad = self._grad(input, self.output, gradOutput)
        if self.inplace:
            self.gradInput = gradOutput.copy_(grad)
        else:
            self.gradInput = grad
        return self.gradInput
