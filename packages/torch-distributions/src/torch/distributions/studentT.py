"""The StudentT distribution."""

import math

import torch
from torch.distributions import constraints
from torch.distributions._sampling import standard_gamma
from torch.distributions.distribution import Distribution
from torch.distributions.utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t-distribution with ``df`` degrees of freedom, location ``loc`` and scale
    ``scale``. Sampled (reparameterised) as ``loc + scale * Z / sqrt(G / df)`` with
    ``Z ~ Normal(0, 1)`` and ``G ~ Chi2(df)``.

    Args:
        df (float or Tensor): degrees of freedom, positive.
        loc (float or Tensor): location.
        scale (float or Tensor): scale, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = StudentT(torch.tensor([2.0]))
        >>> m.log_prob(torch.tensor([0.0]))
        tensor([-1.0397])
    """

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        m = self.loc.clone()
        return m.masked_fill(self.df <= 1, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        m = self.df.clone()
        v = self.scale.pow(2) * self.df / (self.df - 2)
        m = torch.where(self.df > 2, v, m)
        m = m.masked_fill((self.df <= 2) & (self.df > 1), float("inf"))
        return m.masked_fill(self.df <= 1, float("nan"))

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        batch_shape = self.df.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        return self._expand_into(new, batch_shape, "df", "loc", "scale")

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        z = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        g = 2 * standard_gamma(0.5 * self.df.expand(shape))  # Chi2(df)
        y = z * torch.rsqrt(g / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + torch.lgamma(0.5 * self.df)
            - torch.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * torch.log1p(y**2.0 / self.df) - z

    def entropy(self):
        lbeta = torch.lgamma(0.5 * self.df) + math.lgamma(0.5) - torch.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5
            * (self.df + 1)
            * (torch.digamma(0.5 * (self.df + 1)) - torch.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
