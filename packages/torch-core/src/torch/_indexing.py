"""Advanced indexing and index ops (index_select, gather, scatter, masked ops, ...).

Every advanced index reduces to element offsets into the indexed tensor: the C++ core
checks and combines index tensors into offsets (``_C._index_offsets``) and then reads
(``_C._take_rows``) or writes (``_C._put_rows``) whole "rows" of the remaining dims at
those offsets. Boolean masks become integer indices through ``nonzero``; ``x[mask]``,
``index_select`` and ``gather`` have their own parallel kernels.
"""

import builtins
import operator

import torch
from torch import _C
from torch._functional import wrap_dim as _wrap

Tensor = _C.Tensor

_SET, _ADD, _MUL, _MAX, _MIN = range(5)
_INDEX_DTYPES = ("int64", "int32", "int16", "int8", "uint8", "bool")

# Functions that are also Tensor methods, and those with an in-place `name_` method.
_METHODS = (
    "index_put", "index_select", "gather", "scatter", "scatter_add", "scatter_reduce",
    "masked_fill", "masked_select", "masked_scatter", "index_add", "index_copy", "index_fill",
    "take", "take_along_dim", "nonzero", "argwhere", "bincount", "histc",
)  # fmt: skip
_INPLACE = (
    "index_put_", "scatter_", "scatter_add_", "scatter_reduce_", "masked_fill_",
    "masked_scatter_", "index_add_", "index_copy_", "index_fill_",
)  # fmt: skip
__all__ = [*_METHODS, "where", "searchsorted", "bucketize"]


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


# --- parsing an index expression ---------------------------------------------------


def _index_tensor(obj):
    """A list, tuple, bool or tensor used as an index, as a checked integer/bool tensor."""
    if isinstance(obj, Tensor):
        t = obj
    elif isinstance(obj, (list, tuple)) and len(obj) == 0:
        t = torch.tensor([], dtype=torch.int64)
    else:
        try:
            t = torch.tensor(obj)
        except (TypeError, ValueError) as e:
            raise IndexError(f"invalid index {obj!r}: {e}") from None
    if _dtype_name(t) not in _INDEX_DTYPES:
        raise IndexError(
            f"tensors used as indices must be long, int, byte or bool tensors (got {t.dtype})"
        )
    return t


def _is_mask(t):
    return t.dtype in (torch.bool, torch.uint8)


def _convert(item):
    if item is None or item is Ellipsis or isinstance(item, slice):
        return item
    if isinstance(item, bool):
        return torch.tensor(item)
    if isinstance(item, Tensor) and item.dim() == 0 and not _is_mask(item):
        if item.dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return int(item.item())
    if isinstance(item, (Tensor, list, tuple)):
        return _index_tensor(item)
    if isinstance(item, range):  # a sequence of ints, as the list of its values
        return _index_tensor(list(item))
    try:
        return operator.index(item)
    except TypeError:
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
            f"are valid indices (got {type(item).__name__})"
        ) from None


def _consumed(item):
    if isinstance(item, Tensor):
        return item.dim() if _is_mask(item) else 1
    return 0 if item is None or item is Ellipsis else 1


