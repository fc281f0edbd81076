from ._pointwise import _Pointwise


class Abs(_Pointwise):
    def _output(self, x):
        return x.abs()

    def _grad(self, x, y, g):
        return g * x.sign()
