"""Op registry entries for scans and order statistics; joined into ``_op_registry.OPS``.

Entries use the helpers of ``torch.testing._op_registry`` (OpInfo, T, S, on, fixed, ...).
Kinds: "scan" (cumsum, cummax, ...) and "order" (sort, topk, median, unique, ...). Ops
that return indices list them only for dtypes where random samples have no ties
(float32/float64), except sort, which is stable, and mode, whose tie rule is defined.
"""

import numpy as np

import torch
from torch.testing._op_registry import ALL, FLOATS, LOW, NUMERIC, OpInfo, T, f32, f64, fixed, on

DISTINCT = (f32, f64)  # random samples without ties: indices are well defined

# fmt: off
ALONG_DIM = [on(T((7,)), 0), on(T((3, 4)), 1), on(T((3, 4)), 0), on(T((2, 3, 4)), -2),
             on(T((3, 4), "t"), 1), on(T((2, 3, 4), "s"), 2), on(T((4, 5), "e"), 0),
             on(T((3, 4), "o"), 0), on(T(()), 0), on(T((0, 3)), 1), on(T((0, 3)), 0)]
REDUCE_DIM = [on(T((7,)), 0), on(T((3, 4)), 1), on(T((3, 4)), 0, keepdim=True),
              on(T((2, 3, 4)), -2), on(T((3, 4), "t"), 1), on(T((2, 3, 4), "s"), 2),
              on(T((4, 5), "e"), 0), on(T((3, 4), "o"), -1), on(T(()), 0), on(T((0, 3)), 1)]
# fmt: on


def _as_1d(f):
    """A NumPy reference over `dim` that also takes 0-d arrays (as one element)."""

    def ref(a, dim, *args, **kwargs):
        out = f(a.reshape(a.shape or (1,)), 0 if a.ndim == 0 else dim, *args, **kwargs)
        if a.ndim == 0:
            return tuple(np.reshape(o, ()) for o in out) if isinstance(out, tuple) else out[0]
        return out

    return ref


def _np_cum_arg(better):
    def ref(a, dim):
        a = np.moveaxis(a, dim, -1)
        values, indices = np.empty_like(a), np.zeros(a.shape, np.int64)
        for row in np.ndindex(a.shape[:-1]):
            best, at = None, 0
            for i, v in enumerate(a[row]):
                if best is None or better(v, best) or v == best:
                    best, at = v, i
                values[row + (i,)], indices[row + (i,)] = best, at
        return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)

    return ref


def _np_sort(a, dim=-1, descending=False):
    if descending:  # stable descending: ties keep input order
        n = a.shape[dim]
        idx = n - 1 - np.flip(np.argsort(np.flip(a, dim), axis=dim, kind="stable"), dim)
    else:
        idx = np.argsort(a, axis=dim, kind="stable")
    return np.take_along_axis(a, idx, dim), idx


def _np_topk(a, k, dim=-1, largest=True):
    if a.ndim == 0:
        return a.copy(), np.array(0)
    values, idx = _np_sort(a, dim, descending=largest)
    sl = [slice(None)] * a.ndim
    sl[dim] = slice(0, k)
    return values[tuple(sl)], idx[tuple(sl)]


def _np_pick(a, dim, position, keepdim=False):
    """The element at sorted `position` along `dim` and its index (position: n -> int)."""
    values, idx = _np_sort(a, dim)
    k = position(a.shape[dim])
    v, i = np.take(values, [k], axis=dim), np.take(idx, [k], axis=dim)
    return (v, i) if keepdim else (np.squeeze(v, dim), np.squeeze(i, dim))


def _np_kthvalue(a, k, dim=-1, keepdim=False):
    if a.ndim == 0:
        return a.copy(), np.array(0)
    return _np_pick(a, dim, lambda n: k - 1, keepdim)


def _np_mode(a, dim=-1, keepdim=False):
    m = np.moveaxis(a, dim, -1)
    values, indices = np.empty(m.shape[:-1], a.dtype), np.empty(m.shape[:-1], np.int64)
    for row in np.ndindex(m.shape[:-1]):
        uniq, counts = np.unique(m[row], return_counts=True)
        best = uniq[np.argmax(counts)]  # the smallest of the most frequent
        values[row], indices[row] = best, np.nonzero(m[row] == best)[0][-1]
    if keepdim:
        return np.expand_dims(values, dim), np.expand_dims(indices, dim)
    return values, indices


def _np_unique(a, dim=None):
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    return values, inverse.reshape(a.shape if dim is None else (a.shape[dim],)), counts


def _np_unique_consecutive(a, dim=None):
    rows = a.reshape(-1, 1) if dim is None else np.moveaxis(a, dim, 0).reshape(a.shape[dim], -1)
    starts = [i for i in range(len(rows)) if i == 0 or not np.array_equal(rows[i], rows[i - 1])]
    counts = np.diff(starts + [len(rows)])
    inverse = np.repeat(np.arange(len(starts)), counts)
    values = a.reshape(-1)[starts] if dim is None else np.take(a, starts, axis=dim)
    return values, inverse.reshape(a.shape if dim is None else -1), counts


def _pair(name):
    return lambda x, *a, **kw: tuple(getattr(torch, name)(x, *a, **kw))


def _scan(name, ref, dtypes=ALL, result="int64", **kw):
    return OpInfo(name, "scan", _as_1d(ref), dtypes, fixed(*ALONG_DIM), result=result,
                  inplace=False, out=False, **kw)  # fmt: skip


def _order(name, ref, dtypes, samples, result=("same", "long"), **kw):
    differentiable = name not in ("argsort", "unique", "unique_consecutive")  # integer/set results
    kw = {"inplace": False, "out": False, "differentiable": differentiable, **kw}
    return OpInfo(name, "order", ref, dtypes, fixed(*samples), result=result, **kw)


