"""The :class:`Distribution` base class: the contract every distribution follows."""

import warnings

import torch
from torch.distributions import constraints
from torch.distributions.utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Abstract base class of probability distributions.

    A distribution has a ``batch_shape`` (independent, not necessarily identical
    distributions side by side) and an ``event_shape`` (the shape of one draw of one of
    them). ``sample(sample_shape)`` returns a tensor of shape
    ``sample_shape + batch_shape + event_shape``; ``log_prob(value)`` returns one number per
    event, of shape ``sample_shape + batch_shape``.

    Args:
        batch_shape (torch.Size): shape over which parameters are batched.
        event_shape (torch.Size): shape of a single sample (without batching).
        validate_args (bool, optional): check parameters against ``arg_constraints`` and
            values passed to ``log_prob`` against ``support``, raising ``ValueError``. The
            default is :meth:`set_default_validate_args`'s value (on, as in PyTorch).

    Example::

        >>> d = Normal(torch.zeros(3), 1.0)
        >>> d.batch_shape, d.event_shape
        (torch.Size([3]), torch.Size([]))
        >>> d.sample((2,)).shape
        torch.Size([2, 3])
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on (``True``, the default) or off for every
        distribution created afterwards without an explicit ``validate_args``."""
        if value not in (True, False):
            raise ValueError("set_default_validate_args: value must be True or False")
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = torch.Size(batch_shape)
        self._event_shape = torch.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{type(self).__name__} has no arg_constraints, so its parameters are not "
                    "checked: give the class `arg_constraints = {}` (or a dict of "
                    "constraints), or create it with validate_args=False",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # skip constraints that cannot be checked
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param, None), lazy_property
                ):
                    continue  # skip the parametrisation that was not given
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"{type(self).__name__}: parameter {param} (shape "
                        f"{tuple(value.shape)}) must satisfy {constraint!r}, and some entries "
                        f"do not (validate_args=False skips this check):\n{value}"
                    )
        super().__init__()

    @property
    def arg_constraints(self):
        """A dict from parameter names to the :class:`~torch.distributions.constraints.Constraint`
        each must satisfy. Subclasses define it (``{}`` if there is nothing to check)."""
        raise NotImplementedError

    @property
    def support(self):
        """The :class:`~torch.distributions.constraints.Constraint` of the values (the
        support). Subclasses define it."""
        raise NotImplementedError

    def expand(self, batch_shape, _instance=None):
        """Return a new distribution of the same kind whose batch shape is ``batch_shape``
        (parameters are expanded, not copied). Subclasses implement it."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample, without batching."""
        return self._event_shape

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation: the square root of :attr:`variance`."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """Draw ``sample_shape`` batches of samples, without recording gradients (calls
        :meth:`rsample` under ``no_grad`` when the distribution is reparameterised)."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """Draw reparameterised samples: gradients flow back to the parameters. Only where
        ``has_rsample`` is true."""
        raise NotImplementedError

    def sample_n(self, n):
        """Draw ``n`` samples (deprecated; use ``sample((n,))``)."""
        warnings.warn("sample_n(n) is deprecated: call sample((n,))", UserWarning, stacklevel=2)
        return self.sample(torch.Size((n,)))

    def log_prob(self, value):
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete support, along a new leading dimension: shape
        ``(cardinality,) + batch_shape + event_shape`` when ``expand``, otherwise
        ``(cardinality,) + (1,) * len(batch_shape) + event_shape``."""
        raise NotImplementedError

    def entropy(self):
        """The (differential) entropy, one value per batch entry."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy)``."""
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape=()):
        """``sample_shape + batch_shape + event_shape``."""
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        return torch.Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """Check that ``value`` is a tensor whose shape broadcasts with the distribution and
        whose entries lie in the support; raise ``ValueError`` otherwise."""
        if not isinstance(value, torch.Tensor):
            raise ValueError(
                f"{type(self).__name__}: the value must be a torch.Tensor, got "
                f"{type(value).__name__} (wrap it with torch.tensor)"
            )
        event_dim_start = len(value.shape) - len(self._event_shape)
        if value.shape[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"{type(self).__name__}: a value of shape {tuple(value.shape)} does not end "
                f"with the event_shape {tuple(self._event_shape)}"
            )
        actual_shape = value.shape
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"{type(self).__name__}: a value of shape {tuple(actual_shape)} is not "
                    f"broadcastable with batch_shape + event_shape {tuple(expected_shape)}"
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{type(self).__name__} has no support, so values are not checked: give the "
                "class a `support` constraint, or create it with validate_args=False",
                stacklevel=2,
            )
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                f"{type(self).__name__}: some entries of the value (shape "
                f"{tuple(value.shape)}) lie outside the support {support!r} "
                f"(validate_args=False skips this check):\n{value}"
            )

    def _expand_into(self, new, batch_shape, *param_names, param_shape=None):
        """Finish :meth:`expand` on ``new`` (from :meth:`_get_checked_instance`): give it
        this distribution's parameters ``param_names`` expanded to ``param_shape`` (default
        ``batch_shape``; a lazy parameter not computed yet is skipped), the batch shape,
        this event shape and this validation setting. Returns ``new``."""
        batch_shape = torch.Size(batch_shape)
        param_shape = batch_shape if param_shape is None else param_shape
        for name in param_names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(param_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides {cls.__name__}.__init__, so it needs its own "
                "expand() (the inherited one cannot know the new constructor's arguments)"
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        param_names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names
        )
        return self.__class__.__name__ + "(" + args_string + ")"
