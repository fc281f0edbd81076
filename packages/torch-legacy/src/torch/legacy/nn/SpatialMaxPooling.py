from ._spatial import MaxPooling


class SpatialMaxPooling(MaxPooling):
    """Max over kW x kH windows stepping dW, dH (default: the kernel size) of (C, H, W) or
    (N, C, H, W) input, with padW, padH of -inf padding. ``ceil()`` rounds the output size
    up (a last partial window), ``floor()`` (the default) down."""

    def __init__(self, kW, kH, dW=None, dH=None, padW=0, padH=0):
        super().__init__()
        self.kW, self.kH = kW, kH
        self.dW = kW if dW is None else dW
        self.dH = kH if dH is None else dH
        self.padW, self.padH = padW, padH
        self.ceil_mode = False
        self.indices = None

    def _kernel(self):
        return [self.kH, self.kW]

    def _stride(self):
        return [self.dH, self.dW]

    def _padding(self):
        # files from older Lua versions have no padding fields
        return [getattr(self, "padH", 0), getattr(self, "padW", 0)]
