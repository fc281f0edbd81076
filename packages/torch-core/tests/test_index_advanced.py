"""Advanced indexing (__getitem__/__setitem__ with int lists/tensors and bool masks mixed
with ints, slices, None and Ellipsis) against NumPy, over random index expressions.

PyTorch differs from NumPy in one place: plain integers are applied first, as basic
indexing, so they never count as advanced indices for the "separated indices move to the
front" rule. The NumPy oracle therefore applies the integers first, then the rest.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch
from torch.testing._op_registry import assert_array_matches


@st.composite
def index_expressions(draw):
    """(shape, items): items is a list of ('int', i) ('slice', s) ('none',) ('ellipsis',)
    ('ints', array, as_list) ('mask', array) entries that together fit `shape`."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
    use_mask = draw(st.booleans())
    batch = draw(st.sampled_from([(), (3,), (2, 1), (1, 3), (2, 3)]))
    items, d, used_ellipsis, advanced = [], 0, False, 0
    while d < len(shape) and draw(st.integers(0, 4)) > 0:
        n = shape[d]
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "ints", "mask"]))
        if kind == "int" and n > 0:
            items.append(("int", draw(st.integers(-n, n - 1))))
            d += 1
        elif kind == "slice":
            start = draw(st.none() | st.integers(-5, 5))
            stop = draw(st.none() | st.integers(-5, 5))
            step = draw(st.none() | st.integers(1, 3))
            items.append(("slice", slice(start, stop, step)))
            d += 1
        elif kind == "none":
            items.append(("none",))
        elif kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            skip = draw(st.integers(0, len(shape) - d))
            items.append(("ellipsis",))
            d += skip
            # dims after the ellipsis are indexed from the end: keep the rest consistent
            items.append(("fill", len(shape) - d))
            break
        elif kind == "ints" and n > 0 and not use_mask:
            size = int(np.prod(batch, dtype=np.int64))
            values = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size))
            items.append(
                ("ints", np.array(values, dtype=np.int64).reshape(batch), draw(st.booleans()))
            )
            advanced += 1
            d += 1
        elif kind == "mask" and use_mask and advanced == 0:
            k = draw(st.integers(1, len(shape) - d))
            bits = draw(st.lists(st.booleans(), min_size=int(np.prod(shape[d : d + k])),
                                 max_size=int(np.prod(shape[d : d + k]))))  # fmt: skip
            items.append(("mask", np.array(bits, dtype=bool).reshape(shape[d : d + k])))
            advanced += 1
            d += k
    return shape, items


def _expand_fill(items):
    out = []
    for item in items:
        if item[0] == "fill":
            out += [("slice", slice(None))] * item[1]
        else:
            out.append(item)
    return out


def _torch_index(items):
    index = []
    for item in _expand_fill(items):
        kind = item[0]
        if kind in ("int", "slice"):
            index.append(item[1])
        elif kind == "none":
            index.append(None)
        elif kind == "ellipsis":
            index.append(Ellipsis)
        elif kind == "ints":
            array, as_list = item[1], item[2]
            index.append(
                array.tolist()
                if as_list and array.ndim == 1
                else torch.tensor(array.tolist(), dtype=torch.int64).reshape(array.shape)
            )
        else:
            index.append(torch.tensor(item[1].tolist(), dtype=torch.bool).reshape(item[1].shape))
    return tuple(index)


def _numpy_apply(a, items):
    """Integers first (basic indexing), then everything else."""
    items = _expand_fill(items)
    first = []
    for item in items:
        if item[0] == "int":
            first.append(item[1])
        elif item[0] == "ellipsis":
            first.append(Ellipsis)
        elif item[0] == "mask":
            first += [slice(None)] * item[1].ndim
        elif item[0] != "none":
            first.append(slice(None))
    rest = []
    for item in items:
        if item[0] in ("slice", "ints", "mask"):
            rest.append(item[1])
        elif item[0] == "none":
            rest.append(None)
        elif item[0] == "ellipsis":
            rest.append(Ellipsis)
    if Ellipsis not in first:
        first.append(Ellipsis)  # a 0-d view, not a scalar, when every dim is an int
    return a[tuple(first)], tuple(rest)


