"""Transforms: invertible (or at least differentiable) maps between constrained spaces, with
the log absolute determinant of their Jacobian.

A :class:`Transform` ``t`` maps ``x`` to ``y = t(x)``; ``t.inv`` is the inverse transform
(``t.inv(y)``), ``t.log_abs_det_jacobian(x, y)`` is ``log |dy/dx|`` (one value per event of
``t.domain.event_dim`` dimensions). :class:`~torch.distributions.TransformedDistribution` uses
them to build densities, :func:`~torch.distributions.biject_to` to map unconstrained
parameters onto constrained sets.

Example::

    >>> t = ExpTransform()
    >>> t(torch.tensor(0.0)), t.inv(torch.tensor(1.0))
    (tensor(1.), tensor(0.))
"""

import functools
import math
import numbers
import operator
import weakref

import torch
import torch.nn.functional as F
from torch.distributions import constraints
from torch.distributions._sampling import atanh as _atanh
from torch.distributions.utils import (
    _sum_rightmost,
    broadcast_all,
    lazy_property,
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """Abstract base class of invertible transforms with computable log-det-Jacobians.

    Subclasses implement ``_call`` (forward), ``_inverse`` and ``log_abs_det_jacobian``, and
    set ``domain``/``codomain`` (constraints), ``bijective`` and ``sign`` (of the derivative,
    for monotone one-dimensional transforms).

    Caching: with ``cache_size=1`` the last ``(x, y)`` pair is remembered, so that
    ``t.inv(t(x))`` returns ``x`` itself (useful where the inverse is expensive or not
    unique).

    Args:
        cache_size (int): 0 (no cache) or 1 (remember the latest pair).

    Example::

        >>> t = AffineTransform(1.0, 2.0)
        >>> y = t(torch.tensor([0.0, 1.0]))
        >>> y, t.inv(y)
        (tensor([1., 3.]), tensor([0., 1.]))
    """

    bijective = False
    domain: constraints.Constraint
    codomain: constraints.Constraint

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 0:
            pass
        elif cache_size == 1:
            self._cached_x_y = None, None
        else:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        """The event dimension shared by domain and codomain (an error if they differ)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError(
            f"{type(self).__name__}: domain and codomain have different event dims; read "
            ".domain.event_dim or .codomain.event_dim"
        )

    @property
    def inv(self):
        """The inverse :class:`Transform`: ``t.inv(t(x)) == x``."""
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        """The sign of the derivative, +1 or -1, where defined (monotone transforms)."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """A copy of this transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(self)

    def __call__(self, x):
        """Apply the transform: ``y = t(x)``."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |det dy/dx|`` for an input ``x`` and its output ``y``."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform: calls swap ``_call`` and ``_inverse``."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        if not isinstance(other, _InverseTransform):
            return False
        return self._inv == other._inv

    def __hash__(self):
        return hash(("inverse", self._inv))

    def __repr__(self):
        return f"{self.__class__.__name__}({repr(self._inv)})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Apply ``parts`` in order: ``ComposeTransform([f, g])(x) == g(f(x))``.

    Args:
        parts (list of Transform): the transforms to chain.
        cache_size (int): 0 or 1.

    Example::

        >>> t = ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform()])
        >>> t(torch.tensor(0.5))
        tensor(2.7183)
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        if not isinstance(other, ComposeTransform):
            return False
        return self.parts == other.parts

    def __hash__(self):
        return hash(tuple(self.parts))

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # adjust event_dim to be the largest needed along the chain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torch.zeros_like(x)
        # compute intermediates, reusing caches where the parts have them
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x_, y_ in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(
                _sum_rightmost(part.log_abs_det_jacobian(x_, y_), event_dim - part.domain.event_dim)
            )
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        fmt_string = self.__class__.__name__ + "(\n    "
        fmt_string += ",\n    ".join([p.__repr__() for p in self.parts])
        fmt_string += "\n)"
        return fmt_string


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Wrap ``base_transform`` so that ``reinterpreted_batch_ndims`` extra rightmost
    dimensions count as part of the event: ``log_abs_det_jacobian`` sums over them.

    Args:
        base_transform (Transform): the transform to wrap.
        reinterpreted_batch_ndims (int): how many batch dims to treat as event dims.
        cache_size (int): 0 or 1.

    Example::

        >>> t = IndependentTransform(ExpTransform(), 1)
        >>> x = torch.zeros(2, 3)
        >>> t.log_abs_det_jacobian(x, t(x)).shape
        torch.Size([2])
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}({repr(self.base_transform)}, "
            f"{self.reinterpreted_batch_ndims})"
        )

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` dimensions to ``out_shape`` (same number of
    elements); the Jacobian is a permutation, so its log-determinant is 0.

    Args:
        in_shape (torch.Size): the input event shape.
        out_shape (torch.Size): the output event shape.
        cache_size (int): 0 or 1.

    Example::

        >>> ReshapeTransform((4,), (2, 2))(torch.arange(4.0)).shape
        torch.Size([2, 2])
    """

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = torch.Size(in_shape)
        self.out_shape = torch.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError(
                f"ReshapeTransform: in_shape {tuple(in_shape)} and out_shape {tuple(out_shape)} "
                "hold different numbers of elements"
            )
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = y.shape[: y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape):
        if len(shape) < len(self.in_shape):
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        cut = len(shape) - len(self.in_shape)
        if tuple(shape[cut:]) != tuple(self.in_shape):
            raise ValueError(
                f"ReshapeTransform: shape {tuple(shape)} does not end with {tuple(self.in_shape)}"
            )
        return torch.Size(shape[:cut]) + self.out_shape

    def inverse_shape(self, shape):
        if len(shape) < len(self.out_shape):
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        cut = len(shape) - len(self.out_shape)
        if tuple(shape[cut:]) != tuple(self.out_shape):
            raise ValueError(
                f"ReshapeTransform: shape {tuple(shape)} does not end with {tuple(self.out_shape)}"
            )
        return torch.Size(shape[:cut]) + self.in_shape


class _ParameterFreeTransform(Transform):
    """A transform without parameters: every instance of one such class is equal to every
    other (and hashes alike)."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    def __hash__(self):
        return hash(type(self))


class ExpTransform(_ParameterFreeTransform):
    """``y = exp(x)``, from the reals onto the positive reals.

    Example::

        >>> ExpTransform()(torch.tensor(0.0))
        tensor(1.)
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent``, on the positive reals.

    Args:
        exponent (float or Tensor): the power.
        cache_size (int): 0 or 1.

    Example::

        >>> PowerTransform(2.0)(torch.tensor(3.0))
        tensor(9.)
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all())

    def __hash__(self):
        return id(self)

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _clipped_sigmoid(x):
    finfo = torch.finfo(x.dtype)
    return torch.clamp(torch.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(_ParameterFreeTransform):
    """``y = 1 / (1 + exp(-x))``, from the reals onto the unit interval.

    Example::

        >>> SigmoidTransform()(torch.tensor(0.0))
        tensor(0.5000)
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = torch.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(_ParameterFreeTransform):
    """``y = log(1 + exp(x))``, from the reals onto the positive reals.

    Example::

        >>> SoftplusTransform()(torch.tensor(0.0))
        tensor(0.6931)
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        # log(exp(y) - 1) = y + log(1 - exp(-y))
        return y + torch.log(-torch.expm1(-y))

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(_ParameterFreeTransform):
    """``y = tanh(x)``, from the reals onto ``(-1, 1)``. The inverse is ``atanh``; it is
    numerically unstable near ±1, so use ``cache_size=1`` when inverting samples.

    Example::

        >>> TanhTransform()(torch.tensor(0.0))
        tensor(0.)
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return _atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(_ParameterFreeTransform):
    """``y = |x|``; not bijective (``inv`` returns the nonnegative preimage).

    Example::

        >>> AbsTransform()(torch.tensor(-2.0))
        tensor(2.)
    """

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``.

    Args:
        loc (Tensor or float): offset.
        scale (Tensor or float): scale, nonzero.
        event_dim (int): the event dimension of ``x`` (1 for vectors, ...); the
            log-det-Jacobian sums over it.
        cache_size (int): 0 or 1.

    Example::

        >>> AffineTransform(1.0, 2.0)(torch.tensor(3.0))
        tensor(7.)
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((torch.as_tensor(a) == torch.as_tensor(b)).all()):
                return False
        return True

    def __hash__(self):
        return id(self)

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = torch.full_like(x, math.log(abs(scale)))
        else:
            result = torch.abs(scale).log()
        if self.event_dim:
            result_size = result.size()[: result.dim() - self.event_dim] + (-1,)
            result = result.reshape(result_size).sum(-1)
            shape = shape[: len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return torch.broadcast_shapes(
            shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())
        )

    def inverse_shape(self, shape):
        return torch.broadcast_shapes(
            shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())
        )


class CorrCholeskyTransform(_ParameterFreeTransform):
    """Map a vector of ``D (D - 1) / 2`` reals onto the Cholesky factor of a ``D x D``
    correlation matrix (lower triangular, positive diagonal, rows of unit norm).

    Each real goes through ``tanh`` to a partial correlation in ``(-1, 1)``; row ``i`` of
    the factor is then built by stick-breaking: entry ``j < i`` takes the fraction ``z_ij``
    of the squared norm still left in the row, and the diagonal takes the rest.

    Example::

        >>> L = CorrCholeskyTransform()(torch.zeros(3))
        >>> L
        tensor([[1., 0., 0.],
                [0., 1., 0.],
                [0., 0., 1.]])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        z = torch.tanh(x)
        eps = torch.finfo(x.dtype).eps
        z = z.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(z, diag=-1)
        n = r.shape[-1]
        # row i: x_ij = z_ij * sqrt(1 - sum_{k<j} x_ik^2) for j < i, x_ii = sqrt(remaining)
        # equivalently with cumulative products of sqrt(1 - z^2)
        z1m_cumprod_sqrt = (1 - r.pow(2)).sqrt().cumprod(-1)
        eye = torch.eye(n, dtype=x.dtype, device=x.device)
        r = r + eye
        shifted = F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1.0)
        return r * shifted

    def _inverse(self, y):
        # z_ij = y_ij / sqrt(1 - sum_{k<j} y_ik^2)
        y_cumsum = 1 - torch.cumsum(y * y, dim=-1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1.0)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return _atanh(t)

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # d x_ij / d z_ij = sqrt(remaining before j); d z / d x = 1 - z^2 (tanh).
        # log|J| = sum_ij [0.5 log(remaining_ij) + log(1 - z_ij^2)]
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * (y1m_cumsum_tril).log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError(
                f"CorrCholeskyTransform: {n} is not the size of a strict lower triangle"
            )
        return torch.Size(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        if shape[-2] != shape[-1]:
            raise ValueError("CorrCholeskyTransform: the input matrices must be square")
        d = shape[-1]
        return torch.Size(shape[:-2]) + (d * (d - 1) // 2,)


class SoftmaxTransform(_ParameterFreeTransform):
    """``y = softmax(x)`` over the last dimension, from the reals onto the simplex. Not
    bijective (adding a constant to ``x`` changes nothing), so it has no
    ``log_abs_det_jacobian``; the inverse returns ``log(y)`` normalised.

    Example::

        >>> SoftmaxTransform()(torch.zeros(2))
        tensor([0.5000, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        probs = y
        return probs.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        return shape


class StickBreakingTransform(_ParameterFreeTransform):
    """Map ``K - 1`` reals bijectively onto the ``K``-simplex by stick-breaking: each real,
    offset so that zeros give the uniform point, goes through a sigmoid to the fraction of
    the remaining stick taken by the next coordinate.

    Example::

        >>> StickBreakingTransform()(torch.zeros(2))
        tensor([0.3333, 0.3333, 0.3333])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _offset(self, x):
        k = x.shape[-1]
        return torch.arange(k, 0, -1, dtype=x.dtype, device=x.device).log()

    def _call(self, x):
        offset = self._offset(x)
        z = _clipped_sigmoid(x - offset)
        z_cumprod = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1.0) * F.pad(z_cumprod, [1, 0], value=1.0)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        k = y_crop.shape[-1]
        offset = torch.arange(k, 0, -1, dtype=y.dtype, device=y.device).log()
        sf = 1 - y_crop.cumsum(-1)
        # remaining stick, clamped so that the result stays finite
        sf = torch.clamp(sf, min=torch.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset

    def log_abs_det_jacobian(self, x, y):
        offset = self._offset(x)
        x = x - offset
        detj = (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)
        return detj

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        return torch.Size(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(
                f"{type(self).__name__}: the input has too few dimensions for the event"
            )
        return torch.Size(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(_ParameterFreeTransform):
    """Map an unconstrained square matrix onto a lower-triangular one with positive
    diagonal: keep the strict lower triangle, exponentiate the diagonal. Not bijective as a
    map of all square matrices (the upper triangle is dropped).

    Example::

        >>> LowerCholeskyTransform()(torch.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_ParameterFreeTransform):
    """Map an unconstrained square matrix onto a symmetric positive-definite one:
    ``L L^T`` with ``L = LowerCholeskyTransform()(x)``.

    Example::

        >>> PositiveDefiniteTransform()(torch.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.transpose(-2, -1)

    def _inverse(self, y):
        y = torch.linalg.cholesky(y)
        return LowerCholeskyTransform().inv(y)


class CatTransform(Transform):
    """Apply ``tseq[i]`` to the ``i``-th slice (of size ``lengths[i]``) of dimension
    ``dim``, as :func:`torch.cat` would join them.

    Args:
        tseq (list of Transform): the transforms.
        dim (int): the dimension to split.
        lengths (list of int): slice sizes (default: 1 each).
        cache_size (int): 0 or 1.

    Example::

        >>> t = CatTransform([ExpTransform(), AffineTransform(0.0, 2.0)], dim=0, lengths=[1, 1])
        >>> t(torch.tensor([0.0, 1.0]))
        tensor([1., 2.])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("CatTransform: every entry must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("CatTransform: lengths and transforms differ in number")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, x):
        if not -x.dim() <= self.dim < x.dim():
            raise ValueError(f"CatTransform: dim {self.dim} out of range")
        if x.size(self.dim) != self.length:
            raise ValueError(
                f"CatTransform: dim {self.dim} has size {x.size(self.dim)}, expected {self.length}"
            )
        start = 0
        for length in self.lengths:
            yield x.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x):
        return torch.cat([t(v) for t, v in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y):
        return torch.cat([t.inv(v) for t, v in zip(self.transforms, self._slices(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        logdetjacs = []
        for trans, xs, ys in zip(self.transforms, self._slices(x), self._slices(y)):
            logdetjac = trans.log_abs_det_jacobian(xs, ys)
            if trans.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
        # concatenating along dim makes sense only when it is a batch dim
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return torch.cat(logdetjacs, dim=dim)
        return sum(logdetjacs)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply ``tseq[i]`` to the ``i``-th slice of dimension ``dim``, as :func:`torch.stack`
    would join them.

    Args:
        tseq (list of Transform): the transforms.
        dim (int): the dimension to split.
        cache_size (int): 0 or 1.

    Example::

        >>> t = StackTransform([ExpTransform(), AffineTransform(0.0, 2.0)], dim=0)
        >>> t(torch.tensor([0.0, 1.0]))
        tensor([1., 2.])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("StackTransform: every entry must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        if not -z.dim() <= self.dim < z.dim():
            raise ValueError(f"StackTransform: dim {self.dim} out of range")
        if z.size(self.dim) != len(self.transforms):
            raise ValueError(
                f"StackTransform: dim {self.dim} has size {z.size(self.dim)}, "
                f"expected {len(self.transforms)}"
            )
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return torch.stack([t(v) for t, v in zip(self.transforms, self._slice(x))], dim=self.dim)

    def _inverse(self, y):
        return torch.stack(
            [t.inv(v) for t, v in zip(self.transforms, self._slice(y))], dim=self.dim
        )

    def log_abs_det_jacobian(self, x, y):
        logdetjacs = [
            t.log_abs_det_jacobian(xs, ys)
            for t, xs, ys in zip(self.transforms, self._slice(x), self._slice(y))
        ]
        return torch.stack(logdetjacs, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: maps the support of a univariate distribution onto the
    unit interval; the log-det-Jacobian is the distribution's ``log_prob``.

    Args:
        distribution (Distribution): a univariate distribution with ``cdf``/``icdf``.
        cache_size (int): 0 or 1.

    Example::

        >>> from torch.distributions import Normal
        >>> CumulativeDistributionTransform(Normal(0.0, 1.0))(torch.tensor(0.0))
        tensor(0.5000)
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The support of the distribution."""
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)
