"""Reductions: sum, mean, sum of squares, the 2-norm, var/std, logsumexp, prod, amax/amin,
and max/min along a dim with indices.

mean, the 2-norm, var, std and logsumexp are one core op each, so one node; their backward
is one pass over the input (a kernel for var, std and logsumexp), and a composite of
differentiable ops under ``create_graph``.
"""

import math

import torch
from torch import _C
from torch.autograd.graph import Formula, full_on


def _dims(dims, ndim):
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    return sorted(d % ndim if ndim else 0 for d in dims)


def _expand_back(g, shape, dims, keepdim):
    """A reduced gradient broadcast back to the input's shape. A 0-d one (a full reduction)
    is written out when no graph is built: filling is one cheap pass, and whoever takes the
    gradient (a leaf's .grad, the next formula) would copy or walk the expanded view."""
    if g.dim() == 0 and len(shape) and not torch.is_grad_enabled():
        return _filled(shape, g, 1, g.dtype)
    if not keepdim and len(shape) and g.dim():  # (a 0-d g expands as it is)
        kept = list(shape)
        for d in dims:
            kept[d] = 1
        g = g.reshape(kept)
    return g.expand(shape)


class SumBackward0(Formula):
    names = ("_sum",)

    def save(self, out, x, dims, keepdim, dtype=None):
        self.shape = tuple(x.shape)
        self.dims = _dims(dims, x.dim())
        self.keepdim = keepdim
        self.dtype = x.dtype
        return (x,)

    def backward(self, g):
        g = _expand_back(g, self.shape, self.dims, self.keepdim)
        return (g if g.dtype == self.dtype else g.to(self.dtype),)


def _filled(shape, g, count, dtype):
    """A tensor of shape filled with the 0-d g / count, in dtype."""
    if g.is_cpu:  # (a number: one call)
        return _C._full(shape, g.item() / count if count else math.nan, dtype)
    # elsewhere a broadcasting copy: fill_(g) would read g back, waiting for the device
    return torch.empty(shape, dtype=dtype, device=g.device).copy_(g / count)


def _keep(g, shape, dims, keepdim):
    """A reduced tensor with its reduced dims back as size 1 (it broadcasts against x)."""
    if not keepdim and len(shape) and g.dim():
        kept = list(shape)
        for d in dims:
            kept[d] = 1
        g = g.reshape(kept)
    return g


def _count(shape, dims):
    return math.prod(shape[d] for d in dims) if len(shape) else 1


class MeanBackward0(SumBackward0):
    """mean over dims: g / count, broadcast back (saves what SumBackward0 saves)."""

    names = ("_mean",)

    def backward(self, g):
        count = _count(self.shape, self.dims)
        if g.dim() == 0 and len(self.shape) and not torch.is_grad_enabled():
            return (_filled(self.shape, g, count, self.dtype),)
        g = _expand_back(g / count, self.shape, self.dims, self.keepdim)
        return (g if g.dtype == self.dtype else g.to(self.dtype),)


class VarBackward0(Formula):
    """var over dims: 2 g (x - mean) / (count - correction); std (StdBackward0): that over
    2 std, 0 where std is 0."""

    names = ("_var",)
    take_sqrt = False

    def save(self, out, x, dims, correction, keepdim):
        self.save_for_backward(x, out if self.take_sqrt else None)
        self.dims, self.correction, self.keepdim = dims, correction, keepdim
        return (x,)

    def backward(self, g):
        x, out = self.saved_tensors
        args = (self.dims, self.correction, self.keepdim, self.take_sqrt)
        if torch.is_grad_enabled():  # create_graph: differentiable ops
            return (_var_grad(g, x, out, *args),)
        if out is None:
            out = g  # (var's backward kernel does not read the result)
        return (_C._var_backward(g, x, out, *args),)


class StdBackward0(VarBackward0):
    names = ("_std",)
    take_sqrt = True


def _var_grad(g, x, std, dims, correction, keepdim, take_sqrt):
    dims = _dims(dims, x.dim())
    denom = max(_count(x.shape, dims) - correction, 0)
    g = _keep(g, x.shape, dims, keepdim)
    if take_sqrt:
        std = _keep(std, x.shape, dims, keepdim)
        scale = torch.where(std == 0, 0.0, g / (std * denom))
    else:
        scale = g * (2.0 / denom if denom else math.inf)
    return scale * (x - x.mean(dims, keepdim=True))


class LogsumexpBackward0(Formula):
    """logsumexp over dims: g exp(x - result)."""

    names = ("_logsumexp",)

    def save(self, out, x, dims, keepdim):
        self.save_for_backward(x, out)
        self.dims, self.keepdim = dims, keepdim
        return (x,)

    def backward(self, g):
        x, out = self.saved_tensors
        if torch.is_grad_enabled():  # create_graph: differentiable ops
            dims = _dims(self.dims, x.dim())
            out = _keep(out, x.shape, dims, self.keepdim)
            return (_keep(g, x.shape, dims, self.keepdim) * torch.exp(x - out),)
        return (_C._logsumexp_backward(g, x, out, self.dims, self.keepdim),)


