"""Integer tensors wrap on overflow (two's complement), as numpy's and PyTorch's do.

The core is built with -fwrapv, so overflow in an integer kernel is defined behaviour; these
check the wrapped values against numpy, which wraps the same way."""

import numpy as np
import pytest

import torch

EXTREMES = {
    torch.int32: [2**31 - 1, -(2**31), 2**31 - 2, -1, 0, 1, 7, -(2**31) + 1],
    torch.int64: [2**63 - 1, -(2**63), 2**63 - 2, -1, 0, 1, 7, -(2**63) + 1],
}
NP = {torch.int32: np.int32, torch.int64: np.int64}


@pytest.fixture(params=[torch.int32, torch.int64], ids=str)
def pair(request):
    dt = request.param
    a = np.array(EXTREMES[dt], dtype=NP[dt])
    b = np.roll(a, 3)
    return dt, a, b


def check(ours, expected):
    np.testing.assert_array_equal(ours.numpy(), expected)


def test_elementwise_wraps(pair):
    dt, a, b = pair
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    with np.errstate(over="ignore"):
        check(ta + tb, a + b)
        check(ta - tb, a - b)
        check(ta * tb, a * b)
        check(ta.square(), a * a)
        check(torch.sub(ta, tb, alpha=2), a - b * 2)
        check(-ta, -a)
        check(ta.abs(), np.abs(a))


def test_inplace_wraps(pair):
    dt, a, b = pair
    ta = torch.from_numpy(a.copy())
    ta.sub_(torch.from_numpy(b), alpha=2)
    with np.errstate(over="ignore"):
        check(ta, a - b * 2)


def test_reductions_wrap(pair):
    dt, a, b = pair
    ta = torch.from_numpy(a)
    with np.errstate(over="ignore"):
        check(ta.cumsum(0, dtype=dt), np.cumsum(a, dtype=a.dtype))
        assert ta.sum(dtype=dt).item() == a.sum(dtype=a.dtype)
        assert ta.prod(dtype=dt).item() == a.prod(dtype=a.dtype)


def test_products_wrap(pair):
    dt, a, b = pair
    A, B = a.reshape(2, 4), b.reshape(4, 2)
    with np.errstate(over="ignore"):
        check(torch.from_numpy(A) @ torch.from_numpy(B), A @ B)
        check(torch.from_numpy(a) @ torch.from_numpy(b), np.dot(a, b))
        check(torch.tensordot(torch.from_numpy(A), torch.from_numpy(B), dims=1), A @ B)
        x, y = a[:6].reshape(2, 3), b[:6].reshape(2, 3)
        check(torch.cross(torch.from_numpy(x), torch.from_numpy(y), dim=1), np.cross(x, y))


def test_empty_tensor_with_huge_dims():
    t = torch.full((1, 0, 2**62), -2, dtype=torch.int32)
    assert t.shape == (1, 0, 2**62) and t.numel() == 0
    assert (t + 1).shape == t.shape
    assert t.sum().item() == 0
