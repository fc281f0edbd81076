"""The RelaxedOneHotCategorical distribution (Concrete / Gumbel-softmax)."""

import torch
from torch.distributions import constraints
from torch.distributions.categorical import Categorical, _CategoricalParameters
from torch.distributions.distribution import Distribution
from torch.distributions.transformed_distribution import TransformedDistribution
from torch.distributions.transforms import ExpTransform
from torch.distributions.utils import clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(_CategoricalParameters, Distribution):
    """The log of a :class:`RelaxedOneHotCategorical` sample (the ExpConcrete distribution
    of Maddison et al., 2017): ``log_softmax((logits + Gumbel noise) / temperature)``.

    Args:
        temperature (Tensor): relaxation temperature, positive.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = ExpRelaxedCategorical(torch.tensor(0.5), torch.tensor([0.2, 0.8]))
        >>> m.rsample().exp().sum()
        tensor(1.)
    """

    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = torch.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        return self._expand_into(new, batch_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(
            torch.rand(tuple(shape), dtype=self.logits.dtype, device=self.logits.device)
        )
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torch.broadcast_tensors(self.logits, value)
        temperature = torch.as_tensor(self.temperature, dtype=value.dtype)
        log_scale = torch.full_like(temperature, float(k)).lgamma() - temperature.log().mul(
            -(k - 1)
        )
        score = logits - value.mul(temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """The relaxed one-hot categorical (Concrete, Gumbel-softmax) distribution on the
    simplex: a reparameterisable relaxation of :class:`OneHotCategorical` that approaches it
    as ``temperature`` goes to 0.

    Args:
        temperature (Tensor): relaxation temperature, positive.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = RelaxedOneHotCategorical(torch.tensor([2.2]), torch.tensor([0.1, 0.2, 0.3, 0.4]))
        >>> m.sample().shape
        torch.Size([4])
    """

    arg_constraints = Categorical.arg_constraints
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The normalised log-probabilities."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The normalised probabilities."""
        return self.base_dist.probs
