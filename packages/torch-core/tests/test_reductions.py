"""Reductions against NumPy: registry ops over all / one / several dims, keepdim,
layouts and empty inputs, plus the behaviour the table cannot express."""

import math

import numpy as np
import pytest

import torch
from torch.testing._op_registry import SHORT, assert_array_matches, cases, to_numpy


@pytest.mark.parametrize("case", cases("reduction"), ids=repr)
def test_matches_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


@pytest.mark.parametrize(
    "case",
    cases(
        "reduction",
        where=lambda c: c.dtype == torch.float32 and c.op.fn is None and "dim" in c.sample.kwargs,
    ),
    ids=repr,
)
def test_method_matches_numpy(case):
    x = case.make()
    case.check(getattr(x.args[0], case.op.target)(**x.kwargs), case.expected(x))


def _data(*shape, dtype=torch.float32, seed=0):
    values = np.random.default_rng(seed).uniform(-2, 2, shape)
    t = torch.tensor(values, dtype=dtype)
    return t, to_numpy(t).astype(np.float64)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_with_dim_return_values_and_indices(name):
    t, a = _data(3, 5)
    result = getattr(torch, name)(t, dim=1)
    values, indices = result
    assert result.values.tolist() == values.tolist() and result.indices.tolist() == indices.tolist()
    assert indices.dtype == torch.int64
    assert_array_matches(values, getattr(np, name)(a, axis=1))
    assert_array_matches(indices, getattr(np, "arg" + name)(a, axis=1))


def test_max_of_two_tensors_is_maximum():
    a, b = torch.tensor([1.0, 5.0, -2.0]), torch.tensor([3.0, 0.0, -1.0])
    assert torch.max(a, b).tolist() == [3.0, 5.0, -1.0]
    assert torch.min(a, b).tolist() == [1.0, 0.0, -2.0]


def test_ties_give_the_first_index():
    t = torch.tensor([[1, 7, 7, 0], [2, 2, 2, 2]])
    assert torch.argmax(t, dim=1).tolist() == [1, 0]
    assert torch.max(t, dim=1).indices.tolist() == [1, 0]
    assert torch.argmin(t.t(), dim=0).tolist() == [3, 0]


def test_nan_wins_max_and_min():
    t = torch.tensor([1.0, math.nan, 3.0])
    assert math.isnan(t.max().item()) and math.isnan(t.min().item())
    assert t.argmax().item() == 1
    assert math.isnan(torch.amax(t, 0).item())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_amax_amin_of_runs_match_numpy_at_every_length_and_nan_position(dtype):
    # The vector loop keeps four accumulators: lengths around its 4-vector step, NaN in each
    rng = np.random.default_rng(0)
    for n in list(range(1, 70)) + [127, 128, 129, 4099]:
        a = rng.standard_normal(n).astype(dtype)
        t = torch.from_numpy(a)
        assert t.amax().item() == a.max() and t.amin().item() == a.min()
        assert t.max().item() == a.max() and t.min().item() == a.min()
        for pos in {0, n // 3, n // 2, n - 1}:
            b = a.copy()
            b[pos] = np.nan
            tb = torch.from_numpy(b)
            assert math.isnan(tb.amax().item()) and math.isnan(tb.amin().item()), (n, pos)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int32, torch.bool], ids=SHORT.get)
def test_sum_and_prod_of_integers_widen_to_int64(dtype):
    t = torch.ones(300, dtype=dtype)
    assert t.sum().dtype == torch.int64
    assert t.sum().item() == 300
    assert t.prod().dtype == torch.int64


def test_sum_with_dtype_argument():
    t = torch.tensor([100, 100, 100], dtype=torch.int8)
    assert t.sum(dtype=torch.int8).item() == np.array([100, 100, 100], np.int8).sum(dtype=np.int8)
    assert t.sum(dtype=torch.float64).dtype == torch.float64
    assert torch.tensor([1.5, 2.5]).mean(dtype=torch.float64).dtype == torch.float64


def test_mean_of_integers_is_an_error():
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).mean()


@pytest.mark.parametrize("dim", [[0, 2], (2, 0), (-1, -3)])
def test_dims_as_list_tuple_or_negative(dim):
    t, a = _data(2, 3, 4)
    assert_array_matches(t.sum(dim=dim), a.sum(axis=tuple(dim)), 1e-5, 1e-5)
    assert_array_matches(
        t.amax(dim=dim, keepdim=True), a.max(axis=tuple(dim), keepdims=True), 1e-6, 0
    )


