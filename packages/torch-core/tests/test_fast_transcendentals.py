"""The float32 polynomial kernels (tanh, log, log1p, expm1, erf: vectorised, with a measured
error bound) and pow with the exponents PyTorch turns into products, checked against NumPy and
SciPy in float64 and against the products themselves."""

import ctypes
import ctypes.util

import numpy as np
import pytest
from scipy import special

import torch


def ulps(got, exact):
    exact32 = np.abs(exact).astype(np.float32)
    return np.abs(got.astype(np.float64) - exact) / np.spacing(np.maximum(exact32, 1e-38))


def test_tanh_float32_within_6_ulp_of_float64():
    # the own rational: 5.7 ulp at worst (measured over every float32), just below 1; every
    # float32 in [7.5, 9.1] (where the worst cases are), and a grid elsewhere
    near_one = np.arange(np.float32(7.5).view(np.int32), np.float32(9.1).view(np.int32))
    near_one = near_one.astype(np.int32).view(np.float32)
    x = np.concatenate([np.linspace(-20, 20, 400_001), np.linspace(-0.5, 0.5, 100_001)])
    x = np.concatenate(
        [x.astype(np.float32), near_one, -near_one, np.float32(2.0) ** -np.arange(150)]
    )
    got = torch.tanh(torch.from_numpy(x)).numpy()
    err = ulps(got, np.tanh(x.astype(np.float64)))
    assert err.max() <= 6 and err.mean() <= 0.2


def test_tanh_special_values():
    x = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-30, -1e-30, 100.0])
    y = torch.tanh(x)
    assert y[0].item() == 0.0 and np.signbit(y[1].item())
    assert y[2].item() == 1.0 and y[3].item() == -1.0 and np.isnan(y[4].item())
    assert y[5].item() == np.float32(1e-30) and y[6].item() == np.float32(-1e-30)
    assert y[7].item() == 1.0


def test_tanh_strided_and_float64():
    x = torch.randn(64, 33)[:, ::2]
    np.testing.assert_allclose(torch.tanh(x).numpy(), np.tanh(x.numpy()), rtol=1e-6, atol=1e-7)
    xd = torch.randn(100, dtype=torch.float64)
    np.testing.assert_allclose(torch.tanh(xd).numpy(), np.tanh(xd.numpy()), rtol=1e-15)


