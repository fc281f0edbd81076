"""Elementwise ops against NumPy: every registry op x dtype x sample, their
method / in-place / out= variants, operators, special values and aliasing."""

import math
import operator

import numpy as np
import pytest

import torch
from torch.testing._op_registry import (
    BY_NAME,
    FLOATS,
    INTS,
    NUMPY_DTYPE,
    SHORT,
    Case,
    Sample,
    T,
    assert_array_matches,
    broadcast_shape,
    cases,
)

KINDS = ("unary", "binary", "ternary")


def _first_arg_takes_result(case):
    """In-place is legal: the first argument is a tensor with the result's shape and dtype."""
    first = case.sample.args[0]
    return (
        case.op.inplace
        and isinstance(first, T)
        and first.layout != "e"
        and first.shape == broadcast_shape(case)
        and case.result_dtypes == (case.dtype,)
    )


def _interesting(case):
    """Non-contiguous or broadcasting inputs: the samples worth repeating for each variant."""
    specs = [a for a in case.sample.args if isinstance(a, T)]
    return any(a.layout != "c" for a in specs) or len({a.shape for a in specs}) > 1


def _first(found, per_op_dtype=1):
    """The first `per_op_dtype` interesting cases of each (op, dtype): variants share the kernel."""
    kept, seen = [], {}
    for case in found:
        key = (case.op.name, case.dtype)
        if _interesting(case) and seen.get(key, 0) < per_op_dtype:
            seen[key] = seen.get(key, 0) + 1
            kept.append(case)
    return kept


@pytest.mark.parametrize("case", cases(*KINDS), ids=repr)
def test_matches_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


@pytest.mark.parametrize(
    "case",
    _first(cases(*KINDS, where=lambda c: c.op.method and isinstance(c.sample.args[0], T))),
    ids=repr,
)
def test_method_matches_numpy(case):
    x = case.make()
    self, *rest = x.args
    result = getattr(self, case.op.target)(*rest, **case.op.fixed, **x.kwargs)
    case.check(result, case.expected(x))


@pytest.mark.parametrize("case", cases(*KINDS, where=_first_arg_takes_result), ids=repr)
def test_inplace_matches_numpy(case):
    x = case.make()
    self, *rest = x.args
    ptr, version = self.data_ptr(), self._version
    result = getattr(self, case.op.target + "_")(*rest, **case.op.fixed, **x.kwargs)
    assert result is self
    assert self.data_ptr() == ptr
    assert self._version > version
    case.check(self, case.expected(x))


@pytest.mark.parametrize("case", _first(cases(*KINDS, where=lambda c: c.op.out), 2), ids=repr)
def test_out_matches_numpy(case):
    x = case.make()
    expected = case.expected(x)
    shape = np.shape(expected)
    # a transposed (non-contiguous) out tensor when there are two or more dims
    out = torch.empty(shape[::-1], dtype=case.result_dtypes[0]).permute(
        tuple(reversed(range(len(shape))))
    )
    result = case.op(*x.args, **x.kwargs, out=out)
    assert result is out
    case.check(out, expected)


def test_out_of_wider_dtype_gets_the_cast_result():
    a, b = torch.tensor([1.5, 2.25]), torch.tensor([0.5, 0.25])
    out = torch.empty(2, dtype=torch.float64)
    torch.add(a, b, out=out)
    assert out.dtype == torch.float64
    assert out.tolist() == [2.0, 2.5]


def test_out_bumps_its_version():
    out = torch.empty(3)
    before = out._version
    torch.mul(torch.ones(3), 2, out=out)
    assert out._version > before


def test_every_dtype_and_kind_is_covered():
    kinds = {op.kind for op in BY_NAME.values()}
    assert {"unary", "binary", "ternary", "reduction", "matmul", "view", "creation"} <= kinds
    for op in BY_NAME.values():
        assert op.dtypes and op.samples(op.dtypes[0]), op.name


# --- operators ----------------------------------------------------------------

