"""The HalfNormal distribution."""

import math

from torch.distributions.normal import Normal
from torch.distributions.transformed_distribution import _HalfSymmetric

__all__ = ["HalfNormal"]


class HalfNormal(_HalfSymmetric):
    """The absolute value of a ``Normal(0, scale)`` variable.

    Args:
        scale (float or Tensor): scale of the underlying normal, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = HalfNormal(torch.tensor([1.0]))
        >>> m.log_prob(torch.tensor([0.0]))
        tensor([-0.2258])
    """

    _symmetric = Normal

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
