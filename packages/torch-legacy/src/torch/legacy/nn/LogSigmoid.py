from ._pointwise import _Pointwise


class LogSigmoid(_Pointwise):
    """``y = log(1 / (1 + exp(-x)))``, computed without overflow."""

    def _output(self, x):
        return x.clamp(max=0) - (-x.abs()).exp().log1p()

    def _grad(self, x, y, g):
        return g * (1 - y.exp())  # dy/dx = sigmoid(-x) = 1 - exp(y)
