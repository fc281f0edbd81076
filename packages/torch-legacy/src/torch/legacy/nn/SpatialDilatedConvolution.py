from .SpatialConvolution import SpatialConvolution


class SpatialDilatedConvolution(SpatialConvolution):
    """SpatialConvolution whose kernel taps are dilationW, dilationH pixels apart."""

    def __init__(
        self,
        nInputPlane,
        nOutputPlane,
        kW,
        kH,
        dW=1,
        dH=1,
        padW=0,
        padH=0,
        dilationW=1,
        dilationH=1,
    ):
        super().__init__(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
        self.dilationW, self.dilationH = dilationW, dilationH

    def _dilation(self):
        return [self.dilationH, self.dilationW]

    def __repr__(self):
        return f"{super().__repr__()}, dilation {self.dilationW},{self.dilationH}"
