"""sin, cos, tan, asin, acos, atan, sinh, cosh, log2 and exp2 in float32/float64 (and tanh,
erf, expm1, log1p in float64) run through glibc's vector math (libmvec, csrc/vecmath.cpp)
where the machine has it, else libm: either way within 4 ulp of the float64/long-double NumPy
result, with IEEE special values, strided and in-place forms, and lengths that leave a partial
vector. log10 (the core's own polynomial, csrc/kernels.h) is in the same checks."""

import numpy as np
import pytest

import torch

# op -> (low, high) of the sample (log-uniform for the logarithms)
RANGES = {
    "sin": (-200.0, 200.0),
    "cos": (-200.0, 200.0),
    "tan": (-1.55, 1.55),
    "asin": (-1.0, 1.0),
    "acos": (-1.0, 1.0),
    "atan": (-1e4, 1e4),
    "sinh": (-85.0, 85.0),
    "cosh": (-85.0, 85.0),
    "log2": (1e-30, 1e30),
    "log10": (1e-30, 1e30),
    "exp2": (-125.0, 125.0),
}
DTYPES = {torch.float32: np.float32, torch.float64: np.float64}
MAX_ULP = 4.0  # glibc's documented bound for its vector functions (measured: <= 3.1)


def sample(op, npdt, n, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = RANGES[op]
    if op.startswith("log"):
        return np.exp(rng.uniform(np.log(lo), np.log(hi), n)).astype(npdt)
    return rng.uniform(lo, hi, n).astype(npdt)


def ulp_error(got, x, op, npdt):
    """|got - exact| in units of the result dtype's ulp at the exact value (float128 where
    NumPy has it, for float64 results)."""
    wide = np.longdouble if np.finfo(np.longdouble).nmant > 52 else np.float64
    exact = getattr(np, op)(x.astype(wide))
    ulp = np.spacing(np.abs(exact).astype(npdt)).astype(wide)
    return np.abs(got.astype(wide) - exact) / ulp


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", RANGES)
def test_within_4_ulp(op, dtype):
    npdt = DTYPES[dtype]
    x = sample(op, npdt, 100_003)  # not a multiple of any vector width: a tail too
    got = getattr(torch, op)(torch.from_numpy(x)).numpy()
    assert got.dtype == npdt
    err = ulp_error(got, x, op, npdt)
    assert float(np.max(err)) <= MAX_ULP, (op, dtype, x[np.argmax(err)], float(np.max(err)))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", RANGES)
def test_special_values_follow_ieee(op, dtype):
    npdt = DTYPES[dtype]
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0], dtype=npdt)
    with np.errstate(all="ignore"):
        expect = getattr(np, op)(x)
    got = getattr(torch, op)(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expect))
    finite = ~np.isnan(expect)
    np.testing.assert_allclose(got[finite], expect[finite], rtol=4 * np.finfo(npdt).eps)
    assert np.array_equal(np.signbit(got[finite]), np.signbit(expect[finite]))


@pytest.mark.parametrize("op", RANGES)
def test_strided_and_in_place(op):
    x = sample(op, np.float32, 3 * 257, seed=1).reshape(257, 3)
    t = torch.from_numpy(x.copy()).t()  # strided: one element of each row per column
    expect = getattr(np, op)(x.astype(np.float64)).T
    np.testing.assert_allclose(getattr(torch, op)(t).numpy(), expect, rtol=5e-7, atol=0)
    inplace = getattr(t.clone(), op + "_")()
    np.testing.assert_allclose(inplace.numpy(), expect, rtol=5e-7, atol=0)


# float64 only: float32 has its own polynomials for these (test_fast_transcendentals.py)
DOUBLE_RANGES = {"tanh": (-20.0, 20.0), "expm1": (-50.0, 80.0), "log1p": (-0.99, 1e6)}


@pytest.mark.parametrize("op", DOUBLE_RANGES)
def test_float64_within_4_ulp(op):
    lo, hi = DOUBLE_RANGES[op]
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(lo, hi, 100_003), rng.uniform(-1e-8, 1e-8, 1000)])
    got = getattr(torch, op)(torch.from_numpy(x)).numpy()
    assert float(np.max(ulp_error(got, x, op, np.float64))) <= MAX_ULP


def test_float64_erf_matches_scipy():
    from scipy.special import erf

    x = np.random.default_rng(3).uniform(-6, 6, 100_003)
    got = torch.erf(torch.from_numpy(x)).numpy()
    ulp = np.spacing(np.abs(erf(x)))
    assert float(np.max(np.abs(got - erf(x)) / ulp)) <= MAX_ULP + 1  # scipy's own rounding
