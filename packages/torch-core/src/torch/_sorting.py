"""Scans and order statistics (cumsum, sort, topk, median, unique, ...).

The kernels live in csrc/sort.cpp behind private ``_C._<op>`` functions; this module gives
them PyTorch's signatures, named results (``torch.sort(x).indices``), ``out=`` and the
Tensor methods. NaN sorts as the largest value, as in PyTorch.
"""

import builtins
import collections
import operator

from torch import _C
from torch._checks import check_tensor, numpy_args, numpy_dim, out_dtype, write_out, write_outs
from torch._functional import _dims, return_types
from torch._tensor import tensor_method

Tensor = _C.Tensor

_NAMED = {
    "sort": ("values", "indices"),
    "topk": ("values", "indices"),
    "kthvalue": ("values", "indices"),
    "median": ("values", "indices"),
    "nanmedian": ("values", "indices"),
    "mode": ("values", "indices"),
    "cummax": ("values", "indices"),
    "cummin": ("values", "indices"),
}
for _name, _fields in _NAMED.items():
    _cls = collections.namedtuple(_name, _fields)
    _cls.__module__ = "torch.return_types"
    _cls.__repr__ = lambda self: (
        f"torch.return_types.{type(self).__name__}(\nvalues={self.values!r},\nindices={self.indices!r})"
    )
    setattr(return_types, _name, _cls)

# Functions that are also Tensor methods (x.sort(...) is torch.sort(x, ...)).
TENSOR_METHODS = (
    "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "sort", "argsort", "msort",
    "topk", "kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile", "unique",
    "unique_consecutive", "nansum", "nanmean",
)  # fmt: skip
__all__ = list(TENSOR_METHODS)


def _named(kind, pair, out=None):
    return write_outs(getattr(return_types, kind)(*pair), out)


def _int_dim(value, op, arg="dim"):
    """An int argument (dim, k): Python and NumPy ints; not bool, float or str."""
    if isinstance(value, builtins.bool):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        kind = type(value).__name__
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {kind}") from None


# ---------------------------------------------------------------- scans


def cumsum(input, dim=None, *, dtype=None, out=None, axis=None):
    """Running sum along ``dim``; integers and bool accumulate in int64 unless ``dtype``."""
    if dim.__class__ is int and dtype is None and out is None and axis is None:
        if input.__class__ is Tensor:  # the common x.cumsum(d): the core checks d
            return _C._cumsum(input, dim, None)
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("cumsum", dim, False, axis, None, None)
    if dim is None:  # (dim is required: given as dim or axis)
        raise TypeError("cumsum() missing 1 required positional argument: 'dim'")
    check_tensor(input, "cumsum")
    dtype = out_dtype(dtype, out)
    return write_out(_C._cumsum(input, _int_dim(dim, "cumsum"), dtype), out)


def cumprod(input, dim=None, *, dtype=None, out=None, axis=None):
    """Running product along ``dim``; integers and bool accumulate in int64 unless ``dtype``."""
    if dim.__class__ is int and dtype is None and out is None and axis is None:
        if input.__class__ is Tensor:  # the common x.cumprod(d): the core checks d
            return _C._cumprod(input, dim, None)
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("cumprod", dim, False, axis, None, None)
    if dim is None:  # (dim is required: given as dim or axis)
        raise TypeError("cumprod() missing 1 required positional argument: 'dim'")
    check_tensor(input, "cumprod")
    dtype = out_dtype(dtype, out)
    return write_out(_C._cumprod(input, _int_dim(dim, "cumprod"), dtype), out)


