import torch

from ._spatial import Convolution, Fields2d


class SpatialConvolution(Fields2d, Convolution):
    """2-D convolution of (nInputPlane, H, W) or (N, nInputPlane, H, W) input by kW x kH
    kernels with steps dW, dH and zero padding padW, padH. weight is (nOutputPlane,
    nInputPlane, kH, kW), bias (nOutputPlane); both start in U(+-1/sqrt(nInputPlane*kH*kW))."""

    def __init__(self, nInputPlane, nOutputPlane, kW, kH, dW=1, dH=1, padW=0, padH=None):
        super().__init__()
        self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW = padW
        self.padH = padW if padH is None else padH
        self.weight = torch.empty(nOutputPlane, nInputPlane, kH, kW)
        self.bias = torch.empty(nOutputPlane)
        self.gradWeight = torch.zeros(nOutputPlane, nInputPlane, kH, kW)
        self.gradBias = torch.zeros(nOutputPlane)
        self.reset()

    def _padding(self):
        if hasattr(self, "padding"):  # older Lua files: one ``padding`` for both dims
            self.padW = self.padH = self.__dict__.pop("padding")
        return [getattr(self, "padH", 0), getattr(self, "padW", 0)]
