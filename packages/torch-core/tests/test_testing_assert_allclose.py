"""``torch.testing.assert_allclose``: PyTorch's deprecated comparison that older tutorials
(fx_conv_bn_fuser) still call. It warns, converts lists, ignores dtypes, treats NaNs as
equal and uses its own tolerances (float32: rtol 1e-4, atol 1e-5), as PyTorch documents."""

import math

import pytest

import torch


def _allclose(*args, **kwargs):
    with pytest.warns(FutureWarning, match="assert_allclose"):
        torch.testing.assert_allclose(*args, **kwargs)


def test_close_values_pass():
    _allclose(torch.ones(2), [1, 1.00001])  # within rtol 1e-4
    _allclose(torch.ones(2), torch.ones(2, dtype=torch.float64))  # dtypes may differ
    _allclose(torch.tensor([math.nan]), torch.tensor([math.nan]))  # equal_nan by default
    _allclose(torch.tensor([1.0]), torch.tensor([1.5]), rtol=0.0, atol=0.5)


def test_far_values_fail():
    with pytest.raises(AssertionError):
        _allclose(torch.ones(2), [1, 1.01])
    with pytest.raises(AssertionError, match="custom"):
        _allclose(torch.ones(2), [1, 1.01], msg="custom")
    with pytest.raises(AssertionError):
        _allclose(torch.tensor([math.nan]), torch.tensor([math.nan]), equal_nan=False)
    with pytest.raises(AssertionError, match="shape"):
        _allclose(torch.ones(2), torch.ones(3))


def test_float32_tolerance_is_looser_than_assert_close():
    a, b = torch.tensor([1.0]), torch.tensor([1.00005])
    with pytest.raises(AssertionError):
        torch.testing.assert_close(a, b)
    _allclose(a, b)