def _parse(t, index):
    """Split an index into a basic part (applied as a view) and advanced indices.

    Returns (r, adv): r is t under the basic part, with every advanced index replaced by
    a full slice (0-d bool masks by a new dim); adv lists (dim of r, int64 tensor, dim of t).
    """
    items = [_convert(i) for i in (index if isinstance(index, tuple) else (index,))]
    if builtins.sum(i is Ellipsis for i in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = builtins.sum(_consumed(i) for i in items)
    if consumed > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()} (got {consumed})")
    basic, adv, rd, td = [], [], 0, 0
    for item in items:
        if item is Ellipsis:
            n = t.dim() - consumed
            basic += [slice(None)] * n
            rd, td = rd + n, td + n
        elif item is None:
            basic.append(None)
            rd += 1
        elif isinstance(item, int):
            basic.append(item)
            td += 1
        elif isinstance(item, slice):
            basic.append(item)
            rd, td = rd + 1, td + 1
        elif _is_mask(item) and item.dim() == 0:  # True/False: a new dim of size 1, kept or not
            basic.append(None)
            adv.append((rd, torch.zeros(int(bool(item.item())), dtype=torch.int64), td))
            rd += 1
        elif _is_mask(item):
            for j in range(item.dim()):
                if item.shape[j] != t.shape[td + j]:
                    raise IndexError(
                        f"The shape of the mask {list(item.shape)} at index {j} does not match "
                        f"the shape of the indexed tensor {list(t.shape)} at index {td + j}"
                    )
            coords = _C._nonzero(item)
            for j in range(item.dim()):
                adv.append((rd + j, coords[:, j], td + j))
            basic += [slice(None)] * item.dim()
            rd, td = rd + item.dim(), td + item.dim()
        else:
            basic.append(slice(None))
            adv.append((rd, item, td))
            rd, td = rd + 1, td + 1
    return t[tuple(basic)], adv


def _plan(t, index):
    """(sub, offsets, p): the subspace view, the int64 offsets (shape B) and the position at
    which B's dims stand in the result (0 when the advanced indices are separated)."""
    r, adv = _parse(t, index)
    try:
        torch.broadcast_shapes(*[a[1].shape for a in adv])
    except RuntimeError:
        shapes = ", ".join(str(list(a[1].shape)) for a in adv)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    dims = [a[0] for a in adv]
    offsets = _C._index_offsets(
        [a[1] for a in adv], [r.shape[d] for d in dims], [r.stride(d) for d in dims],
        [a[2] for a in adv],
    )  # fmt: skip
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    p = dims[0] if adjacent else 0
    if offsets.numel() == 0 or any(r.shape[d] == 0 for d in dims):
        shape = [s for d, s in enumerate(r.shape) if d not in dims]
        return shape, offsets, p
    sub = r
    for d in reversed(dims):
        sub = sub.select(d, 0)
    return sub, offsets, p


def _placed(nb, ns, p):
    """The permutation taking (B..., S...) to (S[:p]..., B..., S[p:]...)."""
    return [*range(nb, nb + p), *range(nb), *range(nb + p, nb + ns)]


def _getitem(t, index):
    if isinstance(index, Tensor) and _is_mask(index) and index.dim() > 0:
        _check_mask(t, index)
        return _C._mask_rows(t, index)
    sub, offsets, p = _plan(t, index)
    if isinstance(sub, list):  # nothing is selected
        shape = list(offsets.shape)
        return torch.empty(sub[:p] + shape + sub[p:], dtype=t.dtype)
    out = _C._take_rows(sub, offsets)
    if p:
        out = out.permute(_placed(offsets.dim(), sub.dim(), p)).contiguous()
    return out


def _check_mask(t, mask):
    if mask.dim() > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()} (got {mask.dim()})")
    for j in range(mask.dim()):
        if mask.shape[j] != t.shape[j]:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {j} does not match "
                f"the shape of the indexed tensor {list(t.shape)} at index {j}"
            )


def _setitem(t, index, value, mode=_SET):
    scalar = not isinstance(value, Tensor) or value.dim() == 0
    if isinstance(index, Tensor) and index.dtype == torch.bool and scalar and mode == _SET:
        _check_mask(t, index)  # x[mask] = number: one masked_fill pass
        mask = index.reshape(list(index.shape) + [1] * (t.dim() - index.dim()))
        _C.where(mask, _fill_value(value, t.dtype, "__setitem__"), t, out=t)
        return
    sub, offsets, p = _plan(t, index)
    if isinstance(value, (bool, int, float)):
        value = _fill_value(value, t.dtype, "__setitem__")
    elif not isinstance(value, Tensor):
        value = torch.tensor(value, dtype=t.dtype)
    if isinstance(sub, list):
        return
    nb, ns = offsets.dim(), sub.dim()
    shape = list(sub.shape[:p]) + list(offsets.shape) + list(sub.shape[p:])
    while value.dim() > len(shape) and value.shape[0] == 1:  # NumPy drops leading 1s
        value = value[0]
    try:
        value = value.expand(shape)
    except RuntimeError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast "
            f"to indexing result of shape {shape}"
        ) from None
    inverse = [*range(p, p + nb), *range(p), *range(p + nb, nb + ns)]
    _C._put_rows(t, sub, offsets, value.permute(inverse).to(t.dtype), mode)


