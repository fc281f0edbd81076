"""Property tests (hypothesis) against NumPy: broadcasting, arbitrary strided
views, chains of view ops, basic indexing and reductions over random dims."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch
from torch.testing._op_registry import assert_array_matches

SHAPE = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
SEED = st.integers(0, 2**32 - 1)


def _pair(shape, seed, dtype=torch.float64):
    a = np.random.default_rng(seed).uniform(-5, 5, shape)
    return torch.tensor(a, dtype=dtype), a


@given(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4), SEED)
def test_broadcasting_matches_numpy(shapes, seed):
    (sa, sb), result_shape = shapes.input_shapes, shapes.result_shape
    ta, a = _pair(sa, seed)
    tb, b = _pair(sb, seed + 1)
    for fn in (lambda x, y: x + y, lambda x, y: x * y - y, lambda x, y: x > y):
        result = fn(ta, tb)
        assert tuple(result.shape) == result_shape
        assert_array_matches(result, fn(a, b), 1e-12, 1e-12)
    assert_array_matches(torch.maximum(ta, tb), np.maximum(a, b))


@given(SHAPE, SHAPE)
def test_broadcast_errors_agree_with_numpy(sa, sb):
    try:
        expected = np.broadcast_shapes(sa, sb)
    except ValueError:
        with pytest.raises(RuntimeError):
            torch.zeros(sa) + torch.zeros(sb)
    else:
        assert tuple((torch.zeros(sa) + torch.zeros(sb)).shape) == expected


@st.composite
def strided_views(draw):
    """(storage size, sizes, strides, offset) that stay inside the storage."""
    ndim = draw(st.integers(0, 4))
    sizes = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    strides = tuple(draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim)))
    offset = draw(st.integers(0, 5))
    extent = sum((n - 1) * s for n, s in zip(sizes, strides)) if all(sizes) else 0
    return offset + extent + 1 + draw(st.integers(0, 3)), sizes, strides, offset


def _expected_contiguous(sizes, strides):
    if 0 in sizes:
        return True
    expected = 1
    for n, s in reversed(list(zip(sizes, strides))):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


@given(strided_views())
def test_as_strided_views_match_numpy(view):
    storage, sizes, strides, offset = view
    base = torch.arange(storage, dtype=torch.float64)
    t = base.as_strided(sizes, strides, offset)
    a = np.lib.stride_tricks.as_strided(
        np.arange(storage, dtype=np.float64)[offset:], sizes, [s * 8 for s in strides]
    )
    assert t.shape == sizes and t.stride() == strides and t.storage_offset() == offset
    assert_array_matches(t, a)
    assert t.is_contiguous() == _expected_contiguous(sizes, strides)
    c = t.contiguous()
    assert c.is_contiguous()
    assert_array_matches(c, a)
    assert_array_matches(t * 2 + 1, a * 2 + 1)
    assert_array_matches(t.sum(), a.sum(), 1e-12, 1e-12)
    if t.dim():
        assert_array_matches(t.sum(-1), a.sum(-1), 1e-12, 1e-12)


@given(strided_views(), SEED)
def test_writes_through_non_overlapping_strided_views(view, seed):
    storage, sizes, strides, offset = view
    index = np.lib.stride_tricks.as_strided(
        np.arange(storage)[offset:], sizes, [s * np.dtype(np.int64).itemsize for s in strides]
    )
    assume(len(np.unique(index)) == index.size)  # no element written twice
    base = torch.zeros(storage, dtype=torch.float64)
    values, a = _pair(sizes, seed)
    base.as_strided(sizes, strides, offset).copy_(values)
    base.as_strided(sizes, strides, offset).mul_(3)
    expected = np.zeros(storage)
    expected[index.reshape(-1)] = 3 * a.reshape(-1)
    assert_array_matches(base, expected, 1e-12, 0)


VIEW_STEPS = st.lists(
    st.sampled_from(
        [
            "t",
            "transpose",
            "permute",
            "unsqueeze",
            "squeeze",
            "narrow",
            "select",
            "step",
            "expand",
            "diagonal",
        ]
    ),
    max_size=6,
)


def _apply(step, t, a, data):
    """Apply one view op to both; return (t, a) unchanged when it does not apply."""
    n = t.dim()
    if step == "t" and n <= 2:
        return t.t(), a.T
    if step == "transpose" and n >= 1:
        i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        return t.transpose(i, j), np.swapaxes(a, i, j)
    if step == "permute" and n >= 1:
        order = data.draw(st.permutations(range(n)))
        return t.permute(*order), np.transpose(a, order)
    if step == "unsqueeze" and n < 5:
        d = data.draw(st.integers(-n - 1, n))
        return t.unsqueeze(d), np.expand_dims(a, d)
    if step == "squeeze":
        return t.squeeze(), np.squeeze(a)
    if step in ("narrow", "select", "step") and n >= 1:
        d = data.draw(st.integers(0, n - 1))
        size = a.shape[d]
        if step == "narrow":
            start = data.draw(st.integers(0, size))
            length = data.draw(st.integers(0, size - start))
            return t.narrow(d, start, length), np.take(a, range(start, start + length), axis=d)
        if step == "select" and size:
            i = data.draw(st.integers(-size, size - 1))
            return t.select(d, i), np.take(a, i, axis=d)
        if step == "step":
            k = data.draw(st.integers(1, 3))
            index = (slice(None),) * d + (slice(None, None, k),)
            return t[index], a[index]
    if step == "expand" and 1 in a.shape:
        shape = tuple(3 if s == 1 else s for s in a.shape)
        return t.expand(*shape), np.broadcast_to(a, shape)
    if step == "diagonal" and n >= 2:
        offset = data.draw(st.integers(-2, 2))
        return t.diagonal(offset, 0, 1), np.diagonal(a, offset, 0, 1)
    return t, a


@given(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4), VIEW_STEPS, st.data())
def test_chains_of_views_match_numpy_and_share_storage(shape, steps, data):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    base = torch.tensor(a)
    t, view = base, a
    for step in steps:
        t, view = _apply(step, t, view, data)
    assert tuple(t.shape) == view.shape
    assert_array_matches(t, view)
    assert_array_matches(t.reshape(-1), view.reshape(-1))
    base.mul_(-1)  # the view must see writes to its base
    assert_array_matches(t, -view)


@st.composite
def basic_indices(draw, shape):
    """Ints, positive-step slices, None and at most one Ellipsis, each int/slice inside its dim."""
    n = len(shape)
    used = draw(st.integers(0, n))  # dims taken by ints and slices
    ellipsis = draw(st.booleans())
    split = draw(st.integers(0, used)) if ellipsis else used
    parts = []
    for d in list(range(split)) + list(range(n - (used - split), n)):
        if shape[d] and draw(st.booleans()):
            parts.append(draw(st.integers(-shape[d], shape[d] - 1)))
        else:
            bound = st.none() | st.integers(-6, 6)
            parts.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3))))
    if ellipsis:
        parts.insert(split, Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        parts.insert(draw(st.integers(0, len(parts))), None)
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]  # a bare index, not a tuple
    return tuple(parts)


@given(
    hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5).flatmap(
        lambda s: st.tuples(st.just(s), basic_indices(s))
    ),
    SEED,
)
def test_basic_indexing_matches_numpy(shape_index, seed):
    shape, index = shape_index
    expected = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)[index]
    t = torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape)
    assert_array_matches(t[index], expected)
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    value, np_value = _pair(expected.shape[1:], seed)  # broadcast over the first result dim
    t[index] = value
    a[index] = np_value
    assert_array_matches(t, a)
    t[index] = -1.5
    a[index] = -1.5
    assert_array_matches(t, a)


@given(
    hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5).flatmap(
        lambda s: st.tuples(st.just(s), st.sets(st.integers(0, len(s) - 1), min_size=1))
    ),
    st.booleans(),
    SEED,
)
def test_reductions_over_random_dims_match_numpy(shape_dims, keepdim, seed):
    shape, dims = shape_dims
    dims = tuple(sorted(dims))
    t, a = _pair(shape, seed)
    t, a = t.transpose(0, -1), np.swapaxes(a, 0, -1)  # non-contiguous input
    assert_array_matches(t.sum(dims, keepdim=keepdim), a.sum(dims, keepdims=keepdim), 1e-12, 1e-12)
    assert_array_matches(t.amax(dims, keepdim=keepdim), a.max(dims, keepdims=keepdim))
    assert_array_matches(
        t.mean(dims, keepdim=keepdim), a.mean(dims, keepdims=keepdim), 1e-12, 1e-12
    )
    assert_array_matches((t > 0).any(dims, keepdim=keepdim), (a > 0).any(dims, keepdims=keepdim))
    assert_array_matches((t > 0).all(dims, keepdim=keepdim), (a > 0).all(dims, keepdims=keepdim))
