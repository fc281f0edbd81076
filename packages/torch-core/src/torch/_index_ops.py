"""Index ops: index_select, gather, the scatter family, masked ops, index_add/copy/fill,
take, nonzero, where, searchsorted and counting (``x[index]`` itself is torch._indexing).

They read (``_C._take_rows``, ``_C._gather``, ``_C._index_select``) or write
(``_C._put_rows``) whole "rows" at element offsets that ``_C._index_offsets`` computes from
coordinate tensors; boolean masks go through ``_C._mask_rows`` and ``nonzero``.
"""

import builtins

import torch
from torch import _C
from torch._checks import check_given, dtype_name, numpy_dim, write_out
from torch._checks import wrap_dim as _wrap
from torch._indexing import _ADD, _MAX, _MIN, _MUL, _SET, _fill_value, _setitem
from torch._tensor import tensor_method

Tensor = _C.Tensor

# Functions that are also Tensor methods, and those with an in-place `name_` method.
_METHODS = (
    "index_select", "gather", "scatter", "scatter_add", "scatter_reduce", "masked_fill",
    "masked_select", "masked_scatter", "index_add", "index_copy", "index_fill", "take",
    "take_along_dim", "nonzero", "argwhere", "bincount", "histc", "index_reduce", "put",
)  # fmt: skip
_INPLACE = (
    "scatter_", "scatter_add_", "scatter_reduce_", "masked_fill_", "masked_scatter_",
    "index_add_", "index_copy_", "index_fill_", "index_reduce_", "put_",
)  # fmt: skip
__all__ = [*_METHODS, "where", "searchsorted", "bucketize"]


# --- index_select, gather ----------------------------------------------------------------


def index_select(input, dim=None, index=None, *, out=None, axis=None):
    """The slices of ``input`` along ``dim`` at the positions listed in the 1-D ``index``."""
    # NumPy's axis= for dim=, as in PyTorch (no dim or index at all: _C's TypeError)
    if axis is not None:
        dim = numpy_dim("index_select", dim, axis, required=True)
        check_given("index_select", index=index)
    return write_out(_C._index_select(input, dim, index), out)


