"""The C++ kernels of the sparse layouts (csrc/sparse_kernels.cpp) against NumPy oracles:
sparse x dense products, the sampled product, coalescing, index_add_ along dim 0, and their
argument checks (every index is checked before any memory is touched)."""

import numpy as np
import pytest

import torch
from torch import _C, _packages
from torch._nn_embedding import embedding_bag

needs_autograd = pytest.mark.skipif(
    not _packages.installed(torch.__path__, "autograd"), reason="requires_grad needs torch-autograd"
)
needs_optim = pytest.mark.skipif(
    not (
        _packages.installed(torch.__path__, "optim") and _packages.installed(torch.__path__, "nn")
    ),
    reason="needs torch-nn and torch-optim",
)
DTYPES = [(torch.float32, np.float32, 1e-4), (torch.float64, np.float64, 1e-10)]


def entries(rows, cols, nnz, seed=0, sort=False, dtype=np.float64):
    rng = np.random.default_rng(seed)
    r = rng.integers(0, rows, nnz) if rows else np.zeros(0, np.int64)
    c = rng.integers(0, cols, nnz) if cols else np.zeros(0, np.int64)
    if sort:
        order = np.lexsort((c, r))
        r, c = r[order], c[order]
    v = rng.standard_normal(nnz).astype(dtype)
    return r.astype(np.int64), c.astype(np.int64), v


def dense_of(r, c, v, shape):
    out = np.zeros(shape, v.dtype)
    np.add.at(out, (r, c), v)
    return out


def crow_of(r, rows):
    return np.concatenate([[0], np.cumsum(np.bincount(r, minlength=rows))]).astype(np.int64)


T = torch.from_numpy


# ---------------------------------------------------------------- products
@pytest.mark.parametrize("dtype,npdt,tol", DTYPES)
@pytest.mark.parametrize("n", [1, 3, 8, 16, 64, 70, 131])
def test_csr_and_coo_mm_match_dense(dtype, npdt, tol, n):
    rows, cols = 37, 29
    r, c, v = entries(rows, cols, 300, seed=n, sort=True, dtype=npdt)
    b = np.random.default_rng(1).standard_normal((cols, n)).astype(npdt)
    want = dense_of(r, c, v, (rows, cols)) @ b
    got = _C._sparse_csr_mm(T(crow_of(r, rows)), T(c), T(v), T(b), cols)
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    got = _C._sparse_coo_mm(T(r), T(c), T(v), T(b), rows, cols)  # sorted: row pointers
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    ru, cu, vu = entries(rows, cols, 300, seed=n + 7, dtype=npdt)  # unsorted, repeats
    want = dense_of(ru, cu, vu, (rows, cols)) @ b
    got = _C._sparse_coo_mm(T(ru), T(cu), T(vu), T(b), rows, cols)
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def test_products_of_empty_and_degenerate_shapes():
    b = torch.randn(4, 3)
    e = torch.zeros(0, dtype=torch.int64)
    out = _C._sparse_csr_mm(torch.zeros(6, dtype=torch.int64), e, torch.zeros(0), b, 4)
    assert out.shape == (5, 3) and not out.any()
    out = _C._sparse_coo_mm(e, e, torch.zeros(0), b, 5, 4)
    assert out.shape == (5, 3) and not out.any()
    assert _C._sparse_coo_mm(e, e, torch.zeros(0), torch.zeros(4, 0), 5, 4).shape == (5, 0)
    assert _C._sparse_csr_mm(torch.zeros(1, dtype=torch.int64), e, torch.zeros(0), b, 4).shape == (
        0,
        3,
    )


def test_product_reads_strided_operands():
    r, c, v = entries(20, 10, 60, sort=True)
    b = np.random.default_rng(2).standard_normal((5, 10))  # used transposed
    vals = torch.from_numpy(np.stack([v, v])).t()[:, 0]  # a strided view
    got = _C._sparse_coo_mm(T(r), T(c), vals, T(b).t(), 20, 10)
    np.testing.assert_allclose(got.numpy(), dense_of(r, c, v, (20, 10)) @ b.T, rtol=1e-10)


