import torch

from ._spatial import Convolution, Fields3d


class VolumetricConvolution(Fields3d, Convolution):
    """3-D convolution of (nInputPlane, T, H, W) or (N, nInputPlane, T, H, W) input by
    kT x kW x kH kernels with steps dT, dW, dH and zero padding padT, padW, padH. weight is
    (nOutputPlane, nInputPlane, kT, kH, kW)."""

    D = 3

    def __init__(
        self,
        nInputPlane,
        nOutputPlane,
        kT,
        kW,
        kH,
        dT=1,
        dW=1,
        dH=1,
        padT=0,
        padW=None,
        padH=None,
    ):
        super().__init__()
        self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
        self.kT, self.kW, self.kH, self.dT, self.dW, self.dH = kT, kW, kH, dT, dW, dH
        self.padT = padT
        self.padW = padT if padW is None else padW
        self.padH = self.padW if padH is None else padH
        shape = (nOutputPlane, nInputPlane, kT, kH, kW)
        self.weight = torch.empty(shape)
        self.bias = torch.empty(nOutputPlane)
        self.gradWeight = torch.zeros(shape)
        self.gradBias = torch.zeros(nOutputPlane)
        self.reset()
