"""Op registry entries for advanced indexing and index ops; joined into ``_op_registry.OPS``.

Entries use the helpers of ``torch.testing._op_registry`` (OpInfo, T, S, on, fixed, ...).
Index arguments are fixed int64 tensors (the same for every dtype); masks are drawn as
random bool tensors (``T(shape, dtype=b8)``). Kind: "index".
"""

import numpy as np

import torch
from torch.testing._op_registry import ALL, FLOATS, INTS, NUMERIC, OpInfo, T, b8, fixed, on

LI = lambda values: torch.tensor(values, dtype=torch.int64)  # noqa: E731
M = lambda *shape: T(shape, dtype=b8)  # noqa: E731


def _np(x):
    return x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


# integer results: no gradient
_NOT_DIFFERENTIABLE = {
    "nonzero", "argwhere", "where_one_arg", "searchsorted", "bucketize", "bincount", "histc"
}  # fmt: skip


def _index(name, ref, samples, dtypes=ALL, result="same", **kw):
    kw = {"inplace": False, "differentiable": name not in _NOT_DIFFERENTIABLE, **kw}
    return OpInfo(name, "index", ref, dtypes, fixed(*samples), result=result, **kw)


# --- NumPy references ------------------------------------------------------------------


def _np_index_select(a, dim, index):
    return np.take(a, _np(index), axis=dim)


def _np_gather(a, dim, index):
    index = _np(index)
    a = a[tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))]
    return np.take_along_axis(a, index, axis=dim)


_COMBINE = {
    None: lambda old, new: new,
    "add": np.add,
    "sum": np.add,
    "multiply": np.multiply,
    "prod": np.multiply,
    "amax": np.fmax,
    "amin": np.fmin,
}


def _np_scatter_loop(a, dim, index, src, reduce=None, include_self=True):
    """Scatter by a plain loop over index positions (the definition, not a fast path)."""
    out, index = a.copy(), _np(index)
    src = np.broadcast_to(np.asarray(src, dtype=a.dtype), index.shape) if np.ndim(src) == 0 else src
    seen = {}
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        target = tuple(target)
        if target not in seen:
            seen[target] = [] if not include_self or reduce is None else [a[target]]
        seen[target].append(src[pos])
    for target, values in seen.items():
        if reduce == "mean":
            total = np.sum(np.array(values, dtype=a.dtype))
            mean = total / len(values)
            out[target] = mean if a.dtype.kind == "f" else np.floor(mean)
        else:
            acc = values[0]
            for v in values[1:]:
                acc = _COMBINE[reduce](acc, v)
            out[target] = acc
    return out


def _np_scatter(a, dim, index, src=None, value=None, reduce=None):
    return _np_scatter_loop(a, dim, index, value if src is None else src, reduce)


def _np_scatter_add(a, dim, index, src):
    return _np_scatter_loop(a, dim, index, src, "add")


def _np_scatter_reduce(a, dim, index, src, reduce, include_self=True):
    return _np_scatter_loop(a, dim, index, src, reduce, include_self)


def _np_masked_fill(a, mask, value):
    return np.where(mask, np.asarray(value, dtype=a.dtype), a)


def _np_masked_select(a, mask):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def _np_masked_scatter(a, mask, source):
    out = a.copy()
    count = int(mask.sum())
    out[np.broadcast_to(mask, a.shape)] = source.reshape(-1)[:count]
    return out


def _np_index_write(mode):
    def ref(a, dim, index, source, alpha=1):
        out = np.moveaxis(a.copy(), dim, 0)
        source = np.moveaxis(np.asarray(source), dim, 0) if np.ndim(source) else source
        for j, i in enumerate(_np(index)):
            v = source[j] if np.ndim(source) else source
            out[i] = out[i] + alpha * v if mode == "add" else v
        return np.moveaxis(out, 0, dim)

    return ref


def _np_take_along_dim(a, indices, dim=None):
    if dim is None:
        return a.reshape(-1)[_np(indices).reshape(-1)]
    index = _np(indices)
    common = np.broadcast_shapes(
        *[tuple(1 if d == dim else n for d, n in enumerate(x.shape)) for x in (a, index)]
    )
    at = lambda x: common[:dim] + (x.shape[dim],) + common[dim + 1 :]  # noqa: E731
    return np.take_along_axis(np.broadcast_to(a, at(a)), np.broadcast_to(index, at(index)), dim)


