"""Scans and order statistics against NumPy: the registry's "scan" and "order" ops over
dims, layouts, 0-d and empty inputs, plus ties, NaN placement, long rows (the parallel
paths) and bad input."""

import math

import numpy as np
import pytest

import torch
from torch.testing._op_registry import assert_array_matches, cases, to_numpy
from torch.testing._registry_sorting import _np_sort

nan = math.nan


@pytest.mark.parametrize("case", cases("scan", "order"), ids=repr)
def test_matches_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


METHODS = ("cumsum", "cumprod", "logcumsumexp", "sort", "argsort", "kthvalue", "quantile")


@pytest.mark.parametrize(
    "case",
    cases(
        where=lambda c: (
            c.op.name in METHODS
            and c.dtype == torch.float32
            and not any(isinstance(a, list) for a in c.sample.args)
        )
    ),
    ids=repr,
)
def test_method_matches_numpy(case):
    x = case.make()
    result = getattr(x.args[0], case.op.target)(*x.args[1:], **x.kwargs)
    if case.op.name in ("sort", "kthvalue"):
        result = tuple(result)
    case.check(result, case.expected(x))


# ---------------------------------------------------------------- sort


def test_sort_is_stable_on_ties_both_ways():
    a = np.array([3, 1, 2, 1, 3, 2, 1, 3, 3, 0], dtype=np.int64)
    t = torch.tensor(a)
    assert torch.sort(t).indices.tolist() == np.argsort(a, kind="stable").tolist()
    desc = torch.sort(t, descending=True)
    assert desc.values.tolist() == sorted(a.tolist(), reverse=True)
    assert desc.indices.tolist() == [0, 4, 7, 8, 2, 5, 1, 3, 6, 9]
    assert torch.sort(t, stable=True).indices.tolist() == np.argsort(a, kind="stable").tolist()


def test_sort_nan_is_largest():
    t = torch.tensor([2.0, nan, -math.inf, 1.0, nan, math.inf])
    up = torch.sort(t)
    assert up.indices.tolist() == [2, 3, 0, 5, 1, 4]
    down = torch.sort(t, descending=True)
    assert down.indices.tolist() == [1, 4, 5, 0, 3, 2]
    assert math.isnan(down.values[0].item()) and down.values[2].item() == math.inf


def test_sort_signed_zeros_are_ties():
    t = torch.tensor([0.0, -0.0, 0.0, -0.0])
    assert torch.sort(t).indices.tolist() == [0, 1, 2, 3]


