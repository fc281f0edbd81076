"""Matrix products against NumPy: the registry's matmul family, broadcasting
forms of matmul, out= and in-place forms, shape errors and thread control."""

import numpy as np
import pytest

import torch
from torch.testing._op_registry import BY_NAME, assert_array_matches, cases, to_numpy


@pytest.mark.parametrize("case", cases("matmul"), ids=repr)
def test_matches_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


@pytest.mark.parametrize(
    "case", cases("matmul", where=lambda c: c.dtype in (torch.float32, torch.int64)), ids=repr
)
def test_method_and_out_match_numpy(case):
    x = case.make()
    expected = case.expected(x)
    self, *rest = x.args
    case.check(getattr(self, case.op.target)(*rest, **x.kwargs), expected)
    if case.op.name == "matmul" and min(a.dim() for a in x.args) == 1:
        return  # PyTorch resizes (and warns about) out= for vector forms of matmul
    out = torch.empty(np.shape(expected), dtype=case.dtype)
    assert case.op(*x.args, **x.kwargs, out=out) is out
    case.check(out, expected)


@pytest.mark.parametrize("name", ["addmm", "addmv", "baddbmm"])
def test_inplace_forms(name):
    op = BY_NAME[name]
    for case in cases(where=lambda c: c.op is op and c.dtype == torch.float64):
        if case.sample.args[0].shape != np.shape(case.expected(case.make())):
            continue  # in-place needs the input to have the result's shape
        x = case.make()
        self = x.args[0]
        version = self._version
        assert getattr(self, name + "_")(*x.args[1:], **x.kwargs) is self
        assert self._version > version
        case.check(self, case.expected(x))


def _rand(*shape, dtype=torch.float64, seed=0):
    t = torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)
    return t, to_numpy(t).astype(np.float64)


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [
        ((4,), (4,)),
        ((3, 4), (4,)),
        ((4,), (4, 5)),
        ((2, 3, 4), (4, 5)),
        ((4,), (2, 4, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((1, 3, 4), (6, 4, 2)),
        ((2, 3, 0), (0, 4)),
    ],
)
def test_matmul_broadcasting_forms(shape_a, shape_b):
    a, na = _rand(*shape_a)
    b, nb = _rand(*shape_b, seed=1)
    result = a @ b
    assert tuple(result.shape) == np.matmul(na, nb).shape
    assert_array_matches(result, np.matmul(na, nb), 1e-12, 1e-12)


def test_beta_zero_ignores_nan_in_input():
    c = torch.full((2, 2), float("nan"))
    a, b = torch.ones(2, 3), torch.ones(3, 2)
    assert torch.addmm(c, a, b, beta=0).tolist() == [[3.0, 3.0], [3.0, 3.0]]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_larger_products_match_numpy(layout):
    a, na = _rand(130, 140, dtype=torch.float32)
    b, nb = _rand(70, 90, dtype=torch.float32, seed=1)
    if layout == "transposed":
        a, na = a.t().contiguous().t(), na
        b = b.t().contiguous().t()
    a, na = (a[:, ::2], na[:, ::2]) if layout == "strided" else (a[:, :70], na[:, :70])
    assert_array_matches(a @ b, na @ nb, 1e-4, 1e-4)
    assert_array_matches(torch.mm(a, b), na @ nb, 1e-4, 1e-4)


@pytest.mark.parametrize(
    "fn",
    [
        lambda: torch.ones(2, 3) @ torch.ones(4, 5),
        lambda: torch.mm(torch.ones(3), torch.ones(3)),
        lambda: torch.mm(torch.ones(2, 3), torch.ones(4, 2)),
        lambda: torch.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 5)),
        lambda: torch.mv(torch.ones(2, 3), torch.ones(2)),
        lambda: torch.dot(torch.ones(3), torch.ones(4)),
        lambda: torch.dot(torch.ones(3), torch.ones(3, dtype=torch.float64)),
        lambda: torch.matmul(torch.ones(2, 2, 3), torch.ones(3, 3, 2)),
        lambda: torch.ones(3) @ torch.tensor(2.0),
    ],
    ids=[
        "matmul",
        "mm-1d",
        "mm-inner",
        "bmm-batch",
        "mv",
        "dot-size",
        "dot-dtype",
        "matmul-batch",
        "0d",
    ],
)
def test_shape_and_dtype_errors(fn):
    with pytest.raises(RuntimeError):
        fn()


def test_thread_count_can_be_set_and_read():
    torch.set_num_threads(1)
    assert torch.get_num_threads() == 1
    one = torch.mm(*[_rand(200, 200, dtype=torch.float32, seed=s)[0] for s in (0, 1)])
    torch.set_num_threads(2)
    assert torch.get_num_threads() == 2
    two = torch.mm(*[_rand(200, 200, dtype=torch.float32, seed=s)[0] for s in (0, 1)])
    assert_array_matches(one, to_numpy(two), 1e-5, 1e-5)


