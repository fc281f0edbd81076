"""The Kumaraswamy distribution."""

import torch
from torch.distributions import constraints
from torch.distributions.transformed_distribution import TransformedDistribution
from torch.distributions.transforms import AffineTransform, PowerTransform
from torch.distributions.uniform import Uniform
from torch.distributions.utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """The n-th moment ``E[X^n] = b B(1 + n / a, b)``."""
    arg1 = 1 + n / a
    log_value = torch.lgamma(arg1) + torch.lgamma(b) - torch.lgamma(arg1 + b)
    return b * torch.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on ``(0, 1)`` with density
    ``a b x^(a-1) (1 - x^a)^(b-1)``; like a Beta, but with a closed-form CDF, so it is sampled
    by inversion: ``(1 - (1 - U)^(1/b))^(1/a)``.

    Args:
        concentration1 (float or Tensor): ``a``, positive.
        concentration0 (float or Tensor): ``b``, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Kumaraswamy(torch.tensor([1.0]), torch.tensor([1.0]))
        >>> m.log_prob(torch.tensor([0.5]))
        tensor([0.])
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        finfo = torch.finfo(self.concentration0.dtype)
        base_dist = Uniform(
            torch.full_like(self.concentration0, 0),
            torch.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        self._finfo = finfo
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        new._finfo = self._finfo
        return super().expand(batch_shape, _instance=new)

    def rsample(self, sample_shape=()):
        # U in [0, 1) could hit 0 and give a sample of exactly 0 or 1; keep it inside
        x = super().rsample(sample_shape)
        return x.clamp(min=self._finfo.tiny, max=1 - self._finfo.eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return (
            torch.log(a)
            + torch.log(b)
            + (a - 1) * torch.log(value)
            + (b - 1) * torch.log1p(-value.pow(a))
        )

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((a - 1) / (a b - 1)) ** (1 / a) for a, b >= 1
        log_mode = self.concentration1.reciprocal() * (
            torch.log(self.concentration1 - 1)
            - torch.log(self.concentration1 * self.concentration0 - 1)
        )
        nan = (self.concentration0 < 1) | (self.concentration1 < 1)
        return torch.where(nan, torch.full_like(log_mode, float("nan")), log_mode.exp())

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - torch.pow(self.mean, 2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = torch.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - torch.log(self.concentration1) - torch.log(self.concentration0)