def test_scatter_product_does_not_depend_on_threads():
    r, c, v = entries(300, 200, 40000, seed=3, dtype=np.float32)
    b = T(np.random.default_rng(4).standard_normal((200, 64)).astype(np.float32))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = _C._sparse_coo_mm(T(r), T(c), T(v), b, 300, 200)
        torch.set_num_threads(max(2, before))
        many = _C._sparse_coo_mm(T(r), T(c), T(v), b, 300, 200)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one, many)


@pytest.mark.parametrize("dtype,npdt,tol", DTYPES)
def test_public_products_match_dense(dtype, npdt, tol):
    r, c, v = entries(30, 20, 150, seed=5, dtype=npdt)
    s = torch.sparse_coo_tensor(T(np.stack([r, c])), T(v), (30, 20))
    dense = dense_of(r, c, v, (30, 20))
    b = np.random.default_rng(6).standard_normal((20, 7)).astype(npdt)
    a = np.random.default_rng(7).standard_normal((4, 30)).astype(npdt)
    x = np.random.default_rng(8).standard_normal(20).astype(npdt)
    check = lambda got, want: np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)  # noqa: E731
    for m in (s, s.coalesce(), s.to_sparse_csr()):
        check(torch.sparse.mm(m, T(b)), dense @ b)
        check(m @ T(b), dense @ b)
        check(m @ T(x), dense @ x)
        check(T(a) @ m, a @ dense)
        check(torch.addmm(T(np.ones((30, 7), npdt)), m, T(b), beta=2, alpha=3), 2 + 3 * dense @ b)


def test_product_errors():
    b = torch.randn(4, 3)
    i = torch.tensor([0, 1])
    with pytest.raises(IndexError, match=r"_sparse_coo_mm\(\): index 4 is out of bounds.*size 4"):
        _C._sparse_coo_mm(i, torch.tensor([0, 4]), torch.ones(2), b, 2, 4)
    with pytest.raises(IndexError, match=r"index -1 is out of bounds for dimension 0 with size 2"):
        _C._sparse_coo_mm(torch.tensor([-1, 1]), i, torch.ones(2), b, 2, 4)
    with pytest.raises(IndexError, match=r"index 9 is out of bounds for dimension 0 with size 2"):
        _C._sparse_coo_mm(torch.tensor([0, 9]), i, torch.ones(2), b, 2, 4)  # sorted rows
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for dimension 1 with size 4"):
        _C._sparse_csr_mm(torch.tensor([0, 1, 2]), torch.tensor([0, 7]), torch.ones(2), b, 4)
    with pytest.raises(RuntimeError, match="non-decreasing"):
        _C._sparse_csr_mm(torch.tensor([0, 2, 1, 2]), i, torch.ones(2), b, 4)
    with pytest.raises(RuntimeError, match="0th value"):
        _C._sparse_csr_mm(torch.tensor([1, 2]), i, torch.ones(2), b, 4)
    with pytest.raises(RuntimeError, match="last value"):
        _C._sparse_csr_mm(torch.tensor([0, 1]), i, torch.ones(2), b, 4)
    with pytest.raises(RuntimeError, match="one dtype"):
        _C._sparse_coo_mm(i, i, torch.ones(2, dtype=torch.float64), b, 2, 4)
    with pytest.raises(RuntimeError, match="float32 or float64"):
        _C._sparse_coo_mm(i, i, torch.ones(2, dtype=torch.int64), b.long(), 2, 4)
    with pytest.raises(RuntimeError, match="int64"):
        _C._sparse_coo_mm(i.int(), i, torch.ones(2), b, 2, 4)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        _C._sparse_coo_mm(i, i, torch.ones(2), b, 2, 5)
    with pytest.raises(RuntimeError, match="one per index"):
        _C._sparse_coo_mm(i, i, torch.ones(3), b, 2, 4)
    with pytest.raises(RuntimeError, match="as many row as column"):
        _C._sparse_coo_mm(i, torch.tensor([0]), torch.ones(2), b, 2, 4)
    with pytest.raises(RuntimeError, match="non-negative"):
        _C._sparse_coo_mm(i, i, torch.ones(2), b, -2, 4)
    with pytest.raises(RuntimeError, match="2-D"):
        _C._sparse_coo_mm(i, i, torch.ones(2), torch.ones(4), 2, 4)
    with pytest.raises(RuntimeError, match="CPU"):
        _C._sparse_coo_mm(i, i, torch.ones(2), torch.empty(4, 3, device="meta"), 2, 4)


