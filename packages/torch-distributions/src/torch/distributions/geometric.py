"""The Geometric distribution."""

import torch
import torch.nn.functional as F
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.utils import _ProbsOrLogits, broadcast_all

__all__ = ["Geometric"]


class Geometric(_ProbsOrLogits, Distribution):
    """The geometric distribution: the number of failures before the first success in
    Bernoulli trials with success probability ``probs`` (or log-odds ``logits``; give
    exactly one), ``P(k) = (1 - p)^k p`` for ``k = 0, 1, ...``.

    Args:
        probs (Number or Tensor): success probability, in ``(0, 1]``.
        logits (Number or Tensor): success log-odds.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Geometric(torch.tensor([0.5]))
        >>> m.log_prob(torch.tensor([1.0]))
        tensor([-1.3863])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._store_probs_or_logits(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            # a success probability of 0 would make every count impossible
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                invalid_value = value.detach()[~valid]
                raise ValueError(
                    f"Geometric: probs must be positive (with probs = 0 no count is "
                    f"possible); invalid entries:\n{invalid_value}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        return self._expand_into(new, batch_shape, "probs", "logits")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = torch.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device).clamp(
                min=tiny
            )
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs = probs.masked_fill((probs == 1) & (value == 0), 0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        bce = F.softplus(self.logits) - self.probs * self.logits
        return bce / self.probs
