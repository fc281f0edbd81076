"""Indexing: ``x[index]``, ``x[index] = v`` and the gather/scatter primitives that
torch._index_ops builds index_select, gather, take, scatter, index_add, ... from.

Every backward here is either a read (getitem, index_select, gather, ``_mask_rows``) or a
scatter-add into zeros.  The scatters are small Functions whose own backward is the read
again, so gradients of any order stay exact, and repeated indices add up.  The reducing
writes (scatter_reduce prod/amax/amin) also read the old value and the result.
"""

import math

import torch
from torch import _C
from torch.autograd.formulas.reduce import may_be_true
from torch.autograd.function import Function
from torch.autograd.graph import Formula, full_on, sum_to

Tensor = torch.Tensor

_SET, _ADD, _MUL, _MAX, _MIN = range(5)  # _put_rows modes (torch._indexing)


# ---------------------------------------------------------------- scatters into zeros
class IndexAdd(Function):
    """zeros(shape) with g's slices added at ``index`` along ``dim``; backward: index_select."""

    @staticmethod
    def forward(ctx, g, dim, index, shape):
        ctx.dim, ctx.index = dim, index
        return full_on(shape, g.dtype, g, 0).index_add_(dim, index, g)

    @staticmethod
    def backward(ctx, gg):
        return _C._index_select(gg, ctx.dim, ctx.index), None, None, None


class ScatterAdd(Function):
    """zeros(shape).scatter_add(dim, index, g); backward: gather."""

    @staticmethod
    def forward(ctx, g, dim, index, shape):
        ctx.dim, ctx.index = dim, index
        return full_on(shape, g.dtype, g, 0).scatter_add_(dim, index, g)

    @staticmethod
    def backward(ctx, gg):
        return _C._gather(gg, ctx.dim, ctx.index), None, None, None


class MaskScatter(Function):
    """zeros(shape) with g's rows where ``mask`` is true; backward: ``_mask_rows``."""

    @staticmethod
    def forward(ctx, g, mask, shape):
        ctx.mask = mask
        out = full_on(shape, g.dtype, g, 0)
        out[mask] = g
        return out

    @staticmethod
    def backward(ctx, gg):
        return _C._mask_rows(gg, ctx.mask), None, None


class IndexAccumulate(Function):
    """zeros(shape) with g added at ``index`` (any index ``x[index]`` accepts; repeated
    positions add up); backward: ``gg[index]``."""

    @staticmethod
    def forward(ctx, g, shape, index, advanced):
        ctx.index = index
        out = full_on(shape, g.dtype, g, 0)
        if advanced:
            torch._indexing._setitem(out, index, g, _ADD)
        else:  # a view: its elements are distinct
            out[index] = g
        return out

    @staticmethod
    def backward(ctx, gg):
        return gg[ctx.index], None, None, None


def _take_flat(t, pos):
    """t read as 1-D (row-major) at the int64 positions ``pos`` (differentiable)."""
    return _C._index_select(t.reshape(-1), 0, pos.reshape(-1)).reshape(pos.shape)


def _add_flat(g, pos, shape):
    """zeros(shape) with g added at the row-major positions ``pos`` (same shape as g)."""
    n = math.prod(shape)
    return IndexAdd.apply(g.reshape(-1), 0, pos.reshape(-1), (n,)).reshape(shape)


# ---------------------------------------------------------------- x[index], x[index] = v
class IndexBackward0(Formula):
    """x[index]: a view for ints/slices/None/Ellipsis, a copy for advanced indices."""

    names = ("__getitem__",)
    view = "maybe"
    python_inside = True  # advanced indices go through torch._indexing
    clone_for_inplace = False

    def save(self, out, x, index):
        self.shape = tuple(x.shape)
        _save_index(self, index)
        self.advanced = out._storage_ptr() != x._storage_ptr()
        if not self.advanced:  # named as PyTorch names the last view step it takes
            self.__class__ = _VIEW_NAMES[_last_view_step(index)]
        return (x,)

    def backward(self, g):
        return (IndexAccumulate.apply(g, self.shape, _saved_index(self), self.advanced),)


