"""Gradients through sparse tensors: finite differences and dense-equivalent gradients."""

import numpy as np
import pytest

import torch
from torch.autograd import gradcheck, gradgradcheck

IDX = torch.tensor([[0, 1, 1, 3, 0], [2, 0, 2, 1, 2]])  # (0, 2) twice: uncoalesced
SIZE = (4, 3)


def values(seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(IDX.shape[1], generator=g, dtype=torch.float64)


def test_sparse_mm_grads_match_dense():
    v = values()
    s = torch.sparse_coo_tensor(IDX, v, SIZE, requires_grad=True)
    d = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, 5, dtype=torch.float64)
    (torch.sparse.mm(s, d) * w).sum().backward()
    assert s.grad.is_sparse and torch.equal(s.grad._indices(), IDX)
    dense = s.detach().to_dense().requires_grad_()
    d2 = d.detach().clone().requires_grad_()
    (dense @ d2 * w).sum().backward()
    # each stored entry's gradient is the dense gradient at its position
    np.testing.assert_allclose(s.grad._values().numpy(), dense.grad[IDX[0], IDX[1]].numpy())
    np.testing.assert_allclose(d.grad.numpy(), d2.grad.numpy())


def test_to_dense_backward_is_sparse():
    s = torch.sparse_coo_tensor(IDX, values(1), SIZE, requires_grad=True)
    w = torch.arange(12.0, dtype=torch.float64).reshape(SIZE)
    (s.to_dense() * w).sum().backward()
    assert s.grad.is_sparse
    np.testing.assert_allclose(s.grad._values().numpy(), w[IDX[0], IDX[1]].numpy())
    np.testing.assert_allclose(s.grad.to_dense().numpy()[0, 2], 2 * w[0, 2].item())


def test_constructor_backward_to_values():
    v = values(2).requires_grad_()
    s = torch.sparse_coo_tensor(IDX, v, SIZE)
    assert s.requires_grad and s.grad_fn is not None and not s.is_leaf
    d = torch.randn(3, 2, dtype=torch.float64)
    (s @ d).pow(2).sum().backward()
    dense_v = v.detach().clone().requires_grad_()
    dense = torch.zeros(SIZE, dtype=torch.float64).index_put(
        (IDX[0], IDX[1]), dense_v, accumulate=True
    )
    (dense @ d).pow(2).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), dense_v.grad.numpy())


@pytest.mark.parametrize(
    "fn",
    [
        lambda v, d: torch.sparse_coo_tensor(IDX, v, SIZE) @ d,
        lambda v, d: d.t() @ torch.sparse_coo_tensor(IDX, v, SIZE).t(),
        lambda v, d: torch.addmm(
            torch.ones(4, 2, dtype=torch.float64), torch.sparse_coo_tensor(IDX, v, SIZE), d
        ),  # fmt: skip
        lambda v, d: torch.sparse_coo_tensor(IDX, v, SIZE).coalesce().to_dense() * 2 + d.sum(),
        lambda v, d: torch.sparse.softmax(torch.sparse_coo_tensor(IDX, v, SIZE), 1).to_dense(),
        lambda v, d: torch.sparse.log_softmax(torch.sparse_coo_tensor(IDX, v, SIZE), 0)._values(),
        lambda v, d: torch.sparse.sum(torch.sparse_coo_tensor(IDX, v, SIZE), 1).to_dense(),
        lambda v, d: (
            torch.sparse_coo_tensor(IDX, v, SIZE) * torch.sparse_coo_tensor(IDX, v, SIZE)
        ).to_dense(),
        lambda v, d: torch.sparse_coo_tensor(IDX, v, SIZE).to_sparse_csr() @ d,
        lambda v, d: (
            torch.sparse_coo_tensor(IDX, v, SIZE).index_select(1, torch.tensor([2, 0])).to_dense()
        ),
    ],
)
def test_gradcheck(fn):
    v = values(3).requires_grad_()
    d = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(fn, (v, d))
    assert gradgradcheck(fn, (v, d))


def test_sparse_grads_accumulate():
    w = torch.zeros(5, 2, dtype=torch.float64, requires_grad=True)
    for idx in ([1, 1, 3], [0]):
        torch.nn.functional.embedding(torch.tensor(idx), w, sparse=True).sum().backward()
    g = w.grad
    assert g.is_sparse and g._nnz() == 4  # concatenated, not coalesced
    np.testing.assert_allclose(g.to_dense().numpy(), [[1, 1], [2, 2], [0, 0], [1, 1], [0, 0]])
    # a dense gradient after a sparse one makes it dense
    (w * 2).sum().backward()
    assert not w.grad.is_sparse
    np.testing.assert_allclose(w.grad.numpy(), [[3, 3], [4, 4], [2, 2], [3, 3], [2, 2]])
    # and a sparse one after a dense one stays dense
    torch.nn.functional.embedding(torch.tensor([4]), w, sparse=True).sum().backward()
    assert not w.grad.is_sparse and w.grad[4, 0].item() == 3


def test_sparse_grad_under_no_grad_accumulation():
    w = torch.zeros(3, 2, requires_grad=True)
    out = torch.nn.functional.embedding(torch.tensor([2]), w, sparse=True).sum()
    torch.autograd.backward(out)
    first = w.grad
    torch.nn.functional.embedding(torch.tensor([2]), w, sparse=True).sum().backward()
    assert first._nnz() == 1  # the first gradient was not changed in place
    assert w.grad.to_dense()[2, 0].item() == 2


def test_autograd_grad_returns_sparse():
    w = torch.randn(4, 3, requires_grad=True)
    out = torch.nn.functional.embedding(torch.tensor([[0, 2], [2, 2]]), w, sparse=True)
    (g,) = torch.autograd.grad(out.pow(2).sum(), w)
    assert g.is_sparse
    (gd,) = torch.autograd.grad(
        torch.nn.functional.embedding(torch.tensor([[0, 2], [2, 2]]), w).pow(2).sum(), w
    )
    np.testing.assert_allclose(g.to_dense().numpy(), gd.numpy(), rtol=1e-6)


def test_leaf_requires_grad_rules():
    s = torch.sparse_coo_tensor(IDX, values(), SIZE, requires_grad=True)
    assert s.is_leaf and s.requires_grad and s.grad is None
    s2 = s * 2
    assert not s2.is_leaf and s2.grad_fn is not None
    with pytest.raises(RuntimeError, match="leaf"):
        s2.requires_grad_(False)
    with pytest.raises(RuntimeError, match="floating point"):
        torch.sparse_coo_tensor(IDX, torch.ones(5, dtype=torch.int64), SIZE, requires_grad=True)


def test_assigned_grad_wins_and_none_clears():
    s = torch.sparse_coo_tensor(IDX, values(), SIZE, requires_grad=True)
    s.to_dense().sum().backward()
    assert s.grad is not None
    other = torch.zeros(SIZE, dtype=torch.float64).to_sparse()
    s.grad = other
    assert s.grad is other
    s.grad = None
    assert s.grad is None
