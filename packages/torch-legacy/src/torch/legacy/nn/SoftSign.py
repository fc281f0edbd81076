from ._pointwise import _Pointwise


class SoftSign(_Pointwise):
    """``y = x / (1 + |x|)``."""

    def _output(self, x):
        return x / (1 + x.abs())

    def _grad(self, x, y, g):
        d = 1 + x.abs()
        return g / (d * d)