def _last_view_step(index):
    """'select', 'slice' or 'unsqueeze': the last step of a basic index other than a full
    slice or Ellipsis (x[:] is a slice)."""
    step = "slice"
    for item in index if isinstance(index, tuple) else (index,):
        if item is None:
            step = "unsqueeze"
        elif isinstance(item, slice):
            if item != slice(None):
                step = "slice"
        elif item is not Ellipsis and not isinstance(item, bool):
            step = "select"
    return step


class SelectBackward0(IndexBackward0):
    names = ()  # x[i]: the same backward, PyTorch's name


class SliceBackward0(IndexBackward0):
    names = ()


class UnsqueezeBackward0(IndexBackward0):
    names = ()


_VIEW_NAMES = {
    "select": SelectBackward0,
    "slice": SliceBackward0,
    "unsqueeze": UnsqueezeBackward0,
}


class IndexPutBackward0(Formula):
    """x[index] = v: x's old value gets g outside the region written, v gets g[index]
    (summed over the dims v was broadcast along).  Where an index repeats, every write of
    it gets the gradient, whichever one the forward kept (as in PyTorch: on a GPU which
    write is kept is not even defined)."""

    inplace_names = ("__setitem__",)
    clone_for_inplace = False
    python_inside = True  # advanced indices go through torch._indexing

    def save(self, out, x, index, value):
        self.shape = tuple(x.shape)
        _save_index(self, index)
        self.value_meta = (tuple(value.shape), value.dtype) if isinstance(value, Tensor) else None
        return (x, value)

    def backward(self, g):
        index = _saved_index(self)
        gx = gv = None
        if self.needs_input_grad[0]:
            written = full_on(self.shape, torch.bool, g, False)
            written[index] = True
            gx = g.masked_fill(written, 0)
        if self.needs_input_grad[1]:
            shape, dtype = self.value_meta
            gv = _sum_to_value(g[index], shape)
            gv = gv if gv.dtype == dtype else gv.to(dtype)
        return gx, gv


_TENSOR = object()  # where a saved index had a tensor


def _save_index(node, index):
    """Keeps an index's tensors as saved tensors, so that changing one in place before
    backward is an error rather than a wrong gradient."""
    items = index if isinstance(index, tuple) else (index,)
    node.save_for_backward(*[i for i in items if isinstance(i, Tensor)])
    node.index_items = tuple(_TENSOR if isinstance(i, Tensor) else i for i in items)
    node.index_is_tuple = isinstance(index, tuple)


def _saved_index(node):
    tensors = iter(node.saved_tensors)
    items = tuple(next(tensors) if i is _TENSOR else i for i in node.index_items)
    return items if node.index_is_tuple else items[0]


def _sum_to_value(g, shape):
    """The gradient of a value broadcast to g's shape; the value may have extra leading
    ones (which setitem drops)."""
    if len(shape) > g.dim():
        g = g.reshape((1,) * (len(shape) - g.dim()) + tuple(g.shape))
    return sum_to(g, shape)


# ---------------------------------------------------------------- reads
class IndexSelectBackward0(Formula):
    names = ("_index_select",)

    def save(self, out, x, dim, index):
        self.shape = tuple(x.shape)
        self.dim = dim
        self.save_for_backward(index)
        return (x,)

    def backward(self, g):
        (index,) = self.saved_tensors
        return (IndexAdd.apply(g, self.dim, index, self.shape),)


class GatherBackward0(Formula):
    names = ("_gather",)

    def save(self, out, x, dim, index):
        self.shape = tuple(x.shape)
        self.dim = dim
        self.save_for_backward(index)
        return (x,)

    def backward(self, g):
        (index,) = self.saved_tensors
        return (ScatterAdd.apply(g, self.dim, index, self.shape),)


