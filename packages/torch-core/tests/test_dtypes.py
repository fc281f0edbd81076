"""dtypes: the ten dtype objects, the default dtype, finfo/iinfo, type promotion
(weak Python scalars and 0-d tensors) and the legacy typed tensor classes."""

import itertools

import numpy as np
import pytest

import torch
from torch.testing._op_registry import ALL, SHORT

# name, itemsize, is_floating_point, is_signed, legacy class name
DTYPES = [
    (torch.float32, 4, True, True, "FloatTensor"),
    (torch.float64, 8, True, True, "DoubleTensor"),
    (torch.float16, 2, True, True, "HalfTensor"),
    (torch.bfloat16, 2, True, True, "BFloat16Tensor"),
    (torch.int8, 1, False, True, "CharTensor"),
    (torch.uint8, 1, False, False, "ByteTensor"),
    (torch.int16, 2, False, True, "ShortTensor"),
    (torch.int32, 4, False, True, "IntTensor"),
    (torch.int64, 8, False, True, "LongTensor"),
    (torch.bool, 1, False, False, "BoolTensor"),
]


@pytest.mark.parametrize(
    "dtype, itemsize, floating, signed, legacy", DTYPES, ids=[SHORT[d[0]] for d in DTYPES]
)
def test_dtype_objects(dtype, itemsize, floating, signed, legacy):
    assert isinstance(dtype, torch.dtype)
    assert dtype.itemsize == itemsize
    assert dtype.is_floating_point is floating
    assert dtype.is_signed is signed
    assert repr(dtype) == "torch." + {torch.bool: "bool"}.get(dtype, repr(dtype).split(".")[1])
    assert torch.zeros(1, dtype=dtype).dtype == dtype
    assert torch.zeros(2, dtype=dtype).is_floating_point() is floating


def test_dtype_aliases():
    assert (
        torch.float is torch.float32
        and torch.double is torch.float64
        and torch.half is torch.float16
    )
    assert torch.long is torch.int64 and torch.int is torch.int32 and torch.short is torch.int16
    assert repr(torch.float) == "torch.float32" and repr(torch.long) == "torch.int64"
    assert len(set(ALL)) == 10


def test_default_dtype():
    assert torch.get_default_dtype() == torch.float32
    assert torch.tensor([1.0]).dtype == torch.float32
    assert torch.zeros(2).dtype == torch.float32
    assert torch.arange(3.0).dtype == torch.float32
    torch.set_default_dtype(torch.float64)
    assert torch.get_default_dtype() == torch.float64
    assert torch.tensor([1.0]).dtype == torch.float64
    assert torch.ones(2).dtype == torch.float64
    assert torch.rand(2).dtype == torch.float64
    assert (torch.tensor([1, 2]) / 2).dtype == torch.float64
    assert torch.tensor([1, 2]).dtype == torch.int64  # integers are not affected
    assert (torch.ones(2, dtype=torch.float32) * 2.5).dtype == torch.float32


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_default_dtype_must_be_floating(dtype):
    with pytest.raises(TypeError):
        torch.set_default_dtype(dtype)


@pytest.mark.parametrize(
    "dtype, np_dtype",
    [(torch.float32, np.float32), (torch.float64, np.float64), (torch.float16, np.float16)],
    ids=["f32", "f64", "f16"],
)
def test_finfo_matches_numpy(dtype, np_dtype):
    info, ref = torch.finfo(dtype), np.finfo(np_dtype)
    assert info.bits == ref.bits
    assert info.eps == float(ref.eps) and info.max == float(ref.max) and info.min == float(ref.min)
    assert info.tiny == float(ref.tiny) and info.resolution == 10.0**-ref.precision
    assert info.smallest_normal == info.tiny


def test_finfo_bfloat16():
    info = torch.finfo(torch.bfloat16)
    assert info.bits == 16
    assert info.eps == 2.0**-7
    assert info.tiny == 2.0**-126
    assert info.max == (2 - 2.0**-7) * 2.0**127
    assert info.min == -info.max


def test_finfo_default_is_the_default_dtype():
    assert torch.finfo().eps == torch.finfo(torch.float32).eps


@pytest.mark.parametrize(
    "dtype, np_dtype",
    [
        (torch.int8, np.int8),
        (torch.uint8, np.uint8),
        (torch.int16, np.int16),
        (torch.int32, np.int32),
        (torch.int64, np.int64),
    ],
    ids=["i8", "u8", "i16", "i32", "i64"],
)
def test_iinfo_matches_numpy(dtype, np_dtype):
    info, ref = torch.iinfo(dtype), np.iinfo(np_dtype)
    assert (info.bits, info.min, info.max) == (ref.bits, int(ref.min), int(ref.max))


@pytest.mark.parametrize(
    "fn",
    [
        lambda: torch.finfo(torch.int32),
        lambda: torch.iinfo(torch.float32),
        lambda: torch.iinfo(torch.bool),
    ],
    ids=["finfo-int", "iinfo-float", "iinfo-bool"],
)
def test_info_of_the_wrong_kind_is_an_error(fn):
    with pytest.raises(TypeError):
        fn()


# --- type promotion ----------------------------------------------------------
# An independent model of PyTorch's rules: categories bool < integer < floating;
# within a category the wider type wins, uint8 with int8 gives int16, float16
# with bfloat16 gives float32.

ORDER = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]


def category(dtype):
    return 2 if dtype.is_floating_point else 0 if dtype == torch.bool else 1


