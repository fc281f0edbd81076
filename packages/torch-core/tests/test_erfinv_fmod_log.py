"""erfinv (float32 and the 16-bit floats: one polynomial pass; float64: a central rational and
a tail rational), fmod and remainder on floats (exact: float32 through float64, float64 with an
fma) and log10 (own polynomial, exact at powers of ten): measured against SciPy, NumPy (long
double where NumPy has it) and mpmath, with IEEE special values, strided,
broadcast, in-place and out= forms, and the backward formulas."""

import math

import mpmath  # the sharper float64 erfinv reference (a test dependency)
import numpy as np
import pytest
from scipy import special

import torch
from torch import _packages

# the backward tests need torch-autograd (the core-only session runs without it)
needs_autograd = pytest.mark.skipif(
    not _packages.installed(torch.__path__, "autograd"), reason="needs torch-autograd"
)
# long double where it is wider than double (x86-64 Linux): log10's float64 reference
WIDE = np.longdouble if np.finfo(np.longdouble).nmant > 52 else np.float64
RNG = np.random.default_rng(2024)


def ulps(got, exact, npdt):
    """|got - exact| in units of npdt's ulp at the exact value (exact in float64 or wider)."""
    exact = np.asarray(exact)
    ulp = np.spacing(np.abs(exact).astype(npdt)).astype(exact.dtype)
    return np.abs(got.astype(exact.dtype) - exact) / ulp


def float32_bits(lo, hi, step):
    """Every step-th float32 bit pattern in [lo, hi) (all exponents, evenly)."""
    return np.arange(lo, hi, step, dtype=np.uint32).view(np.float32)


# ---------------------------------------------------------------- erfinv


def test_erfinv_float32_within_3_5_ulp():
    # every 61st float in [0, 1), the 2^16 floats just below 1, and their negatives (odd)
    x = np.concatenate([float32_bits(0, 0x3F800000, 61), float32_bits(0x3F7F0000, 0x3F800000, 1)])
    got = torch.erfinv(torch.from_numpy(x)).numpy()
    err = ulps(got, special.erfinv(x.astype(np.float64)), np.float32)
    # measured over every float: 3.10 with FMA instructions, 3.23 on a sample without
    assert err.max() <= 3.5, (x[err.argmax()], err.max())
    neg = torch.erfinv(torch.from_numpy(-x)).numpy()
    assert np.array_equal(neg, -got)


def test_erfinv_float64_against_scipy():
    # SciPy's erfinv is itself within 2.5 ulp (measured against mpmath); ours within 2.4
    x = np.concatenate(
        [
            RNG.uniform(-1, 1, 200_000),
            1 - 10.0 ** RNG.uniform(-16, -0.5, 50_000),
            -(1 - 10.0 ** RNG.uniform(-16, -0.5, 10_000)),
            10.0 ** RNG.uniform(-307, -1, 10_000),
            RNG.uniform(0.849, 0.851, 10_000),  # around the switch to the tail
        ]
    )
    x = x[np.abs(x) < 1]
    got = torch.erfinv(torch.from_numpy(x)).numpy()
    err = ulps(got, special.erfinv(x), np.float64)
    assert err.max() <= 5.0, (x[err.argmax()], err.max())
    assert err.mean() < 0.8


def test_erfinv_float64_against_mpmath():
    mpmath.mp.dps = 40
    x = np.concatenate(
        [RNG.uniform(-1, 1, 1500), 1 - 10.0 ** RNG.uniform(-16, -0.5, 1500), [0.85, 1e-300]]
    )
    got = torch.erfinv(torch.from_numpy(x)).numpy()
    worst = 0.0
    for g, v in zip(got, x):
        exact = mpmath.erfinv(mpmath.mpf(float(v)))
        ulp = math.ulp(float(exact))
        worst = max(worst, float(abs(mpmath.mpf(float(g)) - exact)) / ulp)
    assert worst <= 2.5  # measured: 2.32 over 80,000 inputs


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_erfinv_special_values(dtype):
    x = torch.tensor([0.0, -0.0, 1.0, -1.0, 1.5, -2.0, math.inf, -math.inf, math.nan], dtype=dtype)
    y = torch.erfinv(x).double().numpy()
    assert y[0] == 0 and not np.signbit(y[0]) and y[1] == 0 and np.signbit(y[1])
    assert y[2] == math.inf and y[3] == -math.inf
    assert np.isnan(y[4:]).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_erfinv_tiny_and_subnormal(dtype):
    npdt = np.float32 if dtype == torch.float32 else np.float64
    big = 1e-8 if npdt == np.float32 else 1e-20  # x^2 well below half an ulp
    tiny = np.array([np.finfo(npdt).smallest_subnormal, 1e-40, 1e-30, big], npdt)
    tiny = np.concatenate([tiny, -tiny])
    got = torch.erfinv(torch.from_numpy(tiny)).numpy()
    # erfinv(x) = x sqrt(pi)/2 (1 + O(x^2)): the product rounded once (sqrt(pi)/2 in long
    # double: rounding it to double first would round twice)
    half_sqrt_pi = np.sqrt(WIDE("3.14159265358979323846264338327950288")) / 2
    want = (tiny.astype(WIDE) * half_sqrt_pi).astype(npdt)
    np.testing.assert_array_equal(got, want)


