"""<< and >> on integer tensors: NumPy's values for shifts inside the type's width, and
PyTorch's rule outside it (0 to the left; the sign fill to the right)."""

import numpy as np
import pytest

import torch

INTS = [
    (torch.uint8, np.uint8, 8),
    (torch.int8, np.int8, 8),
    (torch.int16, np.int16, 16),
    (torch.int32, np.int32, 32),
    (torch.int64, np.int64, 64),
]


@pytest.mark.parametrize("tdt,npdt,bits", INTS, ids=lambda v: str(v))
def test_shifts_inside_the_width_match_numpy(tdt, npdt, bits):
    info = np.iinfo(npdt)
    a = np.array([0, 1, 5, info.max, info.min, info.max // 3, 7], dtype=npdt)
    s = np.array([0, 1, 2, 3, 1, bits - 1, bits // 2], dtype=npdt)
    ta, ts = torch.from_numpy(a), torch.from_numpy(s)
    np.testing.assert_array_equal((ta << ts).numpy(), np.left_shift(a, s))
    np.testing.assert_array_equal((ta >> ts).numpy(), np.right_shift(a, s))
    np.testing.assert_array_equal(torch.bitwise_left_shift(ta, 2).numpy(), np.left_shift(a, 2))
    np.testing.assert_array_equal(ta.bitwise_right_shift(1).numpy(), np.right_shift(a, 1))
    b = ta.clone()
    b <<= 1
    np.testing.assert_array_equal(b.numpy(), np.left_shift(a, npdt(1)))


@pytest.mark.parametrize("tdt,npdt,bits", INTS, ids=lambda v: str(v))
def test_shifts_outside_the_width(tdt, npdt, bits):
    signed = np.iinfo(npdt).min < 0
    a = torch.tensor([5, -3] if signed else [5, 200], dtype=tdt)
    for s in ([bits, bits], [bits + 7, bits + 7]) + (([-1, -1],) if signed else ()):
        shift = torch.tensor(s, dtype=tdt)
        assert (a << shift).tolist() == [0, 0]
        assert (a >> shift).tolist() == ([0, -1] if signed else [0, 0])


def test_number_operands_and_errors():
    assert (1 << torch.tensor([3])).tolist() == [8]
    assert (256 >> torch.tensor([4])).tolist() == [16]
    with pytest.raises(RuntimeError, match="lshift"):
        torch.tensor([1.5]) << 1
