from ._pointwise import _Pointwise


class AddConstant(_Pointwise):
    """``y = x + constant_scalar``."""

    def __init__(self, constant_scalar, ip=False):
        super().__init__()
        self.constant_scalar = constant_scalar
        self.inplace = ip

    def _output(self, x):
        return x + self.constant_scalar

    def _grad(self, x, y, g):
        return g.clone()