def test_sort_returns_named_tuple():
    r = torch.tensor([3.0, 1.0]).sort()
    assert type(r).__name__ == "sort"
    values, indices = r
    assert values.tolist() == [1.0, 3.0] and r.indices.tolist() == [1, 0]
    assert indices.dtype == torch.int64


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.float64])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_long_row_matches_numpy(dtype, descending):
    a = np.random.default_rng(1).integers(-1000, 1000, 200_000)
    t = torch.tensor(a).to(dtype)
    r = torch.sort(t, descending=descending, stable=True)
    idx = np.argsort(-a if descending else a, kind="stable")
    assert np.array_equal(to_numpy(r.indices), idx)
    assert np.array_equal(to_numpy(r.values), a[idx].astype(to_numpy(t).dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_long_row_with_nans_and_signed_zeros(dtype, descending):
    rng = np.random.default_rng(7)
    a = rng.integers(-5, 5, 100_000).astype(np.float32)
    a[rng.integers(0, a.size, 500)] = np.nan
    a[rng.integers(0, a.size, 500)] = -0.0
    t = torch.tensor(a).to(dtype)
    r = torch.sort(t, descending=descending, stable=True)
    values, idx = _np_sort(a, 0, descending)
    assert np.array_equal(to_numpy(r.indices), idx)
    assert np.array_equal(to_numpy(r.values), values, equal_nan=True)
    zeros = values == 0
    assert np.array_equal(np.signbit(to_numpy(r.values)[zeros]), np.signbit(values[zeros]))


def test_sort_many_rows_along_each_dim():
    a = np.random.default_rng(2).standard_normal((300, 200)).astype(np.float32)
    t = torch.tensor(a)
    for dim in (0, 1):
        r = torch.sort(t, dim=dim, stable=True)
        assert np.array_equal(to_numpy(r.values), np.sort(a, axis=dim))
        assert np.array_equal(to_numpy(r.indices), np.argsort(a, axis=dim, kind="stable"))
    r = torch.sort(t.t(), dim=1, descending=True)
    assert np.array_equal(to_numpy(r.values), -np.sort(-a.T, axis=1))


def test_sort_empty_and_zero_d():
    r = torch.sort(torch.empty(0, 3), dim=0)
    assert r.values.shape == (0, 3) and r.indices.dtype == torch.int64
    r = torch.sort(torch.tensor(5.0))
    assert r.values.shape == () and r.values.item() == 5.0 and r.indices.item() == 0


def test_argsort_and_msort():
    t = torch.tensor([[3, 1, 2], [0, 5, 4]])
    assert torch.argsort(t).tolist() == [[1, 2, 0], [0, 2, 1]]
    assert t.argsort(dim=0, descending=True).tolist() == [[0, 1, 1], [1, 0, 0]]
    assert torch.msort(t).tolist() == [[0, 1, 2], [3, 5, 4]]


# ---------------------------------------------------------------- topk, kthvalue


def test_topk_long_row_matches_numpy():
    a = np.random.default_rng(3).standard_normal(300_000).astype(np.float32)
    t = torch.tensor(a)
    for largest in (True, False):
        r = torch.topk(t, 100, largest=largest)
        idx = np.argsort(-a if largest else a, kind="stable")[:100]
        assert np.array_equal(to_numpy(r.indices), idx)
        assert np.array_equal(to_numpy(r.values), a[idx])


def test_topk_large_k_and_rows():
    a = np.random.default_rng(4).standard_normal((50, 40))
    t = torch.tensor(a)
    r = torch.topk(t, 30, dim=1)
    assert np.array_equal(to_numpy(r.values), -np.sort(-a, axis=1)[:, :30])
    r = t.topk(7, dim=0, largest=False)
    assert np.array_equal(to_numpy(r.indices), np.argsort(a, axis=0)[:7])


def test_topk_nan_is_largest():
    t = torch.tensor([1.0, nan, 3.0, 2.0])
    assert torch.topk(t, 2).indices.tolist() == [1, 2]
    assert torch.topk(t, 2, largest=False).values.tolist() == [1.0, 2.0]


def test_kthvalue_and_keepdim():
    t = torch.tensor([[3.0, 1.0, 2.0], [9.0, 7.0, 8.0]])
    r = torch.kthvalue(t, 2)
    assert r.values.tolist() == [2.0, 8.0] and r.indices.tolist() == [2, 2]
    assert torch.kthvalue(t, 1, 0, keepdim=True).values.tolist() == [[3.0, 1.0, 2.0]]


# ---------------------------------------------------------------- median, mode, quantile


def test_median_is_the_lower_median():
    assert torch.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0
    assert torch.tensor([[1, 2], [3, 4]]).median().item() == 2


def test_median_nan_propagates_and_nanmedian_ignores_it():
    t = torch.tensor([[1.0, nan, 3.0], [4.0, 2.0, 1.0]])
    r = torch.median(t, 1)
    assert math.isnan(r.values[0].item()) and r.indices[0].item() == 1
    assert r.values[1].item() == 2.0 and r.indices[1].item() == 1
    r = torch.nanmedian(t, dim=1)
    assert r.values.tolist() == [1.0, 2.0] and r.indices.tolist() == [0, 1]
    assert math.isnan(torch.median(t).item())
    assert torch.nanmedian(t).item() == 2.0
    assert math.isnan(torch.nanmedian(torch.tensor([nan, nan])).item())
    assert math.isnan(torch.median(torch.tensor([])).item())


def test_mode_ties_take_the_smallest_value_and_last_index():
    t = torch.tensor([[1, 2, 2, 3, 3, 0], [5, 5, 1, 1, 7, 7]])
    r = torch.mode(t, 1)
    assert r.values.tolist() == [2, 1] and r.indices.tolist() == [2, 3]


def test_nanquantile_matches_numpy():
    a = np.random.default_rng(5).standard_normal((4, 9))
    a[0, 3] = a[2, 0] = a[2, 5] = np.nan
    t = torch.tensor(a)
    for how in ("linear", "lower", "higher", "midpoint", "nearest"):
        got = torch.nanquantile(t, torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64), dim=1,
                                interpolation=how)  # fmt: skip
        assert_array_matches(got, np.nanquantile(a, [0.1, 0.5, 0.9], axis=1, method=how), 1e-12)
    q = torch.quantile(t, 0.5, dim=1)
    assert math.isnan(q[0].item()) and not math.isnan(q[1].item())


# ---------------------------------------------------------------- scans


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int32, torch.bool])
def test_integer_scans_accumulate_in_int64(dtype):
    t = torch.ones(300, dtype=dtype)
    assert torch.cumsum(t, 0).dtype == torch.int64 and torch.cumsum(t, 0)[-1].item() == 300
    assert torch.cumprod(t, 0).dtype == torch.int64


def test_cumsum_dtype_argument_and_inplace():
    t = torch.tensor([1, 2, 3], dtype=torch.int32)
    assert torch.cumsum(t, 0, dtype=torch.float64).dtype == torch.float64
    assert t.cumsum(0, dtype=torch.int32).dtype == torch.int32
    u = torch.tensor([1.0, 2.0, 3.0])
    assert u.cumsum_(0) is u and u.tolist() == [1.0, 3.0, 6.0]


