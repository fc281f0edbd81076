"""Property tests (hypothesis) of scans and sorting against NumPy: random shapes (0-d and
empty included), any dim, permuted and sliced views, and integer data full of ties."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch
from torch.testing._op_registry import assert_array_matches, to_numpy
from torch.testing._registry_sorting import _np_sort

SHAPE = hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6)


@st.composite
def views(draw):
    """(tensor, the same values in NumPy, a dim): a permuted, maybe sliced view of ints."""
    shape = draw(SHAPE)
    a = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(-3, 4, shape)
    perm = draw(st.permutations(range(a.ndim)))
    t, a = torch.tensor(a).permute(perm), np.transpose(a, perm)
    if draw(st.booleans()) and a.shape[-1] > 1:
        t, a = t[..., ::2], a[..., ::2]
    return t, a, draw(st.integers(-a.ndim, a.ndim - 1))


@given(views(), st.booleans(), st.sampled_from([torch.int64, torch.float32, torch.int16]))
def test_stable_sort_matches_numpy(view, descending, dtype):
    t, a, dim = view
    r = torch.sort(t.to(dtype), dim=dim, descending=descending, stable=True)
    values, idx = _np_sort(a, dim, descending)
    assert np.array_equal(to_numpy(r.indices), idx)
    assert np.array_equal(to_numpy(r.values), values)


@given(views())
def test_scans_match_numpy(view):
    t, a, dim = view
    assert np.array_equal(to_numpy(torch.cumsum(t, dim)), np.cumsum(a, axis=dim))
    assert np.array_equal(to_numpy(torch.cumprod(t.clamp(-1, 1), dim)),
                          np.cumprod(np.clip(a, -1, 1), axis=dim))  # fmt: skip
    assert np.array_equal(to_numpy(torch.cummax(t, dim).values), np.maximum.accumulate(a, dim))
    x = t.to(torch.float64)
    assert_array_matches(torch.logcumsumexp(x, dim), np.logaddexp.accumulate(a, dim), 1e-12, 1e-12)


@given(views(), st.data())
def test_topk_values_and_kthvalue_match_numpy(view, data):
    t, a, dim = view
    n = a.shape[dim]
    k = data.draw(st.integers(0, n))
    for largest in (True, False):
        values = _np_sort(a, dim, largest)[0]
        expected = np.take(values, range(k), axis=dim)
        assert np.array_equal(to_numpy(torch.topk(t, k, dim, largest).values), expected)
    if n > 0:
        kth = torch.kthvalue(t, max(k, 1), dim).values
        assert np.array_equal(to_numpy(kth), np.take(np.sort(a, dim), max(k, 1) - 1, axis=dim))
