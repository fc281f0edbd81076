"""Small helpers shared by the distributions: broadcasting parameters, converting between
probabilities and logits, cached properties and the packing of lower-triangular matrices."""

import math
from functools import update_wrapper
from numbers import Number

import torch

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def broadcast_all(*values):
    """Broadcast tensors and numbers to one shape.

    Numbers become tensors of the default dtype (or of the dtype of the first tensor among
    ``values``); everything is then broadcast with :func:`torch.broadcast_tensors`.

    Example::

        >>> a, b = broadcast_all(torch.zeros(3), 1.0)
        >>> b
        tensor([1., 1., 1.])
    """
    if not all(isinstance(v, (torch.Tensor, Number)) for v in values):
        raise ValueError("broadcast_all: every input must be a torch.Tensor or a Number")
    if all(isinstance(v, torch.Tensor) for v in values):
        return torch.broadcast_tensors(*values)
    like = next((v for v in values if isinstance(v, torch.Tensor)), None)
    dtype = like.dtype if like is not None else torch.get_default_dtype()
    device = like.device if like is not None else None
    tensors = [
        v if isinstance(v, torch.Tensor) else torch.tensor(float(v), dtype=dtype, device=device)
        for v in values
    ]
    return torch.broadcast_tensors(*tensors)


def _standard_normal(shape, dtype, device=None):
    return torch.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(value.shape[: value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Turn logits into probabilities: a sigmoid when ``is_binary``, else a softmax over the
    last dimension.

    Example::

        >>> logits_to_probs(torch.tensor([0.0]), is_binary=True)
        tensor([0.5000])
    """
    if is_binary:
        return torch.sigmoid(logits)
    return torch.softmax(logits, -1)


def clamp_probs(probs):
    """Clamp probabilities into the open interval ``(eps, 1 - eps)`` of their dtype.

    Example::

        >>> clamp_probs(torch.tensor([0.0, 1.0])) > 0
        tensor([True, True])
    """
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Turn probabilities into logits: ``log(p) - log1p(-p)`` when ``is_binary``, else
    ``log(p)`` (the log-probabilities of a categorical distribution).

    Example::

        >>> probs_to_logits(torch.tensor([0.5]), is_binary=True)
        tensor([0.])
    """
    ps = clamp_probs(probs)
    if is_binary:
        return torch.log(ps) - torch.log1p(-ps)
    return torch.log(ps)


class lazy_property:
    """A property computed on first access and then stored on the instance.

    Distributions accept either of two parametrisations (``probs`` or ``logits``); the other is
    computed lazily with this decorator.

    Example::

        >>> class A:
        ...     @lazy_property
        ...     def x(self):
        ...         return 3
        >>> A().x
        3
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a class sees for a lazy_property: a property, so that documentation tools and
    ``isinstance(..., property)`` checks treat it as one."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


class _ProbsOrLogits:
    """Mixin for distributions given exactly one of ``probs`` and ``logits``: the one given
    is stored, the other is computed on first use. Binary distributions convert with a
    sigmoid and its inverse; categorical ones set ``_is_binary = False`` to convert with a
    softmax and a log over the last dimension."""

    _is_binary = True

    def _check_probs_or_logits(self, probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError(
                f"{type(self).__name__}: pass exactly one of probs and logits, not both"
            )

    def _store_probs_or_logits(self, probs, logits, *others):
        """Store the one of ``probs`` and ``logits`` that is given, broadcast with
        ``others``; return the broadcast ``others``."""
        self._check_probs_or_logits(probs, logits)
        name, param = ("probs", probs) if probs is not None else ("logits", logits)
        param, *others = broadcast_all(param, *others)
        setattr(self, name, param)
        return others

    @property
    def _param(self):
        """The stored parametrisation (``probs`` where both are known)."""
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def param_shape(self):
        """The shape of the parameter tensor."""
        return self._param.size()

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._is_binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._is_binary)


def tril_matrix_to_vec(mat, diag=0):
    """Flatten the lower triangle (from diagonal ``diag`` down) of the last two dims of
    ``mat`` into a vector, row by row.

    Example::

        >>> tril_matrix_to_vec(torch.tensor([[1.0, 0.0], [2.0, 3.0]]))
        tensor([1., 2., 3.])
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"tril_matrix_to_vec: diag={diag} is not in [{-n}, {n - 1}]")
    rows, cols = _tril_indices(n, diag, mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of :func:`tril_matrix_to_vec`: place a vector into the lower triangle of a
    square matrix (zeros elsewhere).

    Example::

        >>> vec_to_tril_matrix(torch.tensor([1.0, 2.0, 3.0]))
        tensor([[1., 0.],
                [2., 3.]])
    """
    m = vec.shape[-1]
    n = 0
    while len(_tril_pairs(n, diag)) < m:
        n += 1
    if len(_tril_pairs(n, diag)) != m:
        raise ValueError(
            f"vec_to_tril_matrix: the last dimension has size {m}, which is not the size of "
            f"the lower triangle (diag={diag}) of any square matrix"
        )
    rows, cols = _tril_indices(n, diag, vec.device)
    out = vec.new_zeros(vec.shape[:-1] + (n * n,))
    out = out.index_add(-1, rows * n + cols, vec)
    return out.reshape(vec.shape[:-1] + (n, n))


def _tril_pairs(n, diag):
    return [(r, c) for r in range(n) for c in range(n) if c - r <= diag]


def _tril_indices(n, diag, device=None):
    pairs = _tril_pairs(n, diag)
    rows = torch.tensor([p[0] for p in pairs], dtype=torch.int64, device=device)
    cols = torch.tensor([p[1] for p in pairs], dtype=torch.int64, device=device)
    return rows, cols


def _log1mexp(x):
    """``log(1 - exp(x))`` for ``x < 0``, accurate at both ends."""
    return torch.where(x > -math.log(2.0), torch.log(-torch.expm1(x)), torch.log1p(-torch.exp(x)))
