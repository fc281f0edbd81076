"""The :class:`ExponentialFamily` base class."""

import torch
from torch.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    r"""Base class of exponential-family distributions, whose density is

    .. math:: p_F(x; \theta) = \exp(\langle t(x), \theta \rangle - F(\theta) + k(x))

    with natural parameters :math:`\theta`, sufficient statistic :math:`t(x)`, log normaliser
    :math:`F` and carrier measure :math:`k`. Subclasses give ``_natural_params``,
    ``_log_normalizer`` and ``_mean_carrier_measure``; the base class then provides a generic
    :meth:`entropy` (through autograd: the gradient of :math:`F` is the mean of :math:`t`),
    and the Bregman-divergence KL between two members of the same family.

    Example::

        >>> isinstance(Normal(0.0, 1.0), ExponentialFamily)
        True
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """Entropy through the Bregman divergence: ``F(θ) - <θ, ∇F(θ)> - E[k(x)]``."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with torch.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