def test_thread_count_must_be_positive():
    with pytest.raises((RuntimeError, ValueError)):
        torch.set_num_threads(0)


def test_size_one_dims_with_odd_strides_go_to_blas_correctly():
    # a 1x1 view whose strides (2, 2) make neither BLAS layout match as they stand
    d = torch.tensor([[3.0]]).diagonal(0, 0, 1).reshape(1, 1)
    assert d.stride() == (2, 2)
    assert torch.mm(torch.full((1, 1), 2.0), d).tolist() == [[6.0]]
    assert torch.mm(d, torch.ones(1, 3)).tolist() == [[3.0, 3.0, 3.0]]
    col = torch.arange(6.0).reshape(3, 2)[:, :1]  # (3, 1) with strides (2, 1)
    np.testing.assert_array_equal(torch.mm(torch.ones(2, 3), col).numpy(), [[6.0], [6.0]])


# Products big enough to be cut into one panel per thread (Note [One thread pool] in
# blas.cpp), along rows (m > n) and along columns, with each operand stored plain or
# transposed; and batches spread over the threads, item by item.
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("m,k,n", [(300, 200, 100), (100, 200, 301), (17, 1000, 90)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_threaded_gemm_panels_match_numpy(threads, m, k, n, ta, tb):
    prev = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        rng = np.random.default_rng(m + n)
        a_np, b_np = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        a = torch.from_numpy(a_np.T.copy()).t() if ta else torch.from_numpy(a_np)
        b = torch.from_numpy(b_np.T.copy()).t() if tb else torch.from_numpy(b_np)
        np.testing.assert_allclose((a @ b).numpy(), a_np @ b_np, rtol=1e-10, atol=1e-10)
        c = torch.from_numpy(rng.standard_normal((m, n)))
        got = torch.addmm(c.float(), a.float(), b.float(), beta=0.5, alpha=2.0)
        want = 0.5 * c.numpy() + 2.0 * (a_np @ b_np)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-3)
    finally:
        torch.set_num_threads(prev)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("transposed", ["none", "a", "b"])
def test_batched_products_over_threads_match_numpy(dtype, transposed):
    rng = np.random.default_rng(0)
    a_np, b_np = rng.standard_normal((48, 64, 32)), rng.standard_normal((48, 32, 40))
    a, b = torch.from_numpy(a_np).to(dtype), torch.from_numpy(b_np).to(dtype)
    if transposed == "a":
        a = a.transpose(1, 2).contiguous().transpose(1, 2)
    if transposed == "b":
        b = b.transpose(1, 2).contiguous().transpose(1, 2)
    tol = 1e-4 if dtype == torch.float32 else 1e-10
    np.testing.assert_allclose(torch.bmm(a, b).numpy(), a_np @ b_np, rtol=tol, atol=tol)
    c_np = rng.standard_normal((48, 64, 40))
    got = torch.baddbmm(torch.from_numpy(c_np).to(dtype), a, b, beta=0.25, alpha=-1.5)
    np.testing.assert_allclose(got.numpy(), 0.25 * c_np - 1.5 * (a_np @ b_np), rtol=tol, atol=tol)
    # a broadcast batch of a (stride 0) reads one matrix for every item
    a1 = a[:1].expand(48, 64, 32)
    np.testing.assert_allclose(torch.bmm(a1, b).numpy(), a_np[:1] @ b_np, rtol=tol, atol=tol)


# Batched matmul on strided views (attention's heads split by a transpose, broadcast batch
# dims of stride 0, transposed matrices): the items are read in place, and the numbers are
# NumPy's.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("threads", [1, 2])
def test_batched_matmul_of_strided_views_matches_numpy(dtype, threads):
    torch.set_num_threads(threads)
    try:
        g = torch.Generator().manual_seed(0)
        B, T, H, hs = 3, 17, 4, 8
        q = torch.randn(B, T, H, hs, generator=g, dtype=dtype).transpose(1, 2)
        k = torch.randn(B, T, H, hs, generator=g, dtype=dtype).transpose(1, 2)
        tol = 1e-5 if dtype == torch.float32 else 1e-12
        cases = [
            (q, k.transpose(-2, -1)),  # (B, H, T, hs) @ (B, H, hs, T)
            (q @ k.transpose(-2, -1), k),  # (B, H, T, T) @ (B, H, T, hs)
            (q, torch.randn(hs, 5, generator=g, dtype=dtype).expand(H, hs, 5)),  # broadcast
            (
                torch.randn(2, 1, 3, 6, 5, generator=g, dtype=dtype),
                torch.randn(4, 1, 5, 7, dtype=dtype),
            ),
            (
                torch.randn(5, 7, 6, generator=g, dtype=dtype).transpose(0, 2)[:, ::2],
                torch.randn(6, 5, 3, dtype=dtype),
            ),
        ]
        for a, b in cases:
            want = np.matmul(a.numpy(), b.numpy())
            got = a @ b
            assert got.shape == want.shape and got.is_contiguous()
            np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    finally:
        torch.set_num_threads(2)
