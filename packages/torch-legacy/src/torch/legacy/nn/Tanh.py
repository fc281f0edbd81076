from ._pointwise import _Pointwise


class Tanh(_Pointwise):
    """``y = tanh(x)``, elementwise."""

    def _output(self, x):
        return x.tanh()

    def _grad(self, x, y, g):
        return g * (1 - y * y)