class LinalgVectorNormBackward0(Formula):
    """The 2-norm over dims: x g / norm, 0 where the norm is 0 (one pass over x)."""

    names = ("_norm2",)

    def save(self, out, x, dims, keepdim):
        self.save_for_backward(x, out)
        self.dims, self.keepdim = dims, keepdim
        return (x,)

    def backward(self, g):
        x, out = self.saved_tensors
        if out.dim() == 0 and out.is_cpu and not torch.is_grad_enabled():  # (the usual norm)
            return (torch.zeros_like(x) if out.item() == 0 else x * (g / out),)
        dims = _dims(self.dims, x.dim())
        out = _keep(out, x.shape, dims, self.keepdim)
        g = _keep(g, x.shape, dims, self.keepdim)
        return (x * torch.where(out == 0, 0.0, g / out),)


class SumSqBackward0(Formula):
    """_sum_sq(x) = sum(x * x) over dims (the 2-norm's reduction): 2 x g."""

    names = ("_sum_sq",)

    def save(self, out, x, dims, keepdim, dtype=None):
        self.save_for_backward(x)
        self.dims = _dims(dims, x.dim())
        self.keepdim = keepdim
        return (x,)

    def backward(self, g):
        (x,) = self.saved_tensors
        return (2 * x * _expand_back(g, tuple(x.shape), self.dims, self.keepdim),)


class ProdBackward0(Formula):
    names = ("_prod",)

    def save(self, out, x, dim, keepdim, dtype=None):
        self.save_for_backward(x, out)
        self.dim = dim
        self.keepdim = keepdim
        return (x,)

    def backward(self, g):
        x, out = self.saved_tensors
        if self.dim is None:
            flat = x.reshape(-1)
            return (_prod_grad(g.reshape(1), flat, out.reshape(1), 0).reshape(x.shape),)
        dim = self.dim % max(x.dim(), 1)
        if not self.keepdim and x.dim():
            g, out = g.unsqueeze(dim), out.unsqueeze(dim)
        return (_prod_grad(g, x, out, dim),)


def may_be_true(mask):
    """Whether some element of mask is true (reads it back from its device); True for a
    meta tensor, which has no values: the caller then takes its path exact for any values."""
    return mask.is_meta or bool(mask.any())


def _prod_grad(g, x, out, dim):
    """d prod / d x_i = product of the other elements (exact when some are zero)."""
    if x.dim() == 0 or x.shape[dim] == 0:
        return g.expand(x.shape) * 0 if x.dim() else g
    if not may_be_true(x == 0):
        return g * out / x
    ones = torch.ones_like(x.narrow(dim, 0, 1))
    before = torch.cat([ones, x.narrow(dim, 0, x.shape[dim] - 1)], dim).cumprod(dim)
    after = torch.cat([x.narrow(dim, 1, x.shape[dim] - 1), ones], dim).flip(dim).cumprod(dim)
    return g * before * after.flip(dim)


class AmaxBackward0(Formula):
    """amax/amin: the gradient is split evenly among the elements equal to the result.

    ``x.max()`` / ``x.min()`` (no dim) are the same reduction, called with ``dims=None``
    (``torch.amax`` spells its dims out), and named as in PyTorch: ``MaxBackward1``."""

    names = ("_amax",)

    def save(self, out, x, dims, keepdim, dtype=None):
        if dims is None:
            self.__class__ = self._over_all
        self.save_for_backward(x, out)
        self.dims = _dims(dims, x.dim())
        self.keepdim = keepdim
        return (x,)

    def backward(self, g):
        x, out = self.saved_tensors
        shape = x.shape
        out = _expand_back(out, shape, self.dims, self.keepdim)
        mask = (x == out).to(g.dtype)
        count = mask.sum(self.dims, keepdim=True) if x.dim() else mask
        return (_expand_back(g, shape, self.dims, self.keepdim) * mask / count,)


class AminBackward0(AmaxBackward0):
    names = ("_amin",)


class _MaxAll(AmaxBackward0):
    names = ()  # (not a formula of its own: what an _amax node over all dims becomes)


class _MinAll(AminBackward0):
    names = ()


AmaxBackward0._over_all = _MaxAll
AminBackward0._over_all = _MinAll
_MaxAll.__name__ = _MaxAll.__qualname__ = "MaxBackward1"
_MinAll.__name__ = _MinAll.__qualname__ = "MinBackward1"


class MaxBackward0(Formula):
    """max(x, dim) / min(x, dim) -> (values, indices): the gradient goes to the index."""

    names = ("_argmax",)
    multi_output = True

    def save(self, out, x, dim, keepdim):
        self.save_for_backward(out[1])
        self.shape = tuple(x.shape)
        self.dim = dim
        self.keepdim = keepdim
        return (x,)

    def backward(self, g, _indices_grad=None):
        (idx,) = self.saved_tensors
        return (index_scatter(g, idx, self.shape, self.dim, self.keepdim),)


class MinBackward0(MaxBackward0):
    names = ("_argmin",)


def index_scatter(g, idx, shape, dim, keepdim):
    """Zeros of ``shape`` with g placed at ``idx`` along ``dim`` (reduced dims: ``keepdim``)."""
    if dim is None:
        flat = full_on(math.prod(shape), g.dtype, g, 0)
        return flat.index_add(0, idx.reshape(1), g.reshape(1)).reshape(shape)
    if len(shape) == 0:
        return g
    dim = dim % len(shape)
    if not keepdim:
        g, idx = g.unsqueeze(dim), idx.unsqueeze(dim)
    return full_on(shape, g.dtype, g, 0).scatter_add(dim, idx, g)