# --- index_put, index_select, gather ---------------------------------------------------


def _index_tuple(indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put_(): argument 'indices' must be a tuple of Tensors")
    return tuple(slice(None) if i is None else i for i in indices)


def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` (``+=`` with accumulate=True, repeated indices adding up)."""
    index = _index_tuple(indices)
    if not index:
        return input.copy_(values) if not accumulate else input.add_(values)
    _setitem(input, index, values, _ADD if accumulate else _SET)
    return input


def index_put(input, indices, values, accumulate=False):
    return index_put_(input.clone(), indices, values, accumulate)


def _out(result, out):
    if out is None:
        return result
    return out.resize_(result.shape).copy_(result)


def index_select(input, dim, index, *, out=None):
    """The slices of ``input`` along ``dim`` at the positions listed in the 1-D ``index``."""
    return _out(_C._index_select(input, dim, index), out)


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` (for dim=0; likewise for other dims)."""
    return _out(_C._gather(input, dim, index), out)


# --- scatter family --------------------------------------------------------------------


def _grid(shape, dim, index):
    """Coordinates of every position of `shape` with coordinate `dim` taken from `index`."""
    coords = []
    for d, n in enumerate(shape):
        if d == dim:
            coords.append(index)
        else:
            view = [1] * len(shape)
            view[d] = n
            coords.append(torch.arange(n).reshape(view))
    return coords


def _offsets(t, coords):
    return _C._index_offsets(coords, list(t.shape), list(t.stride()), list(range(t.dim())))


def _origin(t):
    return t[(0,) * t.dim()]  # a 0-d view at t's first element


def _scatter_offsets(self, dim, index, op):
    dim = _wrap(dim, self.dim(), op)
    if index.dtype != torch.int64:
        raise RuntimeError(f"{op}(): Expected dtype int64 for index, got {index.dtype}")
    if index.dim() != builtins.max(self.dim(), 1) and not (index.dim() <= 1 and self.dim() <= 1):
        raise RuntimeError(
            f"{op}(): Index tensor must have the same number of dimensions as self tensor "
            f"({list(index.shape)} vs {list(self.shape)})"
        )
    target = self.reshape(-1) if self.dim() == 0 else self
    for d in range(index.dim()):
        if d != dim and index.shape[d] > target.shape[d]:
            raise RuntimeError(
                f"{op}(): Expected index {list(index.shape)} to be smaller than self "
                f"{list(self.shape)} apart from dimension {dim}"
            )
    if index.numel() and bool((index < 0).any()):
        bad = int(index[index < 0][0])
        raise RuntimeError(
            f"{op}(): index {bad} is out of bounds for dimension {dim} with size {self.shape[dim]}"
        )
    return target, _grid(index.shape, dim, index)


def _src_values(src, index, op):
    if isinstance(src, Tensor):
        if src.dim() != index.dim() or any(i > s for i, s in zip(index.shape, src.shape)):
            raise RuntimeError(
                f"{op}(): Expected index {list(index.shape)} to be smaller than src "
                f"{list(src.shape)}"
            )
        return src[tuple(slice(0, n) for n in index.shape)]
    return torch.tensor(src)


_IDENTITY = {"sum": 0, "prod": 1, "mean": 0}


def _extreme(dtype, largest):
    if dtype.is_floating_point:
        return float("inf") if largest else float("-inf")
    if dtype == torch.bool:
        return largest
    info = torch.iinfo(dtype)
    return info.max if largest else info.min


def _scatter_into(self, dim, index, src, mode, op, include_self=True, mean=False):
    if index.numel() == 0:
        return self
    target, coords = _scatter_offsets(self, dim, index, op)
    values = _src_values(src, index, op)
    work = target if target.is_contiguous() else target.clone()
    try:
        offsets, origin = _offsets(work, coords), _origin(work)
    except IndexError as e:  # PyTorch raises RuntimeError for scatter indices
        raise RuntimeError(f"{op}(): {e}") from None
    if not include_self:
        ident = {
            _ADD: 0,
            _MUL: 1,
            _MAX: _extreme(self.dtype, False),
            _MIN: _extreme(self.dtype, True),
        }
        _C._put_rows(work, origin, offsets, torch.tensor(ident[mode], dtype=self.dtype), _SET)
    _C._put_rows(work, origin, offsets, values, mode)
    if mean:
        count = (
            torch.ones(work.shape, dtype=self.dtype)
            if include_self
            else torch.zeros(work.shape, dtype=self.dtype)
        )
        _C._put_rows(
            count, _origin(count), _offsets(count, coords), torch.tensor(1, dtype=self.dtype), _ADD
        )
        count = count.clamp(min=1)
        work.copy_(work / count if self.dtype.is_floating_point else work // count)
    if work is not target:
        target.copy_(work)
    return self


def _reduce_mode(reduce, op):
    modes = {"add": _ADD, "multiply": _MUL}
    if reduce not in modes:
        raise RuntimeError(
            f"{op}(): reduce argument must be either add or multiply, got {reduce!r}"
        )
    return modes[reduce]


def scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    """Writes ``src`` (a tensor, or the number ``value``) into ``input`` at ``index``."""
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter_(): expected a src tensor or a value")
    mode = _SET if reduce is None else _reduce_mode(reduce, "scatter_")
    return _scatter_into(input, dim, index, src, mode, "scatter_")


def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    return _out(scatter_(input.clone(), dim, index, src, value, reduce=reduce), out)


def scatter_add_(input, dim, index, src):
    return _scatter_into(input, dim, index, src, _ADD, "scatter_add_")


def scatter_add(input, dim, index, src, *, out=None):
    return _out(scatter_add_(input.clone(), dim, index, src), out)


_REDUCTIONS = {"sum": _ADD, "prod": _MUL, "amax": _MAX, "amin": _MIN, "mean": _ADD}


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """Reduces ``src`` into ``input`` at ``index``: sum, prod, mean, amax or amin."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"scatter_reduce_(): reduce argument must be one of sum, prod, mean, amax, amin "
            f"(got {reduce!r})"
        )
    mode = _REDUCTIONS[reduce]
    return _scatter_into(
        input, dim, index, src, mode, "scatter_reduce_", include_self, mean=reduce == "mean"
    )


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    result = scatter_reduce_(input.clone(), dim, index, src, reduce, include_self=include_self)
    return _out(result, out)


