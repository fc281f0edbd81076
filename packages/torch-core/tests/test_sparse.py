"""Sparse tensors (COO and CSR) against NumPy / SciPy dense oracles.

The fixtures in checkpoints/sparse_*.pt were written by PyTorch 2.13 (make_fixtures.py).
"""

import io
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import torch
from torch import _packages

HERE = os.path.dirname(os.path.abspath(__file__))
CKPT = os.path.join(HERE, "checkpoints")


# requires_grad needs torch-autograd: these run in the full install (the `tests` session)
needs_autograd = pytest.mark.skipif(
    not _packages.installed(torch.__path__, "autograd"), reason="requires_grad needs torch-autograd"
)


def random_coo(shape, density=0.3, seed=0, dtype=torch.float64, dense_shape=(), dup=False):
    """A COO tensor and its dense NumPy oracle (duplicates summed when ``dup``)."""
    rng = np.random.default_rng(seed)
    n = max(1, int(np.prod(shape) * density))
    idx = np.stack([rng.integers(0, s, n) for s in shape])
    if not dup:
        lin = np.unique(np.ravel_multi_index(idx, shape))
        idx = np.stack(np.unravel_index(lin, shape))
    vals = rng.standard_normal((idx.shape[1],) + tuple(dense_shape))
    dense = np.zeros(tuple(shape) + tuple(dense_shape))
    np.add.at(dense, tuple(idx), vals)
    s = torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals, dtype=dtype),
                                tuple(shape) + tuple(dense_shape))  # fmt: skip
    return s, dense


# ---------------------------------------------------------------- construction and structure
def test_coo_basics():
    i = torch.tensor([[0, 1, 1], [2, 0, 2]])
    v = torch.tensor([3.0, 4.0, 5.0])
    s = torch.sparse_coo_tensor(i, v, (2, 3))
    assert s.is_sparse and not s.is_sparse_csr
    assert s.layout == torch.sparse_coo
    assert s.shape == torch.Size([2, 3]) and s.size() == (2, 3) and s.dim() == 2
    assert s.dtype == torch.float32 and s.device.type == "cpu" and s.numel() == 6
    assert s.sparse_dim() == 2 and s.dense_dim() == 0 and s._nnz() == 3
    assert not s.is_coalesced()
    assert torch.equal(s._indices(), i) and torch.equal(s._values(), v)
    np.testing.assert_array_equal(s.to_dense().numpy(), [[0, 0, 3], [4, 0, 5]])
    assert not torch.ones(2).is_sparse and torch.ones(2).layout == torch.strided


def test_size_inferred_and_lists():
    s = torch.sparse_coo_tensor([[0, 2], [1, 0]], [1.0, 2.0])
    assert s.shape == (3, 2)
    h = torch.sparse_coo_tensor([[1]], [[1.0, 2.0]])
    assert h.shape == (2, 2) and h.dense_dim() == 1


def test_indices_values_need_coalesced():
    s = torch.sparse_coo_tensor([[1, 0, 1]], [1.0, 2.0, 3.0], (3,))
    with pytest.raises(RuntimeError, match="coalesce"):
        s.indices()
    with pytest.raises(RuntimeError, match="coalesce"):
        s.values()
    c = s.coalesce()
    assert c.is_coalesced()
    assert c.indices().tolist() == [[0, 1]] and c.values().tolist() == [2.0, 4.0]


@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 5), (40,)])
def test_coalesce_and_to_dense_random(shape):
    s, dense = random_coo(shape, dup=True, seed=len(shape))
    np.testing.assert_allclose(s.to_dense().numpy(), dense)
    c = s.coalesce()
    np.testing.assert_allclose(c.to_dense().numpy(), dense)
    lin = np.ravel_multi_index(c.indices().numpy(), shape)
    assert (np.diff(lin) > 0).all()


def test_hybrid():
    s, dense = random_coo((4, 3), dense_shape=(2,), seed=3)
    assert s.sparse_dim() == 2 and s.dense_dim() == 1 and s.shape == (4, 3, 2)
    np.testing.assert_allclose(s.to_dense().numpy(), dense)
    x = torch.tensor(dense)
    h = x.to_sparse(1)
    assert h.sparse_dim() == 1 and h.dense_dim() == 2
    np.testing.assert_allclose(h.to_dense().numpy(), dense)
    full = x.to_sparse()
    assert full.sparse_dim() == 3 and full.is_coalesced()
    assert full._nnz() == int((dense != 0).sum())