BINARY_OPERATORS = [
    ("add", operator.add),
    ("sub", operator.sub),
    ("mul", operator.mul),
    ("truediv", operator.truediv),
    ("floordiv", operator.floordiv),
    ("mod", operator.mod),
    ("pow", operator.pow),
    ("eq", operator.eq),
    ("ne", operator.ne),
    ("lt", operator.lt),
    ("le", operator.le),
    ("gt", operator.gt),
    ("ge", operator.ge),
]
BITWISE_OPERATORS = [("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)]
INPLACE_OPERATORS = [
    ("iadd", operator.iadd),
    ("isub", operator.isub),
    ("imul", operator.imul),
    ("ifloordiv", operator.ifloordiv),
    ("imod", operator.imod),
    ("ipow", operator.ipow),
]


def _expected_dtype(name, dtype):
    if name in ("eq", "ne", "lt", "le", "gt", "ge"):
        return torch.bool
    if name == "truediv" and not dtype.is_floating_point:
        return torch.get_default_dtype()
    return dtype


def _pair(dtype):
    """A (3, 4) and a (4,) tensor (positive, so pow and division are defined), with NumPy copies."""
    rng = np.random.default_rng(1)
    if dtype == torch.bool:
        a, b = rng.random((3, 4)) < 0.5, rng.random(4) < 0.5
    elif dtype.is_floating_point:
        a, b = rng.uniform(0.5, 2, (3, 4)), rng.uniform(0.5, 2, 4)
    else:
        a, b = rng.integers(1, 5, (3, 4)), rng.integers(1, 4, 4)
    na, nb = a.astype(NUMPY_DTYPE[dtype]), b.astype(NUMPY_DTYPE[dtype])
    return torch.tensor(na), torch.tensor(nb), na, nb


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int64, torch.int32], ids=SHORT.get
)
@pytest.mark.parametrize("name, fn", BINARY_OPERATORS, ids=[n for n, _ in BINARY_OPERATORS])
def test_binary_operator(name, fn, dtype):
    ta, tb, na, nb = _pair(dtype)
    for result, expected in [
        (fn(ta, tb), fn(na, nb)),
        (fn(ta, 2), fn(na, 2)),
        (fn(3, tb), fn(3, nb)),
        (fn(ta.t().contiguous().t(), tb), fn(na, nb)),
    ]:
        assert result.dtype == _expected_dtype(name, dtype)
        assert_array_matches(result, expected, 1e-5, 1e-6)


@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.bool], ids=SHORT.get)
@pytest.mark.parametrize("name, fn", BITWISE_OPERATORS, ids=[n for n, _ in BITWISE_OPERATORS])
def test_bitwise_operator(name, fn, dtype):
    ta, tb, na, nb = _pair(dtype)
    scalar = True if dtype == torch.bool else 6
    for result, expected in [
        (fn(ta, tb), fn(na, nb)),
        (fn(ta, scalar), fn(na, scalar)),
        (fn(scalar, tb), fn(scalar, nb)),
    ]:
        assert result.dtype == dtype
        assert_array_matches(result, expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=SHORT.get)
def test_unary_operators(dtype):
    ta, _, na, _ = _pair(dtype)
    assert_array_matches(-ta, -na, 0, 0)
    assert_array_matches(+ta, na, 0, 0)
    assert_array_matches(abs(-ta), na, 0, 0)
    if not dtype.is_floating_point:
        assert_array_matches(~ta, ~na)
    assert_array_matches(~(ta > 2), ~(na > 2))


def test_matmul_operator():
    ta, tb, na, nb = _pair(torch.float64)
    assert_array_matches(ta @ tb, na @ nb, 1e-12, 1e-12)
    assert_array_matches(ta @ ta.t(), na @ na.T, 1e-12, 1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=SHORT.get)
@pytest.mark.parametrize("name, fn", INPLACE_OPERATORS, ids=[n for n, _ in INPLACE_OPERATORS])
def test_inplace_operator_keeps_the_tensor(name, fn, dtype):
    ta, tb, na, nb = _pair(dtype)
    ident, ptr, version = id(ta), ta.data_ptr(), ta._version
    ta = fn(ta, tb)
    na = fn(na, nb)
    assert id(ta) == ident and ta.data_ptr() == ptr and ta._version > version
    assert ta.dtype == dtype
    assert_array_matches(ta, na, 1e-5, 1e-6)


@pytest.mark.parametrize(
    "name, fn", [("iand", operator.iand), ("ior", operator.ior), ("ixor", operator.ixor)]
)
def test_inplace_bitwise_operator(name, fn):
    ta, tb, na, nb = _pair(torch.int32)
    ident = id(ta)
    ta = fn(ta, tb)
    assert id(ta) == ident
    assert_array_matches(ta, fn(na, nb))