def _np_searchsorted(seq, values, right=False, side=None, sorter=None):
    side = side or ("right" if right else "left")
    seq, values = np.asarray(seq), np.asarray(values)
    if sorter is not None:
        seq = np.take_along_axis(seq, _np(sorter), axis=-1)
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side)
    flat_seq, flat_values = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
    rows = [np.searchsorted(s, v, side=side) for s, v in zip(flat_seq, flat_values)]
    return np.array(rows).reshape(values.shape)


def _np_bucketize(values, boundaries, right=False):
    return np.searchsorted(boundaries, values, side="right" if right else "left")


def _np_key(index):
    """An index expression with its tensors as NumPy arrays."""
    items = index if isinstance(index, tuple) else (index,)
    return tuple(_np(i) if isinstance(i, torch.Tensor) else i for i in items)


def _np_getitem(a, index):
    return a[_np_key(index)]


def _np_index_put(a, indices, values, accumulate=False):
    out, key = a.copy(), _np_key(tuple(indices))
    if accumulate:
        np.add.at(out, key, values)
    else:
        out[key] = values
    return out


def _np_histc(a, bins=100, min=0, max=0):
    lo, hi = (a.min(), a.max()) if min == max else (min, max)
    return np.histogram(a, bins=bins, range=(lo, hi))[0]


# --- the entries -----------------------------------------------------------------------

_SCATTER_INDEX = LI([[0, 2, 1], [3, 0, 0]])  # into a (4, 5) tensor along dim 0
_UNIQUE_ROWS = LI([[0, 2, 1], [3, 1, 0]])  # no repeats within a column
_ROW_INDEX = LI([[4, 0], [1, 1], [2, 3]])  # along dim 1 of a (3, 5) tensor

_MASK = torch.tensor([[True, False, True], [False, False, True]])

