from ._pointwise import _Pointwise


class HardTanh(_Pointwise):
    """``y = clamp(x, min_value, max_value)``; the gradient passes strictly inside."""

    def __init__(self, min_value=-1, max_value=1, inplace=False):
        super().__init__()
        if max_value <= min_value:
            raise ValueError(f"nn.HardTanh: max_value ({max_value}) must exceed min_value")
        self.min_val = min_value
        self.max_val = max_value
        self.inplace = inplace

    def _output(self, x):
        return x.clamp(self.min_val, self.max_val)

    def _grad(self, x, y, g):
        src = y if self.inplace else x
        inside = (src > self.min_val) & (src < self.max_val)
        return g * inside.to(g.dtype)
