"""View ops: the output shares the input's memory (``view = True`` records ``out._base``)."""

import torch
from torch.autograd.graph import Formula, sum_to


class _View(Formula):
    view = True
    clone_for_inplace = False

    def save(self, out, x, *args, **kwargs):
        self.shape = tuple(x.shape)
        return (x,)


class ViewBackward0(_View):
    names = ("view", "view_as", "flatten", "unsqueeze", "squeeze")

    def backward(self, g):
        return (g.reshape(self.shape),)


class ReshapeAliasBackward0(ViewBackward0):
    """reshape: a view when the strides allow it, else a copy (then no ``_base``)."""

    names = ("reshape", "reshape_as")
    view = "maybe"


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


class _Window(_View):
    """Views that pick a subset of the input's elements without overlap (narrow, select,
    diagonal, as_strided): the gradient is zero outside the window."""

    def save(self, out, x, *args, **kwargs):
        self.base_geometry = (tuple(x.shape), x.stride())
        self.base_offset = x.storage_offset()
        self.view_geometry = (tuple(out.shape), out.stride(), out.storage_offset())
        return (x,)

    def backward(self, g):
        from torch.autograd._views import scatter_window

        return (scatter_window(g, self.base_geometry, self.view_geometry, self.base_offset),)


class NarrowBackward0(_Window):
    names = ("narrow",)


class SelectBackward0(_Window):
    names = ("select",)


class DiagonalBackward0(_Window):
    names = ("diagonal",)


class AsStridedBackward0(_Window):
    names = ("as_strided",)


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
        idx = (torch.arange(n).unsqueeze(1) * step + torch.arange(size).unsqueeze(0)).reshape(-1)
        flat = g.unsqueeze(dim + 1).transpose(dim + 1, -1).squeeze(-1)  # size next to windows
        flat = flat.reshape(self.shape[:dim] + (n * size,) + self.shape[dim + 1 :])
        return (torch.zeros(self.shape, dtype=g.dtype).index_add(dim, idx, flat),)