def promote(a, b):
    if a == b:
        return a
    if {a, b} == {torch.uint8, torch.int8}:
        return torch.int16
    if {a, b} == {torch.float16, torch.bfloat16}:
        return torch.float32
    if category(a) != category(b):
        return a if category(a) > category(b) else b
    return max(a, b, key=lambda d: (d.itemsize, ORDER.index(d)))


def promote_with_scalar(tensor_dtype, scalar):
    """A Python scalar (or 0-d tensor of `scalar` dtype) only counts when of a higher category."""
    kind = 0 if isinstance(scalar, bool) else 1 if isinstance(scalar, int) else 2
    if kind <= category(tensor_dtype):
        return tensor_dtype
    return torch.int64 if kind == 1 else torch.get_default_dtype()


PAIRS = list(itertools.product(ALL, ALL))


@pytest.mark.parametrize("a, b", PAIRS, ids=[f"{SHORT[a]}-{SHORT[b]}" for a, b in PAIRS])
def test_tensor_tensor_promotion(a, b):
    x, y = torch.ones(2, dtype=a), torch.ones(2, dtype=b)
    assert torch.result_type(x, y) == promote(a, b)
    assert torch.promote_types(a, b) == promote(a, b)
    assert (x * y).dtype == promote(a, b)
    assert torch.where(x > 0, x, y).dtype == promote(a, b)


SCALARS = [True, 2, -2, 2.5]
SCALAR_CASES = list(itertools.product(ALL, SCALARS))


@pytest.mark.parametrize(
    "dtype, scalar", SCALAR_CASES, ids=[f"{SHORT[d]}-{s!r}" for d, s in SCALAR_CASES]
)
def test_python_scalars_are_weak(dtype, scalar):
    t = torch.ones(2, dtype=dtype)
    expected = promote_with_scalar(dtype, scalar)
    assert torch.result_type(t, scalar) == expected
    if not (dtype == torch.bool and isinstance(scalar, bool)):
        assert (t * scalar).dtype == expected
        assert (scalar * t).dtype == expected


ZERO_DIM = list(
    itertools.product(
        [torch.int8, torch.int32, torch.float16, torch.float32, torch.bool],
        [torch.int64, torch.float64, torch.bool],
    )
)


@pytest.mark.parametrize(
    "dtype, zero_dim", ZERO_DIM, ids=[f"{SHORT[a]}-{SHORT[b]}" for a, b in ZERO_DIM]
)
def test_zero_dim_tensors_are_weak_within_their_category(dtype, zero_dim):
    t, s = torch.ones(2, dtype=dtype), torch.tensor(1, dtype=zero_dim)
    expected = dtype if category(zero_dim) <= category(dtype) else zero_dim
    assert torch.result_type(t, s) == expected
    assert (t * s).dtype == expected
    assert (s * t).dtype == expected


def test_two_zero_dim_tensors_promote_normally():
    a, b = torch.tensor(1, dtype=torch.int8), torch.tensor(1, dtype=torch.int32)
    assert (a + b).dtype == torch.int32
    assert (
        torch.tensor(1.0, dtype=torch.float16) + torch.tensor(1.0, dtype=torch.float64)
    ).dtype == torch.float64


def test_weak_scalar_values_wrap_in_the_tensor_dtype():
    t = torch.tensor([200], dtype=torch.uint8)
    assert (t + 100).tolist() == [44]
    assert (torch.tensor([1.0], dtype=torch.float16) * 1e-8).tolist() == [0.0]


def test_integer_division_gives_default_float():
    assert (torch.tensor([3]) / torch.tensor([2])).dtype == torch.float32
    assert (torch.tensor([3], dtype=torch.uint8) / 2).tolist() == [1.5]
    assert torch.true_divide(torch.tensor([1]), 4).tolist() == [0.25]


# --- legacy typed classes -----------------------------------------------------


@pytest.mark.parametrize(
    "dtype, itemsize, floating, signed, legacy", DTYPES, ids=[d[4] for d in DTYPES]
)
def test_legacy_constructors(dtype, itemsize, floating, signed, legacy):
    cls = getattr(torch, legacy)
    empty = cls(2, 3)
    assert empty.shape == (2, 3) and empty.dtype == dtype
    assert empty.type() == "torch." + legacy
    values = cls([1, 0, 1])
    assert values.dtype == dtype
    assert values.tolist() == ([True, False, True] if dtype == torch.bool else [1, 0, 1])
    assert cls().shape == (0,)
    assert cls(torch.Size([4])).shape == (4,)


@pytest.mark.parametrize(
    "dtype, itemsize, floating, signed, legacy", DTYPES, ids=[d[4] for d in DTYPES]
)
def test_legacy_isinstance(dtype, itemsize, floating, signed, legacy):
    t = torch.zeros(2, dtype=dtype)
    assert isinstance(t, getattr(torch, legacy))
    assert isinstance(t, torch.Tensor)
    for _, _, _, _, other in DTYPES:
        if other != legacy:
            assert not isinstance(t, getattr(torch, other))


def test_tensor_class_constructs_default_dtype():
    assert torch.Tensor(2, 3).dtype == torch.float32
    assert torch.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert torch.Tensor().shape == (0,)


def test_type_conversion():
    t = torch.tensor([1.7, -2.2])
    assert t.type() == "torch.FloatTensor"
    assert t.type(torch.DoubleTensor).dtype == torch.float64
    assert t.type("torch.IntTensor").tolist() == [1, -2]
    assert t.type(torch.int64).dtype == torch.int64
    assert t.type(torch.FloatTensor) is t