def logcumsumexp(input, dim=None, *, out=None, axis=None):
    """log(cumsum(exp(x))) along ``dim``, computed without overflow (floating inputs)."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("logcumsumexp", dim, False, axis, None, None)
    if dim is None:  # (dim is required: given as dim or axis)
        raise TypeError("logcumsumexp() missing 1 required positional argument: 'dim'")
    check_tensor(input, "logcumsumexp")
    return write_out(_C._logcumsumexp(input, _int_dim(dim, "logcumsumexp"), None), out)


def cummax(input, dim=None, *, out=None, axis=None):
    """Running maximum along ``dim`` and the index where it was (the latest on ties)."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("cummax", dim, False, axis, None, None)
    if dim is None:  # (dim is required: given as dim or axis)
        raise TypeError("cummax() missing 1 required positional argument: 'dim'")
    check_tensor(input, "cummax")
    return _named("cummax", _C._cummax(input, _int_dim(dim, "cummax")), out)


def cummin(input, dim=None, *, out=None, axis=None):
    """Running minimum along ``dim`` and the index where it was (the latest on ties)."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("cummin", dim, False, axis, None, None)
    if dim is None:  # (dim is required: given as dim or axis)
        raise TypeError("cummin() missing 1 required positional argument: 'dim'")
    check_tensor(input, "cummin")
    return _named("cummin", _C._cummin(input, _int_dim(dim, "cummin")), out)


def _cumsum_(self, dim=None, *, dtype=None, axis=None):
    """In-place :func:`torch.cumsum` along ``dim``; returns ``self``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None:
        dim = numpy_dim("cumsum_", dim, axis, required=True)
    return self.copy_(cumsum(self, dim, dtype=dtype))


def _cumprod_(self, dim=None, *, dtype=None, axis=None):
    """In-place :func:`torch.cumprod` along ``dim``; returns ``self``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None:
        dim = numpy_dim("cumprod_", dim, axis, required=True)
    return self.copy_(cumprod(self, dim, dtype=dtype))


# ---------------------------------------------------------------- sorting and selection


def sort(input, dim=-1, descending=False, stable=False, *, out=None, axis=None):
    """(values, indices) sorted along ``dim``. The sort is always stable: equal values keep
    their order (``stable`` is accepted for compatibility). NaN sorts as the largest."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("sort", dim, False, axis, None, -1)
    check_tensor(input, "sort")
    return _named("sort", _C._sort(input, _int_dim(dim, "sort"), builtins.bool(descending)), out)


def argsort(input, dim=-1, descending=False, stable=False, *, axis=None):
    """The indices that sort ``input`` along ``dim`` (see :func:`sort`)."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("argsort", dim, False, axis, None, -1)
    return sort(input, dim, descending).indices


def msort(input, *, out=None):
    """``input`` sorted along its first dim."""
    return write_out(sort(input, 0).values, out)


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None, axis=None):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices, largest first
    (smallest first when ``largest=False``); the result is sorted either way."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("topk", dim, False, axis, None, -1)
    check_tensor(input, "topk")
    k, dim = _int_dim(k, "topk", "k"), _int_dim(dim, "topk")
    return _named("topk", _C._topk(input, k, dim, builtins.bool(largest)), out)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None, axis=None, keepdims=None):
    """The ``k``-th smallest value (1-based) along ``dim`` and its index."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("kthvalue", dim, keepdim, axis, keepdims, -1)
    check_tensor(input, "kthvalue")
    k, dim = _int_dim(k, "kthvalue", "k"), _int_dim(dim, "kthvalue")
    return _named("kthvalue", _C._kthvalue(input, k, dim, keepdim), out)


def _median(kind, input, dim, keepdim, out):
    check_tensor(input, kind)
    ignore_nan = kind == "nanmedian"
    if dim is None:
        return write_out(_C._median_all(input, ignore_nan), out)
    return _named(kind, _C._median_dim(input, _int_dim(dim, kind), keepdim, ignore_nan), out)


