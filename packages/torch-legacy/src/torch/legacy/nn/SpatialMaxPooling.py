from ._spatial import Fields2d, MaxPooling


class SpatialMaxPooling(Fields2d, MaxPooling):
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