# --- masked ops ------------------------------------------------------------------------


def _check_bool_mask(mask, op):
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"{op}: expected BoolTensor for mask (got {got})")


def _fill_value(value, dtype, op):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                f"{op} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.dim()} dimension(s)."
            )
        return value.to(dtype)
    return _C._full((), value, dtype)  # checked: a value that overflows the dtype raises


def masked_fill(input, mask, value):
    """``value`` where ``mask`` (broadcast) is true, ``input`` elsewhere."""
    _check_bool_mask(mask, "masked_fill")
    return torch.where(mask, _fill_value(value, input.dtype, "masked_fill"), input)


def masked_fill_(input, mask, value):
    _check_bool_mask(mask, "masked_fill_")
    torch.broadcast_shapes(mask.shape, input.shape)
    mask = mask.expand(input.shape)
    _C.where(mask, _fill_value(value, input.dtype, "masked_fill_"), input, out=input)
    return input


def masked_select(input, mask, *, out=None):
    """The elements of ``input`` where ``mask`` is true, as a 1-D tensor (both broadcast)."""
    _check_bool_mask(mask, "masked_select")
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    return _out(_C._mask_rows(input.expand(shape), mask.expand(shape)), out)


def masked_scatter_(input, mask, source):
    """Copies the first elements of ``source`` into ``input`` where ``mask`` is true, in order."""
    _check_bool_mask(mask, "masked_scatter_")
    mask = mask.expand(input.shape)
    count = int(mask.sum())
    if count > source.numel():
        raise RuntimeError(
            f"masked_scatter_: the number of elements of source ({source.numel()}) is smaller "
            f"than the number of true mask elements ({count})"
        )
    if count:
        _setitem(input, (mask,), source.reshape(-1)[:count])
    return input


