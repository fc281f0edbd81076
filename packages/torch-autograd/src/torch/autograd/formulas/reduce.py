"""Reductions: sum, sum of squares, prod, amax/amin, and max/min along a dim with indices."""

import torch
from torch.autograd.graph import Formula


def _dims(dims, ndim):
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    return sorted(d % ndim if ndim else 0 for d in dims)


def _expand_back(g, shape, dims, keepdim):
    """A reduced gradient broadcast back to the input's shape."""
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


def _prod_grad(g, x, out, dim):
    """d prod / d x_i = product of the other elements (exact when some are zero)."""
    if x.dim() == 0 or x.shape[dim] == 0:
        return g.expand(x.shape) * 0 if x.dim() else g
    if not bool((x == 0).any()):
        return g * out / x
    ones = torch.ones_like(x.narrow(dim, 0, 1))
    before = torch.cat([ones, x.narrow(dim, 0, x.shape[dim] - 1)], dim).cumprod(dim)
    after = torch.cat([x.narrow(dim, 1, x.shape[dim] - 1), ones], dim).flip(dim).cumprod(dim)
    return g * before * after.flip(dim)


class AmaxBackward0(Formula):
    """amax/amin: the gradient is split evenly among the elements equal to the result."""

    names = ("_amax", "_amin")

    def save(self, out, x, dims, keepdim, dtype=None):
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


class MaxBackward0(Formula):
    """max(x, dim) / min(x, dim) -> (values, indices): the gradient goes to the index."""

    names = ("_argmax", "_argmin")
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


def index_scatter(g, idx, shape, dim, keepdim):
    """Zeros of ``shape`` with g placed at ``idx`` along ``dim`` (reduced dims: ``keepdim``)."""
    if dim is None:
        flat = torch.zeros(int(torch.tensor(shape).prod()) if shape else 1, dtype=g.dtype)
        return flat.index_add(0, idx.reshape(1), g.reshape(1)).reshape(shape)
    if len(shape) == 0:
        return g
    dim = dim % len(shape)
    if not keepdim:
        g, idx = g.unsqueeze(dim), idx.unsqueeze(dim)
    return torch.zeros(shape, dtype=g.dtype).scatter_add(dim, idx, g)