def test_to_sparse_roundtrip_and_zero_rows():
    x = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 3.0]])
    s = x.to_sparse()
    assert s.indices().tolist() == [[0, 2, 2], [1, 0, 2]]
    assert torch.equal(s.to_dense(), x)
    assert torch.equal(x.to_dense(), x)


def test_empty_sparse():
    s = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (2, 3))
    assert s._nnz() == 0
    assert torch.equal(s.to_dense(), torch.zeros(2, 3))
    assert torch.equal(s.coalesce().to_dense(), torch.zeros(2, 3))


@needs_autograd
def test_dtype_conversions_clone_detach():
    s = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,))
    d = s.double()
    assert d.dtype == torch.float64 and d.is_sparse
    assert s.float() is s or s.float().dtype == torch.float32
    assert s.to(torch.float64).dtype == torch.float64
    c = s.clone()
    c._values()[0] = 9.0
    assert s._values()[0] == 1.0
    r = s.detach()
    assert r.is_sparse and not r.requires_grad
    g = s.clone().requires_grad_()
    assert g.requires_grad and g.is_leaf


@needs_autograd
def test_repr_matches_pytorch():
    s = torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
    assert repr(s) == (
        "tensor(indices=tensor([[0, 1, 1],\n"
        "                       [2, 0, 2]]),\n"
        "       values=tensor([3., 4., 5.]),\n"
        "       size=(2, 3), nnz=3, layout=torch.sparse_coo)"
    )
    assert repr(s.double()).endswith(
        "size=(2, 3), nnz=3, dtype=torch.float64, layout=torch.sparse_coo)"
    )
    assert repr(s.clone().requires_grad_()).endswith("layout=torch.sparse_coo, requires_grad=True)")
    e = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (2, 3))
    assert repr(e) == (
        "tensor(indices=tensor([], size=(2, 0)),\n"
        "       values=tensor([], size=(0,)),\n"
        "       size=(2, 3), nnz=0, layout=torch.sparse_coo)"
    )
    c = s.to_sparse_csr()
    assert repr(c) == (
        "tensor(crow_indices=tensor([0, 1, 3]),\n"
        "       col_indices=tensor([2, 0, 2]),\n"
        "       values=tensor([3., 4., 5.]), size=(2, 3), nnz=3,\n"
        "       layout=torch.sparse_csr)"
    )
    assert "meta" not in str(s) and "meta" not in f"{s}"


# ---------------------------------------------------------------- bad input
def test_out_of_range_indices_raise():
    with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
        torch.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,))
    with pytest.raises(RuntimeError, match="negative"):
        torch.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (3,))
    with pytest.raises(RuntimeError, match="size is inconsistent"):
        torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (1, 3), check_invariants=True)


def test_shape_mismatches_raise():
    with pytest.raises(RuntimeError, match="same nnz"):
        torch.sparse_coo_tensor([[0, 1, 1]], [1.0, 2.0], (3,))
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2, -3))
    with pytest.raises(RuntimeError, match="number of dimensions"):
        torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2, 3))
    with pytest.raises(RuntimeError, match="values has incorrect size"):
        torch.sparse_coo_tensor([[0, 1]], torch.ones(2, 3), (2, 4))
    with pytest.raises(RuntimeError, match="int64"):
        torch.sparse_coo_tensor(torch.tensor([[0.0, 1.0]]), [1.0, 2.0], (2,))


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.exp(),
        lambda s: s.view(6),
        lambda s: s.reshape(6),
        lambda s: s.mean(),
        lambda s: s.max(),
        lambda s: s[0],
        lambda s: s.stride(),
        lambda s: s.data_ptr(),
        lambda s: s.storage(),
        lambda s: s.contiguous(),
        lambda s: float(s),
        lambda s: s < 1,
    ],
)
def test_unsupported_ops_raise_naming_the_layout(call):
    s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 3))
    with pytest.raises((NotImplementedError, RuntimeError, TypeError, ValueError)) as info:
        call(s)
    assert "meta" not in str(info.value)


def test_numpy_tolist_raise():
    s = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,))
    with pytest.raises(TypeError, match="to_dense"):
        s.numpy()
    with pytest.raises(RuntimeError):
        s.tolist()
    with pytest.raises(TypeError):
        np.asarray(s)