# ---------------------------------------------------------------- sampled product
@pytest.mark.parametrize("dtype,npdt,tol", DTYPES)
@pytest.mark.parametrize("n", [1, 5, 16, 33, 64])
def test_sddmm(dtype, npdt, tol, n):
    r, c, _ = entries(11, 13, 80, seed=n)
    a = np.random.default_rng(1).standard_normal((11, n)).astype(npdt)
    b = np.random.default_rng(2).standard_normal((13, n)).astype(npdt)
    got = _C._sparse_sddmm(T(r), T(c), T(a), T(b))
    np.testing.assert_allclose(got.numpy(), (a[r] * b[c]).sum(1), rtol=tol, atol=tol)


def test_sddmm_errors():
    i = torch.tensor([0, 1])
    with pytest.raises(IndexError, match=r"_sparse_sddmm\(\): index 3 is out of bounds"):
        _C._sparse_sddmm(i, torch.tensor([0, 3]), torch.ones(2, 4), torch.ones(3, 4))
    with pytest.raises(RuntimeError, match="one width"):
        _C._sparse_sddmm(i, i, torch.ones(2, 4), torch.ones(3, 5))


# ---------------------------------------------------------------- coalesce
def coalesce_oracle(idx, vals, sizes):
    lin = np.ravel_multi_index(tuple(idx), sizes) if len(sizes) else np.zeros(idx.shape[1], int)
    uniq, inv = np.unique(lin, return_inverse=True)
    out = np.zeros((len(uniq),) + vals.shape[1:], vals.dtype)
    np.add.at(out, inv.reshape(-1), vals)
    return np.array(np.unravel_index(uniq, sizes)).reshape(len(sizes), -1), out


@pytest.mark.parametrize(
    "sizes,nnz,dense",
    [((50, 40), 3000, ()), ((7,), 40, ()), ((6, 5, 4), 300, ()), ((9, 8), 100, (3,)),
     ((4, 3), 0, ()), ((10**12,), 50, ()), ((3, 10**9), 60, (2,))],
)  # fmt: skip
def test_coalesce_matches_numpy(sizes, nnz, dense):
    rng = np.random.default_rng(len(sizes) + nnz)
    idx = np.stack([rng.integers(0, min(s, 20), nnz) for s in sizes]).astype(np.int64)
    vals = rng.standard_normal((nnz,) + dense)
    s = torch.sparse_coo_tensor(T(idx).reshape(len(sizes), nnz), T(vals), sizes + dense)
    c = s.coalesce()
    want_i, want_v = coalesce_oracle(idx, vals, sizes)
    assert c.is_coalesced()
    np.testing.assert_array_equal(c.indices().numpy(), want_i)
    np.testing.assert_allclose(c.values().numpy(), want_v, rtol=1e-12)


def test_coalesce_integer_values_and_stable_order():
    s = torch.sparse_coo_tensor([[1, 0, 1, 0], [2, 1, 2, 1]], [1, 2, 3, 4], (2, 3))
    c = s.coalesce()
    assert c.indices().tolist() == [[0, 1], [1, 2]] and c.values().tolist() == [6, 4]
    idx, perm, off = _C._sparse_coalesce_index(torch.tensor([[1, 0, 1, 0], [2, 1, 2, 1]]), [2, 3])
    assert perm.tolist() == [1, 3, 0, 2] and off.tolist() == [0, 2, 4]


def test_coalesce_beyond_int64_positions():
    big = 2**40
    idx = torch.tensor([[5, 1, 5, big - 1], [big - 1, 3, big - 1, 0]])
    # no tensor has that many elements, but the kernel (a comparison sort) must not overflow
    out, perm, off = _C._sparse_coalesce_index(idx, [big, big])
    assert out.tolist() == [[1, 5, big - 1], [3, big - 1, 0]]
    assert perm.tolist() == [1, 0, 2, 3] and off.tolist() == [0, 1, 3, 4]


