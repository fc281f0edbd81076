from .SpatialConvolution import SpatialConvolution


class SpatialConvolutionMM(SpatialConvolution):
    """SpatialConvolution as Lua's MM variant stores it: weight and gradWeight are
    (nOutputPlane, nInputPlane * kH * kW) matrices. Old Lua models often use it."""

    def __init__(self, nInputPlane, nOutputPlane, kW, kH, dW=1, dH=1, padW=0, padH=None):
        super().__init__(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
        self.weight = self.weight.reshape(nOutputPlane, -1)
        self.gradWeight = self.gradWeight.reshape(nOutputPlane, -1)
