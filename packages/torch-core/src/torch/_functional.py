"""torch.* functions written in Python over the core's primitives: reductions with their
argument forms, composites (var, norm, logsumexp, clamp, lerp), and view ops as functions."""

import builtins
import collections
import math

from torch import _C
from torch._checks import (
    check_tensor,
    numpy_args,
    out_dtype,
    wrap_dim,  # noqa: F401  (torch-nn imports it from here)
    write_out,
    write_outs,
)
from torch._grad_mode import no_grad

Tensor = _C.Tensor

# Functions that are also Tensor methods (x.sum(...) is torch.sum(x, ...)).
TENSOR_METHODS = (
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "std",
    "var", "norm", "logsumexp", "clamp", "clamp_min", "clamp_max", "clip", "dist", "nan_to_num",
    "lerp", "square", "count_nonzero", "equal", "isclose", "allclose",
)  # fmt: skip
__all__ = [
    *TENSOR_METHODS, "std_mean", "var_mean", "broadcast_shapes", "numel", "is_tensor",
    "is_floating_point", "return_types",
]  # fmt: skip
# View and copy ops whose torch.f(x, ...) form is x.f(...): made at the end of this file.
_METHOD_FUNCTIONS = (
    "reshape",
    "transpose",
    "swapaxes",
    "swapdims",
    "permute",
    "t",
    "squeeze",
    "unsqueeze",
    "narrow",
    "select",
    "flatten",
    "diagonal",
    "as_strided",
    "clone",
    "unfold",
    "detach",
)
__all__ += _METHOD_FUNCTIONS
# The in-place torch.f_(input, ...) functions PyTorch exposes whose Tensor method f_ exists
# here (torch.sin_(x) is x.sin_()): made at the end of this file too.
_INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_",
    "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "detach_", "erf_",
    "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "index_put_", "log10_",
    "log1p_", "log2_", "log_", "nan_to_num_", "neg_", "negative_", "reciprocal_", "relu_",
    "resize_as_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "tan_", "tanh_",
    "trunc_", "zero_",
)  # fmt: skip
__all__ += _INPLACE_FUNCTIONS


# Named results of reductions that return values and indices: `torch.max(x, 0).indices`.
class return_types:  # noqa: N801  (a namespace, named like PyTorch's)
    """The named tuples that functions returning several tensors give back, e.g.
    ``torch.return_types.max(values, indices)``; they unpack like plain tuples."""

    max = collections.namedtuple("max", ["values", "indices"])
    min = collections.namedtuple("min", ["values", "indices"])
    std_mean = collections.namedtuple("std_mean", ["std", "mean"])
    var_mean = collections.namedtuple("var_mean", ["var", "mean"])


for _cls in (return_types.max, return_types.min):
    _cls.__module__ = "torch.return_types"
    _cls.__repr__ = lambda self: (
        f"torch.return_types.{type(self).__name__}(\nvalues={self.values!r},\nindices={self.indices!r})"
    )


def result_type(name, fields):
    """A named tuple ``torch.return_types.<name>`` with PyTorch's repr, registered there."""
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "torch.return_types"

    def __repr__(self):
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"torch.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    setattr(return_types, name, cls)
    return cls


def _dims(dim):
    """None (all dims) or a tuple of ints; an empty tuple/list means all dims too."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    return dim


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Sum over ``dim`` (an int or a tuple; all dims when None). Integers sum in int64."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("sum", dim, keepdim, axis, keepdims, None)
    if dim is None and dtype is None and out is None and input.__class__ is Tensor:
        return _C._sum(input, None, keepdim, None)  # the common x.sum(): no argument to parse
    check_tensor(input, "sum")
    return write_out(_C._sum(input, _dims(dim), keepdim, out_dtype(dtype, out)), out)


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """The product of the elements of ``input``: of all of them (a 0-dim tensor) when ``dim`` is
    None, else along ``dim`` (kept as size 1 with ``keepdim``). ``dtype`` casts the input first;
    integer and bool inputs give int64."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("prod", dim, keepdim, axis, keepdims, None)
    if dtype is None and out is None and input.__class__ is Tensor:
        return _C._prod(input, dim, keepdim, None)  # the common x.prod(): no argument to parse
    check_tensor(input, "prod")
    return write_out(_C._prod(input, dim, keepdim, out_dtype(dtype, out)), out)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Arithmetic mean over ``dim``; needs a floating-point input (or ``dtype``)."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("mean", dim, keepdim, axis, keepdims, None)
    check_tensor(input, "mean")
    dt = dtype or input.dtype
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dt}"
        )
    return write_out(_C._mean(input, _dims(dim), keepdim, dtype), out)  # one op, one node


