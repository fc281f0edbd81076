from ._pointwise import _Pointwise


class Sigmoid(_Pointwise):
    """``y = 1 / (1 + exp(-x))``, elementwise."""

    def _output(self, x):
        return x.sigmoid()

    def _grad(self, x, y, g):
        return g * y * (1 - y)
