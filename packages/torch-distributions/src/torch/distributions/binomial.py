"""The Binomial distribution."""

import torch
from torch.distributions import constraints
from torch.distributions._sampling import binomial as _sample_binomial
from torch.distributions.distribution import Distribution
from torch.distributions.utils import _ProbsOrLogits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) with gradient 0.5 at 0, like PyTorch
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_ProbsOrLogits, Distribution):
    """The binomial distribution: the number of successes in ``total_count`` independent
    trials, each succeeding with probability ``probs`` (or log-odds ``logits``; give exactly
    one). ``total_count`` broadcasts with the probabilities and may be 0.

    Args:
        total_count (int or Tensor): number of trials, nonnegative.
        probs (Tensor): success probability.
        logits (Tensor): success log-odds.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Binomial(100, torch.tensor([0.0, 0.2, 1.0]))
        >>> m.sample()
        tensor([  0.,  ...,  100.])
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (total_count,) = self._store_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        return self._expand_into(new, batch_shape, "total_count", "probs", "logits")

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return _sample_binomial(
                self.total_count.expand(shape).contiguous(), self.probs.expand(shape).contiguous()
            )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = torch.lgamma(self.total_count + 1)
        log_factorial_k = torch.lgamma(value + 1)
        log_factorial_nmk = torch.lgamma(self.total_count - value + 1)
        # k log p + (n - k) log(1 - p) written with logits, stable for large |logits|:
        # k l - n log(1 + e^l) = k l - n (max(l, 0) + log(1 + e^-|l|))
        normalize_term = (
            self.total_count * _clamp_by_zero(self.logits)
            + self.total_count * torch.log1p(torch.exp(-torch.abs(self.logits)))
            - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        """The entropy, by summing over ``0..max(total_count)``. (PyTorch raises for
        batches with different total counts; here values above an entry's count simply
        contribute nothing.)"""
        total_count = int(self.total_count.max())
        values = torch.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        inside = values <= self.total_count
        log_prob = self.log_prob(torch.where(inside, values, torch.zeros_like(values)))
        terms = torch.where(inside, torch.exp(log_prob) * log_prob, torch.zeros_like(log_prob))
        return -terms.sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max())
        if not bool((self.total_count == total_count).all()):
            raise NotImplementedError(
                "Binomial.enumerate_support needs one total_count for the whole batch"
            )
        values = torch.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