def test_dtype_mismatch_mm_raises():
    s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    with pytest.raises(RuntimeError, match="Float|float32"):
        s @ torch.ones(2, 2, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        s @ torch.ones(3, 2)


def test_add_size_mismatch_and_dense_plus_sparse():
    s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    with pytest.raises(RuntimeError, match="size"):
        torch.ones(3) + s
    with pytest.raises(RuntimeError, match="size"):
        torch.add(torch.ones(3), s)
    # the core function and the dense tensor's method hand the sparse argument over
    want = [[1.0, 2.0], [3.0, 1.0]]
    assert torch.add(torch.ones(2, 2), s).tolist() == want
    assert torch.ones(2, 2).add(s).tolist() == want


# ---------------------------------------------------------------- arithmetic
def test_add_sub_mul_scalar_and_sparse():
    a, da = random_coo((6, 5), seed=1)
    b, db = random_coo((6, 5), seed=2, dup=True)
    np.testing.assert_allclose((a + b).to_dense().numpy(), da + db)
    np.testing.assert_allclose((a - b).to_dense().numpy(), da - db)
    np.testing.assert_allclose(a.add(b, alpha=2).to_dense().numpy(), da + 2 * db)
    np.testing.assert_allclose(a.sub(b).to_dense().numpy(), da - db)
    np.testing.assert_allclose((a * 3).to_dense().numpy(), da * 3)
    np.testing.assert_allclose((2 * a).to_dense().numpy(), da * 2)
    np.testing.assert_allclose((a / 4).to_dense().numpy(), da / 4)
    np.testing.assert_allclose((-a).to_dense().numpy(), -da)
    np.testing.assert_allclose((a * b).to_dense().numpy(), da * db)
    assert (a + b).is_sparse and (a * b).is_sparse
    np.testing.assert_allclose(a.abs().to_dense().numpy(), np.abs(da))
    np.testing.assert_allclose(a.abs().sqrt().to_dense().numpy(), np.sqrt(np.abs(da)))


def test_dense_plus_sparse_is_dense():
    a, da = random_coo((4, 3), seed=4)
    x = torch.tensor(np.arange(12.0).reshape(4, 3))
    for out in (x + a, a + x, x - a):
        assert not out.is_sparse
    np.testing.assert_allclose((x + a).numpy(), x.numpy() + da)
    np.testing.assert_allclose((a + x).numpy(), x.numpy() + da)
    np.testing.assert_allclose((x - a).numpy(), x.numpy() - da)
    np.testing.assert_allclose((x * a).to_dense().numpy(), x.numpy() * da)
    np.testing.assert_allclose(a.mul(x).to_dense().numpy(), x.numpy() * da)


def test_sparse_sum():
    s, d = random_coo((4, 5, 3), seed=5, dup=True)
    assert torch.sparse.sum(s).item() == pytest.approx(d.sum())
    assert s.sum().item() == pytest.approx(d.sum())
    r = torch.sparse.sum(s, 1)
    assert r.is_sparse and r.shape == (4, 3)
    np.testing.assert_allclose(r.to_dense().numpy(), d.sum(1))
    r = torch.sparse.sum(s, (0, 2))
    np.testing.assert_allclose(r.to_dense().numpy(), d.sum((0, 2)))
    full = torch.sparse.sum(s, (0, 1, 2))
    assert not full.is_sparse
    h, dh = random_coo((4, 5), seed=6, dense_shape=(3,))
    np.testing.assert_allclose(torch.sparse.sum(h, (0, 1)).numpy(), dh.sum((0, 1)))
    np.testing.assert_allclose(torch.sparse.sum(h, 2).to_dense().numpy(), dh.sum(2))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_sparse_dense_products(dtype):
    s, d = random_coo((7, 5), seed=7, dtype=dtype, dup=True)
    m = torch.randn(5, 4, dtype=dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else {}
    expect = d @ m.double().numpy()
    for out in (torch.mm(s, m), torch.spmm(s, m), torch.sparse.mm(s, m), torch.matmul(s, m),
                s @ m, s.mm(m)):  # fmt: skip
        assert not out.is_sparse and out.dtype == dtype
        np.testing.assert_allclose(out.double().numpy(), expect, **tol)
    v = torch.randn(5, dtype=dtype)
    np.testing.assert_allclose((s @ v).double().numpy(), d @ v.double().numpy(), **tol)
    left = torch.randn(3, 7, dtype=dtype)
    np.testing.assert_allclose((left @ s).double().numpy(), left.double().numpy() @ d, **tol)
    np.testing.assert_allclose(torch.mm(left, s).double().numpy(), left.double().numpy() @ d, **tol)
    bias = torch.randn(7, 4, dtype=dtype)
    out = torch.addmm(bias, s, m, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(
        out.double().numpy(), 0.5 * bias.double().numpy() + 2 * expect, **tol
    )
    np.testing.assert_allclose(torch.sparse.addmm(bias, s, m).double().numpy(),
                               bias.double().numpy() + expect, **tol)  # fmt: skip


def test_sparse_mm_chunks_match(monkeypatch):
    import torch._sparse as impl

    monkeypatch.setattr(impl, "_CHUNK", 7)
    s, d = random_coo((30, 20), seed=8, dup=True)
    m = torch.randn(20, 3, dtype=torch.float64)
    np.testing.assert_allclose((s @ m).numpy(), d @ m.numpy())


def test_sparse_times_sparse():
    a, da = random_coo((5, 6), seed=9)
    b, db = random_coo((6, 4), seed=10)
    out = torch.sparse.mm(a, b)
    assert out.is_sparse
    np.testing.assert_allclose(out.to_dense().numpy(), da @ db, atol=1e-12)


def _scipy_softmax(d, mask, axis):
    out = np.zeros_like(d)
    e = np.where(mask, d, -np.inf)
    m = e.max(axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    x = np.where(mask, np.exp(e - m), 0)
    tot = x.sum(axis=axis, keepdims=True)
    np.divide(x, tot, out=out, where=tot > 0)
    return out


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sparse_softmax(dim):
    s, d = random_coo((5, 6), seed=11, density=0.5)
    mask = s.to_dense().numpy() != 0
    expect = _scipy_softmax(d, mask, dim)
    np.testing.assert_allclose(torch.sparse.softmax(s, dim).to_dense().numpy(), expect, atol=1e-12)
    lsm = torch.sparse.log_softmax(s, dim)
    np.testing.assert_allclose(
        np.exp(lsm._values().numpy()), torch.sparse.softmax(s, dim)._values().numpy()
    )


def test_transpose_narrow_index_select():
    s, d = random_coo((4, 6), seed=12, dup=True)
    np.testing.assert_allclose(s.t().to_dense().numpy(), d.T)
    np.testing.assert_allclose(s.transpose(0, 1).to_dense().numpy(), d.T)
    np.testing.assert_allclose(s.narrow_copy(1, 2, 3).to_dense().numpy(), d[:, 2:5])
    np.testing.assert_allclose(s.narrow_copy(0, 1, 2).to_dense().numpy(), d[1:3])
    idx = torch.tensor([5, 0, 5, 2])
    np.testing.assert_allclose(s.index_select(1, idx).to_dense().numpy(), d[:, [5, 0, 5, 2]])
    np.testing.assert_allclose(
        s.index_select(0, torch.tensor([3, 3])).to_dense().numpy(), d[[3, 3]]
    )
    h, dh = random_coo((4, 3), seed=13, dense_shape=(5,))
    np.testing.assert_allclose(
        h.index_select(2, torch.tensor([4, 1])).to_dense().numpy(), dh[:, :, [4, 1]]
    )
    np.testing.assert_allclose(h.transpose(0, 1).to_dense().numpy(), dh.transpose(1, 0, 2))
    with pytest.raises(IndexError):
        s.index_select(0, torch.tensor([4]))
    with pytest.raises(IndexError):
        s.narrow_copy(1, 4, 3)


@pytest.mark.parametrize("offsets", [[0], [0, -1], [1, -2, 0], [3]])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_spdiags_matches_scipy(offsets, shape):
    diags = np.arange(1.0, 1.0 + len(offsets) * 5).reshape(len(offsets), 5)
    out = torch.sparse.spdiags(torch.tensor(diags), torch.tensor(offsets), shape)
    expect = sp.spdiags(diags, offsets, *shape).toarray()
    np.testing.assert_allclose(out.to_dense().numpy(), expect)
    csr = torch.sparse.spdiags(torch.tensor(diags), torch.tensor(offsets), shape, torch.sparse_csr)
    np.testing.assert_allclose(csr.to_dense().numpy(), expect)


# ---------------------------------------------------------------- CSR
def test_csr_matches_scipy():
    rng = np.random.default_rng(14)
    m = sp.random(6, 8, density=0.3, random_state=rng, format="csr")
    c = torch.sparse_csr_tensor(torch.tensor(m.indptr), torch.tensor(m.indices),
                                torch.tensor(m.data), m.shape)  # fmt: skip
    assert c.layout == torch.sparse_csr and c.is_sparse_csr and not c.is_sparse
    assert c._nnz() == m.nnz
    np.testing.assert_allclose(c.to_dense().numpy(), m.toarray())
    x = torch.randn(8, 3, dtype=torch.float64)
    np.testing.assert_allclose((c @ x).numpy(), m @ x.numpy())
    np.testing.assert_allclose(torch.mm(c, x).numpy(), m @ x.numpy())
    coo = c.to_sparse_coo() if hasattr(c, "to_sparse_coo") else c.to_sparse()
    np.testing.assert_allclose(coo.to_dense().numpy(), m.toarray())
    back = coo.to_sparse_csr()
    assert back.crow_indices().tolist() == m.indptr.tolist()
    assert back.col_indices().tolist() == m.indices.tolist()
    np.testing.assert_allclose(back.values().numpy(), m.data)
    d = torch.tensor(m.toarray())
    fromdense = d.to_sparse_csr()
    assert fromdense.crow_indices().tolist() == m.indptr.tolist()
    np.testing.assert_allclose(d.to_sparse(layout=torch.sparse_csr).to_dense().numpy(), m.toarray())


def test_csr_bad_input():
    with pytest.raises(RuntimeError, match="crow_indices"):
        torch.sparse_csr_tensor([0, 1], [0], [1.0], (2, 2))
    with pytest.raises(RuntimeError, match="col_indices"):
        torch.sparse_csr_tensor([0, 1, 2], [0, 5], [1.0, 2.0], (2, 2))
    with pytest.raises(RuntimeError, match="non-decreasing"):
        torch.sparse_csr_tensor([0, 2, 1, 2], [0, 1], [1.0, 2.0], (3, 2))
    with pytest.raises(RuntimeError, match="last value"):
        torch.sparse_csr_tensor([0, 1, 3], [0, 1], [1.0, 2.0], (2, 2))


# ---------------------------------------------------------------- save / load
def test_load_pytorch_sparse_fixture():
    obj = torch.load(os.path.join(CKPT, "sparse_ref.pt"), weights_only=True)
    expect = np.array([[0, 0, 3], [4, 0, 5]], dtype=np.float32)
    assert obj["coo"].is_sparse and not obj["coo"].is_coalesced()
    np.testing.assert_array_equal(obj["coo"].to_dense().numpy(), expect)
    assert obj["coalesced"].is_coalesced()
    np.testing.assert_array_equal(obj["coalesced"].to_dense().numpy(), expect)
    np.testing.assert_array_equal(obj["csr"].to_dense().numpy(), expect)
    assert obj["csr"].layout == torch.sparse_csr
    assert obj["double"].dtype == torch.float64
    h = obj["hybrid"]
    assert h.shape == (4, 3) and h.dense_dim() == 1
    np.testing.assert_array_equal(h.to_dense().numpy()[[0, 2]], np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("name", ["sparse_bad_index.pt", "sparse_bad_csr.pt"])
def test_load_out_of_range_sparse_refused(name):
    with pytest.raises(Exception, match="index|col_indices|inconsistent"):
        torch.load(os.path.join(CKPT, name), weights_only=True)


def test_save_load_roundtrip():
    s, d = random_coo((4, 5), seed=15, dup=True)
    h, dh = random_coo((3, 2), seed=16, dense_shape=(2,))
    c = s.coalesce().to_sparse_csr()
    buf = io.BytesIO()
    torch.save({"s": s, "h": h, "c": c, "sc": s.coalesce()}, buf)
    buf.seek(0)
    out = torch.load(buf, weights_only=True)
    np.testing.assert_allclose(out["s"].to_dense().numpy(), d)
    np.testing.assert_allclose(out["h"].to_dense().numpy(), dh)
    np.testing.assert_allclose(out["c"].to_dense().numpy(), d)
    assert out["sc"].is_coalesced() and not out["s"].is_coalesced()
    p = pickle.loads(pickle.dumps(s))
    np.testing.assert_allclose(p.to_dense().numpy(), d)


def test_saved_file_loads_in_reference(tmp_path):
    """Our file loads in PyTorch (when its virtualenv is here)."""
    ref = "/work/ref-venv/bin/python"
    if not os.path.exists(ref):
        pytest.skip("no reference PyTorch")
    import subprocess

    path = tmp_path / "ours.pt"
    s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    torch.save({"s": s, "c": s.to_sparse_csr()}, path)
    code = (
        "import torch,sys; o=torch.load(sys.argv[1], weights_only=True); "
        "print(o['s'].to_dense().tolist(), o['c'].to_dense().tolist())"
    )
    out = subprocess.run([ref, "-W", "ignore", "-c", code, str(path)], capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == "[[0.0, 1.0], [2.0, 0.0]] [[0.0, 1.0], [2.0, 0.0]]".split()


@needs_autograd
def test_deepcopy():
    import copy

    s = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), requires_grad=True)
    c = copy.deepcopy(s)
    assert c.is_sparse and c.requires_grad
    assert torch.equal(c.to_dense(), s.to_dense().detach())


def test_core_functions_that_are_not_sparse_aware_raise_instead_of_computing():
    s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    for fn in (lambda: torch.exp(s), lambda: torch.eq(s, s)):
        with pytest.raises(NotImplementedError, match="sparse"):
            fn()
    with pytest.raises(RuntimeError, match="device"):
        torch.eq(torch.ones(2, 2), s)


# ---------------------------------------------------------------- torch functions on sparse
# torch.add/sub/mul/div given a sparse argument go to the sparse layout's own code (the
# core's gates hand them over: Note [Subclass override] in bind_grad.cpp), as the operators
# and methods do.
def test_torch_functions_with_sparse_arguments():
    s, sd = random_coo((4, 5), seed=1)
    t, td = random_coo((4, 5), seed=2)
    d = torch.tensor(np.arange(20.0).reshape(4, 5))
    dd = d.numpy()
    cases = [
        (torch.add(s, t), sd + td, True),
        (torch.add(s, t, alpha=2), sd + 2 * td, True),
        (torch.sub(s, t), sd - td, True),
        (torch.subtract(s, t, alpha=0.5), sd - 0.5 * td, True),
        (torch.add(d, s), dd + sd, False),
        (torch.add(d, s, alpha=3), dd + 3 * sd, False),
        (torch.sub(d, s), dd - sd, False),
        (torch.add(s, d), sd + dd, False),
        (torch.mul(s, 2.5), 2.5 * sd, True),
        (torch.mul(s, t), sd * td, True),
        (torch.mul(s, d), sd * dd, True),
        (torch.mul(d, s), dd * sd, True),
        (torch.div(s, 4), sd / 4, True),
        (torch.true_divide(s, 2), sd / 2, True),
    ]
    for got, want, sparse in cases:
        assert got.is_sparse == sparse
        np.testing.assert_allclose((got.to_dense() if sparse else got).numpy(), want)


def test_torch_functions_with_sparse_arguments_errors():
    s, _ = random_coo((4, 5), seed=1)
    d = torch.ones(4, 5, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="out="):
        torch.add(s, s, out=torch.empty(4, 5))
    with pytest.raises(RuntimeError, match="sparse"):
        torch.div(d, s)
    with pytest.raises(RuntimeError, match="size"):
        torch.add(torch.ones(3, 3), s)
    with pytest.raises((NotImplementedError, RuntimeError)):
        torch.exp(s)  # no sparse form: the dense op's error for the layout


@needs_autograd
def test_torch_add_sparse_records_gradients():
    i = torch.tensor([[0, 1, 1], [2, 0, 2]])
    a = torch.sparse_coo_tensor(i, torch.tensor([3.0, 4.0, 5.0]), (2, 3), requires_grad=True)
    torch.sparse.sum(torch.add(a, a, alpha=2)).backward()
    np.testing.assert_allclose(a.grad.to_dense().numpy(), [[0, 0, 3], [3, 0, 3]])