def test_inplace_true_division():
    a = torch.tensor([1.0, 3.0])
    a /= 2
    assert a.tolist() == [0.5, 1.5]


def test_inplace_result_that_cannot_be_cast_is_an_error():
    a = torch.tensor([1, 2])
    with pytest.raises(RuntimeError):
        a /= 2
    with pytest.raises(RuntimeError):
        a.exp_()
    with pytest.raises(RuntimeError):
        a.add_(0.5)
    assert a.tolist() == [1, 2]


# --- broadcasting and scalars ---------------------------------------------------


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [((2, 1, 4), (3, 1)), ((5,), (2, 3, 5)), ((1,), ()), ((0, 1), (1, 3)), ((2, 3), (2, 3))],
)
def test_broadcast_shape_matches_numpy(shape_a, shape_b):
    a, b = torch.ones(shape_a), torch.ones(shape_b)
    assert tuple((a + b).shape) == np.broadcast_shapes(shape_a, shape_b)
    assert tuple((b * a).shape) == np.broadcast_shapes(shape_a, shape_b)


@pytest.mark.parametrize(
    "dtype", [torch.int8, torch.uint8, torch.float16, torch.bfloat16], ids=SHORT.get
)
def test_python_scalars_keep_the_tensor_dtype(dtype):
    t = torch.ones(3, dtype=dtype)
    assert (t + 1).dtype == dtype
    assert (t * 2).dtype == dtype
    assert (1 - t).dtype == dtype
    expected_float = dtype if dtype.is_floating_point else torch.float32
    assert (t * 2.5).dtype == expected_float


def test_integer_overflow_wraps_like_numpy():
    t = torch.tensor([120, -120], dtype=torch.int8)
    assert_array_matches(t + 10, np.array([120, -120], np.int8) + np.int8(10))
    u = torch.tensor([250, 3], dtype=torch.uint8)
    assert_array_matches(u + 10, np.array([250, 3], np.uint8) + np.uint8(10))


# --- special values -------------------------------------------------------------

SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-20, -100.0, 0.5, -2.5]
# torch.sign(nan) is 0 where NumPy gives nan; everything else agrees with NumPy.
SPECIAL_UNARY = [
    op
    for op in BY_NAME.values()
    if op.kind == "unary" and torch.float32 in op.dtypes and op.name != "sign"
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=SHORT.get)
@pytest.mark.parametrize("op", SPECIAL_UNARY, ids=lambda op: op.name)
def test_unary_special_values(op, dtype):
    values = np.array(SPECIAL, NUMPY_DTYPE[dtype])
    case = Case(op, dtype, Sample(()))
    expected = case.expected(case.make()._replace(np_args=[values.astype(np.float64)]))
    case.check(op(torch.tensor(values)), expected)


def test_sign_of_nan_is_zero():
    assert torch.sign(torch.tensor([math.nan, -0.0, 3.0])).tolist() == [0.0, 0.0, 1.0]


@pytest.mark.parametrize(
    "name",
    [
        "add",
        "mul",
        "div",
        "maximum",
        "minimum",
        "fmod",
        "remainder",
        "atan2",
        "pow",
        "eq",
        "lt",
        "ge",
    ],
)
def test_binary_special_values(name):
    op = BY_NAME[name]
    a = np.repeat(np.array(SPECIAL), len(SPECIAL))
    b = np.tile(np.array(SPECIAL), len(SPECIAL))
    case = Case(op, torch.float64, Sample(()))
    case.check(
        op(torch.tensor(a), torch.tensor(b)), case.expected(case.make()._replace(np_args=[a, b]))
    )


def test_integer_division_by_zero_is_an_error():
    a, zero = torch.tensor([1, 2]), torch.tensor([0, 1])
    for fn in (
        lambda: a // zero,
        lambda: a % zero,
        lambda: torch.div(a, zero, rounding_mode="trunc"),
    ):
        with pytest.raises(RuntimeError):
            fn()
    assert (a / zero).tolist() == [math.inf, 2.0]


# --- aliasing -------------------------------------------------------------------


def test_inplace_with_itself():
    a = torch.tensor([1.0, 2.0, 3.0])
    a.add_(a)
    assert a.tolist() == [2.0, 4.0, 6.0]
    a.mul_(a)
    assert a.tolist() == [4.0, 16.0, 36.0]