def median(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """The lower median: of all values (NaN if any is NaN) when ``dim`` is None, else
    (values, indices) along ``dim``."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("median", dim, keepdim, axis, keepdims, None)
    return _median("median", input, dim, keepdim, out)


def nanmedian(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Like :func:`median`, ignoring NaNs (NaN only where a row is all NaN)."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("nanmedian", dim, keepdim, axis, keepdims, None)
    return _median("nanmedian", input, dim, keepdim, out)


def mode(input, dim=-1, keepdim=False, *, out=None, axis=None, keepdims=None):
    """The most frequent value along ``dim`` (the smallest on ties) and its last index."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("mode", dim, keepdim, axis, keepdims, -1)
    check_tensor(input, "mode")
    return _named("mode", _C._mode(input, _int_dim(dim, "mode"), keepdim), out)


def _quantile(kind, input, q, dim, keepdim, interpolation, out):
    check_tensor(input, kind)
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{kind}() q must be a scalar or 1D tensor, got {q.dim()} dims")
        qs, q_dim = [builtins.float(v) for v in q.reshape(-1).tolist()], q.dim() == 1
        if q.dtype != input.dtype:
            raise RuntimeError(
                f"{kind}() q tensor must be same dtype as the input tensor, got {q.dtype} "
                f"and {input.dtype}"
            )
    elif isinstance(q, (builtins.list, builtins.tuple)):
        qs, q_dim = [builtins.float(v) for v in q], True
    else:
        qs, q_dim = [builtins.float(q)], False
    all_dims = dim is None
    d = 0 if all_dims else _int_dim(dim, kind)
    r = _C._quantile(input, qs, q_dim, d, all_dims, keepdim, interpolation, kind == "nanquantile")
    return write_out(r, out)


def quantile(
    input, q, dim=None, keepdim=False, *, interpolation="linear", out=None, axis=None, keepdims=None
):
    """The ``q``-th quantiles (``q`` a float or a 1-D tensor in [0, 1]) along ``dim`` (of all
    values when None); a 1-D ``q`` adds a leading dim. NaN if a row holds a NaN."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("quantile", dim, keepdim, axis, keepdims, None)
    return _quantile("quantile", input, q, dim, keepdim, interpolation, out)


def nanquantile(
    input, q, dim=None, keepdim=False, *, interpolation="linear", out=None, axis=None, keepdims=None
):
    """Like :func:`quantile`, ignoring NaNs."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("nanquantile", dim, keepdim, axis, keepdims, None)
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, out)


# ---------------------------------------------------------------- unique


def _unique_result(values, inverse, counts, return_inverse, return_counts):
    if not return_inverse and not return_counts:
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (slices along ``dim`` when given), in ascending order, with
    optionally each input element's position in them and how often each occurs."""
    check_tensor(input, "unique")
    values, inverse, counts = _C._unique(input, False, dim)
    return _unique_result(values, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive values (or slices along ``dim``) to one."""
    check_tensor(input, "unique_consecutive")
    values, inverse, counts = _C._unique(input, True, dim)
    return _unique_result(values, inverse, counts, return_inverse, return_counts)


# ---------------------------------------------------------------- NaN-ignoring reductions


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Sum over ``dim`` treating NaN as zero."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("nansum", dim, keepdim, axis, keepdims, None)
    check_tensor(input, "nansum")
    x = _C.where(_C.isnan(input), 0, input) if input.dtype.is_floating_point else input
    return write_out(_C._sum(x, _dims(dim), keepdim, out_dtype(dtype, out)), out)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Mean over ``dim`` of the values that are not NaN (floating inputs)."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("nanmean", dim, keepdim, axis, keepdims, None)
    check_tensor(input, "nanmean")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point dtype but got {input.dtype}"
        )
    total = nansum(input, dim, keepdim, dtype=dtype)
    count = _C._sum(_C.logical_not(_C.isnan(input)), _dims(dim), keepdim, None)
    return write_out(total.div_(count), out)


for _name in TENSOR_METHODS:
    tensor_method(globals()[_name], _name)
tensor_method(_cumsum_, "cumsum_")
tensor_method(_cumprod_, "cumprod_")
