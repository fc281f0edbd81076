"""The FisherSnedecor (F) distribution."""

import torch
from torch.distributions import constraints
from torch.distributions._sampling import standard_gamma
from torch.distributions.distribution import Distribution
from torch.distributions.utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The Fisher-Snedecor F-distribution: ``(X1 / df1) / (X2 / df2)`` for independent
    ``X1 ~ Chi2(df1)``, ``X2 ~ Chi2(df2)`` (sampled that way, reparameterised).

    Args:
        df1 (float or Tensor): numerator degrees of freedom, positive.
        df2 (float or Tensor): denominator degrees of freedom, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = FisherSnedecor(torch.tensor([1.0]), torch.tensor([2.0]))
        >>> m.sample().shape
        torch.Size([1])
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        return self._expand_into(new, batch_shape, "df1", "df2")

    @property
    def mean(self):
        df2 = self.df2.clone()
        df2 = df2.masked_fill(df2 <= 2, float("nan"))
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return mode.masked_fill(self.df1 <= 2, float("nan"))

    @property
    def variance(self):
        df2 = self.df2.clone()
        df2 = df2.masked_fill(df2 <= 4, float("nan"))
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x1 = standard_gamma(0.5 * self.df1.expand(shape)) / self.df1
        x2 = standard_gamma(0.5 * self.df2.expand(shape)) / self.df2
        tiny = torch.finfo(x2.dtype).tiny
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = torch.lgamma(ct1 + ct2) - torch.lgamma(ct1) - torch.lgamma(ct2)
        t2 = ct1 * torch.log(ct3) + (ct1 - 1) * torch.log(value)
        t3 = (ct1 + ct2) * torch.log1p(ct3 * value)
        return t1 + t2 - t3
