"""Instance normalisation (the kernel is torch-core's F.instance_norm)."""

import warnings

from torch.nn import functional as F
from torch.nn.modules.batchnorm import _LazyNormBase, _NormBase

__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class _InstanceNorm(_NormBase):
    _dims = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)  # fmt: skip

    def _check_input_dim(self, input):
        d = self._dims
        if input.dim() not in (d + 1, d + 2):
            raise ValueError(f"expected {d + 1}D or {d + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        d = self._dims
        feature_dim = input.dim() - d - 1
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        unbatched = input.dim() == d + 1
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(
            input, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats, self.momentum
            if self.momentum is not None else 0.0, self.eps,
        )  # fmt: skip
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Per sample and channel of (N, C, L) or (C, L) input: ``(x - mean) / sqrt(var + eps)`` over
    L, with optional affine parameters and running statistics."""

    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Per sample and channel of (N, C, H, W) or (C, H, W) input: (x - mean) / sqrt(var +
    eps), with optional affine parameters and running statistics."""

    _dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Per sample and channel of (N, C, D, H, W) or (C, D, H, W) input: ``(x - mean) / sqrt(var +
    eps)`` over D, H, W, with optional affine parameters and running statistics."""

    _dims = 3


class _LazyInstanceNorm(_LazyNormBase, _InstanceNorm):
    def _feature_dim(self, input):
        return input.dim() - self._dims - 1  # (C, *) unbatched, (N, C, *) batched


class LazyInstanceNorm1d(_LazyInstanceNorm):
    """InstanceNorm1d whose num_features is inferred from the first input."""

    cls_to_become = InstanceNorm1d
    _dims = 1


class LazyInstanceNorm2d(_LazyInstanceNorm):
    """InstanceNorm2d whose num_features is inferred from the first input."""

    cls_to_become = InstanceNorm2d
    _dims = 2


class LazyInstanceNorm3d(_LazyInstanceNorm):
    """InstanceNorm3d whose num_features is inferred from the first input."""

    cls_to_become = InstanceNorm3d
    _dims = 3
