"""equal / isclose / allclose against NumPy's definitions."""

import math

import numpy as np
import pytest

import torch

VALUES = [1.0, 1.0 + 1e-7, 1.1, math.nan, math.inf, -math.inf, 0.0]


@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_matches_numpy(equal_nan):
    a = np.array([[x] * len(VALUES) for x in VALUES], dtype=np.float64)
    b = a.T.copy()
    got = torch.isclose(torch.from_numpy(a), torch.from_numpy(b), equal_nan=equal_nan)
    assert got.numpy().tolist() == np.isclose(a, b, equal_nan=equal_nan).tolist()


def test_allclose_and_equal():
    a = torch.tensor([1.0, 2.0, 3.0])
    assert torch.allclose(a, a + 1e-9) and not torch.allclose(a, a + 1e-3)
    assert a.allclose(a * (1 + 1e-6), rtol=1e-5)
    assert torch.equal(a, a.clone()) and not torch.equal(a, a + 1)
    assert not torch.equal(a, a.reshape(3, 1))  # same values, other shape