def keep_graph(result, input):
    """result, still depending on input for autograd when input requires grad (with zero
    gradient): for results that are constant in input, which PyTorch still connects."""
    return result + input * 0 if input.requires_grad else result


def _all_dims(op, input, dim):
    """amax/amin's dims, all of them spelled out when none are given: the core's ``dims=None``
    is ``x.max()`` / ``x.min()``, whose gradient node PyTorch names differently."""
    dims = _dims(dim)
    if dims is None and isinstance(input, Tensor):
        if input.numel() == 0:
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        dims = tuple(builtins.range(input.dim()))
    return dims


# every dim of an n-dim tensor, for the common x.amax() / x.amin() (the core raises on an
# empty tensor, and the path with the checks then says why)
_EVERY_DIM = tuple(tuple(builtins.range(n)) for n in builtins.range(9))


def _over_every_dim(reduce, input, keepdim):
    """reduce(input, every dim) for a plain tensor, else None (and None where it raises)."""
    if input.__class__ is Tensor and input.dim() < 9:
        try:
            return reduce(input, _EVERY_DIM[input.dim()], keepdim, None)
        except IndexError:
            return None
    return None


def amax(input, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
    """Maximum over ``dim`` (all dims by default); NaN propagates."""
    if dim.__class__ is tuple and not dim and out is None and axis is None and keepdims is None:
        r = _over_every_dim(_C._amax, input, keepdim)
        if r is not None:
            return r
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("amax", dim, keepdim, axis, keepdims, ())
    return write_out(_C._amax(input, _all_dims("amax", input, dim), keepdim, None), out)


def amin(input, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
    """Minimum over ``dim`` (all dims by default); NaN propagates."""
    if dim.__class__ is tuple and not dim and out is None and axis is None and keepdims is None:
        r = _over_every_dim(_C._amin, input, keepdim)
        if r is not None:
            return r
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("amin", dim, keepdim, axis, keepdims, ())
    return write_out(_C._amin(input, _all_dims("amin", input, dim), keepdim, None), out)


# op -> (full reduction, reduction with indices, elementwise form, result type); names, looked
# up at each call, so that torch-autograd's wrappers of the _C ops are the ones called
_MAX_MIN = {
    "max": ("_amax", "_argmax", "maximum", return_types.max),
    "min": ("_amin", "_argmin", "minimum", return_types.min),
}


def _max_min(op, input, dim, keepdim, other, out):
    fn, arg, elementwise, kind = _MAX_MIN[op]
    fn, arg, elementwise = getattr(_C, fn), getattr(_C, arg), getattr(_C, elementwise)
    check_tensor(input, op)
    if isinstance(dim, Tensor):  # torch.max(a, b)
        dim, other = None, dim
    if other is not None:
        return elementwise(input, other, out=out)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return fn(input, None, False, None)
    return write_outs(kind(*arg(input, dim, keepdim)), out)


def max(input, dim=None, keepdim=False, *, other=None, out=None, axis=None, keepdims=None):
    """``max(x)``: the largest value; ``max(x, dim)``: (values, indices) along ``dim``;
    ``max(x, y)``: the elementwise maximum."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("max", dim, keepdim, axis, keepdims, None)
    return _max_min("max", input, dim, keepdim, other, out)


def min(input, dim=None, keepdim=False, *, other=None, out=None, axis=None, keepdims=None):
    """Like :func:`max`, for the smallest values."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("min", dim, keepdim, axis, keepdims, None)
    return _max_min("min", input, dim, keepdim, other, out)


def argmax(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """Index of the largest value (flat index when ``dim`` is None); the first one on ties."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("argmax", dim, keepdim, axis, keepdims, None)
    check_tensor(input, "argmax")
    return _C._argmax(input, dim, keepdim and dim is not None)[1]


def argmin(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """The index of the smallest element: in the flattened tensor when ``dim`` is None, else along
    ``dim`` (int64; the first one on ties; NaN counts as the smallest)."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("argmin", dim, keepdim, axis, keepdims, None)
    check_tensor(input, "argmin")
    return _C._argmin(input, dim, keepdim and dim is not None)[1]


def _no_dims(dim):
    return isinstance(dim, (tuple, list)) and len(dim) == 0


def _truth(input):
    """all/any over no dims (dim=()): each element's truth value, as PyTorch gives it (uint8
    stays uint8, other dtypes give bool)."""
    r = _C.ne(input, 0)
    return r.to(_C.uint8) if input.dtype == _C.uint8 else r


def all(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """True where every element is non-zero: over all elements (a 0-dim bool tensor) when ``dim`` is
    None, else along ``dim`` (an int or a tuple, kept as size 1 with ``keepdim``). uint8 inputs
    give uint8."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("all", dim, keepdim, axis, keepdims, None)
    if _no_dims(dim):
        return write_out(_truth(input), out)
    return write_out(_C._all(input, _dims(dim), keepdim, None), out)


def any(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """True where some element is non-zero: over all elements (a 0-dim bool tensor) when ``dim`` is
    None, else along ``dim`` (an int or a tuple, kept as size 1 with ``keepdim``). uint8 inputs
    give uint8."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("any", dim, keepdim, axis, keepdims, None)
    if _no_dims(dim):
        return write_out(_truth(input), out)
    return write_out(_C._any(input, _dims(dim), keepdim, None), out)


def count_nonzero(input, dim=None, *, axis=None):
    """The number of non-zero elements, over all elements or along ``dim`` (an int or a tuple), as
    an int64 tensor."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("count_nonzero", dim, False, axis, None, None)
    return _C._sum(_C.ne(input, 0), _dims(dim), False, None)


def _correction(correction, unbiased):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(
    input,
    dim=None,
    unbiased=None,
    keepdim=False,
    *,
    correction=None,
    out=None,
    axis=None,
    keepdims=None,
):
    """Variance over ``dim`` with ``correction`` (1: unbiased, the default; 0: biased)."""
    return write_out(
        _var_or_std("var", input, dim, unbiased, keepdim, correction, axis, keepdims), out
    )


def std(
    input,
    dim=None,
    unbiased=None,
    keepdim=False,
    *,
    correction=None,
    out=None,
    axis=None,
    keepdims=None,
):
    """Standard deviation: the square root of :func:`var`."""
    return write_out(
        _var_or_std("std", input, dim, unbiased, keepdim, correction, axis, keepdims), out
    )


def _var_or_std(op, input, dim, unbiased, keepdim, correction, axis, keepdims):
    """One kernel (two passes over each reduced row: the mean, then the squared deviations)
    and one autograd node."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args(op, dim, keepdim, axis, keepdims, None)
    if isinstance(dim, builtins.bool):  # var(x, False): the old `unbiased` positional form
        dim, unbiased = None, dim
    c = _correction(correction, unbiased)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): expected a floating-point input, got {input.dtype}")
    if input.device.type not in ("cpu", "meta"):  # (the fused kernel is the CPU's)
        return _var_composed(op, input, _dims(dim), c, keepdim)
    return (_C._std if op == "std" else _C._var)(input, _dims(dim), c, keepdim)


def _dims_tuple(x, dims):
    """The composed reductions' dims as a tuple: None is all of x's, an int is one."""
    if dims is None:
        return tuple(builtins.range(x.dim()))
    return (dims,) if isinstance(dims, builtins.int) else tuple(dims)


def _var_composed(op, x, dims, correction, keepdim):
    """var/std from the device's reductions and elementwise ops (their autograd included)."""
    dims = _dims_tuple(x, dims)
    count = math.prod(x.shape[d] for d in dims) if x.dim() else 1
    d = x - x.mean(dims, keepdim=True) if x.dim() else x - x
    v = (d * d).sum(dims, keepdim=keepdim) / builtins.max(count - correction, 0)
    return v.sqrt() if op == "std" else v


def var_mean(
    input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None
):
    """``(var, mean)`` of ``input`` over ``dim``, as a named tuple; the arguments are those of
    :func:`var` and :func:`mean`."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("var_mean", dim, keepdim, axis, keepdims, None)
    return return_types.var_mean(
        var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)
    )


def std_mean(
    input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None
):
    """``(std, mean)`` of ``input`` over ``dim``, as a named tuple; the arguments are those of
    :func:`std` and :func:`mean`."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("std_mean", dim, keepdim, axis, keepdims, None)
    return return_types.std_mean(
        std(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)
    )


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector p-norm over ``dim`` (all elements by default): p = 2 ('fro'), 1, inf, -inf, 0
    or any number."""
    if dtype is not None:
        input = input.to(dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"norm(): expected a floating-point input, got {input.dtype}")
    dims = _dims(dim)
    if p in ("fro", 2, 2.0):  # one pass (sum of squares), one node
        return write_out(_C._norm2(input, dims, keepdim), out)
    a = _C.abs(input)
    if p == math.inf:
        r = _C._amax(a, dims, keepdim, None)
    elif p == -math.inf:
        r = _C._amin(a, dims, keepdim, None)
    elif p == 0:
        r = _C._sum(_C.ne(a, 0), dims, keepdim, None)._to_dtype(input.dtype, False)
        r = keep_graph(r, input)
    elif p == 1:
        r = _C._sum(a, dims, keepdim, None)
    elif isinstance(p, (builtins.int, builtins.float)):
        r = zero_safe_norm(
            a, dims, keepdim, lambda a: _C._sum(a.pow(p), dims, keepdim, None).pow(1.0 / p), p
        )
    else:
        raise RuntimeError(f"norm(): unsupported norm type {p!r}")
    return write_out(r, out)


def zero_safe_norm(a, dims, keepdim, compute, p=2):
    """``compute(a)``, a p-norm of ``a = |x|`` over ``dims`` (None: all), whose derivative is
    infinite where a whole slice is zero (sqrt'(0)): PyTorch's gradient there is 0, and so is
    ours. When a gradient is needed, such slices are computed on ones and their result set
    to 0 through `where`, so no inf * 0 reaches the gradient (double backward included)."""
    if not (_needs_grad(a) and p > 0 and a.numel() > 0):
        return compute(a)
    with no_grad():
        if dims == ():  # no reduction (a 0-d input): each element is its own slice
            zero_kept = zero = _C.eq(a.detach(), 0)
        else:
            all_dims = dims if dims is not None else tuple(range(a.dim()))
            zero_kept = _C.eq(_C._amax(a.detach(), all_dims, True, None), 0)
            zero = _C.eq(_C._amax(a.detach(), all_dims, keepdim, None), 0)
    return _C.where(zero, 0.0, compute(_C.where(zero_kept, 1.0, a)))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (by default 0 and
    the dtype's largest and lowest finite values). Integer and bool tensors come back as
    copies. The gradient passes where the input is finite, 0 elsewhere."""
    if not input.dtype.is_floating_point:
        return write_out(input.clone(), out)
    if posinf is None or neginf is None:
        from torch._dtypes import finfo  # torch._dtypes imports this module

        info = finfo(input.dtype)
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
    x = input.detach()
    r = _C.where(_C.isnan(x), nan, input)
    r = _C.where(_C.eq(x, math.inf), posinf, r)
    return write_out(_C.where(_C.eq(x, -math.inf), neginf, r), out)


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast), as a 0-d tensor."""
    return norm(_C.sub(input, other), p)


def logsumexp(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """log(sum(exp(x))) over ``dim``, computed without overflow (the max subtracted first)."""
    if axis is not None or keepdims is not None:  # (NumPy spellings)
        dim, keepdim = numpy_args("logsumexp", dim, keepdim, axis, keepdims, None)
    if dim is None:  # (dim is required: given as dim or axis)
        raise TypeError("logsumexp() missing 1 required positional argument: 'dim'")
    x = input if input.dtype.is_floating_point else input._to_dtype(_C.get_default_dtype(), False)
    if x.device.type not in ("cpu", "meta"):  # (the fused kernel is the CPU's)
        return write_out(_logsumexp_composed(x, _dims(dim), keepdim), out)
    return write_out(_C._logsumexp(x, _dims(dim), keepdim), out)  # one kernel, one node


def _logsumexp_composed(x, dims, keepdim):
    """logsumexp from the device's reductions and elementwise ops (their autograd included)."""
    dims = _dims_tuple(x, dims)
    top = x.amax(dims, keepdim=True).detach() if x.dim() else x.detach()
    top = top.masked_fill(~top.isfinite(), 0)  # rows of -inf: log(0) = -inf
    r = (x - top).exp().sum(dims, keepdim=True).log() + top if x.dim() else x * 1
    return r if keepdim or not x.dim() else r.squeeze(dims)


def _needs_grad(*values):
    return _C.is_grad_enabled() and builtins.any(
        isinstance(v, Tensor) and v.requires_grad for v in values
    )


def clamp(input, min=None, max=None, *, out=None):
    """Limits values to [min, max] (either bound may be None, a number or a tensor).

    The gradient follows PyTorch's rule: it passes to ``input`` where min <= input <= max
    (the bounds included), to a tensor ``min`` where input < min < max, and to a tensor
    ``max`` where input > max or min > max; NaN inputs get none."""
    if min is None and max is None:
        raise RuntimeError("clamp(): at least one of 'min' or 'max' must not be None")
    if _needs_grad(input, min, max):
        return write_out(_clamp_graph(input, min, max), out)
    if (
        input.dtype.is_floating_point
        and type(min) in (builtins.int, builtins.float)
        and type(max) in (builtins.int, builtins.float)
        and min <= max  # (not NaN; with min > max every value becomes max)
    ):
        return write_out(_C._hardtanh(input, min, max), out)  # one pass
    r = input if min is None else _C.maximum(input, min)  # numbers promote weakly
    r = r if max is None else _C.minimum(r, max)
    return write_out(r, out)


def _clamp_graph(x, lo, hi):
    """clamp's values (maximum, then minimum) routed through `where`, so that each element's
    gradient goes to the one operand PyTorch sends it to (maximum/minimum halve it at ties)."""
    xd, lod, hid = x.detach(), _detached(lo), _detached(hi)
    with no_grad():
        r = clamp(xd, lod, hid)
        if lo is None:
            inside, to_hi = _C.le(xd, hid), _C.gt(xd, hid)
        elif hi is None:
            inside, to_lo = _C.ge(xd, lod), _C.lt(xd, lod)
        else:
            inside = _C.logical_and(_C.ge(xd, lod), _C.le(xd, hid))
            to_lo = _C.logical_and(_C.lt(xd, lod), _C.lt(lod, hid))
            to_hi = _C.logical_or(_C.gt(xd, hid), _C.gt(lod, hid))
    out = r
    if isinstance(hi, Tensor) and hi.requires_grad:
        out = _C.where(to_hi, hi.to(r.dtype), out)
    if isinstance(lo, Tensor) and lo.requires_grad:
        out = _C.where(to_lo, lo.to(r.dtype), out)
    return _C.where(inside, x.to(r.dtype), out)


def _detached(v):
    return v.detach() if isinstance(v, Tensor) else v


def clamp_min(input, min, *, out=None):
    """``clamp(input, min=min)``: the elementwise maximum of ``input`` and ``min``."""
    return clamp(input, min, None, out=out)


def clamp_max(input, max, *, out=None):
    """``clamp(input, max=max)``: the elementwise minimum of ``input`` and ``max``."""
    return clamp(input, None, max, out=out)


clip = clamp


def lerp(input, end, weight, *, out=None):
    """input + weight * (end - input)."""
    return _C._lerp(input, end, weight, out)


def square(input, *, out=None):
    """``input * input``, elementwise (bool squares to int64, as ``pow(x, 2)``)."""
    if input.dtype == _C.bool:  # as pow(x, 2): bools square in int64
        input = input.to(_C.int64)
    return _C.mul(input, input, out=out)


def broadcast_shapes(*shapes):
    """The shape that tensors of the given shapes broadcast to."""
    from torch._size import Size

    result = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, builtins.int) else tuple(shape)
        for i, s in enumerate(reversed(shape)):
            if i == len(result):
                result.append(s)
            elif result[i] == 1 or s == result[i]:
                result[i] = s
            elif s != 1:
                raise RuntimeError(
                    f"broadcast_shapes: shapes {', '.join(str(tuple(x)) for x in shapes)} "
                    "cannot be broadcast"
                )
    return Size(reversed(result))


def equal(input, other):
    """True when both tensors have the same shape and the same values."""
    check_tensor(input, "equal")
    check_tensor(other, "equal", "other", 2)
    return input.shape == other.shape and builtins.bool(
        _C._all(_C.eq(input, other), None, False, None)
    )


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (infinities must match)."""
    check_tensor(input, "isclose")
    check_tensor(other, "isclose", "other", 2)
    if input.dtype != other.dtype:
        raise RuntimeError(f"isclose(): {input.dtype} did not match {other.dtype}")
    close = _C.eq(input, other)
    inexact = input.dtype.is_floating_point or input.dtype.is_complex
    if inexact:  # complex: the modulus of the difference, as in PyTorch
        diff = _C.abs(_C.sub(input, other))
        within = _C.le(diff, _C.add(_C.mul(_C.abs(other), rtol), atol))
        close = _C.logical_or(close, _C.logical_and(within, _C.isfinite(diff)))
        if equal_nan:
            close = _C.logical_or(close, _C.logical_and(_C.isnan(input), _C.isnan(other)))
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when :func:`isclose` holds for every element."""
    return builtins.bool(_C._all(isclose(input, other, rtol, atol, equal_nan), None, False, None))


def numel(input):
    """The number of elements of ``input`` (an int)."""
    return input.numel()


def is_tensor(obj):
    """True if ``obj`` is a :class:`torch.Tensor` (or a subclass, such as a Parameter)."""
    return isinstance(obj, Tensor)


def is_floating_point(input):
    """True if ``input``'s dtype is a floating-point one."""
    return input.is_floating_point()


def _method_as_function(name):
    def fn(input, *args, **kwargs):
        check_tensor(input, name)
        # looked up at each call: torch-autograd wraps the Tensor methods after this import
        return getattr(Tensor, name)(input, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}(input, ...)`` is ``input.{name}(...)``."
    return fn


for _name in _METHOD_FUNCTIONS + _INPLACE_FUNCTIONS:
    globals()[_name] = _method_as_function(_name)


# The two whose PyTorch argument names the Tensor methods here do not take by keyword.
def fill_(input, value):
    """``torch.fill_(input, value)`` is ``input.fill_(value)``."""
    check_tensor(input, "fill_")
    return Tensor.fill_(input, value)


def resize_as_(input, the_template, *, memory_format=None):
    """``torch.resize_as_(input, the_template)`` is ``input.resize_as_(the_template)``."""
    check_tensor(input, "resize_as_")
    return input.resize_as_(the_template)
