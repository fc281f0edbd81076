"""Op registry entries for shape ops; joined into ``_op_registry.OPS``.

Kinds: "shape" ops return one tensor; "shape_multi" ops return a tuple of tensors (split,
chunk, meshgrid, ...), each compared with the matching array of the NumPy reference's list.
Ops taking a list of tensors are called through ``fn`` with the tensors as positional
arguments, so that the samples stay plain data.
"""

import numpy as np

import torch
from torch.testing._op_registry import ALL, NUMERIC, OpInfo, T, f64, fixed, i32, i64, on, u8


def _shape(name, ref, *samples, dtypes=ALL, **kw):
    kw = {"inplace": False, "out": False, **kw}
    return OpInfo(name, "shape", ref, dtypes, fixed(*samples), **kw)


def _multi(name, ref, *samples, dtypes=ALL, **kw):
    kw = {"inplace": False, "out": False, **kw}
    return OpInfo(name, "shape_multi", ref, dtypes, fixed(*samples), **kw)


def _joined(name, np_fn, *samples, torch_name=None, **kw):
    """An op taking a list of tensors, torch.<name>(tensors, **kw), called as
    fn(*tensors, **kw); the NumPy reference gets the arrays as one list too."""
    fn = getattr(torch, torch_name or name)
    return _shape(
        name,
        lambda *a, **k: np_fn(list(a), **k),
        *samples,
        fn=lambda *ts, **k: fn(ts, **k),
        method=False,
        **kw,
    )


def _np_cat(arrays, dim=0):
    kept = [a for a in arrays if not (a.ndim == 1 and a.size == 0)] or arrays[:1]
    return np.concatenate(kept, axis=dim)


def _np_split(a, size_or_sizes, dim=0):
    n = a.shape[dim]
    if isinstance(size_or_sizes, int):
        if n == 0:
            return [a]
        return np.split(a, list(range(size_or_sizes, n, size_or_sizes)), axis=dim)
    return np.split(a, np.cumsum(size_or_sizes)[:-1], axis=dim)


