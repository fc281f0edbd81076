from ._spatial import Fields3d, MaxPooling


class VolumetricMaxPooling(Fields3d, MaxPooling):
    """Max over kT x kW x kH windows stepping dT, dW, dH (default: the kernel size) of
    (C, T, H, W) or (N, C, T, H, W) input, with -inf padding; ``ceil()``/``floor()``."""

    D = 3

    def __init__(self, kT, kW, kH, dT=None, dW=None, dH=None, padT=0, padW=0, padH=0):
        super().__init__()
        self.kT, self.kW, self.kH = kT, kW, kH
        self.dT = kT if dT is None else dT
        self.dW = kW if dW is None else dW
        self.dH = kH if dH is None else dH
        self.padT, self.padW, self.padH = padT, padW, padH
        self.ceil_mode = False
        self.indices = None
