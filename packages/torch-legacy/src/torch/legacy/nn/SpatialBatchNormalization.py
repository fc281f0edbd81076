from .BatchNormalization import BatchNormalization


class SpatialBatchNormalization(BatchNormalization):
    """BatchNormalization of each plane of (N, C, H, W) input: statistics over N, H and W
    (the batch's in training, updating running_mean and running_var; the running ones in
    evaluation), then times weight and plus bias."""

    nDim = 4
