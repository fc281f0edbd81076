from .Sum import Sum


class Mean(Sum):
    """Averages over ``dimension`` (a Sum with ``sizeAverage``)."""

    def __init__(self, dimension=0, nInputDims=None, squeeze=True):
        super().__init__(dimension, nInputDims, True, squeeze)