def test_out_is_an_input():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([10.0, 20.0])
    assert torch.add(a, b, out=a) is a
    assert a.tolist() == [11.0, 22.0]
    torch.mul(a, a, out=a)
    assert a.tolist() == [121.0, 484.0]
    torch.sub(b, a, alpha=2, out=b)
    assert b.tolist() == [-232.0, -948.0]


def test_inplace_on_a_view_writes_through_to_the_base():
    base = torch.zeros(3, 4)
    base[:, 1].add_(torch.tensor([1.0, 2.0, 3.0]))
    base.t()[2].fill_(7)
    expected = np.zeros((3, 4))
    expected[:, 1] += [1, 2, 3]
    expected[:, 2] = 7
    assert_array_matches(base, expected)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: a.t().add_(a),  # same memory, another layout
        lambda a: a[1:].add_(a[:-1]),  # shifted overlap
        lambda a: torch.mul(a, 2, out=a.t()),
        lambda a: a.add_(a[0]),  # a row of itself, broadcast
    ],
    ids=["transposed", "shifted", "out-transposed", "own-row"],
)
def test_partial_overlap_is_an_error_not_a_wrong_result(fn):
    a = torch.arange(9.0).reshape(3, 3)
    with pytest.raises(RuntimeError):
        fn(a)


def test_writing_into_an_expanded_tensor_is_an_error():
    with pytest.raises(RuntimeError):
        torch.ones(3, 1).expand(3, 4).add_(1)


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=SHORT.get)
def test_where_with_python_scalars(dtype):
    cond = torch.tensor([True, False, True])
    x = torch.tensor([1, 2, 3], dtype=dtype)
    result = torch.where(cond, x, 0)
    assert result.dtype == dtype
    assert result.tolist() == [1, 0, 3]


def test_neg_flips_the_sign_of_zero():
    import math

    out = (-torch.tensor([0.0, -0.0], dtype=torch.float64)).tolist()
    assert [math.copysign(1.0, v) for v in out] == [-1.0, 1.0]  # IEEE negation, as NumPy


# The elementwise walk takes whole runs of the innermost dim per step of the next one; runs
# split between threads start and end mid-row. Permuted copies and binary ops over several
# layouts against NumPy.
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "shape, perm",
    [((32, 64, 6, 32), (0, 2, 1, 3)), ((7, 5, 3, 9), (3, 1, 0, 2)), ((300, 3, 111), (2, 0, 1))],
)
def test_strided_walk_over_rows_matches_numpy(threads, shape, perm):
    torch.set_num_threads(threads)
    try:
        a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        t = torch.from_numpy(a).permute(*perm)
        want = a.transpose(perm)
        np.testing.assert_array_equal(t.contiguous().numpy(), want)
        np.testing.assert_array_equal((t + 1).numpy(), want + 1)
        np.testing.assert_array_equal((t * t.contiguous()).numpy(), want * want)
    finally:
        torch.set_num_threads(2)


@pytest.mark.parametrize("n", [5, 70_000])
def test_ops_on_expanded_values(n):
    """An expanded (stride 0) input: copies, casts and unary ops fill its one value."""
    s = torch.tensor([-2.5, 3.0], dtype=torch.float32)[1:]
    e = s.expand(n)
    assert e.stride() == (0,)
    np.testing.assert_array_equal(e.clone().numpy(), np.full(n, 3.0, np.float32))
    np.testing.assert_array_equal(e.to(torch.int64).numpy(), np.full(n, 3))
    np.testing.assert_array_equal(e.to(torch.float64).numpy(), np.full(n, 3.0))
    np.testing.assert_array_equal((-e).numpy(), np.full(n, -3.0, np.float32))
    np.testing.assert_array_equal(torch.relu(-e).numpy(), np.zeros(n, np.float32))
    np.testing.assert_allclose(torch.sqrt(e).numpy(), np.full(n, np.sqrt(np.float32(3.0))))
    m = torch.tensor([[1.5], [-4.0]]).expand(2, n)  # stride 0 along the inner dim only
    np.testing.assert_array_equal(torch.abs(m).numpy(), np.abs(m.numpy()))
    np.testing.assert_array_equal(m.contiguous().numpy(), np.repeat([[1.5], [-4.0]], n, 1))
