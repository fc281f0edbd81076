"""The Bernoulli distribution."""

import torch
import torch.nn.functional as F
from torch.distributions import constraints
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.utils import _ProbsOrLogits, broadcast_all

__all__ = ["Bernoulli"]


def _bce_with_logits(logits, target):
    # -[t log sigmoid(l) + (1 - t) log(1 - sigmoid(l))] = softplus(l) - t l, stable
    return F.softplus(logits) - target * logits


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    """A Bernoulli distribution: 1 with probability ``probs``, 0 otherwise. Give exactly one
    of ``probs`` and ``logits`` (log-odds).

    Args:
        probs (Number or Tensor): the probability of sampling 1.
        logits (Number or Tensor): the log-odds of sampling 1.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Bernoulli(torch.tensor([0.3]))
        >>> m.sample().shape
        torch.Size([1])
        >>> m.log_prob(torch.tensor([1.0]))
        tensor([-1.2040])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._store_probs_or_logits(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        return self._expand_into(new, batch_shape, "probs", "logits")

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = torch.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self):
        return (torch.logit(self.probs),)

    def _log_normalizer(self, x):
        return torch.log1p(torch.exp(x))
