"""The Categorical distribution."""

import torch
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.utils import _ProbsOrLogits

__all__ = ["Categorical"]


class Categorical(_ProbsOrLogits, Distribution):
    """A categorical distribution over ``{0, ..., K-1}``, parametrised by ``probs`` or
    ``logits`` (give exactly one) whose last dimension has size ``K``; the leading
    dimensions are the batch. ``probs`` need only be nonnegative with a positive sum (they
    are normalised); ``logits`` are unnormalised log-probabilities.

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Categorical(torch.tensor([0.25, 0.25, 0.5]))
        >>> m.sample().shape
        torch.Size([])
        >>> m.log_prob(torch.tensor(2))
        tensor(-0.6931)
    """

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    has_enumerate_support = True
    _is_binary = False

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._check_probs_or_logits(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("Categorical: probs needs a last dimension (the categories)")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("Categorical: logits needs a last dimension (the categories)")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else torch.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        new._num_events = self._num_events
        param_shape = torch.Size(batch_shape) + (self._num_events,)
        return self._expand_into(new, batch_shape, "probs", "logits", param_shape=param_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return torch.full(
            self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device
        )

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return torch.full(
            self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device
        )

    def sample(self, sample_shape=()):
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        with torch.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            n = sample_shape.numel()
            samples_2d = torch.multinomial(probs_2d, n, True).t()
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = torch.finfo(self.logits.dtype).min
        logits = self.logits.clamp(min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        num_events = self._num_events
        values = torch.arange(num_events, dtype=torch.long, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values


class _CategoricalParameters:
    """Mixin for distributions built on the :class:`Categorical` in ``_categorical``
    (one-hot, multinomial, relaxed): their parameters are that categorical's."""

    arg_constraints = Categorical.arg_constraints

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def param_shape(self):
        """The shape of the parameter tensor."""
        return self._categorical.param_shape

    @property
    def logits(self):
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self):
        """The normalised probabilities."""
        return self._categorical.probs
