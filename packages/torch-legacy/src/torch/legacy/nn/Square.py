from ._pointwise import _Pointwise


class Square(_Pointwise):
    """``y = x * x``, elementwise."""

    def _output(self, x):
        return x * x

    def _grad(self, x, y, g):
        return g * 2 * x
