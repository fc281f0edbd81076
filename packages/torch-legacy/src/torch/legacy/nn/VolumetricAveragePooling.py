from ._spatial import AveragePooling, Fields3d


class VolumetricAveragePooling(Fields3d, AveragePooling):
    """Mean over kT x kW x kH windows stepping dT, dW, dH (default: the kernel size) of
    (C, T, H, W) or (N, C, T, H, W) input, with zero padding."""

    D = 3

    def __init__(
        self,
        kT,
        kW,
        kH,
        dT=None,
        dW=None,
        dH=None,
        padT=0,
        padW=0,
        padH=0,
        ceil_mode=False,
        count_include_pad=True,
    ):
        super().__init__()
        self.kT, self.kW, self.kH = kT, kW, kH
        self.dT = kT if dT is None else dT
        self.dW = kW if dW is None else dW
        self.dH = kH if dH is None else dH
        self.padT, self.padW, self.padH = padT, padW, padH
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