class MaskedSelectBackward0(Formula):
    """_mask_rows(x, mask): the rows of x (over mask's dims) where mask is true."""

    names = ("_mask_rows",)

    def save(self, out, x, mask):
        self.shape = tuple(x.shape)
        self.save_for_backward(mask)
        return (x,)

    def backward(self, g):
        (mask,) = self.saved_tensors
        return (MaskScatter.apply(g, mask, self.shape),)


# ---------------------------------------------------------------- rows at element offsets
# _take_rows(sub, offsets) reads, and _put_rows(target, sub, offsets, values, mode) writes,
# the windows of sub's shape and strides shifted by offsets[b] elements.  sub is a view
# into a larger tensor (often a 0-d view at its first element), so the gradient belongs to
# that tensor: these formulas turn the windows into row-major positions of it.


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


def _positions(whole, sub, offsets, device):
    """Row-major positions in the tensor of geometry ``whole`` (on ``device``) of the
    elements that the windows of ``sub`` (a geometry inside it) shifted by ``offsets`` reach."""
    shape, stride, offset = whole
    ids = torch.empty_strided(shape, stride, dtype=torch.int64, device=device)
    ids.copy_(torch.arange(math.prod(shape), device=device).reshape(shape))
    sub_shape, sub_stride, sub_offset = sub
    window = ids.as_strided(sub_shape, sub_stride, ids.storage_offset() + sub_offset - offset)
    return _C._take_rows(window, offsets)


class TakeBackward0(Formula):
    """_take_rows(sub, offsets): the gradient goes to the tensor sub is a view of."""

    names = ("_take_rows",)

    def save(self, out, sub, offsets):
        whole = sub._base if sub._base is not None else sub
        self.geometry = (_geometry(whole), _geometry(sub))
        self.save_for_backward(offsets)
        return (whole,)

    def backward(self, g):
        (offsets,) = self.saved_tensors
        whole, sub = self.geometry
        return (_add_flat(g, _positions(whole, sub, offsets, g.device), whole[0]),)


