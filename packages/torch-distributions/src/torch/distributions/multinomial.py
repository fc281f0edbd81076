"""The Multinomial distribution."""

import torch
from torch.distributions import constraints
from torch.distributions.binomial import Binomial
from torch.distributions.categorical import Categorical, _CategoricalParameters
from torch.distributions.distribution import Distribution
from torch.distributions.utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(_CategoricalParameters, Distribution):
    """The multinomial distribution: counts of each of ``K`` categories over
    ``total_count`` independent categorical trials with probabilities ``probs`` (or
    ``logits``; give exactly one). ``total_count`` must be a single int; ``log_prob`` works
    for any total (only ``sample`` needs it).

    Args:
        total_count (int): number of trials.
        probs (Tensor): event probabilities (normalised over the last dimension).
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Multinomial(100, torch.tensor([1.0, 1.0, 1.0, 1.0]))
        >>> m.sample().sum()
        tensor(100.)
    """

    total_count: int

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = torch.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(batch_shape + self.event_shape)
        return self._expand_into(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    def sample(self, sample_shape=()):
        sample_shape = torch.Size(sample_shape)
        samples = self._categorical.sample(torch.Size((self.total_count,)) + sample_shape)
        # samples: (total_count,) + sample_shape + batch_shape; count them per category
        shifted = list(range(samples.dim()))
        samples = samples.permute(shifted[1:] + [0])
        counts = torch.zeros(
            self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device
        )
        counts = counts.scatter_add(-1, samples, torch.ones_like(samples, dtype=self.probs.dtype))
        return counts

    def entropy(self):
        n = torch.tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - torch.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torch.exp(self._binomial.log_prob(support))
        weights = torch.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = torch.lgamma(value.sum(-1) + 1)
        log_factorial_xs = torch.lgamma(value + 1).sum(-1)
        logits = logits.masked_fill((value == 0) & (logits == -float("inf")), 0)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