def test_cumsum_long_rows_along_each_dim():
    a = np.random.default_rng(6).standard_normal((400, 300))
    t = torch.tensor(a)
    for dim in (0, 1, -1):
        assert_array_matches(torch.cumsum(t, dim), np.cumsum(a, axis=dim), 1e-12, 1e-12)
    assert_array_matches(t.t().cumprod(0), np.cumprod(a.T, axis=0), 1e-12, 1e-12)


def test_cummax_nan_stays_and_ties_take_the_latest_index():
    t = torch.tensor([1.0, 3.0, 3.0, nan, 2.0, nan, 5.0])
    r = torch.cummax(t, 0)
    assert r.indices.tolist() == [0, 1, 2, 3, 3, 5, 5]
    assert r.values[:3].tolist() == [1.0, 3.0, 3.0] and math.isnan(r.values[-1].item())
    r = torch.cummin(torch.tensor([3, 1, 1, 2]), 0)
    assert r.values.tolist() == [3, 1, 1, 1] and r.indices.tolist() == [0, 1, 2, 2]


def test_logcumsumexp_handles_infinities():
    t = torch.tensor([-math.inf, 0.0, math.inf, 1000.0])
    got = torch.logcumsumexp(t, 0).tolist()
    assert got[0] == -math.inf and got[1] == 0.0 and got[2] == math.inf and got[3] == math.inf
    big = torch.tensor([1000.0, 1000.0], dtype=torch.float64)
    assert abs(torch.logcumsumexp(big, 0)[1].item() - (1000 + math.log(2))) < 1e-9


# ---------------------------------------------------------------- unique, nan reductions


def test_unique_forms():
    t = torch.tensor([3, 1, 2, 1, 3])
    assert torch.unique(t).tolist() == [1, 2, 3]
    values, inverse, counts = torch.unique(t, return_inverse=True, return_counts=True)
    assert inverse.tolist() == [2, 0, 1, 0, 2] and counts.tolist() == [2, 1, 2]
    values, counts = t.unique(return_counts=True)
    assert counts.tolist() == [2, 1, 2]
    m = torch.tensor([[1, 2], [1, 2], [0, 5]])
    values, inverse = torch.unique(m, dim=0, return_inverse=True)
    assert values.tolist() == [[0, 5], [1, 2]] and inverse.tolist() == [1, 1, 0]


def test_unique_consecutive():
    t = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    values, inverse, counts = torch.unique_consecutive(t, return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3, 1, 2]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and counts.tolist() == [2, 2, 1, 2, 1]


def test_nansum_and_nanmean_skip_nans():
    t = torch.tensor([[1.0, nan, 3.0], [nan, nan, 2.0]])
    assert torch.nansum(t).item() == 6.0
    assert t.nansum(dim=1).tolist() == [4.0, 2.0]
    assert torch.nanmean(t, dim=1).tolist() == [2.0, 2.0]
    assert math.isnan(torch.nanmean(torch.tensor([nan])).item())


# ---------------------------------------------------------------- bad input


def test_topk_k_too_large():
    with pytest.raises(RuntimeError):
        torch.topk(torch.rand(5), 7)


@pytest.mark.ours_only
def test_topk_error_names_op_k_and_size():
    with pytest.raises(RuntimeError, match=r"topk.*k \(7\).*size 5"):
        torch.topk(torch.rand(5), 7)


@pytest.mark.parametrize("q", [1.5, -0.1])
def test_quantile_q_out_of_range(q):
    with pytest.raises(RuntimeError, match="q must be in the range"):
        torch.quantile(torch.rand(5), q)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: torch.sort(t, 2),
        lambda t: torch.cumsum(t, -3),
        lambda t: torch.topk(t, 1, dim=5),
        lambda t: torch.kthvalue(t, 1, 2),
        lambda t: torch.median(t, 2),
        lambda t: torch.mode(t, 3),
        lambda t: torch.cummax(t, 2),
        lambda t: torch.unique(t, dim=2),
        lambda t: torch.quantile(t, 0.5, dim=2),
    ],
)
def test_bad_dims_raise_index_error(call):
    with pytest.raises(IndexError):
        call(torch.rand(3, 4))


def test_kthvalue_k_out_of_range():
    with pytest.raises(RuntimeError):
        torch.kthvalue(torch.rand(3), 4)
    with pytest.raises(RuntimeError):
        torch.kthvalue(torch.rand(3), 0)


def test_quantile_off_the_cpu_raises_naming_the_device():
    # its interpolation reads the sorted rows on the host: elsewhere it must not run
    with pytest.raises(NotImplementedError, match="quantile.*meta"):
        torch.quantile(torch.empty(5, device="meta"), 0.5)