def test_erfinv_float64_tail_elements_anywhere():
    # the float64 kernel gathers the elements beyond 0.85 of each 256-block: their number and
    # places vary, in place (the output is the input) and strided too
    for n in [1, 7, 255, 256, 257, 1000]:
        x = RNG.uniform(-0.84, 0.84, n)
        tail = RNG.random(n) < RNG.random()
        x[tail] = RNG.choice([-1, 1], tail.sum()) * (1 - 10.0 ** RNG.uniform(-16, -1, tail.sum()))
        x[RNG.random(n) < 0.02] = 1.0
        t = torch.from_numpy(x.copy())
        want = torch.erfinv(t)
        np.testing.assert_allclose(want.numpy(), special.erfinv(x), rtol=2e-15, atol=0)
        t2 = t.clone()
        assert t2.erfinv_() is t2 and torch.equal(t2, want)
        out = torch.empty(n, dtype=torch.float64)
        assert torch.erfinv(t, out=out) is out and torch.equal(out, want)
        both = torch.stack([t, -t], 1)  # every other element
        assert torch.equal(torch.erfinv(both[:, 0]), want)
        assert torch.equal(torch.erfinv(both.t())[1], -want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_erfinv_broadcast_input(dtype):
    x = torch.tensor([0.3, -0.95, 0.999], dtype=dtype)
    got = torch.erfinv(x.expand(4, 3))  # stride 0 along the first dim
    assert torch.equal(got, torch.erfinv(x).expand(4, 3))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_erfinv_16_bit_through_float32(dtype):
    x = torch.linspace(-0.999, 0.999, 2001).to(dtype)
    want = torch.erfinv(x.float()).to(dtype)  # computed in float32, rounded once
    assert torch.equal(torch.erfinv(x), want)


@needs_autograd
def test_erfinv_backward():
    x = torch.tensor(
        [-0.99, -0.5, 0.0, 0.3, 0.9, 0.999999], dtype=torch.float64, requires_grad=True
    )
    y = torch.erfinv(x)
    (g,) = torch.autograd.grad(y, x, torch.full_like(y, 2.0))
    want = 2 * math.sqrt(math.pi) / 2 * np.exp(special.erfinv(x.detach().numpy()) ** 2)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-13)


# ---------------------------------------------------------------- fmod, remainder


def remainder_oracle(a, b):
    """torch.remainder: fmod moved to the divisor's sign by adding it (in the dtype)."""
    with np.errstate(invalid="ignore", over="ignore"):  # m + b unused where it overflows
        m = np.fmod(a, b)
        return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


def same_bits(got, want):
    """Equal bit for bit (so the signs of zeros too), NaNs in the same places."""
    assert got.dtype == want.dtype
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    ints = np.int32 if got.dtype == np.float32 else np.int64
    assert np.array_equal(got[~nan].view(ints), want[~nan].view(ints))


SPECIAL32 = np.array(
    [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 0.1, 2.5, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38]
    + [1e30, -1e30, 7e10, math.inf, -math.inf, math.nan],
    np.float32,
)


