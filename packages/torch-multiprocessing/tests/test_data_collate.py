"""default_collate / default_convert, rule by rule; oracle: NumPy stacking and Python values."""

import collections

import numpy as np
import pytest

import torch
from torch.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


def test_tensors_are_stacked_like_numpy():
    rows = [np.arange(6, dtype=np.float32).reshape(2, 3) + i for i in range(4)]
    batch = default_collate([torch.from_numpy(r) for r in rows])
    assert batch.shape == (4, 2, 3) and batch.dtype == torch.float32
    np.testing.assert_array_equal(batch.numpy(), np.stack(rows))


def test_mismatched_shapes_name_the_shapes_and_position():
    batch = [torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(2, 4)]
    with pytest.raises(RuntimeError, match=r"position 2 has shape \(2, 4\).*\(2, 3\)"):
        default_collate(batch)


def test_numpy_arrays_and_scalars_become_tensors():
    arrays = [np.array([1, 2]), np.array([3, 4])]
    batch = default_collate(arrays)
    assert batch.dtype == torch.int64
    np.testing.assert_array_equal(batch.numpy(), np.stack(arrays))
    scalars = default_collate([np.float32(1.5), np.float32(2.5)])
    assert scalars.dtype == torch.float32 and scalars.tolist() == [1.5, 2.5]


def test_numpy_text_arrays_are_rejected():
    with pytest.raises(TypeError, match="dtype <U1"):
        default_collate([np.array(["a"])])


@pytest.mark.parametrize(
    "samples, dtype",
    [([1.5, 2.0], torch.float64), ([1, 2], torch.int64), ([True, False], torch.bool)],
)
def test_python_numbers(samples, dtype):
    batch = default_collate(samples)
    assert batch.dtype == dtype and batch.tolist() == samples


def test_strings_stay_a_list():
    assert default_collate(["a", "bc"]) == ["a", "bc"]
    assert default_collate([b"x", b"y"]) == [b"x", b"y"]


def test_dicts_collate_per_key():
    batch = default_collate([{"a": 1, "s": "x"}, {"a": 2, "s": "y"}])
    assert set(batch) == {"a", "s"}
    assert batch["a"].tolist() == [1, 2] and batch["s"] == ["x", "y"]
    ordered = default_collate([collections.OrderedDict(k=1.0), collections.OrderedDict(k=2.0)])
    assert type(ordered) is collections.OrderedDict and ordered["k"].tolist() == [1.0, 2.0]


def test_namedtuple_keeps_its_type_and_tuples_become_lists():
    batch = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(batch) is Point
    assert batch.x.tolist() == [1, 3] and batch.y.dtype == torch.float64
    pairs = default_collate([(torch.tensor(1.0), 2), (torch.tensor(3.0), 4)])
    assert isinstance(pairs, list) and len(pairs) == 2
    assert pairs[0].tolist() == [1.0, 3.0] and pairs[1].tolist() == [2, 4]


def test_nested():
    samples = [{"img": [torch.full((2,), float(i)), i], "meta": {"id": f"s{i}"}} for i in range(3)]
    batch = default_collate(samples)
    assert batch["img"][0].tolist() == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    assert batch["img"][1].tolist() == [0, 1, 2]
    assert batch["meta"]["id"] == ["s0", "s1", "s2"]


def test_sequences_of_unequal_length():
    with pytest.raises(RuntimeError, match="position 1 has 1 elements, position 0 has 2"):
        default_collate([[1, 2], [3]])


def test_unsupported_type():
    with pytest.raises(TypeError, match="NoneType"):
        default_collate([None, None])


def test_default_convert():
    converted = default_convert({"a": np.arange(3), "b": (np.float64(2.0), "s")})
    assert isinstance(converted["a"], torch.Tensor) and converted["a"].tolist() == [0, 1, 2]
    assert converted["b"][0].dtype == torch.float64 and converted["b"][1] == "s"
    assert isinstance(converted["b"], list)  # tuples become lists, as in default_collate
    point = default_convert(Point(np.arange(2), 3))
    assert type(point) is Point and point.x.tolist() == [0, 1] and point.y == 3
    text = np.array(["a", "b"])
    assert default_convert(text) is text
    t = torch.zeros(2)
    assert default_convert(t) is t
