from ._pointwise import _Pointwise


class Log(_Pointwise):
    def _output(self, x):
        return x.log()

    def _grad(self, x, y, g):
        return g / x
