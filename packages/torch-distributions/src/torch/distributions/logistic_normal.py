"""The LogisticNormal distribution."""

from torch.distributions import constraints
from torch.distributions.normal import Normal
from torch.distributions.transformed_distribution import TransformedDistribution
from torch.distributions.transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """A distribution on the ``K``-simplex: ``StickBreakingTransform()(X)`` with
    ``X ~ Normal(loc, scale)`` of ``K - 1`` independent coordinates.

    Args:
        loc (float or Tensor): mean of the base normal (last dim ``K - 1``).
        scale (float or Tensor): standard deviation of the base normal, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = LogisticNormal(torch.zeros(3), torch.ones(3))
        >>> m.sample().shape
        torch.Size([4])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The mean of the base normal."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """The standard deviation of the base normal."""
        return self.base_dist.base_dist.scale
