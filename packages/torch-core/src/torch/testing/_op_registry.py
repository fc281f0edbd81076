"""The op registry: every torch-core op listed once, with NumPy as its oracle.

One ``OpInfo`` per op says how to call it, what NumPy computes for the same
inputs, which dtypes it accepts, which sample inputs to try and how close
the two answers must be. Tests parametrise over ``cases(kind)`` (op x dtype x
sample); the autograd package runs gradcheck over the same table, using
``OpInfo.differentiable``.

Sample inputs are plain data (``Sample`` of ``T`` tensor specs, ``S`` scalar
specs and Python values) and become tensors only inside a test::

    for case in cases("unary", "binary"):
        x = case.make()                      # tensors + matching NumPy arrays
        case.check(case.call(x), case.expected(x))

Notes:
  * Values are drawn in NumPy and rounded there to the dtype (bfloat16 by bit
    rounding), so the reference never depends on the tensor library under test.
  * Float inputs reach the reference as float64; integer inputs keep their
    dtype (so wrap-around matches), unless the op returns floats for them.
  * Layouts of ``T``: "c" contiguous, "t" transposed (dims reversed in
    memory), "s" strided (every other element of the last dim), "e" expanded
    (stride 0 in dim 0), "o" offset (storage_offset > 0).
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

import torch

# fmt: off
f32, f64, f16, bf16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
i8, u8, i16, i32, i64 = torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64
b8 = torch.bool
FLOATS = (f32, f64, f16, bf16)
INTS = (i8, u8, i16, i32, i64)
NUMERIC = FLOATS + INTS
ALL = NUMERIC + (b8,)
INTEGRAL = INTS + (b8,)
MATMUL = FLOATS + (i32, i64)

# NumPy has no bfloat16: its values travel as float32 (which holds them all).
NUMPY_DTYPE = {f32: np.float32, f64: np.float64, f16: np.float16, bf16: np.float32,
               i8: np.int8, u8: np.uint8, i16: np.int16, i32: np.int32, i64: np.int64, b8: np.bool_}
SHORT = {f32: "f32", f64: "f64", f16: "f16", bf16: "bf16", i8: "i8", u8: "u8",
         i16: "i16", i32: "i32", i64: "i64", b8: "bool"}
# Default (rtol, atol) by result dtype, the same as torch.testing.assert_close.
TOLERANCES = {f16: (1e-3, 1e-5), bf16: (1.6e-2, 1e-5), f32: (1.3e-6, 1e-5), f64: (1e-7, 1e-7)}
LOW = {f16: (2e-3, 1e-3), bf16: (1.6e-2, 1e-2)}   # for reductions/products of low-precision values

# Result dtype rules: a name, a tuple of names (ops returning several tensors)
# or a callable dtype -> dtype.
RESULT_RULES = {
    "same": lambda d: d,
    "bool": lambda d: b8,
    "float": lambda d: d if d.is_floating_point else torch.get_default_dtype(),
    "int64": lambda d: d if d.is_floating_point else i64,   # sum/prod widen integers
    "long": lambda d: i64,                                   # indices
}
# fmt: on


# --- input specs ------------------------------------------------------------


@dataclass(frozen=True)
class T:
    """A tensor argument: its logical shape, memory layout and dtype (None: the case's)."""

    shape: tuple
    layout: str = "c"
    dtype: torch.dtype | None = None

    def __repr__(self):
        text = "x".join(map(str, self.shape)) or "0d"
        text += "" if self.layout == "c" else self.layout
        return text if self.dtype is None else f"{text}:{SHORT[self.dtype]}"


@dataclass(frozen=True)
class S:
    """A Python scalar argument of the case's dtype kind, drawn from the op's domain."""

    def __repr__(self):
        return "scalar"


@dataclass(frozen=True)
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return ",".join(parts).replace(" ", "")


class Inputs(NamedTuple):
    args: list  # for the torch call
    kwargs: dict
    np_args: list  # the same values for the NumPy reference
    np_kwargs: dict


# --- the entries -------------------------------------------------------------


@dataclass(frozen=True)
class OpInfo:
    name: str  # test id; also the torch function unless torch_name/fn say otherwise
    kind: str  # unary binary ternary reduction matmul view creation
    ref: Callable  # NumPy reference, same arguments as the torch call
    dtypes: tuple = FLOATS
    samples: Callable | None = None  # dtype -> [Sample]; default by kind
    torch_name: str | None = None  # torch.<torch_name>, Tensor.<torch_name>, Tensor.<torch_name>_
    fixed: dict = field(default_factory=dict)  # keyword arguments every call gets
    fn: Callable | None = None  # how to call it, when not torch.<torch_name>(*args, **fixed)
    domain: tuple = (-3, 3)  # (lo, hi) for all arguments, or one pair per argument
    nonzero: tuple = ()  # argument positions that must not hold 0 (divisors)
    result: Any = "same"  # result dtype rule, see RESULT_RULES
    tol: dict = field(default_factory=dict)  # dtype -> (rtol, atol) overriding TOLERANCES
    differentiable: bool = True
    method: bool = True  # Tensor.<torch_name> exists with the same arguments
    inplace: bool = True  # Tensor.<torch_name>_ exists (elementwise ops)
    out: bool = True  # torch.<torch_name>(..., out=) exists
    view: bool = False  # the result shares storage with the first argument
    values: bool = True  # False: only shape and dtype are defined (empty)
    takes_dtype: bool = False  # creation op: the case's dtype goes in as dtype=

    @property
    def target(self):
        return self.torch_name or self.name

    def __call__(self, *args, **kwargs):
        if self.fn is not None:
            return self.fn(*args, **kwargs)
        return getattr(torch, self.target)(*args, **self.fixed, **kwargs)

    def result_dtypes(self, dtype):
        rules = self.result if isinstance(self.result, tuple) else (self.result,)
        return tuple(RESULT_RULES[r](dtype) if isinstance(r, str) else r(dtype) for r in rules)

    def domain_of(self, position):
        if isinstance(self.domain[0], tuple):
            return self.domain[min(position, len(self.domain) - 1)]
        return self.domain


@dataclass(frozen=True)
class Case:
    op: OpInfo
    dtype: torch.dtype
    sample: Sample

    def __repr__(self):
        return f"{self.op.name}-{SHORT[self.dtype]}-{self.sample!r}"

    def make(self, seed=0):
        """Tensors for the torch call and the same values as NumPy arrays for the reference."""
        rng = np.random.default_rng(seed)
        upcast = self.op.result == "float"
        args, np_args = [], []
        for position, spec in enumerate(self.sample.args):
            value, array = self._input(spec, position, rng, upcast)
            args.append(value)
            np_args.append(array)
        kwargs, np_kwargs = {}, {}
        for name, spec in self.sample.kwargs.items():
            kwargs[name], np_kwargs[name] = self._input(spec, 0, rng, upcast)
        if self.op.takes_dtype:
            kwargs["dtype"], np_kwargs["dtype"] = self.dtype, NUMPY_DTYPE[self.dtype]
        return Inputs(args, kwargs, np_args, np_kwargs)

    def _input(self, spec, position, rng, upcast):
        nonzero = position in self.op.nonzero
        if isinstance(spec, S):
            value = _draw((), self.dtype, self.op.domain_of(position), nonzero, rng).item()
            if self.dtype.is_floating_point:
                value = round(value * 4) / 4 or 0.5
            return value, value
        if not isinstance(spec, T):
            return spec, spec
        dtype = spec.dtype or self.dtype
        base = _draw(_base_shape(spec), dtype, self.op.domain_of(position), nonzero, rng)
        tensor = _layout_torch(torch.tensor(base, dtype=dtype), spec)
        array = _layout_numpy(base, spec)
        if dtype.is_floating_point or upcast:
            array = array.astype(np.float64)
        return tensor, array

    def call(self, x: Inputs):
        return self.op(*x.args, **x.kwargs)

    def expected(self, x: Inputs):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.op.ref(*x.np_args, **x.np_kwargs)

    @property
    def result_dtypes(self):
        return self.op.result_dtypes(self.dtype)

    def tolerance(self, dtype):
        return self.op.tol.get(dtype, TOLERANCES.get(dtype, (0, 0)))

    def check(self, actual, expected):
        """Assert that `actual` (tensor or tuple of tensors) matches the NumPy `expected`."""
        dtypes = self.result_dtypes
        if len(dtypes) > 1:
            assert isinstance(actual, tuple) and len(actual) == len(dtypes), type(actual)
            for a, e, d in zip(actual, expected, dtypes):
                self.check_one(a, e, d)
        else:
            self.check_one(actual, expected, dtypes[0])

    def check_one(self, actual, expected, dtype):
        assert isinstance(actual, torch.Tensor), (
            f"{self}: got {type(actual).__name__}, not a tensor"
        )
        assert actual.dtype == dtype, f"{self}: dtype {actual.dtype}, expected {dtype}"
        expected = np.asarray(expected)
        assert tuple(actual.shape) == expected.shape, (
            f"{self}: shape {tuple(actual.shape)}, expected {expected.shape}"
        )
        if self.op.values:
            if dtype.is_floating_point:  # what the dtype can hold (overflow to inf included)
                with np.errstate(over="ignore"):
                    expected = round_to(expected.astype(np.float64), dtype)
            assert_array_matches(actual, expected, *self.tolerance(dtype))


def assert_array_matches(actual, expected, rtol=0, atol=0):
    """Compare a tensor's values with a NumPy array: close for floats, equal otherwise."""
    got = to_numpy(actual)
    expected = np.asarray(expected)
    if actual.dtype.is_floating_point:
        np.testing.assert_allclose(
            got.astype(np.float64),
            expected.astype(np.float64),
            rtol=rtol,
            atol=atol,
            equal_nan=True,
        )
    else:
        np.testing.assert_array_equal(got, expected.astype(got.dtype), strict=True)


def to_numpy(tensor):
    """A NumPy copy of `tensor`'s values (bfloat16 comes back as float32)."""
    if tensor.dtype == bf16:
        tensor = tensor.to(f32)
    return np.array(tensor.numpy(), copy=True)


def round_to(values, dtype):
    """Round float64 `values` to what `dtype` can hold, in NumPy alone."""
    if dtype == bf16:  # round half to even on the top 16 bits of the float32 pattern
        bits = values.astype(np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.astype(np.uint32).view(np.float32)
    return values.astype(NUMPY_DTYPE[dtype])


def _draw(shape, dtype, domain, nonzero, rng):
    lo, hi = domain
    if dtype == b8:
        return np.ones(shape, np.bool_) if nonzero else rng.random(shape) < 0.5
    if not dtype.is_floating_point:
        info = np.iinfo(NUMPY_DTYPE[dtype])
        lo, hi = max(math.ceil(lo), info.min), min(math.floor(hi), info.max)
        values = rng.integers(lo, hi + 1, size=shape)
        if nonzero:
            values[values == 0] = 1 if hi >= 1 else -1
        return values.astype(NUMPY_DTYPE[dtype])
    values = rng.uniform(lo, hi, size=shape)
    if nonzero:
        values = np.where(np.abs(values) < 0.25, 0.5, values)
    return round_to(values, dtype)


def _base_shape(spec):
    shape = tuple(spec.shape)
    return {
        "c": shape,
        "t": shape[::-1],
        "s": shape[:-1] + (2 * shape[-1],) if shape else shape,
        "e": (1,) + shape[1:],
        "o": (shape[0] + 1,) + shape[1:] if shape else shape,
    }[spec.layout]


def _layout_torch(t, spec):
    if spec.layout == "t":
        return t.permute(tuple(reversed(range(t.dim()))))
    if spec.layout == "s":
        return t[..., ::2]
    if spec.layout == "e":
        return t.expand(*spec.shape)
    if spec.layout == "o":
        return t[1:]
    return t


def _layout_numpy(a, spec):
    if spec.layout == "t":
        return np.transpose(a)
    if spec.layout == "s":
        return a[..., ::2]
    if spec.layout == "e":
        return np.broadcast_to(a, spec.shape)
    if spec.layout == "o":
        return a[1:]
    return a


# --- sample sets -------------------------------------------------------------
# fmt: off

UNARY = [T(()), T((0,)), T((7,)), T((3, 4)), T((2, 3, 4)),
         T((3, 4), "t"), T((2, 3, 4), "s"), T((4, 5), "e"), T((3, 4), "o")]
BINARY = [
    (T(()), T(())),
    (T((5,)), T((5,))),
    (T((2, 3, 4)), T((2, 3, 4))),
    (T((2, 3, 4)), T((3, 1))),            # broadcast the second
    (T((3, 1)), T((1, 4))),               # broadcast both
    (T(()), T((3, 4))),                   # 0-d with a tensor
    (T((0, 3)), T((3,))),                 # empty
    (T((3, 4), "t"), T((3, 4), "s")),     # non-contiguous
    (T((4, 5), "e"), T((5,), "o")),       # stride 0, storage offset
    (T((3, 4), "o"), S()),                # Python scalar
]
TERNARY = [
    (T(()), T(()), T(())),
    (T((3, 4)), T((3, 4)), T((3, 4))),
    (T((2, 3, 4)), T((3, 1)), T((4,))),
    (T((3, 4), "t"), T((3, 4), "s"), T((3, 4), "e")),
    (T((0, 4)), T((4,)), T((1,))),
    (T((4,)), T((3, 1)), T(())),          # result larger than the first argument
]


def unary_samples(dtype):
    return [Sample((spec,)) for spec in UNARY]


def binary_samples(dtype):
    return [Sample(args) for args in BINARY]


def tensor_only_samples(dtype):
    """For ops whose torch signature takes no Python scalar (atan2, maximum, logical_and, ...)."""
    return [Sample(args) for args in BINARY if not any(isinstance(a, S) for a in args)]


def ternary_samples(dtype):
    return [Sample(args) for args in TERNARY]


def fixed(*samples):
    """Samples that do not depend on the dtype."""
    return lambda dtype: list(samples)


def add_samples(dtype):
    alpha = 0.5 if dtype.is_floating_point else 2
    extra = [] if dtype == b8 else [Sample((T((3, 4)), T((4,))), {"alpha": alpha}),
                                    Sample((T((3, 4), "t"), S()), {"alpha": alpha})]
    return binary_samples(dtype) + extra


def clamp_samples(dtype):
    lo, hi = (-1.5, 1.0) if dtype.is_floating_point else (1, 2) if dtype == u8 else (-1, 2)
    return ([Sample((spec,), {"min": lo, "max": hi}) for spec in UNARY]
            + [Sample((T((3, 4)),), {"min": lo}), Sample((T((3, 4), "t"),), {"max": hi}),
               Sample((T((2, 3, 4)),), {"min": T((3, 1)), "max": T((4,))})])


def where_samples(dtype):
    return [Sample((T(c.shape, c.layout, b8), x, y)) for c, x, y in TERNARY]


def pow_samples(dtype):
    return binary_samples(dtype) + [Sample((S(), T((3, 4))))]


def lerp_samples(dtype):
    return ternary_samples(dtype) + [Sample((T((3, 4)), T((3, 4)), 0.3)),
                                     Sample((T((2, 3, 4), "s"), T((4,)), 0.75))]


def addc_samples(dtype):
    value = 0.5 if dtype.is_floating_point else 2
    return ternary_samples(dtype) + [Sample((T((3, 4)), T((3, 1)), T((4,))), {"value": value})]


def reduction_samples(full=True, multi=True, empty=True, **extra):
    """Reductions over all dims, one dim and several dims, with keepdim, layouts and empties."""
    samples = []
    if full:
        samples += [Sample((T((2, 3, 4)),)), Sample((T(()),)), Sample((T((3, 4), "t"),))]
    samples += [Sample((T((2, 3, 4)),), {"dim": 1}),
                Sample((T((2, 3, 4)),), {"dim": -1, "keepdim": True}),
                Sample((T((3, 4), "t"),), {"dim": 0}),
                Sample((T((2, 3, 4), "s"),), {"dim": 2}),
                Sample((T((4, 5), "e"),), {"dim": 0}),
                Sample((T((3, 4), "o"),), {"dim": 1, "keepdim": True}),
                Sample((T((0, 3)),), {"dim": 1})]
    if multi:
        samples += [Sample((T((2, 3, 4)),), {"dim": (0, 2)}),
                    Sample((T((2, 3, 4), "t"),), {"dim": (0, 1), "keepdim": True})]
    if empty:
        samples += [Sample((T((0, 3)),), {"dim": 0})] + ([Sample((T((0,)),))] if full else [])
    samples = [Sample(s.args, {**s.kwargs, **extra}) for s in samples]
    return lambda dtype: samples


def std_samples(dtype):
    return [Sample((T((2, 3, 4)),)),
            Sample((T((2, 3, 4)),), {"dim": 1}),
            Sample((T((2, 3, 4)),), {"dim": 1, "correction": 2}),
            Sample((T((2, 3, 4)),), {"dim": (0, 2), "correction": 0, "keepdim": True}),
            Sample((T((3, 4), "t"),), {"dim": 0}),
            Sample((T((2, 3, 4), "s"),), {"dim": -1, "unbiased": False}),
            Sample((T((4, 5), "e"),), {"dim": 0})]


def norm_samples(dtype):
    return [Sample((T((2, 3, 4)),)),
            Sample((T((3, 4), "t"),), {"p": 1, "dim": 1}),
            Sample((T((2, 3, 4)),), {"p": math.inf, "dim": (0, 1)}),
            Sample((T((2, 3, 4), "s"),), {"p": 3, "dim": -1, "keepdim": True}),
            Sample((T((3, 4)),), {"p": "fro"}),
            Sample((T((0, 3)),), {"dim": 1}),
            Sample((T((0,)),))]


def arange_samples(dtype):
    if dtype.is_floating_point:
        return [Sample((5,)), Sample((0, 1, 0.25)), Sample((-1, 1, 0.3)), Sample((2.5, -1, -0.5))]
    return [Sample((5,)), Sample((1, 7, 2)), Sample((6, 0, -2)), Sample((3, 3))]


def linspace_samples(dtype):
    if dtype.is_floating_point:
        return [Sample((0, 1, 5)), Sample((-2, 2, 1)), Sample((3, -3, 4)), Sample((0, 10, 0))]
    return [Sample((0, 10, 5)), Sample((10, 0, 4)), Sample((2, 9, 8))]


# fmt: on


# --- NumPy references that need a few lines ----------------------------------


def _np_reduce(f):
    def ref(a, dim=None, keepdim=False, **kwargs):
        return f(a, axis=dim, keepdims=keepdim, **kwargs)

    return ref


def _np_std_var(f):
    def ref(a, dim=None, keepdim=False, correction=1, unbiased=None):
        ddof = correction if unbiased is None else int(unbiased)
        return f(a, axis=dim, keepdims=keepdim, ddof=ddof)

    return ref


def _np_norm(a, p="fro", dim=None, keepdim=False):
    a = np.abs(a)
    if p in ("fro", 2):
        return np.sqrt(np.sum(a * a, axis=dim, keepdims=keepdim))
    if p == math.inf:
        return np.max(a, axis=dim, keepdims=keepdim)
    return np.sum(a**p, axis=dim, keepdims=keepdim) ** (1 / p)


def _np_max_dim(f, arg):
    return lambda a, dim, keepdim=False: (
        f(a, axis=dim, keepdims=keepdim),
        arg(a, axis=dim, keepdims=keepdim),
    )


def _np_clamp(a, min=None, max=None):
    if min is not None:
        a = np.maximum(a, min)
    return a if max is None else np.minimum(a, max)


def _np_div(mode):
    def ref(a, b):
        q = np.true_divide(a, b, dtype=np.float64)
        return np.trunc(q) if mode == "trunc" else np.floor_divide(a, b)

    return ref


_erf = np.vectorize(math.erf, otypes=[np.float64])
_normal = statistics.NormalDist()


def _erfinv_scalar(x):
    if not abs(x) < 1:
        return math.copysign(math.inf, x) if abs(x) == 1 else math.nan
    y = _normal.inv_cdf((x + 1) / 2) / math.sqrt(2)
    for _ in range(2):  # Newton steps keep tiny |x| accurate too
        y -= (math.erf(y) - x) / (2 / math.sqrt(math.pi) * math.exp(-y * y))
    return y


_erfinv = np.vectorize(_erfinv_scalar, otypes=[np.float64])


def _np_expand(a, *sizes):
    lead = len(sizes) - a.ndim
    shape = tuple(a.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    return np.broadcast_to(a, shape)


def _np_squeeze(a, *dim):
    if not dim:
        return np.squeeze(a)
    dims = dim[0] if isinstance(dim[0], tuple) else dim
    return np.squeeze(a, axis=tuple(d for d in dims if a.shape[d] == 1))


def _np_narrow(a, dim, start, length):
    start %= a.shape[dim]
    return np.take(a, range(start, start + length), axis=dim)


def _np_unfold(a, dim, size, step):
    windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
    index = [slice(None)] * a.ndim
    index[dim] = slice(None, None, step)
    return windows[tuple(index)]


def _np_as_strided(a, size, stride, storage_offset=0):
    flat = np.ascontiguousarray(a).reshape(-1)[storage_offset:]
    return np.lib.stride_tricks.as_strided(flat, size, [s * flat.itemsize for s in stride]).copy()


def _np_size(size):
    return size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


# --- the table -----------------------------------------------------------------


def _unary(name, ref, dtypes=ALL, result="float", **kw):
    return OpInfo(name, "unary", ref, dtypes, unary_samples, result=result, **kw)


def _binary(name, ref, dtypes=ALL, result="same", samples=binary_samples, **kw):
    return OpInfo(name, "binary", ref, dtypes, samples, result=result, **kw)


def _reduction(name, ref, dtypes, samples, result="same", **kw):
    kw = {"inplace": False, "out": False, **kw}
    return OpInfo(name, "reduction", ref, dtypes, samples, result=result, **kw)


def _matmul(name, ref, *samples, inplace=False):
    return OpInfo(name, "matmul", ref, MATMUL, fixed(*samples), inplace=inplace, tol=LOW)


def _view(name, fn, ref, *samples, view=True):
    kw = {"inplace": False, "out": False, "method": False}
    return OpInfo(name, "view", ref, ALL, fixed(*samples), fn=fn, view=view, **kw)


def _create(name, ref, samples, dtypes=ALL, takes_dtype=True, values=True, fn=None):
    kw = {"differentiable": False, "method": False, "inplace": False, "out": False}
    return OpInfo(
        name, "creation", ref, dtypes, samples, fn=fn, takes_dtype=takes_dtype, values=values, **kw
    )


def on(*args, **kwargs):
    """A sample from positional arguments and keyword arguments: on(T((3, 4)), 0, keepdim=True)."""
    return Sample(args, kwargs)


def _np_add_product(c, a, b, beta=1, alpha=1):
    return beta * c + alpha * (a @ b)


def _np_logsumexp(a, dim, keepdim=False):
    return np.log(np.sum(np.exp(a), axis=dim, keepdims=keepdim))


def _np_reshape(a, *shape):
    return a.reshape(_np_size(shape))


def _bool_unless_u8(dtype):
    return u8 if dtype == u8 else b8  # all/any keep uint8, as PyTorch does


LOG_DOMAIN, UNIT_DOMAIN = (0.1, 5), (-0.95, 0.95)
BOOLEAN = dict(result="bool", differentiable=False, dtypes=ALL)
LOGICAL = dict(BOOLEAN, samples=tensor_only_samples)
PREDICATE = dict(differentiable=False, inplace=False, out=False)
FULL = reduction_samples(empty=False)(None)[:3]  # whole-tensor reductions only
DIM_ONLY = reduction_samples(full=False, multi=False, empty=False)
LIKE = [Sample((spec,)) for spec in UNARY[:6]]

# fmt: off
OPS = [
    # unary, float results (integer and bool inputs give the default float dtype)
    _unary("exp", np.exp),
    _unary("exp2", np.exp2),
    _unary("log", np.log, domain=LOG_DOMAIN),
    _unary("log2", np.log2, domain=LOG_DOMAIN),
    _unary("log10", np.log10, domain=LOG_DOMAIN),
    _unary("log1p", np.log1p, domain=(-0.9, 5)),
    _unary("expm1", np.expm1),
    _unary("sqrt", np.sqrt, domain=LOG_DOMAIN),
    _unary("rsqrt", lambda a: 1 / np.sqrt(a), domain=LOG_DOMAIN),
    _unary("sin", np.sin),
    _unary("cos", np.cos),
    _unary("tan", np.tan, domain=(-1.4, 1.4)),
    _unary("asin", np.arcsin, domain=UNIT_DOMAIN),
    _unary("acos", np.arccos, domain=UNIT_DOMAIN),
    _unary("atan", np.arctan),
    _unary("sinh", np.sinh),
    _unary("cosh", np.cosh),
    _unary("asinh", np.arcsinh),
    _unary("acosh", np.arccosh, domain=(1.0, 10.0)),
    _unary("atanh", np.arctanh, domain=(-0.95, 0.95)),
    _unary("tanh", np.tanh),
    _unary("sigmoid", lambda a: 1 / (1 + np.exp(-a))),
    _unary("erf", _erf),
    _unary("erfinv", _erfinv, domain=UNIT_DOMAIN),
    _unary("reciprocal", lambda a: 1 / a, nonzero=(0,)),
    # unary, same dtype
    _unary("abs", np.abs, NUMERIC, "same"),
    _unary("neg", np.negative, NUMERIC, "same"),
    _unary("relu", lambda a: np.maximum(a, a.dtype.type(0)), NUMERIC, "same"),
    _unary("sign", lambda a: a.copy() if a.dtype == np.bool_ else np.sign(a), ALL, "same"),
    _unary("floor", np.floor, NUMERIC, "same"),
    _unary("ceil", np.ceil, NUMERIC, "same"),
    _unary("round", np.round, NUMERIC, "same"),
    _unary("trunc", np.trunc, NUMERIC, "same"),
    _unary("frac", lambda a: a - np.trunc(a), FLOATS, "same"),
    _unary("bitwise_not", np.invert, INTEGRAL, "same", differentiable=False),
    _unary("logical_not", np.logical_not, ALL, "bool", differentiable=False),
    _unary("isnan", np.isnan, ALL, "bool", **PREDICATE),
    _unary("isinf", np.isinf, ALL, "bool", **PREDICATE),
    _unary("isfinite", np.isfinite, ALL, "bool", **PREDICATE),

    # binary
    _binary("add", lambda a, b, alpha=1: a + b if alpha == 1 else a + alpha * b,
            samples=add_samples),
    _binary("sub", lambda a, b, alpha=1: a - alpha * b, NUMERIC, samples=add_samples),
    _binary("mul", np.multiply),
    _binary("div", np.true_divide, result="float", nonzero=(1,)),
    _binary("div.trunc", _np_div("trunc"), NUMERIC, nonzero=(1,),
            torch_name="div", fixed={"rounding_mode": "trunc"}),
    _binary("div.floor", _np_div("floor"), NUMERIC, nonzero=(1,),
            torch_name="div", fixed={"rounding_mode": "floor"}),
    _binary("pow", np.power, FLOATS, domain=((0.1, 3), (-2, 2)), samples=pow_samples),
    _binary("pow.int", np.power, INTS, domain=((-3, 3), (0, 3)), samples=pow_samples,
            torch_name="pow"),
    _binary("atan2", np.arctan2, result="float", samples=tensor_only_samples),
    _binary("fmod", np.fmod, NUMERIC, nonzero=(1,)),
    _binary("remainder", np.remainder, NUMERIC, nonzero=(1,)),
    _binary("maximum", np.maximum, inplace=False, samples=tensor_only_samples),
    _binary("minimum", np.minimum, inplace=False, samples=tensor_only_samples),
    _binary("eq", np.equal, **BOOLEAN),
    _binary("ne", np.not_equal, **BOOLEAN),
    _binary("lt", np.less, **BOOLEAN),
    _binary("le", np.less_equal, **BOOLEAN),
    _binary("gt", np.greater, **BOOLEAN),
    _binary("ge", np.greater_equal, **BOOLEAN),
    _binary("logical_and", np.logical_and, **LOGICAL),
    _binary("logical_or", np.logical_or, **LOGICAL),
    _binary("logical_xor", np.logical_xor, **LOGICAL),
    _binary("bitwise_and", np.bitwise_and, INTEGRAL, differentiable=False),
    _binary("bitwise_or", np.bitwise_or, INTEGRAL, differentiable=False),
    _binary("bitwise_xor", np.bitwise_xor, INTEGRAL, differentiable=False),

    # ternary (and ops with optional tensor/scalar extras)
    OpInfo("clamp", "ternary", _np_clamp, NUMERIC, clamp_samples),
    OpInfo("lerp", "ternary", lambda a, b, w: a + w * (b - a), FLOATS, lerp_samples),
    OpInfo("addcmul", "ternary", lambda a, b, c, value=1: a + value * b * c, NUMERIC,
           addc_samples),
    OpInfo("addcdiv", "ternary", lambda a, b, c, value=1: a + value * b / c, FLOATS,
           addc_samples, nonzero=(2,)),
    OpInfo("where", "ternary", np.where, ALL, where_samples, method=False, inplace=False),

    # reductions
    _reduction("sum", _np_reduce(np.sum), ALL, reduction_samples(), "int64", tol=LOW),
    _reduction("mean", _np_reduce(np.mean), FLOATS, reduction_samples(), tol=LOW),
    _reduction("prod", _np_reduce(np.prod), ALL, reduction_samples(multi=False), "int64",
               domain=(-2, 2), tol=LOW),
    _reduction("max", lambda a: np.max(a), ALL, fixed(*FULL)),
    _reduction("min", lambda a: np.min(a), ALL, fixed(*FULL)),
    _reduction("max.dim", _np_max_dim(np.max, np.argmax), NUMERIC, DIM_ONLY, ("same", "long"),
               fn=lambda x, **kw: tuple(torch.max(x, **kw))),
    _reduction("min.dim", _np_max_dim(np.min, np.argmin), NUMERIC, DIM_ONLY, ("same", "long"),
               fn=lambda x, **kw: tuple(torch.min(x, **kw))),
    _reduction("amax", _np_reduce(np.max), ALL, reduction_samples(empty=False)),
    _reduction("amin", _np_reduce(np.min), ALL, reduction_samples(empty=False)),
    _reduction("argmax", _np_reduce(np.argmax), NUMERIC,
               reduction_samples(multi=False, empty=False), "long", differentiable=False),
    _reduction("argmin", _np_reduce(np.argmin), NUMERIC,
               reduction_samples(multi=False, empty=False), "long", differentiable=False),
    _reduction("std", _np_std_var(np.std), FLOATS, std_samples, tol=LOW),
    _reduction("var", _np_std_var(np.var), FLOATS, std_samples, tol=LOW),
    _reduction("norm", _np_norm, FLOATS, norm_samples, tol=LOW),
    _reduction("logsumexp", _np_logsumexp, NUMERIC, reduction_samples(full=False), "float",
               tol=LOW),
    _reduction("all", _np_reduce(np.all), ALL, reduction_samples(), _bool_unless_u8,
               differentiable=False),
    _reduction("any", _np_reduce(np.any), ALL, reduction_samples(), _bool_unless_u8,
               differentiable=False),

    # matrix products
    _matmul("matmul", np.matmul,
            on(T((3,)), T((3,))),               # vector . vector -> 0-d
            on(T((2, 3)), T((3,))),             # matrix @ vector
            on(T((3,)), T((3, 4))),             # vector @ matrix
            on(T((2, 3)), T((3, 4))),
            on(T((2, 2, 3)), T((3, 4))),        # batch @ matrix
            on(T((2, 2, 3), "t"), T((3, 4))),   # strided batch @ matrix (folded into rows)
            on(T((3,)), T((2, 3, 4))),          # vector @ batch
            on(T((2, 3, 4)), T((4,))),          # batch @ vector
            on(T((2, 1, 2, 3)), T((3, 3, 2))),  # broadcast batch dims
            on(T((3, 4), "t"), T((4, 2), "s")),
            on(T((0, 3)), T((3, 4))),
            on(T((2, 0)), T((0, 3)))),          # empty inner dim: zeros
    _matmul("mm", np.matmul,
            on(T((2, 3)), T((3, 4))),
            on(T((2, 3), "t"), T((3, 4), "t")),
            on(T((2, 3), "s"), T((3, 4), "o")),
            on(T((0, 3)), T((3, 2))),
            on(T((2, 0)), T((0, 3)))),
    _matmul("bmm", np.matmul,
            on(T((2, 3, 4)), T((2, 4, 5))),
            on(T((2, 3, 4), "t"), T((2, 4, 5), "s")),
            on(T((0, 2, 3)), T((0, 3, 4)))),
    _matmul("mv", np.matmul,
            on(T((2, 3)), T((3,))),
            on(T((3, 4), "t"), T((4,), "s")),
            on(T((0, 3)), T((3,)))),
    _matmul("dot", np.dot,
            on(T((5,)), T((5,))),
            on(T((5,), "s"), T((5,), "o")),
            on(T((0,)), T((0,)))),
    _matmul("addmm", _np_add_product,
            on(T((2, 4)), T((2, 3)), T((3, 4))),
            on(T((4,)), T((2, 3), "t"), T((3, 4)), beta=2, alpha=3),
            on(T(()), T((2, 0)), T((0, 4))), inplace=True),
    _matmul("addmv", _np_add_product,
            on(T((2,)), T((2, 3)), T((3,))),
            on(T(()), T((3, 2), "t"), T((2,), "s"), beta=2, alpha=3), inplace=True),
    _matmul("baddbmm", _np_add_product,
            on(T((2, 3, 5)), T((2, 3, 4)), T((2, 4, 5))),
            on(T((3, 5)), T((2, 3, 4), "t"), T((2, 4, 5)), beta=2, alpha=3), inplace=True),

    # views (and reshape/contiguous, which return a view only when they can)
    _view("view", lambda x, *shape: x.view(*shape), _np_reshape,
          on(T((2, 3, 4)), 6, 4), on(T((2, 3, 4)), -1), on(T((2, 3, 4)), 4, -1, 2),
          on(T(()), 1), on(T((1,)), ()), on(T((0, 3)), 3, 0), on(T((2, 3, 4), "s"), 6, 4)),
    _view("reshape", lambda x, *shape: x.reshape(*shape), _np_reshape,
          on(T((2, 3, 4)), 6, 4), on(T((3, 4), "t"), -1), on(T((2, 3, 4), "s"), 4, -1),
          on(T((4, 5), "e"), 20), on(T(()), 1, 1), on(T((0, 3)), (3, 0)), view=False),
    _view("transpose", lambda x, d0, d1: x.transpose(d0, d1), np.swapaxes,
          on(T((2, 3, 4)), 0, 2), on(T((3, 4), "t"), 0, 1), on(T((2, 3, 4), "s"), -1, 0),
          on(T((5,)), 0, 0), on(T((0, 3)), 1, 0)),
    _view("permute", lambda x, dims: x.permute(dims), np.transpose,
          on(T((2, 3, 4)), (2, 0, 1)), on(T((2, 3, 4), "s"), (1, 2, 0)),
          on(T((3, 4), "t"), (1, 0)), on(T((2, 3, 4)), (-1, 0, 1)), on(T(()), ())),
    _view("t", lambda x: x.t(), lambda a: a.T,
          on(T((3, 4))), on(T((5,))), on(T(())), on(T((3, 4), "t")), on(T((0, 3)))),
    _view("expand", lambda x, *sizes: x.expand(*sizes), _np_expand,
          on(T((3, 1)), 2, 3, 4), on(T((1,)), 5), on(T(()), 2, 3), on(T((3, 1)), -1, 4),
          on(T((1, 3), "o"), 4, 3), on(T((3, 1), "t"), 2, 3, 5), on(T((0, 1)), 0, 5)),
    _view("squeeze", lambda x, *dim: x.squeeze(*dim), _np_squeeze,
          on(T((1, 3, 1, 4))), on(T((1, 3, 1, 4)), 2), on(T((1, 3, 1, 4)), 1),
          on(T((1, 3, 1, 4)), -4), on(T((1, 3, 1, 4)), (0, 2)), on(T(())), on(T((1, 1)))),
    _view("unsqueeze", lambda x, dim: x.unsqueeze(dim), np.expand_dims,
          on(T((3, 4)), 0), on(T((3, 4)), -1), on(T((3, 4)), 1), on(T(()), 0),
          on(T((3, 4), "t"), 2)),
    _view("narrow", lambda x, *a: x.narrow(*a), _np_narrow,
          on(T((5, 4)), 0, 1, 3), on(T((5, 4)), -1, 0, 2), on(T((4, 5), "t"), 1, 2, 2),
          on(T((5,)), 0, 2, 0), on(T((5, 4)), 0, -2, 2)),
    _view("select", lambda x, dim, i: x.select(dim, i), lambda a, dim, i: np.take(a, i, axis=dim),
          on(T((3, 4)), 0, 1), on(T((3, 4)), 1, -1), on(T((2, 3, 4), "s"), 2, 1),
          on(T((5,)), 0, 0), on(T((4, 5), "e"), 0, 3)),
    _view("unfold", lambda x, *a: x.unfold(*a), _np_unfold,
          on(T((7,)), 0, 3, 2), on(T((4, 6)), 1, 2, 2), on(T((3, 4), "t"), 0, 2, 1),
          on(T((4, 6)), -1, 6, 1), on(T((5,)), 0, 5, 3)),
    _view("as_strided", lambda x, *a: x.as_strided(*a), _np_as_strided,
          on(T((12,)), (3, 3), (3, 1)), on(T((12,)), (2, 2), (1, 2), 1),
          on(T((12,)), (4,), (3,)), on(T((12,)), (2, 3), (0, 1), 2), on(T((3, 4)), (), (), 5)),
    _view("diagonal", lambda x, **kw: x.diagonal(**kw),
          lambda a, offset=0, dim1=0, dim2=1: np.diagonal(a, offset, dim1, dim2),
          on(T((3, 4))), on(T((3, 4)), offset=1), on(T((3, 4)), offset=-2),
          on(T((3, 4)), offset=5), on(T((2, 3, 4)), dim1=1, dim2=2),
          on(T((2, 3, 4)), dim1=-1, dim2=0), on(T((3, 4), "t"))),
    _view("contiguous", lambda x: x.contiguous(), lambda a: a, *map(on, UNARY), view=False),

    # creation
    _create("zeros", lambda *size, dtype: np.zeros(_np_size(size), dtype),
            fixed(on(2, 3), on((2, 3)), on([4]), on(()), on(0)),
            fn=lambda *size, dtype: torch.zeros(*size, dtype=dtype)),
    _create("ones", lambda *size, dtype: np.ones(_np_size(size), dtype),
            fixed(on(2, 3), on((2, 3)), on(()), on(0, 2)),
            fn=lambda *size, dtype: torch.ones(*size, dtype=dtype)),
    _create("empty", lambda *size, dtype: np.empty(_np_size(size), dtype),
            fixed(on(2, 3), on((4,)), on(()), on(0)), values=False,
            fn=lambda *size, dtype: torch.empty(*size, dtype=dtype)),
    _create("full", lambda size, value, dtype: np.full(size, value, dtype),
            fixed(on((2, 3), S()), on((), S()), on((0, 4), S()))),
    _create("arange", lambda *a, dtype: np.arange(*a).astype(dtype), arange_samples, NUMERIC),
    _create("linspace", lambda *a, dtype: np.linspace(*a).astype(dtype), linspace_samples,
            NUMERIC),
    _create("logspace", lambda start, end, steps, base=10.0, dtype=None:
            (base ** np.linspace(start, end, steps)).astype(dtype),
            fixed(on(0, 2, 3), on(-1, 1, 5, base=2.0), on(1, 0, 1)), FLOATS),
    _create("eye", lambda *a, dtype: np.eye(*a, dtype=dtype),
            fixed(on(3), on(2, 4), on(4, 2), on(0))),
    _create("zeros_like", np.zeros_like, fixed(*LIKE), takes_dtype=False),
    _create("ones_like", np.ones_like, fixed(*LIKE), takes_dtype=False),
    _create("empty_like", np.empty_like, fixed(*LIKE), takes_dtype=False, values=False),
    _create("full_like", lambda a, v: np.full_like(a, v), takes_dtype=False,
            samples=fixed(on(T((3, 4)), S()), on(T((3, 4), "t"), S()), on(T(()), S()))),
]
# fmt: on


def _add_parts():
    """The breadth ops are listed in their own modules, one per topic, joined here."""
    from torch.testing import (
        _registry_indexing,
        _registry_linalg,
        _registry_shape,
        _registry_sorting,
    )

    for part in (_registry_indexing, _registry_shape, _registry_sorting, _registry_linalg):
        OPS.extend(part.OPS)


_add_parts()
BY_NAME = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "an op is listed twice"


def cases(*kinds, where=None):
    """Every (op, dtype, sample) of ops of the given kinds (all when none), filtered by `where`."""
    found = [
        Case(op, dtype, sample)
        for op in OPS
        if not kinds or op.kind in kinds
        for dtype in op.dtypes
        for sample in op.samples(dtype)
    ]
    return [case for case in found if where is None or where(case)]


def broadcast_shape(case):
    """The shape the tensor arguments of `case` broadcast to (from the specs, without torch)."""
    specs = list(case.sample.args) + list(case.sample.kwargs.values())
    shapes = [a.shape for a in specs if isinstance(a, T)]
    return tuple(np.broadcast_shapes(*shapes))