def test_keepdim_keeps_size_one_dims():
    t = torch.ones(2, 3, 4)
    assert t.sum(1, keepdim=True).shape == (2, 1, 4)
    assert t.mean((0, 2), keepdim=True).shape == (1, 3, 1)
    assert t.std(-1, keepdim=True).shape == (2, 3, 1)
    assert t.argmax(1, keepdim=True).shape == (2, 1, 4)


def test_std_var_correction_and_unbiased():
    t, a = _data(4, 6, dtype=torch.float64)
    assert_array_matches(t.var(dim=1, unbiased=False), a.var(axis=1), 1e-12, 1e-12)
    assert_array_matches(t.var(dim=1, correction=0), a.var(axis=1), 1e-12, 1e-12)
    assert_array_matches(t.std(), a.std(ddof=1), 1e-12, 1e-12)
    assert_array_matches(t.std(dim=0, correction=3), a.std(axis=0, ddof=3), 1e-12, 1e-12)


def test_var_of_constant_is_zero():
    assert torch.full((1000,), 0.1).var().item() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("p", [1, 2, 3, math.inf, "fro"])
def test_norm_orders(p):
    t, a = _data(3, 4, dtype=torch.float64)
    order = {"fro": 2}.get(p, p)
    expected = np.max(np.abs(a)) if order == math.inf else np.sum(np.abs(a) ** order) ** (1 / order)
    assert torch.norm(t, p=p).item() == pytest.approx(expected, rel=1e-12)
    assert t.norm(p).item() == pytest.approx(expected, rel=1e-12)


def test_logsumexp_is_stable_for_large_values():
    t = torch.tensor([[1000.0, 1000.0], [-1000.0, -1000.0]])
    result = torch.logsumexp(t, dim=1)
    assert result.tolist() == pytest.approx([1000 + math.log(2), -1000 + math.log(2)])
    assert torch.logsumexp(torch.tensor([-math.inf, -math.inf]), 0).item() == -math.inf


def test_all_any_on_empty_and_values():
    assert torch.tensor([]).all().item() is True
    assert torch.tensor([]).any().item() is False
    t = torch.tensor([[0, 1, 2], [3, 4, 5]])
    assert t.all(dim=1).tolist() == [False, True]
    assert t.any(dim=0).tolist() == [True, True, True]
    assert torch.tensor([0.0, math.nan]).any().item() is True


def test_sum_of_empty_and_prod_of_empty():
    assert torch.zeros(0, 4).sum(0).tolist() == [0.0] * 4
    assert torch.zeros(0).prod().item() == 1.0
    assert torch.zeros(0, 3).sum(1).shape == (0,)


def test_max_of_empty_without_dim_is_an_error():
    with pytest.raises((RuntimeError, IndexError)):
        torch.zeros(0, 3).max()
    with pytest.raises((RuntimeError, IndexError)):
        torch.zeros(0, 3).amax(0)


def test_large_float32_sum_is_accurate():
    """A long float32 sum must not lose precision to naive accumulation."""
    values = np.random.default_rng(0).uniform(0, 1, 1 << 22).astype(np.float32)
    t = torch.from_numpy(values)
    assert t.sum().item() == pytest.approx(values.astype(np.float64).sum(), rel=1e-5)
    assert t.mean().item() == pytest.approx(values.astype(np.float64).mean(), rel=1e-5)
    rows = torch.from_numpy(values.reshape(1024, -1))
    assert_array_matches(rows.sum(1), values.reshape(1024, -1).astype(np.float64).sum(1), 1e-5, 0)
    assert_array_matches(rows.sum(0), values.reshape(1024, -1).astype(np.float64).sum(0), 1e-5, 0)


@pytest.mark.parametrize("threads", [1, 2])
def test_parallel_reduction_matches_serial(threads):
    torch.set_num_threads(threads)
    t, a = _data(512, 1000, dtype=torch.float64)
    assert_array_matches(t.sum(), a.sum(), 1e-12, 1e-9)
    assert_array_matches(t.t().amax(1), a.T.max(1), 0, 0)
    assert_array_matches(t.var(0), a.var(0, ddof=1), 1e-10, 1e-12)


def test_all_any_over_no_dims_test_each_element():
    # PyTorch: dim=() reduces nothing for all/any (while sum(dim=()) reduces everything)
    x = torch.tensor([[0.0, 2.0], [3.0, 0.0]])
    expected = (x.numpy() != 0).tolist()
    assert x.all(dim=()).tolist() == expected and torch.any(x, dim=[]).tolist() == expected
    u = torch.tensor([0, 5], dtype=torch.uint8)
    assert u.all(dim=()).dtype == torch.uint8 and u.all(dim=()).tolist() == [0, 1]
    assert x.sum(dim=()).item() == 5.0