OPS = [
    *[
        _index(
            f"getitem_{name}",
            _np_getitem,
            [on(T((2, 3, 4)), index), on(T((2, 3, 4), "t"), index)],
            torch_name="__getitem__",
            fn=lambda x, index: x[index],
            method=False,
            out=False,
        )
        for name, index in [
            ("ints", LI([1, 0, 1])),
            ("int_pair", (LI([[0], [1]]), slice(None), LI([3, 0]))),  # separated: to the front
            ("adjacent", (slice(None), LI([2, 0]), LI([1, 1]))),
            ("mask", _MASK),
            ("mask_last", (Ellipsis, torch.tensor([True, False, False, True]))),
            ("mixed", (None, slice(None, None, 2), 1, LI([-1, 0]))),  # int next to the tensor
        ]
    ],
    _index(
        "index_put",
        _np_index_put,
        [
            on(T((4, 3)), (LI([0, 2, 0]),), T((3, 3)), True),
            on(T((4, 3)), (LI([3, 1]), LI([2, 2])), T((2,))),
            on(T((2, 3)), (_MASK,), T(())),
        ],
        dtypes=NUMERIC,
        method=False,
        out=False,
    ),
    _index(
        "index_select",
        _np_index_select,
        [
            on(T((5, 4)), 0, LI([4, 0, 2, 2])),
            on(T((5, 4), "t"), 1, LI([3, 1])),
            on(T((2, 3, 4)), -1, LI([0, 3])),
            on(
                T((5,)),
                0,
                LI(
                    [],
                ),
            ),
        ],
    ),
    _index(
        "gather",
        _np_gather,
        [
            on(T((3, 5)), 1, _ROW_INDEX),
            on(T((4, 5), "t"), 0, _SCATTER_INDEX),
            on(T((2, 3, 4)), 2, LI([[[3]], [[0]]])),
        ],
    ),
    _index("scatter", _np_scatter, [on(T((4, 5)), 0, _UNIQUE_ROWS, T((2, 3)))]),
    _index(
        "scatter_value",
        lambda a, dim, index, value: _np_scatter(a, dim, index, value=value),
        [on(T((4, 5)), 0, _SCATTER_INDEX, 1), on(T((3, 5)), 1, _ROW_INDEX, 0)],
        torch_name="scatter",
        fn=lambda x, dim, index, value: torch.scatter(x, dim, index, value=value),
        method=False,
    ),
    _index(
        "scatter_add",
        _np_scatter_add,
        [on(T((4, 5)), 0, _SCATTER_INDEX, T((2, 3))), on(T((3, 5)), 1, _ROW_INDEX, T((3, 2)))],
        dtypes=NUMERIC,
    ),
    *[
        _index(
            f"scatter_reduce_{reduce}{'' if include_self else '_noself'}",
            _np_scatter_reduce,
            [on(T((4, 5)), 0, _SCATTER_INDEX, T((2, 3)), reduce, include_self=include_self)],
            dtypes=FLOATS + INTS if reduce != "mean" else FLOATS + (torch.int64,),
            torch_name="scatter_reduce",
            fn=lambda *a, **k: torch.scatter_reduce(*a, **k),
        )
        for reduce in ("sum", "prod", "mean", "amax", "amin")
        for include_self in (True, False)
    ],
    _index(
        "masked_fill",
        _np_masked_fill,
        [on(T((3, 4)), M(3, 4), 2), on(T((3, 4)), M(4), 0), on(T((2, 3), "t"), M(2, 3), 1)],
    ),
    _index("masked_select", _np_masked_select, [on(T((3, 4)), M(3, 4)), on(T((3, 4)), M(4))]),
    _index("masked_scatter", _np_masked_scatter, [on(T((3, 4)), M(3, 4), T((12,)))]),
    _index(
        "index_add",
        _np_index_write("add"),
        [on(T((5, 3)), 0, LI([0, 4, 0]), T((3, 3))), on(T((3, 5)), 1, LI([1, 1]), T((3, 2)))],
        dtypes=NUMERIC,
    ),
    _index(
        "index_add_alpha",
        lambda a, dim, index, source, alpha: _np_index_write("add")(a, dim, index, source, alpha),
        [on(T((5, 3)), 0, LI([0, 4, 0]), T((3, 3)), alpha=2)],
        dtypes=FLOATS,
        torch_name="index_add",
    ),
    _index(
        "index_copy",
        _np_index_write("copy"),
        [on(T((5, 3)), 0, LI([4, 0]), T((2, 3))), on(T((3, 5), "t"), 1, LI([2]), T((3, 1)))],
    ),
    _index(
        "index_fill",
        _np_index_write("fill"),
        [on(T((5, 3)), 0, LI([4, 0]), 1), on(T((3, 5)), -1, LI([2, 3]), 0)],
        out=False,
    ),
    _index(
        "take",
        lambda a, index: a.reshape(-1)[_np(index)],
        [on(T((3, 4)), LI([[0, 11], [-1, 5]])), on(T((3, 4), "t"), LI([7]))],
    ),
    _index(
        "take_along_dim",
        _np_take_along_dim,
        [
            on(T((3, 5)), _ROW_INDEX, 1),
            on(T((3, 5)), LI([[2, 0, 1, 1, 0]]), 0),
            on(T((3, 1)), LI([[0, 0, 0, 0]]), 0),
            on(T((3, 4)), LI([11, 0])),
        ],
    ),
    _index(
        "nonzero", np.argwhere, [on(T((3, 4))), on(T((2, 3, 2), "t")), on(T((5,)))], result="long"
    ),  # fmt: skip
    _index("argwhere", np.argwhere, [on(T((3, 4))), on(T((0, 2)))], result="long", out=False),
    _index(
        "where_one_arg",
        np.nonzero,
        [on(T((3, 4)))],
        result=("long", "long"),
        torch_name="where",
        fn=lambda x: torch.where(x),
        method=False,
        out=False,
    ),
    _index(
        "searchsorted",
        _np_searchsorted,
        [
            on(LI([1, 3, 5, 7, 9]).double(), T((3, 4))),
            on(LI([[1, 3, 5], [0, 2, 2]]).double(), T((2, 4)), right=True),
            on(LI([1, 2, 2, 3]).double(), T((6,)), side="right"),
            on(LI([5, 1, 3]).double(), T((4,)), sorter=LI([1, 2, 0])),
        ],
        dtypes=(torch.float64,),
        result="long",
        method=False,
    ),
    _index(
        "bucketize",
        _np_bucketize,
        [on(T((3, 4)), LI([-2, 0, 1, 2]).double()), on(T((5,)), LI([0, 1]).double(), right=True)],
        dtypes=(torch.float64,),
        result="long",
        method=False,
    ),
    _index(
        "bincount",
        lambda a, weights=None, minlength=0: np.bincount(a, weights, minlength),
        [
            on(LI([0, 3, 3, 1, 7])),
            on(LI([2, 2]), minlength=5),
            on(
                LI(
                    [],
                )
            ),
        ],
        dtypes=(torch.int64,),
        result="long",
        out=False,
    ),
    _index(
        "histc",
        _np_histc,
        [on(T((50,)), bins=7), on(T((4, 5)), bins=4, min=-1, max=1), on(T((6,)))],
        dtypes=(torch.float32, torch.float64),
        out=False,
    ),
]
