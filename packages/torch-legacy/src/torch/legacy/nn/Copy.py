from .Module import Module, _check_input


class Copy(Module):
    """Copies its input converted to ``outtype`` (gradients back to ``intype``); types are
    names (``'torch.FloatTensor'``) or dtypes. ``dontCast`` keeps them through ``type()``."""

    def __init__(self, intype, outtype, forceCopy=False, dontCast=False):
        super().__init__()
        self.intype = intype
        self.outtype = outtype
        self.forceCopy = forceCopy
        self.dontCast = dontCast

    def updateOutput(self, input):
        _check_input(self, input)
        self.output = _as_type(input, self.outtype)
        if self.forceCopy and self.output.data_ptr() == input.data_ptr():
            self.output = self.output.clone()
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = _as_type(gradOutput, self.intype)
        if self.forceCopy and self.gradInput.data_ptr() == gradOutput.data_ptr():
            self.gradInput = self.gradInput.clone()
        return self.gradInput

    def type(self, type=None, tensorCache=None):
        if type is not None and self.dontCast:
            return self
        return super().type(type, tensorCache)


def _as_type(t, type_):
    return t.type(type_) if isinstance(type_, str) else t.to(type_)
