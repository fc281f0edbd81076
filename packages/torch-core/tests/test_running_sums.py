"""Running sums and products (csrc/sort.cpp's scans): float32 accumulates in float64, as
PyTorch's, so each value is the float64 sum rounded once (a float32 accumulator was off by up
to 1e-3 over 64K values). Oracle: NumPy's sequential cumsum/cumprod in float64 (integers:
exactly)."""

import numpy as np
import pytest

import torch


@pytest.mark.parametrize("n", [100, 4095, 4096, 4103, 65536, 100003])
def test_float32_running_sum_is_the_float64_sum_rounded_once(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    got = torch.cumsum(torch.from_numpy(x), 0).numpy()
    np.testing.assert_array_equal(got, np.cumsum(x.astype(np.float64)).astype(np.float32))
    y = (1 + x / 1000).astype(np.float32)
    got = torch.cumprod(torch.from_numpy(y), 0).numpy()
    np.testing.assert_array_equal(got, np.cumprod(y.astype(np.float64)).astype(np.float32))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.float64])
def test_other_dtypes_and_rows(dtype):
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.integers(0, 200, (3, 9000))).to(dtype)
    got = torch.cumsum(x, 1)
    want = np.cumsum(x.numpy().astype(np.int64 if not dtype.is_floating_point else np.float64), 1)
    if dtype == torch.uint8:  # uint8 sums in int64, as PyTorch's
        assert got.dtype == torch.int64
    np.testing.assert_array_equal(got.numpy(), want)
    # a column of a row-major matrix is strided: the sequential loop, same numbers
    np.testing.assert_array_equal(torch.cumsum(x.t(), 0).numpy(), want.T)


def test_nan_and_infinities_reach_the_same_values():
    x = torch.ones(10000)
    x[100], x[6000] = float("inf"), float("-inf")
    y = torch.cumsum(x, 0)
    assert (y[:100] == torch.arange(1.0, 101.0)).all()
    assert torch.isinf(y[100:6000]).all() and torch.isnan(y[6000:]).all()
    x = torch.ones(10000)
    x[7777] = float("nan")
    y = torch.cumsum(x, 0)
    assert not torch.isnan(y[:7777]).any() and torch.isnan(y[7777:]).all()


def test_out_is_the_input():
    x = torch.randn(20000)
    want = torch.cumsum(x, 0)
    torch.cumsum(x, 0, out=x)
    assert torch.equal(x, want)