def masked_scatter(input, mask, source):
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    return masked_scatter_(input.expand(shape).clone(), mask, source)


# --- index_add, index_copy, index_fill ---------------------------------------------------


def _along_dim(input, dim, index, op):
    """(target, shape, coords): every position of input's shape with `dim` resized to
    len(index), its coordinate along `dim` taken from index."""
    dim = _wrap(dim, input.dim(), op)
    if index.dim() > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, got {index.dim()} dims")
    if index.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index, got {index.dtype}")
    target = input.reshape(-1) if input.dim() == 0 else input
    index = index.reshape(-1)
    if index.numel() and bool((index < 0).any()):
        raise IndexError(f"{op}(): index {int(index[index < 0][0])} is out of range")
    shape = list(target.shape)
    shape[dim] = index.numel()
    view = [1] * len(shape)
    view[dim] = index.numel()
    return target, shape, _grid(shape, dim, index.reshape(view))


def _index_write(input, dim, index, values, mode, op):
    target, shape, coords = _along_dim(input, dim, index, op)
    if 0 in shape:
        return input
    if isinstance(values, Tensor) and values.dim() and list(values.shape) != shape:
        if not (input.dim() == 0 and values.numel() == 1):
            raise RuntimeError(
                f"{op}(): source {list(values.shape)} must have the shape of self "
                f"{list(input.shape)} with dimension {dim} of size {index.numel()}"
            )
    if isinstance(values, Tensor) and values.dim():
        values = values.reshape(shape)
    work = target if target.is_contiguous() else target.clone()
    _C._put_rows(work, _origin(work), _offsets(work, coords), values, mode)
    if work is not target:
        target.copy_(work)
    return input


def index_add_(input, dim, index, source, *, alpha=1):
    """``input[..., index[j], ...] += alpha * source[..., j, ...]`` (repeats add up)."""
    if alpha != 1:
        source = source * alpha
    return _index_write(input, dim, index, source, _ADD, "index_add_")


def index_add(input, dim, index, source, *, alpha=1, out=None):
    return _out(index_add_(input.clone(), dim, index, source, alpha=alpha), out)


def index_copy_(input, dim, index, source):
    return _index_write(input, dim, index, source, _SET, "index_copy_")


def index_copy(input, dim, index, source, *, out=None):
    return _out(index_copy_(input.clone(), dim, index, source), out)


def index_fill_(input, dim, index, value):
    value = _fill_value(value, input.dtype, "index_fill_")
    return _index_write(input, dim, index, value, _SET, "index_fill_")


def index_fill(input, dim, index, value):
    return index_fill_(input.clone(), dim, index, value)


# --- take, nonzero, where, searchsorted, counting ------------------------------------------


def take(input, index, *, out=None):
    """``input`` read as 1-D (row-major) at ``index``; the result has ``index``'s shape."""
    if index.dtype != torch.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype}")
    flat = input.reshape(-1)
    if index.numel() == 0:
        return _out(torch.empty(index.shape, dtype=input.dtype), out)
    return _out(_C._take_rows(_origin(flat), _offsets(flat, [index])), out)


