"""Basic indexing against NumPy: ints, slices with steps, None, Ellipsis and
negative indices; results are views; assignment broadcasts; bad indices raise."""

import numpy as np
import pytest

import torch
from torch.testing._op_registry import SHORT, assert_array_matches

E = Ellipsis
INDICES = [
    1,
    -1,
    (0, 2),
    (-2, -1, 0),
    slice(None),
    slice(1, 3),
    slice(None, None, 2),
    slice(1, None, 3),
    slice(-3, -1),
    slice(5, 100),
    slice(3, 1),
    (slice(None), 1),
    (1, slice(None), slice(None, None, 2)),
    None,
    (None, 0),
    (0, None, slice(1, 3), None),
    E,
    (E, 1),
    (1, E),
    (E, None),
    (0, E, slice(0, 4, 3)),
    (slice(None, None, 3), slice(None, None, 2), slice(None, None, 4)),
    (slice(1, 2), E, -1),
    (),
    (slice(0, 0),),
    (None, E, None),
]


def _ids(index):
    return repr(index).replace(" ", "").replace("slice", "s")


def _base(dtype=torch.float32):
    a = np.arange(60).reshape(3, 4, 5).astype(np.float64)
    return torch.tensor(a, dtype=dtype), a


@pytest.mark.parametrize("index", INDICES, ids=_ids)
def test_getitem_matches_numpy(index):
    t, a = _base()
    result = t[index]
    assert tuple(result.shape) == a[index].shape
    assert_array_matches(result, a[index])


@pytest.mark.parametrize("index", [i for i in INDICES if i not in ((), E)], ids=_ids)
def test_getitem_on_non_contiguous_tensor(index):
    t, a = _base()
    t, a = t.permute(2, 0, 1)[::2], np.transpose(a, (2, 0, 1))[::2]
    assert_array_matches(t[index], a[index])


@pytest.mark.parametrize(
    "index", [i for i in INDICES if not isinstance(i, int) and i != (0, 2)], ids=_ids
)
def test_getitem_returns_a_view(index):
    t, _ = _base()
    view = t[index]
    if view.numel() == 0:
        return
    before = t.clone()
    view.fill_(-1)
    changed = (t != before).sum().item()
    assert changed == view.numel()
    assert t._version == view._version


def test_integer_index_of_last_dim_gives_zero_dim_view():
    t, a = _base()
    v = t[1, 2, 3]
    assert v.shape == () and v.item() == a[1, 2, 3]
    v.fill_(100)
    assert t[1, 2, 3].item() == 100


def test_chained_indexing():
    t, a = _base()
    assert_array_matches(t[1][::2][:, 1:], a[1][::2][:, 1:])
    assert_array_matches(t[..., 1][None][0, 2], a[..., 1][None][0, 2])


@pytest.mark.parametrize(
    "index, value",
    [
        (1, 5.0),
        ((0, slice(None), 2), -1.0),
        ((slice(None), slice(None, None, 2)), 7.0),
        (E, 0.0),
        ((E, -1), 3.0),
        ((None, 1), 9.0),
        (slice(1, 3), "row"),  # broadcast a (5,) tensor into (2, 4, 5)
        ((slice(None), 0), "column"),  # broadcast a (1, 5) tensor into (3, 5)
        ((1, slice(1, 3), slice(0, 4, 2)), "block"),
    ],
    ids=["int", "mixed", "step", "ellipsis", "ellipsis-neg", "none", "row", "column", "block"],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16], ids=SHORT.get)
def test_setitem_matches_numpy(index, value, dtype):
    t, a = _base(dtype)
    if value == "row":
        value = np.arange(5.0) * 10
    elif value == "column":
        value = np.arange(5.0).reshape(1, 5) - 100
    elif value == "block":
        value = np.array([[1.0, 2.0], [3.0, 4.0]])
    version = t._version
    t[index] = torch.tensor(value, dtype=dtype) if isinstance(value, np.ndarray) else value
    a[index] = value
    assert t._version > version
    assert_array_matches(t, a)


def test_setitem_with_other_dtype_and_numpy_like_values():
    t = torch.zeros(2, 3, dtype=torch.int32)
    t[0] = torch.tensor([1.9, 2.1, -3.7])
    assert t.tolist() == [[1, 2, -3], [0, 0, 0]]
    t[1, :] = True
    assert t.tolist()[1] == [1, 1, 1]


def test_setitem_into_non_contiguous_tensor():
    t, a = _base()
    tt, at = t.transpose(0, 2), np.transpose(a, (2, 1, 0))
    tt[1:, ::2] = -5
    at[1:, ::2] = -5
    assert_array_matches(t, a)


def test_setitem_from_an_overlapping_view_of_itself():
    t = torch.arange(6.0)
    t[1:4] = t[0:3].clone()
    assert t.tolist() == [0.0, 0.0, 1.0, 2.0, 4.0, 5.0]


def test_slices_are_clamped_like_python():
    t = torch.arange(5)
    assert t[3:100].tolist() == [3, 4]
    assert t[-100:2].tolist() == [0, 1]
    assert t[4:2].tolist() == []


@pytest.mark.parametrize(
    "index",
    [4, -5, (0, 5), (slice(None), 7), (E, -6), (0, 0, 0, 0)],
    ids=["int", "neg", "second", "slice-then-int", "ellipsis", "too-many"],
)
def test_out_of_range_is_index_error(index):
    t = torch.zeros(3, 4, 5)[0]
    with pytest.raises(IndexError):
        t[index]
    with pytest.raises(IndexError):
        t[index] = 1.0


def test_zero_dim_tensor_indexing():
    s = torch.tensor(2.5)
    assert s[()].item() == 2.5 and s[...].shape == () and s[None].shape == (1,)
    with pytest.raises(IndexError):
        s[0]


def test_negative_step_is_an_error():
    with pytest.raises(ValueError):
        torch.arange(5)[::-1]


@pytest.mark.parametrize("index", ["a", 1.5, {1: 2}], ids=["str", "float", "dict"])
def test_index_of_wrong_type_is_an_error(index):
    with pytest.raises((TypeError, IndexError)):
        torch.zeros(3)[index]
