"""View ops: the output shares the input's memory (``view = True`` records ``out._base``)."""

import torch
from torch.autograd.function import Function
from torch.autograd.graph import Formula, full_on, sum_to


class _View(Formula):
    view = True
    clone_for_inplace = False

    def save(self, out, x, *args, **kwargs):
        self.shape = x.shape  # (a torch.Size: immutable)
        return (x,)


class ViewBackward0(_View):
    names = ("view", "view_as", "unsqueeze", "squeeze")

    def backward(self, g):
        return (g.reshape(self.shape),)


class ReshapeAliasBackward0(ViewBackward0):
    """reshape and flatten: a view when the strides allow it, else a copy (then no
    ``_base``, and in-place changes to it leave the input's history alone). The node
    is named as in PyTorch by what reshape did: ``ViewBackward0`` for a view,
    ``UnsafeViewBackward0`` for a copy."""

    names = ("reshape", "reshape_as", "flatten")  # (flatten is a reshape)
    view = "maybe"

    def save(self, out, x, *args, **kwargs):
        self.shape = x.shape
        self.__class__ = _ReshapeView if out._shares_storage(x) else _ReshapeCopy
        return (x,)


class _ReshapeView(ReshapeAliasBackward0):
    names = ()  # (not a formula of its own: what a reshape node that made a view becomes)


class _ReshapeCopy(ReshapeAliasBackward0):
    names = ()


_ReshapeView.__name__ = _ReshapeView.__qualname__ = "ViewBackward0"
_ReshapeCopy.__name__ = _ReshapeCopy.__qualname__ = "UnsafeViewBackward0"


class AliasBackward0(_View):
    names = ("__pos__", "_alias")

    def backward(self, g):
        return (g,)


class ContiguousBackward0(Formula):
    """x.contiguous() copies a non-contiguous x (a contiguous one is returned as is)."""

    names = ("contiguous",)
    clone_for_inplace = False

    def save(self, out, x, *args, **kwargs):
        return (x,)

    def backward(self, g):
        return (g,)


class TransposeBackward0(_View):
    names = ("transpose", "swapaxes", "swapdims")

    def save(self, out, x, d0, d1):
        self.dims = (d0, d1)
        return (x,)

    def backward(self, g):
        return (g.transpose(*self.dims),)


class TBackward0(_View):
    names = ("t",)

    def backward(self, g):
        return (g.t(),)


class PermuteBackward0(_View):
    names = ("permute",)

    def save(self, out, x, *dims):
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = dims[0]
        n = x.dim()
        inverse = [0] * n
        for i, d in enumerate(dims):
            inverse[d % n] = i
        self.inverse = inverse
        return (x,)

    def backward(self, g):
        return (g.permute(self.inverse),)


class ExpandBackward0(_View):
    names = ("expand", "expand_as")

    def backward(self, g):
        return (sum_to(g, self.shape),)


class _Embed(Function):
    """Zeros of ``shape`` with g written through ``view`` (a function making the view);
    its backward applies the view again, so gradients of any order exist."""

    @staticmethod
    def forward(ctx, g, shape, view):
        ctx.view = view
        out = full_on(shape, g.dtype, g, 0)
        view(out).copy_(g)
        return out

    @staticmethod
    def backward(ctx, grad):
        return ctx.view(grad), None, None


class _Window(_View):
    """Views that pick some of the input's elements (narrow, select, diagonal): the gradient
    is zero elsewhere.  Replayed on the input's logical shape, so any input strides work."""

    def save(self, out, x, *args, **kwargs):
        self.shape = tuple(x.shape)
        name = self.names[0]
        self.view_fn = lambda t: getattr(t, name)(*args, **kwargs)
        return (x,)

    def backward(self, g):
        return (_Embed.apply(g, self.shape, self.view_fn),)


class NarrowBackward0(_Window):
    names = ("narrow",)


class SelectBackward0(_Window):
    names = ("select",)


class DiagonalBackward0(_Window):
    names = ("diagonal",)


class AsStridedBackward0(_View):
    """as_strided addresses the storage: gradients are summed per storage element (windows
    may overlap) and read back at the input's elements."""

    names = ("as_strided",)

    def save(self, out, x, *args, **kwargs):
        self.geometry = [(tuple(t.shape), t.stride(), t.storage_offset()) for t in (x, out)]
        return (x,)

    def backward(self, g):
        extent = 1 + max(
            off + sum((n - 1) * st for n, st in zip(size, stride) if n > 0)
            for size, stride, off in self.geometry
        )
        ids = torch.arange(extent, device=g.device)
        (xs, xst, xoff), (os, ost, ooff) = self.geometry
        out_pos = ids.as_strided(os, ost, ooff).reshape(-1)
        per_storage = full_on(extent, g.dtype, g, 0).index_add(0, out_pos, g.reshape(-1))
        return (per_storage[ids.as_strided(xs, xst, xoff)],)


class UnfoldBackward0(_View):
    """x.unfold(dim, size, step): windows may overlap, so their gradients add up."""

    names = ("unfold",)

    def save(self, out, x, dim, size, step):
        self.shape = tuple(x.shape)
        self.args = (dim, size, step, out.shape[dim % max(x.dim(), 1)] if x.dim() else 1)
        return (x,)

    def backward(self, g):
        dim, size, step, n = self.args
        if not self.shape:
            return (g.reshape(()),)
        dim %= len(self.shape)
        starts = torch.arange(n, device=g.device).unsqueeze(1) * step
        idx = (starts + torch.arange(size, device=g.device).unsqueeze(0)).reshape(-1)
        flat = g.unsqueeze(dim + 1).transpose(dim + 1, -1).squeeze(-1)  # size next to windows
        flat = flat.reshape(self.shape[:dim] + (n * size,) + self.shape[dim + 1 :])
        return (full_on(self.shape, g.dtype, g, 0).index_add(dim, idx, flat),)