def take_along_dim(input, indices, dim=None, *, out=None):
    """``gather`` with ``indices`` broadcast against ``input`` (flattened when dim is None)."""
    if dim is None:
        return take(input, indices.reshape(-1), out=out)
    dim = _wrap(dim, input.dim(), "take_along_dim")
    if indices.dim() != input.dim():
        raise RuntimeError(
            "take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {input.dim()} and {indices.dim()} dimensions respectively"
        )
    a, b = list(input.shape), list(indices.shape)
    a[dim] = b[dim] = 1
    shape = list(torch.broadcast_shapes(a, b))
    input = input.expand(shape[:dim] + [input.shape[dim]] + shape[dim + 1 :])
    indices = indices.expand(shape[:dim] + [indices.shape[dim]] + shape[dim + 1 :])
    return _out(_C._gather(input, dim, indices), out)


def nonzero(input, *, out=None, as_tuple=False):
    """Coordinates of the nonzero elements: an (n, ndim) int64 tensor, or one tensor per dim."""
    coords = _C._nonzero(input)
    if as_tuple:
        if input.dim() == 0:
            return (torch.zeros(coords.shape[0], dtype=torch.int64),)  # as if 1-D
        return tuple(coords[:, j].contiguous() for j in range(input.dim()))
    return _out(coords, out)


def argwhere(input):
    return _C._nonzero(input)


def where(condition, input=None, other=None, *, out=None):
    """``where(cond)`` is ``nonzero(cond, as_tuple=True)``; ``where(cond, x, y)`` picks."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() takes one or three arguments")
    return _C.where(condition, input, other, out=out)


def searchsorted(
    sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None
):
    """Insertion positions of ``input`` into the last dim of ``sorted_sequence``."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise RuntimeError(
                "searchsorted(): side and right can't be set to opposites, got side of left "
                "while right was True"
            )
        right = side == "right"
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter)
    values = input if isinstance(input, Tensor) else torch.tensor(input)
    return _out(_C._searchsorted(sorted_sequence, values, right, out_int32), out)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each element: ``boundaries[i-1] < x <= boundaries[i]`` (right=False)."""
    if boundaries.dim() != 1:
        raise RuntimeError(
            f"bucketize(): boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def bincount(input, weights=None, minlength=0):
    """Counts (or sums of ``weights``) of each value of a 1-D non-negative integer tensor."""
    if input.dim() != 1 or input.dtype.is_floating_point or input.dtype == torch.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.numel() and int(input.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("bincount(): minlength should be >= 0")
    n = builtins.max(int(input.max()) + 1 if input.numel() else 0, minlength)
    if weights is None:
        dtype, weights = torch.int64, torch.tensor(1)
    else:
        if weights.shape != input.shape:
            raise RuntimeError(
                "bincount(): weights should be 1-d and have the same length as input"
            )
        dtype = weights.dtype if weights.dtype.is_floating_point else torch.float64
    result = torch.zeros(n, dtype=dtype)
    if input.numel():
        _C._put_rows(result, _origin(result), input.to(torch.int64), weights.to(dtype), _ADD)
    return result


def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram of ``bins`` equal-width bins over [min, max] (the data's range if equal)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"histc(): expected a floating-point input, got {input.dtype}")
    if bins <= 0:
        raise RuntimeError("histc(): bins must be > 0")
    x = input.reshape(-1).to(torch.float64)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"histc(): max must be larger than min (got min={min}, max={max})")
    x = x[(x >= lo) & (x <= hi)]
    which = ((x - lo) * bins / (hi - lo)).to(torch.int64).clamp(max=bins - 1)
    return _out(bincount(which, minlength=bins).to(input.dtype), out)


for _name in _METHODS + _INPLACE:
    setattr(Tensor, _name, globals()[_name])
del _name
