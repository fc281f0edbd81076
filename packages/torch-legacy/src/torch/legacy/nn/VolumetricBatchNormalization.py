from .BatchNormalization import BatchNormalization


class VolumetricBatchNormalization(BatchNormalization):
    """BatchNormalization of each plane of (N, C, T, H, W) input: statistics over N, T, H
    and W."""

    nDim = 5
