from ._spatial import AveragePooling


class SpatialAveragePooling(AveragePooling):
    """Mean over kW x kH windows stepping dW, dH (default 1, as in Lua) of (C, H, W) or
    (N, C, H, W) input, with zero padding padW, padH; ``ceil()``/``floor()`` pick the output
    rounding, ``setCountIncludePad()``/``setCountExcludePad()`` whether padding counts."""

    def __init__(self, kW, kH, dW=1, dH=1, padW=0, padH=0):
        super().__init__()
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW, self.padH = padW, padH
        self.ceil_mode = False
        self.count_include_pad = True

    def _kernel(self):
        return [self.kH, self.kW]

    def _stride(self):
        return [self.dH, self.dW]

    def _padding(self):
        # files from older Lua versions have no padding fields
        return [getattr(self, "padH", 0), getattr(self, "padW", 0)]
