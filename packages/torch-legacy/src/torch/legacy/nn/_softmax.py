"""The shared base of SoftMax, SoftMin and LogSoftMax (the core's softmax kernels)."""

from .Module import Module, _check_input


class _SoftMaxBase(Module):
    """Normalises over the features: dimension 0 of a 1D or 3D (C, H, W) input,
    dimension 1 of a 2D (N, C) or 4D (N, C, H, W) one, as Lua does."""

    def _dim(self, input):
        _check_input(self, input, 1, 2, 3, 4)
        return 0 if input.dim() in (1, 3) else 1
