"""Interop with Python and NumPy: .numpy() and np.asarray share memory,
tolist/item/int/float/bool, and DLPack both ways without copies."""

import math

import numpy as np
import pytest

import torch
from torch.testing._op_registry import SHORT

NUMPY_TYPES = [
    (torch.float32, np.float32),
    (torch.float64, np.float64),
    (torch.float16, np.float16),
    (torch.int8, np.int8),
    (torch.uint8, np.uint8),
    (torch.int16, np.int16),
    (torch.int32, np.int32),
    (torch.int64, np.int64),
    (torch.bool, np.bool_),
]
IDS = [SHORT[t] for t, _ in NUMPY_TYPES]


@pytest.mark.parametrize("dtype, np_dtype", NUMPY_TYPES, ids=IDS)
def test_numpy_shares_memory(dtype, np_dtype):
    t = torch.zeros(2, 3, dtype=dtype)
    a = t.numpy()
    assert a.dtype == np_dtype and a.shape == (2, 3)
    a[1, 1] = 1
    assert t[1, 1].item() == 1
    t[0, 2] = 1
    assert a[0, 2] == 1


def test_numpy_of_a_view_keeps_strides_and_offset():
    t = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    a = t[1:, ::2].t().numpy()
    assert a.shape == (2, 2)
    assert a.strides == (2 * 4, 4 * 4)
    assert a.tolist() == [[4, 8], [6, 10]]
    a[0, 0] = -1
    assert t[1, 0].item() == -1


def test_numpy_of_bfloat16_is_an_error():
    with pytest.raises(TypeError):
        torch.zeros(2, dtype=torch.bfloat16).numpy()


def test_np_asarray_shares_memory():
    t = torch.zeros(4)
    a = np.asarray(t)
    assert a.dtype == np.float32
    a[2] = 5
    assert t[2].item() == 5
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.asarray(torch.tensor([[1, 2]])).tolist() == [[1, 2]]


@pytest.mark.parametrize(
    "data", [[[1.5, -2.0], [0.0, 3.25]], [1, 2, 3], [True, False], [], [[[]]], 7, 2.5, True]
)
def test_tolist_round_trips(data):
    t = torch.tensor(data)
    result = t.tolist()
    assert result == data
    assert type(result) is type(data)


@pytest.mark.parametrize(
    "dtype, kind",
    [
        (torch.float32, float),
        (torch.float16, float),
        (torch.bfloat16, float),
        (torch.int8, int),
        (torch.uint8, int),
        (torch.int64, int),
        (torch.bool, bool),
    ],
    ids=lambda v: SHORT.get(v, getattr(v, "__name__", "")),
)
def test_tolist_and_item_give_python_types(dtype, kind):
    t = torch.ones(2, 2, dtype=dtype)
    assert all(type(v) is kind for row in t.tolist() for v in row)
    assert type(t[0, 0].item()) is kind
    assert type(t[0].tolist()[0]) is kind


def test_item_and_conversions():
    assert torch.tensor(2.5).item() == 2.5
    assert torch.tensor([7]).item() == 7
    assert torch.tensor([[True]]).item() is True
    assert int(torch.tensor(3.9)) == 3 and float(torch.tensor(2)) == 2.0
    assert bool(torch.tensor([0])) is False and bool(torch.tensor(1.5)) is True
    assert math.isnan(torch.tensor(float("nan")).item())
    assert torch.tensor(2**62).item() == 2**62
    assert [1, 2, 3][torch.tensor(1)] == 2  # __index__ for integer tensors


@pytest.mark.parametrize(
    "fn",
    [lambda: torch.ones(2).item(), lambda: bool(torch.ones(2)), lambda: torch.zeros(0).item()],
    ids=["item", "bool", "empty"],
)
def test_converting_many_elements_is_an_error(fn):
    with pytest.raises(RuntimeError):
        fn()


@pytest.mark.parametrize("convert", [float, int], ids=["float", "int"])
def test_number_conversion_of_many_elements_is_a_value_error(convert):
    with pytest.raises(ValueError):
        convert(torch.ones(2))


# --- DLPack -------------------------------------------------------------------


@pytest.mark.parametrize("dtype, np_dtype", NUMPY_TYPES, ids=IDS)
def test_dlpack_numpy_to_torch_shares(dtype, np_dtype):
    a = np.zeros((2, 3), np_dtype)
    t = torch.from_dlpack(a)
    assert t.dtype == dtype and t.shape == (2, 3)
    a[1, 0] = 1
    assert t[1, 0].item() == 1


@pytest.mark.parametrize("dtype, np_dtype", NUMPY_TYPES, ids=IDS)
def test_dlpack_torch_to_numpy_shares(dtype, np_dtype):
    t = torch.zeros(2, 3, dtype=dtype)
    a = np.from_dlpack(t)
    assert a.dtype == np_dtype and a.shape == (2, 3)
    t[0, 1] = 1
    assert a[0, 1] == 1


def test_dlpack_keeps_strides_and_offsets():
    t = torch.arange(24.0).reshape(4, 6)[1:, ::2].t()
    a = np.from_dlpack(t)
    assert a.tolist() == t.tolist()
    assert a.strides == tuple(s * 4 for s in t.stride())
    back = torch.from_dlpack(np.arange(20.0).reshape(4, 5)[::2, 1:])
    assert back.tolist() == np.arange(20.0).reshape(4, 5)[::2, 1:].tolist()


def test_dlpack_protocol_methods():
    t = torch.ones(3)
    device_type, device_id = t.__dlpack_device__()
    assert (int(device_type), device_id) == (1, 0)  # kDLCPU
    capsule = t.__dlpack__()
    assert type(capsule).__name__ == "PyCapsule"
    u = torch.from_dlpack(t)
    u[0] = 5
    assert t[0].item() == 5


def test_dlpack_keeps_the_source_alive():
    a = torch.from_dlpack(np.arange(1000.0))
    b = np.from_dlpack(torch.arange(1000.0))
    import gc

    gc.collect()
    assert a[999].item() == 999.0 and b[999] == 999.0
