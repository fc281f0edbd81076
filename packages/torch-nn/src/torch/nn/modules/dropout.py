"""Dropout modules (the kernels are torch-core's): active in training mode only."""

from torch.nn import functional as F
from torch.nn.modules.module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]
    _fn = "dropout"

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._fn)(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training, zeroes each element with probability p and scales the others by
    1 / (1 - p); the identity in eval mode."""

    _fn = "dropout"


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or (C, L) input."""

    _fn = "dropout1d"


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) input."""

    _fn = "dropout2d"


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input."""

    _fn = "dropout3d"


class _AlphaDropoutNd(_DropoutNd):
    # As in PyTorch, ``inplace`` is kept (and shown) but the forward never writes into its
    # input.
    def forward(self, input):
        return getattr(F, self._fn)(input, self.p, self.training)


class AlphaDropout(_AlphaDropoutNd):
    """Dropout that keeps the mean and variance of SELU activations."""

    _fn = "alpha_dropout"


class FeatureAlphaDropout(_AlphaDropoutNd):
    """Alpha dropout of whole channels: in training each channel (dim 1) of an (N, C, ...) input
    is dropped to SELU's negative saturation value with probability p, and the result is
    rescaled to keep zero mean and unit variance; the identity in eval mode (``inplace`` is
    not applied, as in PyTorch)."""

    _fn = "feature_alpha_dropout"
