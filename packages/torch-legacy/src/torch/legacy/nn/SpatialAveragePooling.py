from ._spatial import AveragePooling, Fields2d


class SpatialAveragePooling(Fields2d, AveragePooling):
    """Mean over kW x kH windows stepping dW, dH (default 1, as in Lua) of (C, H, W) or
    (N, C, H, W) input, with zero padding padW, padH; ``ceil()``/``floor()`` pick the output
    rounding, ``setCountIncludePad()``/``setCountExcludePad()`` whether padding counts."""

    def __init__(self, kW, kH, dW=1, dH=1, padW=0, padH=0):
        super().__init__()
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW, self.padH = padW, padH
        self.ceil_mode = False
        self.count_include_pad = True
