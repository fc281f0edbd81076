"""The ContinuousBernoulli distribution."""

import math

import torch
import torch.nn.functional as F
from torch.distributions import constraints
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.utils import (
    _ProbsOrLogits,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_ProbsOrLogits, ExponentialFamily):
    """The continuous Bernoulli distribution on ``[0, 1]`` (Loaiza-Ganem and Cunningham,
    2019): density ``C(λ) λ^x (1 - λ)^(1 - x)``, with normaliser ``C(λ)``. Parametrised by
    ``probs`` (λ) or ``logits``; give exactly one. Near ``λ = 0.5`` the closed forms are
    replaced by Taylor expansions inside ``lims``.

    Args:
        probs (Number or Tensor): λ in ``(0, 1)``.
        logits (Number or Tensor): ``log(λ / (1 - λ))``.
        lims (tuple): the interval around 0.5 where Taylor expansions are used.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = ContinuousBernoulli(torch.tensor([0.3]))
        >>> m.sample().shape
        torch.Size([1])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._store_probs_or_logits(probs, logits)
        if probs is not None:
            # validate before clamping, so that invalid values are reported
            validate = self._validate_args if validate_args is None else validate_args
            if validate and not bool(constraints.unit_interval.check(self.probs).all()):
                raise ValueError(
                    "Expected parameter probs of ContinuousBernoulli to satisfy the "
                    f"constraint {constraints.unit_interval!r}, but found invalid values:\n"
                    f"{self.probs}"
                )
            self.probs = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        return self._expand_into(new, batch_shape, "probs", "logits")

    # Near lambda = 1/2 the closed forms below are 0/0; inside lims they are replaced by
    # their Taylor series in d = lambda - 1/2. _split() gives the mask of entries that use the
    # closed form, the probabilities to plug into it (1/4 elsewhere: any safe value), and d.

    def _split(self):
        closed = (self.probs <= self._lims[0]) | (self.probs >= self._lims[1])
        safe = torch.where(closed, self.probs, torch.full_like(self.probs, 0.25))
        return closed, safe, self.probs - 0.5

    def _log_norm(self):
        """log C(lambda), C = log((1 - lambda) / lambda) / (1 - 2 lambda)."""
        closed, p, d = self._split()
        exact = torch.log(torch.abs(torch.log1p(-p) - torch.log(p))) - torch.log(
            torch.abs(1.0 - 2.0 * p)
        )
        d2 = d * d
        series = math.log(2.0) + d2 * (4.0 / 3.0 + d2 * (104.0 / 45.0))
        return torch.where(closed, exact, series)

    @property
    def mean(self):
        closed, p, d = self._split()
        exact = p / (2.0 * p - 1.0) + 1.0 / (torch.log1p(-p) - torch.log(p))
        series = 0.5 + d * (1.0 / 3.0 + d * d * (16.0 / 45.0))
        return torch.where(closed, exact, series)

    @property
    def stddev(self):
        return torch.sqrt(self.variance)

    @property
    def variance(self):
        closed, p, d = self._split()
        exact = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + (torch.log1p(-p) - torch.log(p)).pow(-2)
        d2 = d * d
        series = 1.0 / 12.0 - d2 * (1.0 / 15.0 - d2 * (128.0 / 945.0))
        return torch.where(closed, exact, series)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = torch.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
        with torch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = torch.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # x log(lambda) + (1 - x) log(1 - lambda) = x logit - softplus(logit)
        return value * logits - F.softplus(logits) + self._log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        closed, p, _ = self._split()
        # (lambda^x (1 - lambda)^(1 - x) + lambda - 1) / (2 lambda - 1); uniform near 1/2
        exact = (torch.pow(p, value) * torch.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = torch.where(closed, exact, value)
        return (
            inside.clamp(min=0.0, max=1.0)
            .masked_fill(value >= 1.0, 1.0)
            .masked_fill(value <= 0.0, 0.0)
        )

    def icdf(self, value):
        closed, p, _ = self._split()
        exact = (torch.log1p(-p + value * (2.0 * p - 1.0)) - torch.log1p(-p)) / (
            torch.log(p) - torch.log1p(-p)
        )
        return torch.where(closed, exact, value)

    def entropy(self):
        log_q = torch.log1p(-self.probs)
        # -E[log p(X)] = -(E[X] logit + log(1 - lambda) + log C)
        return self.mean * (log_q - torch.log(self.probs)) - self._log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log((e^x - 1) / x) in the natural parameter x = logit (a series near 0)."""
        closed = (x <= self._lims[0] - 0.5) | (x >= self._lims[1] - 0.5)
        safe = torch.where(closed, x, torch.ones_like(x))
        exact = torch.log(torch.abs(torch.expm1(safe))) - torch.log(torch.abs(safe))
        x2 = x * x
        series = 0.5 * x + x2 * (1.0 / 24.0 - x2 / 2880.0)
        return torch.where(closed, exact, series)
