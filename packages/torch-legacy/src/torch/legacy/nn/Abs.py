from ._pointwise import _Pointwise


class Abs(_Pointwise):
    """``y = |x|``, elementwise; ``gradInput = gradOutput * sign(x)``."""

    def _output(self, x):
        return x.abs()

    def _grad(self, x, y, g):
        return g * x.sign()
