"""Indexing with an index expression: ``x[index]``, ``x[index] = v`` and ``index_put``
(the gather/scatter family of index ops is in torch._index_ops).

Every advanced index reduces to element offsets into the indexed tensor: the C++ core
checks and combines index tensors into offsets (``_C._index_offsets``) and then reads
(``_C._take_rows``) or writes (``_C._put_rows``) whole "rows" of the remaining dims at
those offsets. Boolean masks become integer indices through ``nonzero``; ``x[mask]`` has its
own parallel kernel. The C++ ``__getitem__``/``__setitem__`` call ``_getitem``/``_setitem``
here for advanced indices.
"""

import builtins
import operator

import torch
from torch import _C
from torch._tensor import tensor_method

Tensor = _C.Tensor

_SET, _ADD, _MUL, _MAX, _MIN = range(5)  # the write modes of _C._put_rows
_INDEX_DTYPES = ("int64", "int32", "int16", "int8", "uint8", "bool")

__all__ = ["index_put"]


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
        return torch.empty(sub[:p] + shape + sub[p:], dtype=t.dtype, device=t.device)
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


def _fill_value(value, dtype, op):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                f"{op} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.dim()} dimension(s)."
            )
        return value.to(dtype)
    return _C._full((), value, dtype)  # checked: a value that overflows the dtype raises


# --- index_put -------------------------------------------------------------------------


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
    """Out-of-place :meth:`Tensor.index_put_`: a copy of ``input`` with ``values`` written at
    ``input[indices]`` (``indices`` a tuple of index tensors), or added there when
    ``accumulate``."""
    return index_put_(input.clone(), indices, values, accumulate)


tensor_method(index_put)
tensor_method(index_put_)