def test_coalesce_errors():
    i = torch.tensor([[0, 3]])
    with pytest.raises(IndexError, match=r"_sparse_coalesce_index\(\): index 3 is out of bounds"):
        _C._sparse_coalesce_index(i, [3])
    with pytest.raises(RuntimeError, match="sizes"):
        _C._sparse_coalesce_index(i, [3, 3])
    with pytest.raises(RuntimeError, match="sparse_dim x nnz"):
        _C._sparse_coalesce_index(torch.tensor([0]), [3])
    perm, off = torch.tensor([0, 1]), torch.tensor([0, 2])
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        _C._sparse_segment_sum(torch.ones(2), torch.tensor([0, 5]), off)
    with pytest.raises(RuntimeError, match="from 0 to 2"):
        _C._sparse_segment_sum(torch.ones(2), perm, torch.tensor([0, 3]))
    with pytest.raises(RuntimeError, match="non-decreasing"):
        _C._sparse_segment_sum(torch.ones(2), perm, torch.tensor([0, 3, 2]))
    with pytest.raises(RuntimeError, match="dtype"):
        _C._sparse_segment_sum(torch.ones(2, dtype=torch.bool), perm, off)


# ---------------------------------------------------------------- index_add_ along dim 0
@pytest.mark.parametrize("dtype,npdt,tol", DTYPES)
@pytest.mark.parametrize("shape", [(50,), (50, 64), (20, 3, 5)])
def test_index_add_rows(dtype, npdt, tol, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(npdt)
    idx = rng.integers(0, shape[0], 400)
    src = rng.standard_normal((400,) + shape[1:]).astype(npdt)
    want = x.copy()
    np.add.at(want, idx, 0.5 * src)
    t = T(x.copy())
    assert t.index_add_(0, T(idx), T(src), alpha=0.5) is t
    np.testing.assert_allclose(t.numpy(), want, rtol=tol, atol=tol)
    t = T(x.copy())
    _C._index_add_rows_(t, T(idx), T(src), 0.5)
    np.testing.assert_allclose(t.numpy(), want, rtol=tol, atol=tol)


def test_index_add_rows_overlap_and_version():
    x = torch.arange(6.0).reshape(3, 2)
    v = x._version
    x.index_add_(0, torch.tensor([0, 0]), x[1:])
    assert x.tolist() == [[6.0, 9.0], [2.0, 3.0], [4.0, 5.0]] and x._version > v


def test_index_add_rows_errors():
    x = torch.zeros(3, 2)
    with pytest.raises(IndexError, match=r"index_add_\(\): index 3 is out of bounds.*size 3"):
        x.index_add_(0, torch.tensor([3]), torch.ones(1, 2))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        _C._index_add_rows_(x, torch.tensor([-1]), torch.ones(1, 2), 1.0)
    with pytest.raises(RuntimeError, match="Number of indices"):
        _C._index_add_rows_(x, torch.tensor([0]), torch.ones(2, 2), 1.0)
    with pytest.raises(RuntimeError, match="shape of self"):
        _C._index_add_rows_(x, torch.tensor([0]), torch.ones(1, 3), 1.0)
    with pytest.raises(RuntimeError, match="contiguous"):
        _C._index_add_rows_(x.t(), torch.tensor([0]), torch.ones(1, 3), 1.0)
    with pytest.raises(RuntimeError, match="one dtype"):
        _C._index_add_rows_(x, torch.tensor([0]), torch.ones(1, 2, dtype=torch.float64), 1.0)
    assert not x.any()


# ---------------------------------------------------------------- autograd
@needs_autograd
@pytest.mark.parametrize("layout", ["coo", "coalesced", "csr"])
def test_product_gradients_match_dense(layout):
    r, c, v = entries(9, 7, 30, seed=9)
    vals = T(v).requires_grad_()
    s = torch.sparse_coo_tensor(T(np.stack([r, c])), vals, (9, 7))
    s = {"coo": s, "coalesced": s.coalesce(), "csr": s.coalesce().to_sparse_csr()}[layout]
    b = torch.randn(7, 4, dtype=torch.float64, requires_grad=True)
    a = torch.randn(3, 9, dtype=torch.float64, requires_grad=True)
    w = torch.randn(9, 4, dtype=torch.float64)
    (((s @ b) * w).sum() + ((a @ s) ** 2).sum()).backward()
    dv = torch.tensor(v).requires_grad_()
    dense = torch.zeros(9, 7, dtype=torch.float64).index_put((T(r), T(c)), dv, accumulate=True)
    b2, a2 = b.detach().clone().requires_grad_(), a.detach().clone().requires_grad_()
    (((dense @ b2) * w).sum() + ((a2 @ dense) ** 2).sum()).backward()
    np.testing.assert_allclose(b.grad.numpy(), b2.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(a.grad.numpy(), a2.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(vals.grad.numpy(), dv.grad.numpy(), rtol=1e-10)


@needs_autograd
def test_product_second_order():
    from torch.autograd import gradcheck, gradgradcheck

    r, c, _ = entries(6, 5, 12, seed=4)
    idx = T(np.stack([r, c]))
    csr = torch.sparse_coo_tensor(idx, torch.ones(12), (6, 5)).coalesce().to_sparse_csr()

    def f(v, d):
        return torch.sparse_coo_tensor(idx, v, (6, 5)) @ d

    def g(v, d):
        return torch.sparse_csr_tensor(csr.crow_indices(), csr.col_indices(), v, (6, 5)) @ d

    v = torch.randn(12, dtype=torch.float64, requires_grad=True)
    vc = torch.randn(csr._nnz(), dtype=torch.float64, requires_grad=True)
    d = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(f, (v, d)) and gradgradcheck(f, (v, d))
    assert gradcheck(g, (vc, d)) and gradgradcheck(g, (vc, d))


@needs_autograd
def test_index_add_with_grad_keeps_autograd():
    x = torch.zeros(4, 2, requires_grad=True)
    src = torch.ones(3, 2, requires_grad=True)
    y = x.clone().index_add_(0, torch.tensor([0, 0, 3]), src, alpha=2)
    y.sum().backward()
    assert src.grad.tolist() == [[2.0, 2.0]] * 3 and x.grad.tolist() == [[1.0, 1.0]] * 4


@needs_autograd
@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_fixed_length_bags(mode):
    w = torch.randn(10, 3, dtype=torch.float64, requires_grad=True)
    idx = torch.tensor([[1, 2, 2], [0, 9, 4]])
    psw = torch.tensor([[1.0, 2.0, 3.0], [0.5, 1.0, 1.0]], dtype=torch.float64)
    kw = {"per_sample_weights": psw} if mode == "sum" else {}
    out = embedding_bag(idx, w, mode=mode, sparse=True, **kw)
    rows = w.detach().numpy()[idx.numpy()]
    if mode == "sum":
        want = (rows * psw.numpy()[..., None]).sum(1)
    else:
        want = rows.mean(1)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12)
    out.sum().backward()
    assert w.grad.is_sparse
    g = np.zeros((10, 3))
    scale = psw.numpy() if mode == "sum" else np.full((2, 3), 1 / 3)
    np.add.at(g, idx.numpy().reshape(-1), np.repeat(scale.reshape(-1, 1), 3, 1))
    np.testing.assert_allclose(w.grad.to_dense().numpy(), g, rtol=1e-12)


@needs_autograd
@needs_optim
def test_sgd_sparse_step_updates_only_the_rows():
    emb = torch.nn.Embedding(6, 2, sparse=True)
    before = emb.weight.detach().clone()
    opt = torch.optim.SGD(emb.parameters(), lr=0.5)
    emb(torch.tensor([1, 4, 1])).sum().backward()
    opt.step()
    diff = (emb.weight.detach() - before).numpy()
    np.testing.assert_allclose(diff[[1, 4]], [[-1.0, -1.0], [-0.5, -0.5]], rtol=1e-6)
    assert not diff[[0, 2, 3, 5]].any()
