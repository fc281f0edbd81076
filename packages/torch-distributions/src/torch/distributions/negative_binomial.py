"""The NegativeBinomial distribution."""

import torch
import torch.nn.functional as F
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.gamma import Gamma
from torch.distributions.utils import _ProbsOrLogits, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_ProbsOrLogits, Distribution):
    """The negative binomial distribution: the number of successes before ``total_count``
    failures in Bernoulli trials with success probability ``probs`` (or ``logits``; give
    exactly one). Sampled as a Poisson with a Gamma-distributed rate.

    Args:
        total_count (float or Tensor): number of failures to stop at, nonnegative (need not
            be an integer).
        probs (Tensor): success probability, in ``[0, 1)``.
        logits (Tensor): success log-odds.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = NegativeBinomial(2.0, torch.tensor([0.5]))
        >>> m.mean
        tensor([2.])
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (total_count,) = self._store_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        return self._expand_into(new, batch_shape, "total_count", "probs", "logits")

    @property
    def mean(self):
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # the Poisson rate: Gamma(total_count, rate = exp(-logits)), i.e. scale p / (1 - p)
        return Gamma(
            concentration=self.total_count,
            rate=torch.exp(-self.logits),
            validate_args=False,
        )

    def sample(self, sample_shape=()):
        with torch.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return torch.poisson(rate.contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(
            -self.logits
        ) + value * F.logsigmoid(self.logits)
        log_normalization = (
            -torch.lgamma(self.total_count + value)
            + torch.lgamma(1.0 + value)
            + torch.lgamma(self.total_count)
        )
        # r = 0 and k = 0: the probability is 1 (lgamma(0) is infinite)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