def _np(t):
    return np.asarray(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


@given(index_expressions())
def test_getitem_matches_numpy(expr):
    shape, items = expr
    base = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = torch.arange(base.size, dtype=torch.float64).reshape(shape)
    partial, rest = _numpy_apply(base, items)
    expected = partial[rest]
    actual = x[_torch_index(items)]
    assert tuple(actual.shape) == expected.shape
    assert_array_matches(actual, expected)


@given(index_expressions(), st.booleans())
def test_setitem_matches_numpy(expr, scalar):
    shape, items = expr
    base = np.zeros(shape)
    x = torch.zeros(shape, dtype=torch.float64)
    partial, rest = _numpy_apply(base, items)
    positions = np.arange(partial.size).reshape(partial.shape)[rest]
    unique = len(np.unique(positions)) == positions.size
    if scalar or not unique:
        value, torch_value = 5.0, 5.0
    else:
        value = np.arange(1, positions.size + 1, dtype=np.float64).reshape(positions.shape)
        torch_value = torch.tensor(value.tolist(), dtype=torch.float64).reshape(value.shape)
    partial[rest] = value  # partial is a view of base
    x[_torch_index(items)] = torch_value
    assert_array_matches(x, base)


def test_placement_rule():
    x = torch.arange(120).reshape(2, 3, 4, 5)
    i = torch.tensor([0, 1])
    assert x[:, i, i].shape == (2, 2, 5)  # adjacent: stays in place
    assert x[:, i, :, i].shape == (2, 2, 4)  # separated: moves to the front
    assert x[i, ..., i].shape == (2, 3, 4)
    assert x[None, :, i, None, i].shape == (2, 1, 2, 1, 5)
    assert x[0, :, [1, 2]].shape == (3, 2, 5)  # the int is basic indexing first
    assert x[True].shape == (1, 2, 3, 4, 5) and x[False].shape == (0, 2, 3, 4, 5)


def test_bool_mask_and_assignment_dtypes():
    x = torch.arange(6).reshape(2, 3)
    assert x[x > 2].tolist() == [3, 4, 5]
    x[x > 3] = 0
    assert x.tolist() == [[0, 1, 2], [3, 0, 0]]
    x[torch.tensor([0, 1]), torch.tensor([2, 0])] = torch.tensor([7, 8])
    assert x.tolist() == [[0, 1, 7], [8, 0, 0]]
    x[:, [True, False, True]] = torch.tensor([[1], [2]])  # broadcast
    assert x.tolist() == [[1, 1, 1], [2, 0, 2]]
    y = torch.zeros(3, 2)
    y[[0, 2]] += 1
    assert y.tolist() == [[1, 1], [0, 0], [1, 1]]


@pytest.mark.ours_only
def test_setitem_casts_value_tensors():  # PyTorch asks for matching dtypes instead
    x = torch.zeros(2, 3, dtype=torch.int64)
    x[torch.tensor([0, 1]), torch.tensor([2, 0])] = torch.tensor([7.9, 8.2])
    assert x.tolist() == [[0, 0, 7], [8, 0, 0]]


@pytest.mark.ours_only
def test_setitem_from_an_overlapping_value():  # PyTorch refuses; we read values first (NumPy)
    x = torch.tensor([1.0, 2.0, 3.0])
    x[[2, 1, 0]] = x
    assert x.tolist() == [3.0, 2.0, 1.0]
    y = torch.arange(6.0).reshape(2, 3)
    y.index_copy_(1, torch.tensor([2, 0]), y[:, :2])
    assert y.tolist() == [[1, 1, 0], [4, 4, 3]]


def test_index_errors():
    x = torch.zeros(3, 4, 5)
    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 3"):
        x[[5]]
    with pytest.raises(IndexError, match=r"index -6 is out of bounds for dimension \d with size 5"):
        x[:, :, torch.tensor([-6])]
    with pytest.raises(IndexError, match=r"\[3, 5\].*\[3, 4, 5\]"):
        x[torch.ones(3, 5, dtype=torch.bool)]
    with pytest.raises(IndexError):
        x[torch.tensor([1.0])]
    with pytest.raises(IndexError):
        x[[0], [0], [0], [0]]
    with pytest.raises(IndexError, match="shape mismatch"):
        x[[0, 1, 2], [0, 1]]
    with pytest.raises(IndexError, match="out of bounds"):
        x[[0, 3]] = 1.0
    with pytest.raises(RuntimeError):
        x[[0, 1]] = torch.ones(3)
