"""Shape ops with compiled kernels: cat, flip, roll, tril/triu, repeat_interleave.

(split, chunk, unbind, movedim, ... compose views and cat: they need no formula. stack is a
cat of its inputs unsqueezed, whose node is named and linked as PyTorch's StackBackward0.)
"""

import torch
from torch import _C
from torch._shape_ops import _Stacked
from torch.autograd.formulas.indexing import IndexAdd
from torch.autograd.graph import Formula


class CatBackward0(Formula):
    """cat(tensors, dim): each input gets its slice of g (empty 1-D inputs were skipped)."""

    names = ("cat",)

    def save(self, out, tensors, dim=0):
        self.dim = dim % out.dim()
        if tensors.__class__ is _Stacked:  # torch.stack: linked to the tensors it was given
            self.__class__ = StackBackward0
            self.dtypes = [t.dtype for t in tensors.inputs]
            return tensors.inputs
        self.metas = [(tuple(t.shape), t.dtype, t.device) for t in tensors]
        return tuple(tensors)

    def backward(self, g):
        grads, start = [], 0
        for (shape, dtype, device), needed in zip(self.metas, self.needs_input_grad):
            if shape == (0,):  # skipped by cat
                grads.append(torch.zeros(shape, dtype=dtype, device=device) if needed else None)
                continue
            n = shape[self.dim]
            if needed:  # (getitem, not narrow: g may be an expanded tensor)
                gi = g[(slice(None),) * self.dim + (slice(start, start + n),)]
                grads.append(gi if gi.dtype == dtype else gi.to(dtype))
            else:
                grads.append(None)
            start += n
        return tuple(grads)


class StackBackward0(CatBackward0):
    """stack(tensors, dim): input i gets g's slice i along dim (what a CatBackward0 node
    becomes when cat was called by torch.stack)."""

    names = ()

    def backward(self, g):
        return tuple(
            (g.select(self.dim, i) if g.dtype == dtype else g.select(self.dim, i).to(dtype))
            if needed
            else None
            for i, (dtype, needed) in enumerate(zip(self.dtypes, self.needs_input_grad))
        )


class FlipBackward0(Formula):
    names = ("_flip",)

    def save(self, out, x, dims):
        self.dims = dims
        return (x,)

    def backward(self, g):
        return (_C._flip(g, self.dims),)


class RollBackward0(Formula):
    names = ("_roll",)

    def save(self, out, x, shifts, dims):
        self.shifts = tuple(-s for s in ((shifts,) if isinstance(shifts, int) else shifts))
        self.dims = dims
        return (x,)

    def backward(self, g):
        return (_C._roll(g, self.shifts, self.dims),)


def _no_out(out_arg, name):
    if out_arg is not None:
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            f"differentiation, but one of the arguments requires grad."
        )


class TrilBackward0(Formula):
    """tril/triu (``_tri(x, diagonal, upper, out)``) and their in-place forms: the gradient
    keeps the same triangle."""

    names = ("_tri",)
    inplace_names = ("_tri_",)
    clone_for_inplace = False

    def save(self, out, x, diagonal, upper, out_arg=None):
        _no_out(out_arg, "triu" if upper else "tril")
        self.args = (diagonal, upper)
        return (x,)

    def backward(self, g):
        return (_C._tri(g, *self.args, None),)


class RepeatInterleaveBackward0(Formula):
    """_repeat_interleave(x, repeats, dim): each slice of x gets the sum of its copies."""

    names = ("_repeat_interleave",)

    def save(self, out, x, repeats, dim):
        self.shape = tuple(x.shape)
        self.dim = dim % max(x.dim(), 1)
        self.save_for_backward(repeats)
        return (x,)

    def backward(self, g):
        (repeats,) = self.saved_tensors
        if not self.shape:
            return (g.sum(),)
        n = self.shape[self.dim]
        # the x slice of each copy
        source = _C._repeat_interleave(torch.arange(n, device=g.device), repeats, 0)
        return (IndexAdd.apply(g, self.dim, source, self.shape),)
