"""Embedding and EmbeddingBag with sparse=True: sparse .grad equal to the dense one."""

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from torch import nn


def _grads(fn, weight):
    """(sparse grad, dense grad) of fn(weight, sparse).pow(2).sum()."""
    out = []
    for sparse in (True, False):
        w = weight.detach().clone().requires_grad_()
        fn(w, sparse).pow(2).sum().backward()
        out.append(w.grad)
    return out


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"padding_idx": 2},
        {"scale_grad_by_freq": True},
        {"padding_idx": 0, "scale_grad_by_freq": True},
    ],
)
def test_embedding_sparse_grad_matches_dense(kwargs):
    weight = torch.randn(6, 3, dtype=torch.float64)
    idx = torch.tensor([[0, 2, 2], [5, 1, 2]])
    sg, dg = _grads(lambda w, sparse: F.embedding(idx, w, sparse=sparse, **kwargs), weight)
    assert sg.is_sparse and sg.layout == torch.sparse_coo and not dg.is_sparse
    assert sg.shape == dg.shape and sg.dtype == dg.dtype
    np.testing.assert_allclose(sg.to_dense().numpy(), dg.numpy())


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("layout", ["2d", "offsets"])
def test_embedding_bag_sparse_grad_matches_dense(mode, layout):
    weight = torch.randn(7, 4, dtype=torch.float64)
    if layout == "2d":
        args = (torch.tensor([[1, 3, 3], [6, 0, 1]]), None)
    else:
        args = (torch.tensor([1, 3, 3, 6, 0, 1, 4]), torch.tensor([0, 2, 2, 5]))

    def fn(w, sparse):
        return F.embedding_bag(args[0], w, args[1], mode=mode, sparse=sparse)

    sg, dg = _grads(fn, weight)
    assert sg.is_sparse
    np.testing.assert_allclose(sg.to_dense().numpy(), dg.numpy())


def test_embedding_bag_per_sample_weights_and_padding():
    weight = torch.randn(5, 2, dtype=torch.float64)
    idx = torch.tensor([0, 4, 4, 2, 1])
    psw = torch.tensor([1.0, 2.0, 0.5, -1.0, 3.0], dtype=torch.float64)

    def fn(w, sparse):
        return F.embedding_bag(idx, w, torch.tensor([0, 3]), mode="sum", sparse=sparse,
                               per_sample_weights=psw, padding_idx=2)  # fmt: skip

    sg, dg = _grads(fn, weight)
    np.testing.assert_allclose(sg.to_dense().numpy(), dg.numpy())


def test_modules_report_sparse_and_give_sparse_grads():
    emb = nn.Embedding(10, 3, sparse=True)
    bag = nn.EmbeddingBag(10, 3, mode="mean", sparse=True)
    assert "sparse=True" in repr(emb)
    (emb(torch.tensor([1, 2])).sum() + bag(torch.tensor([[3, 4]])).sum()).backward()
    assert emb.weight.grad.is_sparse and bag.weight.grad.is_sparse
    assert sorted(emb.weight.grad.coalesce().indices()[0].tolist()) == [1, 2]


def test_no_grad_lookup_is_plain():
    emb = nn.Embedding(4, 2, sparse=True)
    with torch.no_grad():
        out = emb(torch.tensor([1]))
    assert out.grad_fn is None and not out.is_sparse


class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(50, 8, mode="sum", sparse=True)
        self.lin = nn.Linear(8, 1)

    def forward(self, idx, offsets):
        return self.lin(self.emb(idx, offsets)).squeeze(-1)


@pytest.mark.parametrize("opt", ["sgd", "adagrad", "sparse_adam"])
def test_model_mixing_dense_and_sparse_parameters_trains(opt):
    torch.manual_seed(0)
    model = Mixed()
    idx = torch.randint(0, 50, (64,))
    offsets = torch.arange(0, 64, 4)
    target = torch.randn(16)
    if opt == "sgd":
        opts = [torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)]
    elif opt == "adagrad":
        opts = [torch.optim.Adagrad(model.parameters(), lr=0.1)]
    else:
        opts = [torch.optim.SparseAdam(list(model.emb.parameters()), lr=0.05),
                torch.optim.Adam(model.lin.parameters(), lr=0.05)]  # fmt: skip
    first = None
    for _ in range(30):
        for o in opts:
            o.zero_grad()
        loss = F.mse_loss(model(idx, offsets), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        for o in opts:
            o.step()
        first = loss.item() if first is None else first
    assert loss.item() < 0.5 * first
