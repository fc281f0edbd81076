from .SpatialBatchNormalization import SpatialBatchNormalization


class VolumetricBatchNormalization(SpatialBatchNormalization):
    """SpatialBatchNormalization for (N, C, T, H, W) input."""

    nDim = 5
