"""repr/str of tensors, exactly as PyTorch prints them (strings taken from PyTorch 2.x)."""

import math
import re

import pytest

import torch

CASES = [
    (lambda: torch.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: torch.tensor(3.5), "tensor(3.5000)"),
    (lambda: torch.tensor(3), "tensor(3)"),
    (lambda: torch.tensor(-7), "tensor(-7)"),
    (lambda: torch.tensor(True), "tensor(True)"),
    (lambda: torch.tensor([1.5, 2.25, -3.0]), "tensor([ 1.5000,  2.2500, -3.0000])"),
    (lambda: torch.tensor([-1.0, 2.0]), "tensor([-1.,  2.])"),
    (lambda: torch.tensor([-0.0, 0.0]), "tensor([-0., 0.])"),
    (lambda: torch.tensor([1, 2, -30]), "tensor([  1,   2, -30])"),
    (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
    (
        lambda: torch.tensor([[True, False], [False, True]]),
        "tensor([[ True, False],\n        [False,  True]])",
    ),
    (lambda: torch.tensor([0.1, 0.25]), "tensor([0.1000, 0.2500])"),
    (lambda: torch.tensor([1 / 3]), "tensor([0.3333])"),
    (lambda: torch.tensor([100.0, 20000.0]), "tensor([  100., 20000.])"),
    (lambda: torch.tensor([math.nan, math.inf, -math.inf, 1.0]), "tensor([nan, inf, -inf, 1.])"),
    (lambda: torch.tensor([2**40, -1]), "tensor([1099511627776,            -1])"),
    # scientific notation
    (lambda: torch.tensor([1e-5, 1e5]), "tensor([1.0000e-05, 1.0000e+05])"),
    (lambda: torch.tensor([123456789.0]), "tensor([1.2346e+08])"),
    (lambda: torch.tensor([1e8, 1.0]), "tensor([1.0000e+08, 1.0000e+00])"),
    # dtype suffix when not the default
    (
        lambda: torch.tensor([1.0, 2.0], dtype=torch.float64),
        "tensor([1., 2.], dtype=torch.float64)",
    ),
    (lambda: torch.tensor(2.5, dtype=torch.float64), "tensor(2.5000, dtype=torch.float64)"),
    (
        lambda: torch.tensor([1.0, 2.5], dtype=torch.float16),
        "tensor([1.0000, 2.5000], dtype=torch.float16)",
    ),
    (
        lambda: torch.tensor([1.0, 2.5], dtype=torch.bfloat16),
        "tensor([1.0000, 2.5000], dtype=torch.bfloat16)",
    ),
    (lambda: torch.tensor([1, 2], dtype=torch.int32), "tensor([1, 2], dtype=torch.int32)"),
    (lambda: torch.tensor([1, 2], dtype=torch.uint8), "tensor([1, 2], dtype=torch.uint8)"),
    (
        lambda: torch.ones(2, 3, dtype=torch.int8) * -5,
        "tensor([[-5, -5, -5],\n        [-5, -5, -5]], dtype=torch.int8)",
    ),
    (
        lambda: torch.tensor([[1e-10, 1.0], [2.0, 3.0]], dtype=torch.float64),
        "tensor([[1.0000e-10, 1.0000e+00],\n"
        "        [2.0000e+00, 3.0000e+00]], dtype=torch.float64)",
    ),
    # empty
    (lambda: torch.tensor([]), "tensor([])"),
    (lambda: torch.tensor([], dtype=torch.int64), "tensor([], dtype=torch.int64)"),
    (lambda: torch.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: torch.zeros(2, 0, 3), "tensor([], size=(2, 0, 3))"),
    (lambda: torch.zeros(0, 3, dtype=torch.int32), "tensor([], size=(0, 3), dtype=torch.int32)"),
    # several dims, non-contiguous
    (lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    (lambda: torch.arange(4.0).reshape(2, 2).t(), "tensor([[0., 2.],\n        [1., 3.]])"),
    (
        lambda: torch.arange(8).reshape(2, 2, 2),
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])",
    ),
    (
        lambda: torch.arange(24.0).reshape(2, 3, 4) / 7,
        "tensor([[[0.0000, 0.1429, 0.2857, 0.4286],\n         [0.5714, 0.7143, 0.8571, 1.0000],\n"
        "         [1.1429, 1.2857, 1.4286, 1.5714]],\n"
        "\n"
        "        [[1.7143, 1.8571, 2.0000, 2.1429],\n"
        "         [2.2857, 2.4286, 2.5714, 2.7143],\n         [2.8571, 3.0000, 3.1429, 3.2857]]])",
    ),
    # line wrapping at 80 columns
    (
        lambda: torch.arange(30),
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
        "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])",
    ),
    (
        lambda: torch.linspace(0, 1, 12),
        "tensor([0.0000, 0.0909, 0.1818, 0.2727, 0.3636, 0.4545, 0.5455, 0.6364, 0.7273,\n"
        "        0.8182, 0.9091, 1.0000])",
    ),
    # summarised (more than 1000 elements): three at each end
    (lambda: torch.arange(1001), "tensor([   0,    1,    2,  ...,  998,  999, 1000])"),
    (lambda: torch.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (
        lambda: torch.arange(3000).reshape(3, 1000),
        "tensor([[   0,    1,    2,  ...,  997,  998,  999],\n"
        "        [1000, 1001, 1002,  ..., 1997, 1998, 1999],\n"
        "        [2000, 2001, 2002,  ..., 2997, 2998, 2999]])",
    ),
    (
        lambda: torch.arange(10000.0).reshape(100, 100),
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.7000e+01, 9.8000e+01,\n"
        "         9.9000e+01],\n"
        "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.9700e+02, 1.9800e+02,\n"
        "         1.9900e+02],\n"
        "        [2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.9700e+02, 2.9800e+02,\n"
        "         2.9900e+02],\n"
        "        ...,\n"
        "        [9.7000e+03, 9.7010e+03, 9.7020e+03,  ..., 9.7970e+03, 9.7980e+03,\n"
        "         9.7990e+03],\n"
        "        [9.8000e+03, 9.8010e+03, 9.8020e+03,  ..., 9.8970e+03, 9.8980e+03,\n"
        "         9.8990e+03],\n"
        "        [9.9000e+03, 9.9010e+03, 9.9020e+03,  ..., 9.9970e+03, 9.9980e+03,\n"
        "         9.9990e+03]])",
    ),
]


@pytest.mark.parametrize(
    "make, expected", CASES, ids=[re.sub(r"\W+", "_", e[1])[7:47].strip("_") for e in CASES]
)
def test_repr_matches_pytorch(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_exactly_1000_elements_are_not_summarised():
    text = repr(torch.arange(1000))
    assert "..." not in text
    assert text.startswith("tensor([  0,   1,   2,") and text.endswith("997, 998, 999])")
    lines = text.split("\n")
    assert len(lines) == 72 and all(len(line) <= 80 for line in lines)


def test_dtype_suffix_follows_the_default_dtype():
    torch.set_default_dtype(torch.float64)
    assert repr(torch.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert (
        repr(torch.tensor([1.0, 2.0], dtype=torch.float32))
        == "tensor([1., 2.], dtype=torch.float32)"
    )


def test_printing_does_not_change_the_tensor():
    t = torch.arange(5000.0)
    version = t._version
    repr(t)
    assert t._version == version and t[4999].item() == 4999.0


def test_other_reprs():
    assert repr(torch.Size([2, 3])) == "torch.Size([2, 3])"
    assert repr(torch.Size([])) == "torch.Size([])"
    assert repr(torch.float16) == "torch.float16"
    assert repr(torch.device("cpu")) == "device(type='cpu')"
    assert str(torch.device("cpu")) == "cpu"