def moderate_pairs(n):
    """Random pairs with |a / b| below 2^20 (every exponent, and specials)."""
    b = RNG.integers(0, 0x7F800000, n, dtype=np.uint32).view(np.float32)  # finite, >= 0
    b = b * RNG.choice([-1, 1], n).astype(np.float32)
    with np.errstate(over="ignore"):
        a = (b * RNG.uniform(-(2.0**20), 2.0**20, n)).astype(np.float32)
    a[~np.isfinite(a)] = 1.0
    grid_a, grid_b = np.meshgrid(SPECIAL32, SPECIAL32)
    keep = np.abs(grid_a.astype(np.float64)) < 2.0**20 * np.abs(grid_b.astype(np.float64))
    keep |= ~np.isfinite(grid_a) | ~np.isfinite(grid_b) | (grid_b == 0)
    return np.concatenate([a, grid_a[keep]]), np.concatenate([b, grid_b[keep]])


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_float32_exact(op):
    a, b = moderate_pairs(1_000_000)
    got = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    with np.errstate(invalid="ignore"):
        same_bits(got, np.fmod(a, b) if op == "fmod" else remainder_oracle(a, b))


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_float64_exact(op):
    n = 500_000
    # quotients within one rounding of an integer: a / b may round onto the next one
    b = RNG.uniform(0.5, 2, n) * 10.0 ** RNG.integers(-300, 300, n) * RNG.choice([-1, 1], n)
    with np.errstate(over="ignore"):  # (the overflowed ones are dropped)
        a = np.floor(RNG.uniform(1, 2.0**50, n)) * b
    a = np.nextafter(a, np.where(RNG.random(n) < 0.5, 0.0, np.inf))
    keep = np.isfinite(a)
    a, b = a[keep] * RNG.choice([-1, 1], keep.sum()), b[keep]
    special = np.array([0.0, -0.0, 1.0, -3.0, 5e-324, 1e300, math.inf, -math.inf, math.nan])
    grid_a, grid_b = np.meshgrid(special, special)
    with np.errstate(over="ignore"):  # (PyTorch's fmod gives NaN where a / b overflows)
        keep = ~(np.abs(grid_a) >= 2.0**50 * np.abs(grid_b))
    keep |= ~np.isfinite(grid_a) | ~np.isfinite(grid_b) | (grid_b == 0)
    a, b = np.concatenate([a, grid_a[keep]]), np.concatenate([b, grid_b[keep]])
    got = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    with np.errstate(invalid="ignore"):
        same_bits(got, np.fmod(a, b) if op == "fmod" else remainder_oracle(a, b))


@pytest.mark.ours_only  # PyTorch's fmod gives NaN where x / y overflows
@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_any_quotient(op, npdt):
    # random bit patterns: quotients up to 2^277 (float32) or 2^2098, where C's fmod reduces
    # in many steps
    n = 1_000_000 if npdt == np.float32 else 200_000  # (libm's float64 fmod: slow here)
    ints = np.uint32 if npdt == np.float32 else np.uint64
    a = RNG.integers(0, 2**64, n, dtype=np.uint64).astype(ints).view(npdt)
    b = RNG.integers(0, 2**64, n, dtype=np.uint64).astype(ints).view(npdt)
    grid_a, grid_b = np.meshgrid(SPECIAL32.astype(npdt), SPECIAL32.astype(npdt))
    a, b = np.concatenate([a, grid_a.ravel()]), np.concatenate([b, grid_b.ravel()])
    got = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    with np.errstate(invalid="ignore"):
        same_bits(got, np.fmod(a, b) if op == "fmod" else remainder_oracle(a, b))
    # 1e30 % 3 and friends among ordinary elements of the same block
    x = RNG.uniform(-100, 100, 3000).astype(npdt)
    x[[5, 700, 2999]] = [1e30, -3e25, 7e17]
    got = getattr(torch, op)(torch.from_numpy(x), 3.0).numpy()
    with np.errstate(invalid="ignore"):
        three = npdt(3)
        same_bits(got, np.fmod(x, three) if op == "fmod" else remainder_oracle(x, three))


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_layouts(op):
    fn = getattr(torch, op)
    a = torch.from_numpy(RNG.uniform(-50, 50, (40, 33)).astype(np.float32))
    b = torch.from_numpy(RNG.uniform(-5, 5, 33).astype(np.float32))
    ref = remainder_oracle if op == "remainder" else np.fmod
    same_bits(fn(a, b).numpy(), ref(a.numpy(), b.numpy()))  # broadcast divisor
    same_bits(fn(a, -2.5).numpy(), ref(a.numpy(), np.float32(-2.5)))  # a Python number
    seven = torch.tensor(7.0)  # a 0-dim dividend, broadcast
    same_bits(fn(seven, b).numpy(), ref(np.float32(7), b.numpy()))
    at = a.t()  # strided
    same_bits(fn(at, at.flip(0)).numpy(), ref(at.numpy(), at.flip(0).numpy()))
    out = torch.empty(40, 33)
    assert fn(a, b, out=out) is out
    same_bits(out.numpy(), ref(a.numpy(), b.numpy()))
    c = a.clone()
    assert getattr(c, op + "_")(b) is c  # in place
    same_bits(c.numpy(), ref(a.numpy(), b.numpy()))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_16_bit(op, dtype):
    a = torch.from_numpy(RNG.uniform(-300, 300, 5000).astype(np.float32)).to(dtype)
    b = torch.from_numpy(RNG.uniform(-7, 7, 5000).astype(np.float32)).to(dtype)
    want = getattr(torch, op)(a.float(), b.float()).to(dtype)  # exact in float, then rounded
    assert torch.equal(getattr(torch, op)(a, b), want)