def _np_quantile(a, q, dim=None, keepdim=False, interpolation="linear"):
    q = np.asarray(q)
    return np.quantile(a, q, axis=dim, keepdims=keepdim, method=interpolation)


# fmt: off
OPS = [
    _scan("cumsum", lambda a, dim: np.cumsum(a, axis=dim), tol=LOW),
    _scan("cumprod", lambda a, dim: np.cumprod(a, axis=dim), domain=(-2, 2), tol=LOW),
    _scan("logcumsumexp", lambda a, dim: np.logaddexp.accumulate(a, axis=dim), FLOATS, "same",
          tol=LOW),
    _scan("cummax", _np_cum_arg(np.greater), NUMERIC, ("same", "long"), fn=_pair("cummax")),
    _scan("cummin", _np_cum_arg(np.less), NUMERIC, ("same", "long"), fn=_pair("cummin")),

    _order("sort", _as_1d(_np_sort), ALL, ALONG_DIM + [on(T((3, 5)), 1, True),
           on(T((4, 3), "t"), 0, descending=True), on(T(()), -1, True)], fn=_pair("sort")),
    _order("argsort", _as_1d(lambda a, dim, descending=False: _np_sort(a, dim, descending)[1]),
           NUMERIC, [on(T((3, 5)), 1), on(T((4, 3), "t"), 0, True), on(T((6,)), -1)],
           result="long"),
    _order("msort", lambda a: np.sort(a, axis=0, kind="stable"), NUMERIC,
           [on(T((5, 3))), on(T((4, 3), "t")), on(T((6,)))], result="same"),
    _order("topk", _np_topk, DISTINCT,
           [on(T((9,)), 3), on(T((3, 8)), 2, 1), on(T((3, 8), "t"), 3, 0),
            on(T((2, 3, 6), "s"), 1, -1, False), on(T((3, 4)), 0), on(T((3, 4)), 4),
            on(T((0, 4)), 2), on(T(()), 1)], fn=_pair("topk")),
    _order("topk.values", lambda *a, **kw: _np_topk(*a, **kw)[0], NUMERIC,
           [on(T((9,)), 3), on(T((3, 8), "t"), 2, 1, False)], result="same",
           fn=lambda *a, **kw: torch.topk(*a, **kw).values),
    _order("kthvalue", _np_kthvalue, DISTINCT,
           [on(T((7,)), 3), on(T((3, 5)), 1, 1), on(T((3, 5), "t"), 2, 0, True),
            on(T((2, 3, 4), "s"), 2, -1), on(T(()), 1)], fn=_pair("kthvalue")),
    _order("median.dim", lambda a, dim, keepdim=False: _np_pick(a, dim, lambda n: (n - 1) // 2,
                                                                keepdim),
           DISTINCT, [s for s in REDUCE_DIM if s.args[0].shape not in ((), (0, 3))
                      and s.args[0].layout != "e"],
           fn=_pair("median")),
    _order("median", lambda a: np.sort(a.reshape(-1))[(a.size - 1) // 2], NUMERIC,
           [on(T((7,))), on(T((3, 4))), on(T((3, 4), "t")), on(T(()))], result="same"),
    _order("mode", _np_mode, NUMERIC,
           [s for s in REDUCE_DIM if s.args[0].shape not in ((), (0, 3))], fn=_pair("mode"),
           domain=(0, 3)),
    _order("quantile", _np_quantile, DISTINCT,
           [on(T((7,)), 0.3), on(T((3, 5)), 0.5, 1), on(T((3, 5), "t"), 0.25, 0, True),
            on(T((2, 3, 4)), [0.0, 0.4, 1.0], 1), on(T((3, 5)), 0.7, interpolation="lower"),
            on(T((3, 5)), 0.7, 1, interpolation="higher"),
            on(T((3, 5)), 0.7, 1, interpolation="midpoint"),
            on(T((3, 5)), 0.7, 1, interpolation="nearest"), on(T(()), 0.5)],
           result="same", fn=lambda x, q, *a, **kw: torch.quantile(
               x, torch.tensor(q, dtype=x.dtype) if isinstance(q, list) else q, *a, **kw)),
    _order("unique", _np_unique, NUMERIC,
           [on(T((9,))), on(T((3, 4))), on(T((3, 4), "t")), on(T((0,))), on(T((5, 2)), dim=0),
            on(T((2, 5), "t"), dim=1)],
           result=("same", "long", "long"), method=False, domain=(0, 2),
           fn=lambda *a, **kw: torch.unique(*a, return_inverse=True, return_counts=True, **kw)),
    _order("unique_consecutive", _np_unique_consecutive, NUMERIC,
           [on(T((9,))), on(T((3, 4), "t")), on(T((6, 2)), dim=0), on(T((2, 6)), dim=1)],
           result=("same", "long", "long"), method=False, domain=(0, 1),
           fn=lambda *a, **kw: torch.unique_consecutive(*a, return_inverse=True,
                                                        return_counts=True, **kw)),
    _order("nansum", lambda a, dim=None, keepdim=False: np.nansum(a, axis=dim, keepdims=keepdim),
           ALL, [on(T((3, 4))), on(T((2, 3, 4)), 1), on(T((3, 4), "t"), (0, 1), True)],
           result="int64", tol=LOW),
    _order("nanmean", lambda a, dim=None, keepdim=False: np.nanmean(a, axis=dim,
                                                                    keepdims=keepdim),
           (f32, f64), [on(T((3, 4))), on(T((2, 3, 4)), 1), on(T((3, 4), "t"), 0, True)],
           result="same"),
]
# fmt: on
