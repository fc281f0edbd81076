"""The RelaxedBernoulli distribution (binary Concrete)."""

import torch
import torch.nn.functional as F
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.transformed_distribution import TransformedDistribution
from torch.distributions.transforms import SigmoidTransform
from torch.distributions.utils import _ProbsOrLogits, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_ProbsOrLogits, Distribution):
    """The logit of a :class:`RelaxedBernoulli` sample: ``(logits + logistic noise) /
    temperature`` (Maddison et al., 2017; Jang et al., 2017).

    Args:
        temperature (Tensor): relaxation temperature, positive.
        probs (Number or Tensor): probability of sampling 1.
        logits (Number or Tensor): log-odds of sampling 1.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = LogitRelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.3]))
        >>> m.rsample().shape
        torch.Size([1])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._store_probs_or_logits(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        new.temperature = self.temperature
        return self._expand_into(new, batch_shape, "probs", "logits")

    has_rsample = True

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(torch.rand(tuple(shape), dtype=probs.dtype, device=probs.device))
        return (
            uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()
        ) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        temperature = torch.as_tensor(self.temperature, dtype=value.dtype)
        diff = logits - value * temperature
        return temperature.log() + diff - 2 * F.softplus(diff)


class RelaxedBernoulli(TransformedDistribution):
    """The relaxed Bernoulli (binary Concrete) distribution on ``(0, 1)``: a continuous,
    reparameterisable relaxation of :class:`Bernoulli` that approaches it as
    ``temperature`` goes to 0.

    Args:
        temperature (Tensor): relaxation temperature, positive.
        probs (Number or Tensor): probability of sampling 1.
        logits (Number or Tensor): log-odds of sampling 1.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = RelaxedBernoulli(torch.tensor([2.2]), torch.tensor([0.1, 0.2, 0.3, 0.99]))
        >>> m.sample().shape
        torch.Size([4])
    """

    arg_constraints = LogitRelaxedBernoulli.arg_constraints
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The log-odds."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The probability of 1."""
        return self.base_dist.probs