class PutBackward0(Formula):
    """_put_rows(target, sub, offsets, values, mode), in place on target.

    ``set`` and ``add`` (index_put, scatter, scatter_add, index_add/copy/fill,
    masked_scatter, setitem) need no values; ``mul``, ``max`` and ``min`` (scatter with
    reduce='multiply', scatter_reduce prod/amax/amin) read target's old value and the
    result: each element of target is reduced with the values written to it (its *group*).
    """

    inplace_names = ("_put_rows",)

    @staticmethod
    def clone_for_inplace(target, sub, offsets, values, mode):
        return mode not in (_SET, _ADD)  # only mul/max/min read the old values

    def save(self, out, *args):
        if len(args) == 4:  # _put_rows(sub, offsets, values, mode): the target is unknown
            self.geometry = None
            return (args[0], args[2])
        old, sub, offsets, values, mode = args
        # old is the recorder's clone (strides may differ; sub too, if sub was the
        # target): positions are out's
        self.geometry = (_geometry(out), _geometry(out if sub is old else sub))
        self.mode = mode
        self.values_meta = (tuple(values.shape), values.dtype)
        if mode in (_SET, _ADD):
            self.save_for_backward(offsets)
        else:
            self.save_for_backward(offsets, old, values, out)
        return (old, values)

    def backward(self, g):
        if self.geometry is None:
            raise RuntimeError(
                "_put_rows(sub, offsets, values, mode) writes outside its first argument, "
                "so autograd cannot tell which tensor it modified: pass the written tensor "
                "first, _put_rows(target, sub, offsets, values, mode)"
            )
        offsets = self.saved_tensors[0]
        whole, sub = self.geometry
        pos = _positions(whole, sub, offsets, g.device)
        if self.mode == _MUL:
            gt, gv = self._product_grads(g, pos)
        elif self.mode in (_MAX, _MIN):
            gt, gv = self._extreme_grads(g, pos)
        else:
            gt, gv = self._write_grads(g, pos)
        if gv is not None:
            shape, dtype = self.values_meta
            gv = _sum_to_value(gv, shape)
            gv = gv if gv.dtype == dtype else gv.to(dtype)
        return gt, gv

    def _write_grads(self, g, pos):
        """set/add: target keeps g where it was not overwritten; every value reads g at its
        position, also where a position repeats (as in PyTorch)."""
        shape = self.geometry[0][0]
        gt = gv = None
        if self.needs_input_grad[0]:
            if self.mode == _ADD:
                gt = g
            else:
                written = full_on(math.prod(shape), torch.bool, pos, False)
                written[pos.reshape(-1)] = True
                gt = g.masked_fill(written.reshape(shape), 0)
        if self.needs_input_grad[1]:
            gv = _take_flat(g, pos)
        return gt, gv

    def _group_values(self, pos):
        _, old, values, out = self.saved_tensors
        return old, values.to(old.dtype).expand(pos.shape), out

    def _extreme_grads(self, g, pos):
        """max/min: g is shared evenly by the members of a group equal to the result."""
        old, values, out = self._group_values(pos)
        shape = tuple(old.shape)
        hit_t = old == out
        hit_v = values == _take_flat(out, pos)
        count = hit_t.to(g.dtype) + _count_at(hit_v, pos, shape, g.dtype)
        share = g / count.clamp(min=1)  # count is 0 only where the result is NaN
        gt = share.masked_fill(~hit_t, 0) if self.needs_input_grad[0] else None
        gv = _take_flat(share, pos).masked_fill(~hit_v, 0) if self.needs_input_grad[1] else None
        return gt, gv

    def _product_grads(self, g, pos):
        """mul: each member of a group gets g times the product of the other members.

        That is result / member without zeros.  With zeros: (product of the group's nonzero
        members / the member, if nonzero) times the product of the zeros among the others,
        which is 1 (none), the other zero itself (one: kept as a variable, so that double
        backward sees its derivative) or 0 (several)."""
        old, values, out = self._group_values(pos)
        shape = tuple(old.shape)
        zero_t, zero_v = old == 0, values == 0
        if not (may_be_true(zero_t) or may_be_true(zero_v)):
            return (
                g * out / old if self.needs_input_grad[0] else None,
                _take_flat(g * out, pos) / values if self.needs_input_grad[1] else None,
            )
        old_nz, values_nz = old.masked_fill(zero_t, 1), values.masked_fill(zero_v, 1)
        nonzero_product = old_nz.reshape(-1).clone()
        _C._put_rows(nonzero_product, nonzero_product[0], pos, values_nz, _MUL)
        gp = g * nonzero_product.reshape(shape)
        # per group: how many zeros, and their sum (0, but with derivative 1 in each zero)
        zeros = zero_t.to(g.dtype) + _count_at(zero_v, pos, shape, g.dtype)
        zero_sum = old.masked_fill(~zero_t, 0) + _add_flat(
            values.masked_fill(~zero_v, 0), pos, shape
        )
        gt = gv = None
        if self.needs_input_grad[0]:
            gt = gp / old_nz * _other_zeros_product(old, zero_t, zeros, zero_sum)
        if self.needs_input_grad[1]:
            zeros, zero_sum = _take_flat(zeros, pos), _take_flat(zero_sum, pos)
            gv = _take_flat(gp, pos) / values_nz
            gv = gv * _other_zeros_product(values, zero_v, zeros, zero_sum)
        return gt, gv


def _other_zeros_product(member, is_zero, zeros, zero_sum):
    """The product of the zeros in each member's group other than the member itself:
    1 with none, that zero with one (so its derivative is 1), 0 with more."""
    others = zeros - is_zero.to(zeros.dtype)
    the_other = (zero_sum - member.masked_fill(~is_zero, 0)).masked_fill(others != 1, 0)
    return (others == 0).to(member.dtype) + the_other


def _count_at(mask, pos, shape, dtype):
    """How many true elements of mask land on each element of a tensor of ``shape``."""
    return (
        full_on(math.prod(shape), dtype, pos, 0)
        .index_add_(0, pos.reshape(-1), mask.reshape(-1).to(dtype))
        .reshape(shape)
    )