def test_square_of_bool_is_int64():
    r = torch.tensor([True, False]).square()
    assert r.dtype == torch.int64 and r.tolist() == [1, 0]


# ---------------------------------------------------------------- sum of squares (2-norms)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "shape, dim", [((10000,), None), ((37, 300), 1), ((37, 300), 0), ((4, 5, 6), (0, 2))]
)
def test_sum_sq_and_2_norms_match_numpy(dtype, shape, dim):
    x = torch.randn(*shape, dtype=dtype) * 3
    a = x.double().numpy()
    want = (a * a).sum(axis=dim)
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(
        torch._C._sum_sq(x, dim, False, None).double().numpy(), want, rtol=tol
    )
    np.testing.assert_allclose(torch.norm(x, dim=dim).double().numpy(), np.sqrt(want), rtol=tol)
    got = torch.linalg.vector_norm(x, dim=dim).double().numpy()
    np.testing.assert_allclose(got, np.sqrt(want), rtol=tol)


def test_sum_sq_refuses_integers_and_has_zero_for_empty_slices():
    with pytest.raises(TypeError, match="sum_sq: expected a floating-point input, got int64"):
        torch._C._sum_sq(torch.ones(3, dtype=torch.int64), None, False, None)
    assert torch.equal(torch._C._sum_sq(torch.zeros(0, 3), 0, False, None), torch.zeros(3))
    assert torch.isnan(torch.norm(torch.tensor([1.0, float("nan")])))
    assert torch.norm(torch.tensor([float("inf"), 1.0])) == float("inf")


# argmax/argmin over contiguous float runs (vector lanes, then a scan; one long run split
# across threads): NumPy's first index of the extreme, NaN counting as the extreme.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [1, 2, 17, 1000, 300_000])
def test_argmax_argmin_of_runs_match_numpy(dtype, n):
    x = torch.randn(n, dtype=dtype)
    a = x.numpy()
    assert x.argmax().item() == np.argmax(a) and x.argmin().item() == np.argmin(a)
    rows = torch.randn(5, n, dtype=dtype)
    np.testing.assert_array_equal(rows.argmax(1).numpy(), np.argmax(rows.numpy(), 1))
    np.testing.assert_array_equal(rows.min(1).indices.numpy(), np.argmin(rows.numpy(), 1))
    if n > 2:
        x[n // 3] = x[n - 1] = float("nan")
        assert x.argmax().item() == n // 3 and x.argmin().item() == n // 3
        assert torch.isnan(x.max(0).values)
    ties = torch.zeros(n, dtype=dtype)
    assert ties.argmax().item() == 0 and ties.argmin().item() == 0
    assert torch.full((n,), float("-inf"), dtype=dtype).argmax().item() == 0


# var/std/logsumexp on other devices than the CPU are composed from reductions and
# elementwise ops (torch._functional._var_composed / _logsumexp_composed): checked here on
# the CPU against NumPy/SciPy, for the shapes and dims a GPU run meets.
@pytest.mark.parametrize("dims", [None, 1, (0, 2), (-1,)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_composed_var_std_logsumexp_match_numpy(dims, keepdim):
    from scipy.special import logsumexp as scipy_lse

    from torch._functional import _logsumexp_composed, _var_composed

    a = np.random.default_rng(3).standard_normal((3, 4, 5)) * 10
    x = torch.from_numpy(a)
    axis = dims if dims is None or isinstance(dims, int) else tuple(dims)
    for correction in (0, 1):
        want = np.var(a, axis=axis, ddof=correction, keepdims=keepdim)
        np.testing.assert_allclose(_var_composed("var", x, dims, correction, keepdim), want)
        np.testing.assert_allclose(
            _var_composed("std", x, dims, correction, keepdim), np.sqrt(want)
        )
    want = scipy_lse(a, axis=axis, keepdims=keepdim)
    np.testing.assert_allclose(_logsumexp_composed(x, dims, keepdim), want, rtol=1e-12)


def test_composed_logsumexp_of_infinite_rows():
    from torch._functional import _logsumexp_composed

    x = torch.tensor([[-math.inf, -math.inf], [math.inf, 0.0], [1000.0, 1000.0]])
    got = _logsumexp_composed(x, 1, False)
    assert got[0].item() == -math.inf and got[1].item() == math.inf
    assert got[2].item() == pytest.approx(1000 + math.log(2))