def gather(input, dim=None, index=None, *, sparse_grad=False, out=None, axis=None):
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` (for dim=0; likewise for other dims)."""
    # NumPy's axis= for dim=, as in PyTorch (no dim or index at all: _C's TypeError)
    if axis is not None:
        dim = numpy_dim("gather", dim, axis, required=True)
        check_given("gather", index=index)
    return write_out(_C._gather(input, dim, index), out)


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
            coords.append(torch.arange(n, device=index.device).reshape(view))
    return coords


def _offsets(t, coords):
    if not coords:  # a 0-d t: its one element
        return torch.zeros((), dtype=torch.int64, device=t.device)
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
        ident_value = torch.tensor(ident[mode], dtype=self.dtype, device=work.device)
        _C._put_rows(work, origin, offsets, ident_value, _SET)
    _C._put_rows(work, origin, offsets, values, mode)
    if mean:
        count = (
            torch.ones(work.shape, dtype=self.dtype, device=work.device)
            if include_self
            else torch.zeros(work.shape, dtype=self.dtype, device=work.device)
        )
        one = torch.tensor(1, dtype=self.dtype, device=work.device)
        _C._put_rows(count, _origin(count), _offsets(count, coords), one, _ADD)
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


def scatter_(input, dim=None, index=None, src=None, value=None, *, reduce=None, axis=None):
    """Writes ``src`` (a tensor, or the number ``value``) into ``input`` at ``index``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None or index is None:
        dim = numpy_dim("scatter_", dim, axis, required=True)
        check_given("scatter_", index=index)
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter_(): expected a src tensor or a value")
    mode = _SET if reduce is None else _reduce_mode(reduce, "scatter_")
    return _scatter_into(input, dim, index, src, mode, "scatter_")


def scatter(input, dim=None, index=None, src=None, value=None, *, reduce=None, out=None, axis=None):
    """Out-of-place :meth:`Tensor.scatter_`: a copy of ``input`` in which ``src[i][j]`` (or
    ``value``) is written at ``index[i][j]`` along ``dim``; ``reduce`` ('add' or 'multiply')
    combines instead of overwriting."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None or index is None:
        dim = numpy_dim("scatter", dim, axis, required=True)
        check_given("scatter", index=index)
    return write_out(scatter_(input.clone(), dim, index, src, value, reduce=reduce), out)


def scatter_add_(input, dim=None, index=None, src=None, *, axis=None):
    """Adds ``src`` into ``input`` in place at the positions ``index`` gives along ``dim``
    (duplicates accumulate); returns ``input``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None or index is None or src is None:
        dim = numpy_dim("scatter_add_", dim, axis, required=True)
        check_given("scatter_add_", index=index, src=src)
    return _scatter_into(input, dim, index, src, _ADD, "scatter_add_")


def scatter_add(input, dim=None, index=None, src=None, *, out=None, axis=None):
    """Out-of-place :meth:`Tensor.scatter_add_`: a copy of ``input`` with ``src`` added at ``index``
    along ``dim``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None or index is None or src is None:
        dim = numpy_dim("scatter_add", dim, axis, required=True)
        check_given("scatter_add", index=index, src=src)
    return write_out(scatter_add_(input.clone(), dim, index, src), out)


_REDUCTIONS = {"sum": _ADD, "prod": _MUL, "amax": _MAX, "amin": _MIN, "mean": _ADD}


def scatter_reduce_(
    input, dim=None, index=None, src=None, reduce=None, *, include_self=True, axis=None
):
    """Reduces ``src`` into ``input`` at ``index``: sum, prod, mean, amax or amin."""
    if (
        axis is not None or dim is None or index is None or src is None or reduce is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("scatter_reduce_", dim, axis, required=True)
        check_given("scatter_reduce_", index=index, src=src, reduce=reduce)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"scatter_reduce_(): reduce argument must be one of sum, prod, mean, amax, amin "
            f"(got {reduce!r})"
        )
    mode = _REDUCTIONS[reduce]
    return _scatter_into(
        input, dim, index, src, mode, "scatter_reduce_", include_self, mean=reduce == "mean"
    )


def scatter_reduce(
    input, dim=None, index=None, src=None, reduce=None, *, include_self=True, out=None, axis=None
):
    """A copy of ``input`` in which the values of ``src`` are reduced into the positions ``index``
    gives along ``dim``, with ``reduce`` one of 'sum', 'prod', 'mean', 'amax', 'amin';
    ``include_self=False`` leaves the original values out of the reduction where something is
    scattered."""
    if (
        axis is not None or dim is None or index is None or src is None or reduce is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("scatter_reduce", dim, axis, required=True)
        check_given("scatter_reduce", index=index, src=src, reduce=reduce)
    result = scatter_reduce_(input.clone(), dim, index, src, reduce, include_self=include_self)
    return write_out(result, out)


# --- masked ops ------------------------------------------------------------------------


def _check_bool_mask(mask, op):
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"{op}: expected BoolTensor for mask (got {got})")


def masked_fill(input, mask, value):
    """``value`` where ``mask`` (broadcast) is true, ``input`` elsewhere."""
    _check_bool_mask(mask, "masked_fill")
    return torch.where(mask, _fill_value(value, input.dtype, "masked_fill"), input)


def masked_fill_(input, mask, value):
    """Writes ``value`` (a number or a 0-dim tensor) in place where the bool ``mask`` (broadcast to
    ``input``'s shape) is True; returns ``input``."""
    _check_bool_mask(mask, "masked_fill_")
    torch.broadcast_shapes(mask.shape, input.shape)
    mask = mask.expand(input.shape)
    _C.where(mask, _fill_value(value, input.dtype, "masked_fill_"), input, out=input)
    return input


def masked_select(input, mask, *, out=None):
    """The elements of ``input`` where ``mask`` is true, as a 1-D tensor (both broadcast)."""
    _check_bool_mask(mask, "masked_select")
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    return write_out(_C._mask_rows(input.expand(shape), mask.expand(shape)), out)


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
    """A copy of ``input`` (broadcast with ``mask``) in which the positions where ``mask`` is True
    take the consecutive elements of ``source``, in row-major order."""
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
    if not index.is_cpu:
        # checked on the device (reading it here would wait for the GPU): a negative index is
        # made one past the end, which the offsets' kernel reports at the next synchronisation
        index = torch.where(index < 0, target.shape[dim], index)
    elif index.numel() and bool((index < 0).any()):
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


_ROW_ADD_DTYPES = frozenset((_C.float32, _C.float64))


def _index_add_rows(input, dim, index, source, alpha):
    """index_add_ along dim 0 of a contiguous float32/float64 CPU tensor with nothing to
    record for autograd: the C++ kernel (``_C._index_add_rows_``, which checks every index).
    False when the call does not qualify (the generic path then runs)."""
    if not (
        isinstance(source, Tensor)
        and isinstance(index, Tensor)
        and input.dtype in _ROW_ADD_DTYPES
        and source.dtype == input.dtype
        and index.dtype == torch.int64
        and index.dim() <= 1
        and input.dim() >= 1
        and source.dim() == input.dim()
        and isinstance(alpha, (builtins.int, builtins.float))
        and isinstance(dim, builtins.int)
        and dim in (0, -input.dim())
        and input.is_contiguous()
        and input.is_cpu
        and source.is_cpu
        and index.is_cpu
        and not (_C.is_grad_enabled() and (input.requires_grad or source.requires_grad))
    ):
        return False
    _C._index_add_rows_(input, index.reshape(-1), source, builtins.float(alpha))
    return True


def index_add_(input, dim=None, index=None, source=None, *, alpha=1, axis=None):
    """``input[..., index[j], ...] += alpha * source[..., j, ...]`` (repeats add up)."""
    if (
        axis is not None or dim is None or index is None or source is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_add_", dim, axis, required=True)
        check_given("index_add_", index=index, source=source)
    if _index_add_rows(input, dim, index, source, alpha):
        return input
    if alpha != 1:
        source = source * alpha
    return _index_write(input, dim, index, source, _ADD, "index_add_")


def index_add(input, dim=None, index=None, source=None, *, alpha=1, out=None, axis=None):
    """Out-of-place :meth:`Tensor.index_add_`: a copy of ``input`` with ``alpha * source`` added to
    the slices ``index`` selects along ``dim``."""
    if (
        axis is not None or dim is None or index is None or source is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_add", dim, axis, required=True)
        check_given("index_add", index=index, source=source)
    return write_out(index_add_(input.clone(), dim, index, source, alpha=alpha), out)


def index_copy_(input, dim=None, index=None, source=None, *, axis=None):
    """Copies the slices of ``source`` into ``input`` in place, at the positions ``index`` gives
    along ``dim``; returns ``input``."""
    if (
        axis is not None or dim is None or index is None or source is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_copy_", dim, axis, required=True)
        check_given("index_copy_", index=index, source=source)
    return _index_write(input, dim, index, source, _SET, "index_copy_")


def index_copy(input, dim=None, index=None, source=None, *, out=None, axis=None):
    """Out-of-place :meth:`Tensor.index_copy_`: a copy of ``input`` with the slices of ``source``
    written at ``index`` along ``dim``."""
    if (
        axis is not None or dim is None or index is None or source is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_copy", dim, axis, required=True)
        check_given("index_copy", index=index, source=source)
    return write_out(index_copy_(input.clone(), dim, index, source), out)


def index_fill_(input, dim=None, index=None, value=None, *, axis=None):
    """Fills the slices ``index`` selects along ``dim`` with ``value`` (a number or a 0-dim tensor)
    in place; returns ``input``."""
    if (
        axis is not None or dim is None or index is None or value is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_fill_", dim, axis, required=True)
        check_given("index_fill_", index=index, value=value)
    value = _fill_value(value, input.dtype, "index_fill_")
    if value.requires_grad:
        # a fill: the value reads the gradient once per filled element, also where the
        # index repeats (as in PyTorch), which masked_fill_ records
        mask = _C._full(tuple(input.shape), False, torch.bool).to(input.device)
        _index_write(mask, dim, index, _fill_value(True, torch.bool, "index_fill_"), _SET,
                     "index_fill_")  # fmt: skip
        return input.masked_fill_(mask, value)
    return _index_write(input, dim, index, value, _SET, "index_fill_")


def index_fill(input, dim=None, index=None, value=None, *, axis=None):
    """Out-of-place :meth:`Tensor.index_fill_`: a copy of ``input`` with the slices ``index``
    selects along ``dim`` set to ``value``."""
    if (
        axis is not None or dim is None or index is None or value is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_fill", dim, axis, required=True)
        check_given("index_fill", index=index, value=value)
    return index_fill_(input.clone(), dim, index, value)


# --- take, nonzero, where, searchsorted, counting ------------------------------------------


def take(input, index, *, out=None):
    """``input`` read as 1-D (row-major) at ``index``; the result has ``index``'s shape."""
    if index.dtype != torch.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype}")
    flat = input.reshape(-1)
    if index.numel() == 0:
        return write_out(torch.empty(index.shape, dtype=input.dtype, device=input.device), out)
    return write_out(_C._take_rows(_origin(flat), _offsets(flat, [index])), out)


def take_along_dim(input, indices, dim=None, *, out=None, axis=None):
    """``gather`` with ``indices`` broadcast against ``input`` (flattened when dim is None)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("take_along_dim", dim, axis)
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
    return write_out(_C._gather(input, dim, indices), out)


def nonzero(input, *, out=None, as_tuple=False):
    """Coordinates of the nonzero elements: an (n, ndim) int64 tensor, or one tensor per dim."""
    coords = _C._nonzero(input)
    if as_tuple:
        if input.dim() == 0:
            return (torch.zeros(coords.shape[0], dtype=torch.int64),)  # as if 1-D
        return tuple(coords[:, j].contiguous() for j in range(input.dim()))
    return write_out(coords, out)


def argwhere(input):
    """The indices of the non-zero elements of ``input``, one row per element: an int64 tensor of
    shape ``(n, input.dim())``."""
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
    return write_out(_C._searchsorted(sorted_sequence, values, right, out_int32), out)


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
        dtype, weights = torch.int64, torch.tensor(1, device=input.device)
    else:
        if weights.shape != input.shape:
            raise RuntimeError(
                "bincount(): weights should be 1-d and have the same length as input"
            )
        dtype = weights.dtype if weights.dtype.is_floating_point else torch.float64
    result = torch.zeros(n, dtype=dtype, device=input.device)
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
    return write_out(bincount(which, minlength=bins).to(input.dtype), out)


# --- put, index_reduce ------------------------------------------------------------------
# Both write through a differentiable out-of-place op (index_put, scatter_reduce) and copy the
# result into ``input``, so that autograd records them like any in-place op.


def put_(input, index, source, accumulate=False):
    """Writes (or with ``accumulate`` adds) the values of ``source`` at the flat, row-major
    positions ``index`` of ``input``, as if it were 1-D (negative positions count from the
    end); returns ``input``."""
    if not isinstance(index, Tensor) or index.dtype != torch.int64:
        got = dtype_name(index.dtype) if isinstance(index, Tensor) else builtins.type(index)
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {got}")
    if source.dtype != input.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{dtype_name(input.dtype)} and source.dtype = {dtype_name(source.dtype)}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        bad = flat_index[(flat_index >= n) | (flat_index < -n)]
        if bad.numel():
            raise IndexError(
                f"out of range: tried to access index {builtins.int(bad[0])} on a tensor of {n} "
                "elements."
            )
    flat_index = torch.where(flat_index < 0, flat_index + n, flat_index)
    flat = input.reshape(-1).index_put((flat_index,), source.reshape(-1), accumulate)
    return input.copy_(flat.reshape(input.shape))


def put(input, index, source, accumulate=False):
    """Out-of-place :meth:`Tensor.put_`: a copy of ``input`` with ``source`` put at the flat
    positions ``index``."""
    return put_(input.clone(), index, source, accumulate)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce_(
    input, dim=None, index=None, source=None, reduce=None, *, include_self=True, axis=None
):
    """Reduces the slices of ``source`` along ``dim`` into the slices ``index`` names of
    ``input``, with ``reduce`` one of 'prod', 'mean', 'amax', 'amin'; ``include_self=False``
    leaves the original values of those slices out. Returns ``input``."""
    if (
        axis is not None or dim is None or index is None or source is None or reduce is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_reduce_", dim, axis, required=True)
        check_given("index_reduce_", index=index, source=source, reduce=reduce)
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    if index.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(
            f"index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{dtype_name(index.dtype)}"
        )
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({dtype_name(input.dtype)}) and source "
            f"({dtype_name(source.dtype)}) must have the same scalar type"
        )
    d = _wrap(dim, builtins.max(source.dim(), 1), "index_reduce_")
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    count = source.shape[d] if source.dim() else 1
    if index.numel() != count:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({count}), for dim: {dim}"
        )
    size = input.shape[d] if input.dim() else 1
    if index.numel() and builtins.bool(((index < 0) | (index >= size)).any()):
        raise IndexError("index out of range in self")
    shape = [1] * source.dim()
    if shape:
        shape[d] = -1
    positions = index.to(torch.int64).reshape(shape).expand(source.shape)
    result = input.scatter_reduce(d, positions, source, reduce, include_self=include_self)
    return input.copy_(result)


def index_reduce(
    input, dim=None, index=None, source=None, reduce=None, *, include_self=True, out=None, axis=None
):
    """Out-of-place :meth:`Tensor.index_reduce_`."""
    if (
        axis is not None or dim is None or index is None or source is None or reduce is None
    ):  # (NumPy's axis= for dim=)
        dim = numpy_dim("index_reduce", dim, axis, required=True)
        check_given("index_reduce", index=index, source=source, reduce=reduce)
    result = index_reduce_(input.clone(), dim, index, source, reduce, include_self=include_self)
    return write_out(result, out)


for _name in _METHODS + _INPLACE:
    tensor_method(globals()[_name], _name)
del _name
