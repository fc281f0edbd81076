from ._pointwise import _Pointwise


class Log(_Pointwise):
    """``y = log(x)``, elementwise."""

    def _output(self, x):
        return x.log()

    def _grad(self, x, y, g):
        return g / x