def _np_chunk(a, chunks, dim=0):
    n = a.shape[dim]
    if n == 0:
        return [a] * chunks
    return _np_split(a, -(-n // chunks), dim)


def _np_tensor_split(a, spec, dim=0):
    return np.array_split(a, spec, axis=dim) if isinstance(spec, int) else np.split(a, spec, dim)


def _np_unflatten(a, dim, sizes):
    d = dim % a.ndim
    return a.reshape(a.shape[:d] + tuple(sizes) + a.shape[d + 1 :])


def _np_diag_embed(a, offset=0, dim1=-2, dim2=-1):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    i = np.arange(a.shape[-1])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., rows, cols] = a
    nd = a.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    rest = [d for d in range(nd) if d not in (d1, d2)]
    order = [0] * nd
    for src, dst in zip(range(nd - 2), rest):
        order[dst] = src
    order[d1], order[d2] = nd - 2, nd - 1
    return np.transpose(out, order)


def _np_tri_indices(fn):
    return lambda n, m, offset=0: np.stack(fn(n, offset, m)).astype(np.int64)


def _np_cartesian(*arrays):
    if len(arrays) == 1:
        return arrays[0]
    return np.stack([g.ravel() for g in np.meshgrid(*arrays, indexing="ij")], 1)


def _promoted(other):
    return lambda dtype: torch.promote_types(dtype, other)


# Tensor repeats of repeat_interleave are drawn from this range (argument 1).
REPEATS_DOMAIN = ((-3, 3), (0, 3))

# fmt: off
OPS = [
    # joining
    _joined("cat", _np_cat,
            on(T((2, 3)), T((4, 3))), on(T((2, 3)), T((2, 1)), T((2, 0)), dim=1),
            on(T((3, 4), "t"), T((3, 2), "s"), T((3, 4), "o"), dim=-1),
            on(T((4, 5), "e"), T((2, 5))), on(T((5,)), T((3,)), T((0,))),
            on(T((0,)), T((2, 3)), T((0,))), on(T((2, 3))),
            on(T((64, 600)), T((64, 700)), dim=1), on(T((300, 64)), T((300, 64), "t")),
            on(T((0, 3)), T((0, 3))), on(T((2, 3, 4)), T((2, 1, 4)), dim=1)),
    # mixed dtypes promote (the empty 1-D tensor is skipped, but its dtype counts)
    _joined("cat.i32", _np_cat, on(T((2, 3)), T((1, 3), dtype=i32)),
            on(T((2, 1), dtype=i32), T((2, 3), "t"), dim=1), torch_name="cat",
            result=_promoted(i32)),
    _joined("cat.u8", _np_cat, on(T((2, 2), dtype=u8), T((2, 3)), dim=1), torch_name="cat",
            result=_promoted(u8)),
    _joined("cat.f64", _np_cat, on(T((0,), dtype=f64), T((3,))), torch_name="cat",
            result=_promoted(f64)),
    _joined("stack", lambda a, dim=0: np.stack(a, axis=dim),
            on(T((2, 3)), T((2, 3))), on(T((2, 3)), T((2, 3)), T((2, 3)), dim=1),
            on(T((2, 3), "t"), T((2, 3), "s"), dim=2), on(T(()), T(())),
            on(T((3, 4)), T((3, 4), "e"), dim=-1), on(T((0, 2)), T((0, 2)))),
    _joined("hstack", np.hstack, on(T((3,)), T((2,))), on(T((2, 3)), T((2, 1))),
            on(T(()), T((2,))), on(T((2, 3), "t"), T((2, 2)))),
    _joined("vstack", np.vstack, on(T((3,)), T((3,))), on(T((2, 3)), T((1, 3))),
            on(T(()), T(())), on(T((2, 3, 4)), T((1, 3, 4), "s"))),
    _joined("dstack", np.dstack, on(T((3,)), T((3,))), on(T((2, 3)), T((2, 3))),
            on(T(()), T(())), on(T((2, 3, 4)), T((2, 3, 1)))),
    _joined("column_stack", np.column_stack, on(T((3,)), T((3,))), on(T((3, 2)), T((3,))),
            on(T(()), T(()))),

    # splitting into views
    _multi("split", _np_split,
           on(T((7, 3)), 2), on(T((6, 4)), 3, 1), on(T((6, 4)), [1, 2, 3]),
           on(T((3, 6)), [6, 0], -1),
           on(T((5, 4), "t"), 4, 1), on(T((0, 2)), 0), on(T((4,)), 10)),
    _multi("chunk", _np_chunk,
           on(T((7, 3)), 3), on(T((6, 4)), 4, 1), on(T((5,)), 10), on(T((0,)), 2),
           on(T((4, 6), "s"), 2, -1)),
    _multi("tensor_split", _np_tensor_split,
           on(T((7, 3)), 3), on(T((3, 7)), 4, 1), on(T((6,)), [1, 4]), on(T((6, 2)), [3, 1, 9]),
           on(T((2,)), 5), on(T((4, 5), "t"), [2], 1), on(T((6,)), [-2, 4])),
    _multi("unbind", lambda a, dim=0: [np.take(a, i, axis=dim) for i in range(a.shape[dim])],
           on(T((3, 4))), on(T((3, 4)), 1), on(T((2, 3, 4), "s"), -1), on(T((0, 3))),
           on(T((1,)))),
    _multi("hsplit", lambda a, s: np.hsplit(a, s), on(T((4, 6)), 3), on(T((6,)), [1, 4])),
    _multi("vsplit", lambda a, s: np.vsplit(a, s), on(T((6, 4)), 2), on(T((5, 2)), [2])),
    _multi("dsplit", lambda a, s: np.dsplit(a, s), on(T((2, 2, 6)), 3)),
    _shape("unflatten", _np_unflatten,
           on(T((2, 12)), 1, (3, 4)), on(T((12,)), 0, (2, -1, 3)), on(T((6, 4), "t"), 0, (3, 2)),
           on(T((0, 4)), 1, (2, 2)), on(T((6,)), -1, (6,))),

    # repeating
    _shape("repeat", lambda a, *r: np.tile(a, r), on(T((2, 3)), 2, 3), on(T((3,)), 2, 1, 2),
           on(T(()), 4), on(T((2, 3), "t"), 1, 0), on(T((3, 1), "e"), 2, 2),
           on(T((0, 2)), 3, 1), fn=lambda x, *r: x.repeat(*r), method=False),
    _shape("tile", np.tile, on(T((2, 3)), (2,)), on(T((3,)), (2, 2)), on(T(()), (3,)),
           on(T((2, 3), "s"), (2, 1))),
    _shape("repeat_interleave", lambda a, r, dim=None: np.repeat(a, r, axis=dim),
           on(T((2, 3)), 2), on(T((2, 3)), 3, dim=1), on(T((2, 3)), T((2,), dtype=i64), dim=0),
           on(T((3, 4), "t"), T((4,), dtype=i64), dim=-1), on(T(()), 3),
           on(T((3,)), T((1,), dtype=i64)), on(T((2, 0)), 2, dim=1),
           on(T((200, 300)), T((300,), dtype=i64), dim=1), domain=REPEATS_DOMAIN),

    # flipping, rolling
    _shape("flip", lambda a, dims: np.flip(a, dims), on(T((2, 3, 4)), (0,)),
           on(T((2, 3, 4)), (0, 2)), on(T((2, 3, 4)), (-1,)), on(T((3, 4), "t"), (0, 1)),
           on(T((4, 5), "e"), (0,)), on(T(()), ()), on(T((0, 3)), (1,)), on(T((300, 200)), (1,))),
    _shape("fliplr", np.fliplr, on(T((3, 4))), on(T((2, 3, 4), "s"))),
    _shape("flipud", np.flipud, on(T((3, 4))), on(T((5,), "o"))),
    _shape("roll", lambda a, s, dims=None: np.roll(a, s, axis=dims),
           on(T((3, 4)), 1), on(T((3, 4)), -5), on(T((3, 4)), 2, 1), on(T((3, 4)), (1, 2), (0, 1)),
           on(T((3, 4), "t"), (1, -1), (1, 0)), on(T((0, 3)), 1, 0), on(T((5,)), 0),
           on(T((2, 3, 4), "s"), 7, -1), on(T(()), 1),
           on(T((3, 4)), (1, 2), (1, 1)), on(T((2, 3, 4), "t"), (1, -1, 2), (0, 1, 2))),
    _shape("rot90", lambda a, k=1, dims=(0, 1): np.rot90(a, k, dims),
           on(T((3, 4))), on(T((3, 4)), 2), on(T((3, 4)), 3), on(T((3, 4)), -1), on(T((3, 4)), 4),
           on(T((2, 3, 4)), 1, (1, 2)), on(T((2, 3, 4), "t"), 1, (2, 0))),

    # triangles, diagonals
    _shape("tril", lambda a, k=0: np.tril(a, k),
           on(T((4, 5))), on(T((4, 5)), 1), on(T((4, 5)), -2), on(T((4, 5)), 9), on(T((4, 5)), -9),
           on(T((2, 3, 4), "t")), on(T((5, 4), "s"), -1), on(T((0, 3))), on(T((2, 0, 3))),
           on(T((3, 300, 300)), 1)),
    _shape("triu", lambda a, k=0: np.triu(a, k),
           on(T((4, 5))), on(T((4, 5)), 1), on(T((4, 5)), -2), on(T((4, 5)), 9),
           on(T((2, 3, 4), "t")), on(T((5, 4), "e"), 2), on(T((0, 3)))),
    _shape("tril_indices", _np_tri_indices(np.tril_indices),
           on(3, 3), on(4, 3, 1), on(3, 5, -1), on(0, 3), on(3, 4, -9), dtypes=(i64,),
           method=False),
    _shape("triu_indices", _np_tri_indices(np.triu_indices),
           on(3, 3), on(4, 3, 1), on(3, 5, -1), on(2, 2, 5), dtypes=(i64,), method=False),
    _shape("diag", lambda a, k=0: np.diag(a, k), on(T((4,))), on(T((3,)), 2), on(T((3,)), -1),
           on(T((3, 4))), on(T((3, 4)), 1), on(T((3, 4), "t"), -2), on(T((0,)))),
    _shape("diag_embed", _np_diag_embed, on(T((3,))), on(T((2, 3))), on(T((2, 3)), 1),
           on(T((2, 3)), -1, 0, 2), on(T((2, 3), "t"), 0, -1, 0)),
    _shape("outer", np.outer, on(T((3,)), T((4,))), on(T((3,), "o"), T((2,), "s")),
           on(T((0,)), T((3,)))),
    _shape("kron", np.kron, on(T((2, 3)), T((3, 2))), on(T((2,)), T((3,))),
           on(T((2, 2)), T((3,))), on(T((2, 3)), T((2, 1, 2))),
           on(T((3, 2), "o"), T((2, 2))), dtypes=NUMERIC),

    # moving dims, broadcasting
    _shape("movedim", np.moveaxis, on(T((2, 3, 4)), 0, 2), on(T((2, 3, 4)), (0, 1), (2, 0)),
           on(T((2, 3, 4), "t"), -1, 0), on(T(()), (), ())),
    _shape("moveaxis", np.moveaxis, on(T((2, 3, 4)), 1, -1)),
    _shape("broadcast_to", np.broadcast_to, on(T((3, 1)), (2, 3, 4)), on(T(()), (2,)),
           on(T((3,), "s"), (2, 3))),
    _multi("broadcast_tensors", lambda *a: np.broadcast_arrays(*a),
           on(T((3, 1)), T((4,))), on(T(()), T((2, 3)), T((3,), "s")), method=False),
    _multi("meshgrid", lambda *a, indexing: np.meshgrid(*a, indexing=indexing),
           on(T((3,)), T((4,)), indexing="ij"), on(T((3,)), T((4,)), indexing="xy"),
           on(T((2,)), T((3,)), T((4,)), indexing="xy"), on(T((2,)), T(()), indexing="ij"),
           on(T((3,), "s"), indexing="ij"), method=False),
    _shape("cartesian_prod", _np_cartesian, on(T((3,)), T((2,))), on(T((2,)), T((2,)), T((3,))),
           on(T((3,)),), on(T((3,), "s"), T((0,))), method=False),
]
# fmt: on
