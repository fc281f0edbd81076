from ._pointwise import _Pointwise


class Power(_Pointwise):
    """``y = x ** p``."""

    def __init__(self, p):
        super().__init__()
        self.pow = p

    def _output(self, x):
        return x.pow(self.pow)

    def _grad(self, x, y, g):
        return g * self.pow * x.pow(self.pow - 1)
