from .HardTanh import HardTanh


class ReLU6(HardTanh):
    """``y = min(max(0, x), 6)``."""

    def __init__(self, inplace=False):
        super().__init__(0, 6, inplace)