@pytest.mark.parametrize(
    "exponent, same_as",
    [
        (2, lambda x: x * x),
        (2.0, lambda x: x * x),
        (3, lambda x: x * x * x),
        (3.0, lambda x: x * x * x),
        (1, lambda x: x * 1),
        (1.0, lambda x: x * 1),
        (0.5, torch.sqrt),
        (-0.5, torch.rsqrt),
        (-1, torch.reciprocal),
        (-2, lambda x: torch.reciprocal(x * x)),
    ],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pow_small_exponents_are_products(exponent, same_as, dtype):
    x = torch.rand(1000, dtype=dtype) * 4 + 0.1
    got = x.pow(exponent)
    assert got.dtype == dtype and torch.equal(got, same_as(x))
    assert torch.equal(torch.pow(x, exponent), got) and torch.equal(x**exponent, got)
    np.testing.assert_allclose(
        got.numpy(),
        np.power(x.numpy().astype(np.float64), exponent),
        rtol=1e-6 if dtype == torch.float32 else 1e-14,
    )


def test_pow_zero_is_one_everywhere():
    x = torch.tensor([float("nan"), 0.0, -2.0, float("inf"), -float("inf"), 1e-40])
    for e in (0, 0.0, torch.tensor(0.0), torch.zeros(6)):
        np.testing.assert_array_equal(torch.pow(x, e).numpy(), np.power(x.numpy(), 0.0))


@pytest.mark.parametrize("exponent", [1.0, 3.0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pow_one_and_three_strided_out_and_tensor_exponent(exponent, dtype):
    # the pow kernel's own one-pass loops: strided input, out=, a 0-d tensor exponent, and
    # an exponent tensor that is not one number (glibc's pow) in the same call shapes
    x = (torch.rand(64, 40, dtype=dtype) * 4 - 2)[:, ::3]
    xn = x.numpy()
    want = xn * xn * xn if exponent == 3 else xn.copy()  # PyTorch's products (NumPy's too)
    rtol = 1e-6 if dtype == torch.float32 else 1e-14
    np.testing.assert_allclose(want, np.power(xn.astype(np.float64), exponent), rtol=rtol)
    np.testing.assert_array_equal(x.pow(exponent).numpy(), want)
    out = torch.empty(x.shape, dtype=dtype)
    assert torch.pow(x, exponent, out=out) is out
    np.testing.assert_array_equal(out.numpy(), want)
    e = torch.tensor(exponent, dtype=dtype)
    np.testing.assert_array_equal(torch.pow(x, e).numpy(), want)
    mixed = torch.tensor([exponent, 2.5], dtype=dtype).repeat(x.shape[1] // 2 + 1)[: x.shape[1]]
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(
            torch.pow(x.abs(), mixed).numpy(),
            np.power(x.abs().numpy(), mixed.numpy()),
            rtol=1e-6 if dtype == torch.float32 else 1e-14,
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pow_special_exponents_edge_values_follow_pytorch(dtype):
    # a Python-number exponent of +-0.5 is sqrt/rsqrt in PyTorch ((-inf) ** 0.5 is NaN,
    # (-0) ** 0.5 is -0); a tensor exponent is C's pow (inf, +0; NumPy's power is sqrt there).
    # The other special exponents agree with NumPy either way; out= takes the same path.
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.pow.restype, libm.pow.argtypes = ctypes.c_double, [ctypes.c_double, ctypes.c_double]
    xs = [-float("inf"), -2.0, -0.0, 0.0, 0.5, 3.0, float("nan"), float("inf")]
    x = torch.tensor(xs, dtype=dtype)
    xn = x.numpy()
    with np.errstate(all="ignore"):
        python_number = {0.5: np.sqrt(xn), -0.5: 1 / np.sqrt(xn)}
        for e in (0.5, -0.5, 2.0, 3.0, -1.0, -2.0, 1.0, 0.0):
            want = python_number.get(e, np.power(xn, e))
            np.testing.assert_array_equal(x.pow(e).numpy(), want)
            out = torch.empty(16, dtype=dtype)[::2]
            assert torch.pow(x, e, out=out) is out
            np.testing.assert_array_equal(out.numpy(), want)
            np.testing.assert_array_equal(torch.pow(x, e).numpy(), want)
            for tensor_exponent in (torch.tensor(e, dtype=dtype), torch.full((8,), e, dtype=dtype)):
                got = torch.pow(x, tensor_exponent).numpy()
                c_pow = np.array([libm.pow(float(v), e) for v in xn], dtype=xn.dtype)
                np.testing.assert_allclose(got, c_pow, rtol=2e-7, atol=0)
                np.testing.assert_array_equal(np.signbit(got), np.signbit(c_pow))


def test_pow_other_cases_unchanged():
    i = torch.tensor([1, 2, 3])
    assert i.pow(2).dtype == torch.int64 and i.pow(2).tolist() == [1, 4, 9]
    x = torch.tensor([-8.0, 0.0, 2.0])
    with np.errstate(invalid="ignore"):  # nan for -8
        np.testing.assert_allclose(x.pow(1.5).numpy(), np.power(x.numpy(), 1.5))
    assert torch.equal(2 ** torch.tensor([1.0, 3.0]), torch.tensor([2.0, 8.0]))
    out = torch.empty(3)
    assert torch.pow(x, 2, out=out) is out and out.tolist() == [64.0, 0.0, 4.0]


def _float32_samples(lo, hi, n=1_000_001):
    """A dense grid of [lo, hi] plus random bit patterns in that range (all exponents)."""
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, 2_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    bits = bits[np.isfinite(bits) & (bits >= lo) & (bits <= hi)]
    return np.concatenate([np.linspace(lo, hi, n, dtype=np.float32), bits])


@pytest.mark.parametrize(
    "name, exact, lo, hi, bound",
    [
        ("log", np.log, 1e-45, 3.4e38, 2),
        ("log1p", np.log1p, -0.9999999, 3.4e38, 3),
        ("expm1", np.expm1, -30.0, 88.7, 3),
        ("erf", special.erf, -6.0, 6.0, 1.5),  # 1.29 over every float32 (docs/tensors.rst)
    ],
)
def test_polynomial_kernels_float32_within_bound_of_float64(name, exact, lo, hi, bound):
    x = _float32_samples(lo, hi)
    got = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert ulps(got, exact(x.astype(np.float64))).max() <= bound


@pytest.mark.parametrize(
    "name, exact",
    [("log", np.log), ("log1p", np.log1p), ("expm1", np.expm1), ("erf", special.erf)],
)
def test_polynomial_kernels_special_values(name, exact):
    x = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, 1e-30, -2.0], np.float32)
    with np.errstate(all="ignore"):
        expected = exact(x.astype(np.float64)).astype(np.float32)
    got = getattr(torch, name)(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=3e-7, atol=0, equal_nan=True)
    if name != "log":  # odd functions: 0.0 and -0.0 keep their sign
        assert (np.signbit(got[:2]) == [False, True]).all()


def test_polynomial_kernels_strided_half_and_float64():
    x = torch.rand(64, 33)[:, ::2] + 0.5
    for name in ("log", "log1p", "expm1", "erf"):
        f = getattr(torch, name)
        np.testing.assert_allclose(f(x).numpy(), f(x.double()).numpy(), rtol=3e-7, err_msg=name)
        h = f(x.half()).float().numpy()  # computed in float32, rounded to half
        np.testing.assert_allclose(h, f(x.half().float()).numpy(), rtol=1e-3, err_msg=name)


@pytest.mark.parametrize("name, lo, hi", [("exp", -745.0, 709.7), ("log", 5e-324, 1.7e308)])
def test_float64_exp_and_log_within_2_ulp_of_numpy(name, lo, hi):
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2**63, 1_000_000, dtype=np.uint64).view(np.float64)
    x = np.concatenate(
        [np.linspace(lo, min(hi, 50.0), 1_000_001), bits[(bits >= lo) & (bits <= hi)]]
    )
    got = getattr(torch, name)(torch.from_numpy(x)).numpy()
    exact = getattr(np, name)(x)
    normal = np.abs(exact) > 2.3e-308  # subnormal results: absolute error of 1 subnormal ulp
    err = np.abs(got - exact) / np.spacing(np.abs(exact))
    assert err[normal].max() <= 2
    assert np.abs(got - exact)[~normal].max() <= 5e-324


def test_float64_exp_and_log_special_values():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([0.0, -0.0, 710.0, -746.0, inf, -inf, nan, -1.0], dtype=torch.float64)
    with np.errstate(all="ignore"):
        for name in ("exp", "log"):
            want = getattr(np, name)(x.numpy())
            np.testing.assert_array_equal(getattr(torch, name)(x).numpy(), want)


# atan2 and pow (tensor exponents) run through glibc's vector forms for float32/float64
# (at most 4 ulp), contiguous or through buffers for broadcast and strided runs.
@pytest.mark.parametrize("layout", ["contiguous", "strided", "broadcast"])
def test_atan2_and_pow_float32_within_4_ulp(layout):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.01, 30, 300_000).astype(np.float32)
    b = rng.standard_normal(300_000).astype(np.float32) * 4
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    if layout == "strided":
        ta, tb, a, b = ta[::3], tb[::3], a[::3], b[::3]
    if layout == "broadcast":
        tb, b = tb[:1], b[:1]
    ea, eb = a.astype(np.float64), b.astype(np.float64)
    assert ulps(torch.atan2(ta, tb).numpy(), np.arctan2(ea, eb)).max() <= 4
    assert ulps(torch.atan2(-tb, ta).numpy(), np.arctan2(-eb, ea)).max() <= 4
    assert ulps(torch.pow(ta, tb).numpy(), np.power(ea, eb)).max() <= 4


def test_atan2_and_pow_float64_and_special_values():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.01, 30, 100_000), rng.standard_normal(100_000) * 4
    np.testing.assert_allclose(torch.atan2(torch.tensor(b), torch.tensor(a)).numpy(),
                               np.arctan2(b, a), rtol=1e-15, atol=0)  # fmt: skip
    np.testing.assert_allclose(torch.pow(torch.tensor(a), torch.tensor(b)).numpy(),
                               np.power(a, b), rtol=1e-15, atol=0)  # fmt: skip
    inf, nan = float("inf"), float("nan")
    x = [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 2.0, -8.0, 0.0]
    y = [0.0, 1.0, inf, 2.0, 0.0, nan, 0.5, -inf, 1 / 3, -1.0]
    for dt in (torch.float32, torch.float64):
        tx, ty = torch.tensor(x, dtype=dt), torch.tensor(y, dtype=dt)
        with np.errstate(all="ignore"):
            want_atan2 = np.arctan2(tx.numpy(), ty.numpy())
            want_pow = np.power(tx.numpy(), ty.numpy())
        # special values exact (zeros with their signs, infinities, NaNs); the finite others
        # within glibc's vector bound of 4 ulp (AVX2 and AVX-512 forms differ in the last bits)
        rtol = 4 * float(torch.finfo(dt).eps)
        for got, want in [(torch.atan2(tx, ty).numpy(), want_atan2),
                          (torch.pow(tx, ty).numpy(), want_pow)]:  # fmt: skip
            np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
            assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()