def test_fmod_remainder_integers():
    i = torch.tensor([7, -7, 7, -7])
    j = torch.tensor([3, 3, -3, -3])
    assert torch.fmod(i, j).tolist() == [1, -1, 1, -1]
    assert torch.remainder(i, j).tolist() == [1, 2, -2, -1]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.fmod(i, torch.tensor([1, 0, 1, 1]))


@needs_autograd
@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_backward(op):
    a = torch.tensor([[5.5, -5.5], [7.25, -0.5]], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([2.0, -1.5], dtype=torch.float64, requires_grad=True)
    y = getattr(torch, op)(a, b)
    ga, gb = torch.autograd.grad(y, (a, b), torch.ones_like(y))
    q = a.detach().numpy() / b.detach().numpy()
    q = np.trunc(q) if op == "fmod" else np.floor(q)
    assert torch.equal(ga, torch.ones(2, 2, dtype=torch.float64))
    np.testing.assert_array_equal(gb.numpy(), -q.sum(0))


# ---------------------------------------------------------------- log10


def log10_wide(x):
    return np.log10(x.astype(WIDE))


def test_log10_float32_within_0_9_ulp():
    # every 1021st positive finite float (subnormals included), every 4th in [0.5, 2) (where
    # the result is smallest and the errors largest, measured over every float)
    x = np.concatenate([float32_bits(1, 0x7F800000, 1021), float32_bits(0x3F000000, 0x40000000, 4)])
    got = torch.log10(torch.from_numpy(x)).numpy()
    err = ulps(got, log10_wide(x), np.float32)
    assert err.max() <= 0.9, (x[err.argmax()], err.max())  # measured over every float: 0.89


def test_log10_float64_within_0_85_ulp():
    x = np.concatenate(
        [
            np.exp(RNG.uniform(-708, 709, 300_000)),
            RNG.uniform(0.5, 2, 300_000),
            1 + RNG.uniform(-1e-6, 1e-6, 10_000),
            RNG.integers(1, 2**52, 10_000).view(np.float64),  # subnormals
        ]
    )
    got = torch.log10(torch.from_numpy(x)).numpy()
    err = ulps(got, log10_wide(x), np.float64)
    assert err.max() <= 0.85, (x[err.argmax()], err.max())  # measured: 0.83 (4.2M inputs)


def test_log10_powers_of_ten_exact():
    k = np.arange(-307, 309)
    x = np.array([float(f"1e{i}") for i in k])
    assert np.array_equal(torch.log10(torch.from_numpy(x)).numpy(), k)
    k32 = np.arange(-45, 39)
    x32 = np.array([float(f"1e{i}") for i in k32], np.float32)  # rounded: not all exact powers
    want = log10_wide(x32).astype(np.float32)  # their log10s rounded once
    assert np.array_equal(torch.log10(torch.from_numpy(x32)).numpy(), want)
    assert np.array_equal(want[k32 >= -37], k32[k32 >= -37])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_log10_special_values(dtype):
    x = torch.tensor([0.0, -0.0, -1.0, -math.inf, math.inf, math.nan, 1.0, 10.0], dtype=dtype)
    y = torch.log10(x).double().numpy()
    assert y[0] == -math.inf and y[1] == -math.inf and y[4] == math.inf
    assert np.isnan(y[[2, 3, 5]]).all()
    assert y[6] == 0 and y[7] == 1


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_log10_one_special_element_changes_no_other(npdt):
    # blocks of positive normal numbers take a shorter path than blocks with a zero, a
    # negative, a subnormal, an inf or a NaN: both give the same numbers
    x = np.exp(RNG.uniform(-80, 80, 5000)).astype(npdt)
    base = torch.log10(torch.from_numpy(x)).numpy()
    tiny = np.finfo(npdt).smallest_subnormal
    for bad in [0.0, -2.0, math.inf, math.nan, tiny]:
        y = x.copy()
        y[[3, 2000, 4999]] = bad
        got = torch.log10(torch.from_numpy(y)).numpy()
        keep = np.ones(5000, bool)
        keep[[3, 2000, 4999]] = False
        assert np.array_equal(got[keep], base[keep])
        with np.errstate(divide="ignore", invalid="ignore"):
            np.testing.assert_array_equal(got[~keep], log10_wide(y[~keep]).astype(npdt))
    t = torch.from_numpy(x.copy())
    assert torch.equal(t.log10_(), torch.from_numpy(base))  # in place: the full path
    assert torch.equal(torch.log10(torch.from_numpy(x)[::3]), torch.from_numpy(base[::3]))


@needs_autograd
def test_log10_backward():
    x = torch.tensor([0.5, 2.0, 1000.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.log10(x).sum(), x)
    np.testing.assert_allclose(g.numpy(), 1 / (x.detach().numpy() * math.log(10)), rtol=1e-15)
