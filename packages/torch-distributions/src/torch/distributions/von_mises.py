"""The VonMises distribution."""

import math

import torch
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _log_modified_bessel_i0(x):
    """log I0(x) through the exponentially scaled Bessel function: log(i0e(x)) + |x|."""
    return torch.log(torch.special.i0e(x)) + x.abs()


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Best and Fisher's (1979) wrapped-Cauchy rejection sampler, vectorised: every entry
    draws until it accepts."""
    done = torch.zeros(shape, dtype=torch.bool, device=loc.device)
    x = torch.empty(shape, dtype=loc.dtype, device=loc.device)
    while not bool(done.all()):
        u = torch.rand((3,) + tuple(shape), dtype=loc.dtype, device=loc.device)
        u1, u2, u3 = u.unbind()
        z = torch.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        take = accept & ~done
        value = (u3 - 0.5).sign() * f.acos()
        x = torch.where(take, value, x)
        done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The von Mises distribution, a circular analogue of the normal: density
    ``exp(κ cos(x - loc)) / (2π I0(κ))`` on ``[-π, π)``.

    Sampling uses Best and Fisher's rejection method (computed in float64); there is no
    ``rsample``.

    Args:
        loc (Tensor): an angle in radians.
        concentration (Tensor): concentration κ, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = VonMises(torch.tensor([1.0]), torch.tensor([1.0]))
        >>> m.sample().shape
        torch.Size([1])
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        batch_shape = self.loc.shape
        event_shape = torch.Size()
        super().__init__(batch_shape, event_shape, validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * torch.cos(value - self.loc)
        log_prob = log_prob - math.log(2 * math.pi) - _log_modified_bessel_i0(self.concentration)
        return log_prob

    @lazy_property
    def _loc(self):
        return self.loc.to(torch.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(torch.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        _proposal_r = (1 + rho**2) / (2 * rho)
        # for small kappa, a series avoids cancellation
        _proposal_r_taylor = 1 / kappa + kappa
        return torch.where(kappa < 1e-5, _proposal_r_taylor, _proposal_r)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            x = _rejection_sample(
                self._loc.expand(shape),
                self._concentration.expand(shape),
                self._proposal_r.expand(shape),
                shape,
            )
        return x.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        return self._expand_into(new, batch_shape, "loc", "concentration")

    @property
    def mean(self):
        """The circular mean ``loc``."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance ``1 - I1(κ) / I0(κ)``."""
        k = self.concentration
        return 1 - (torch.special.i1e(k) / torch.special.i0e(k))

    def entropy(self):
        k = self.concentration
        ratio = torch.special.i1e(k) / torch.special.i0e(k)
        return math.log(2 * math.pi) + _log_modified_bessel_i0(k) - k * ratio
