"""The HalfCauchy distribution."""

import math

import torch
from torch.distributions.cauchy import Cauchy
from torch.distributions.transformed_distribution import _HalfSymmetric

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfSymmetric):
    """The absolute value of a ``Cauchy(0, scale)`` variable.

    Args:
        scale (float or Tensor): scale of the underlying Cauchy, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = HalfCauchy(torch.tensor([1.0]))
        >>> m.log_prob(torch.tensor([0.0]))
        tensor([-0.4516])
    """

    _symmetric = Cauchy

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return torch.full(
            self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device
        )

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = torch.as_tensor(value, dtype=self.base_dist.scale.dtype)
        return self._fold_log_prob(value)
