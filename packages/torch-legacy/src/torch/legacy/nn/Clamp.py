from .HardTanh import HardTanh


class Clamp(HardTanh):
    """``y = clamp(x, min_value, max_value)``."""

    def __init__(self, min_value, max_value):
        super().__init__(min_value, max_value)
