"""Optimizers consuming sparse gradients (from Embedding(sparse=True))."""

import io

import numpy as np
import pytest

import torch
import torch.nn.functional as F

BATCHES = [torch.tensor([[1, 2, 1], [4, 0, 1]]), torch.tensor([[3, 3, 1]]), torch.tensor([[5, 1]])]


def run(make_opt, sparse, steps=BATCHES):
    w = torch.nn.Parameter(torch.arange(18.0, dtype=torch.float64).reshape(6, 3) / 10)
    opt = make_opt([w])
    for idx in steps:
        opt.zero_grad()
        F.embedding(idx, w, sparse=sparse).pow(2).sum().backward()
        assert w.grad.is_sparse == sparse
        opt.step()
    return w.detach().numpy(), opt


@pytest.mark.parametrize(
    "make_opt",
    [
        lambda p: torch.optim.SGD(p, lr=0.1),
        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.3),
        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
        lambda p: torch.optim.SGD(p, lr=0.1, maximize=True),
        lambda p: torch.optim.Adagrad(p, lr=0.1),
        lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.5),
    ],
)
def test_sparse_matches_dense(make_opt):
    """For these rules, rows a sparse gradient leaves out would not move with a dense zero
    gradient either, so the two runs agree."""
    sparse, _ = run(make_opt, True)
    dense, _ = run(make_opt, False)
    np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-12)


def test_sgd_momentum_buffer_is_sparse_and_coalesced():
    _, opt = run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), True)
    (buf,) = [s["momentum_buffer"] for s in opt.state.values()]
    assert buf.is_sparse and buf.is_coalesced()
    assert buf._nnz() == 6  # every row was looked up once: each is held once
    sd = opt.state_dict()
    f = io.BytesIO()
    torch.save(sd, f)
    f.seek(0)
    loaded = torch.load(f, weights_only=True)
    assert loaded["state"][0]["momentum_buffer"].is_sparse


def test_sparse_adam_matches_lazy_adam():
    """NumPy oracle: Adam that moves only the rows each gradient holds."""
    w = torch.nn.Parameter(torch.arange(18.0, dtype=torch.float64).reshape(6, 3) / 10)
    opt = torch.optim.SparseAdam([w], lr=0.1)
    for idx in BATCHES:
        opt.zero_grad()
        F.embedding(idx, w, sparse=True).pow(2).sum().backward()
        opt.step()
    ref = np.arange(18.0).reshape(6, 3) / 10
    m, v = np.zeros_like(ref), np.zeros_like(ref)
    for t, idx in enumerate(BATCHES, 1):
        flat = idx.reshape(-1).numpy()
        g = np.zeros_like(ref)
        np.add.at(g, flat, 2 * ref[flat])
        rows = np.unique(flat)
        m[rows] += 0.1 * (g[rows] - m[rows])
        v[rows] += 0.001 * (g[rows] ** 2 - v[rows])
        step = 0.1 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        ref[rows] -= step * m[rows] / (np.sqrt(v[rows]) + 1e-8)
    np.testing.assert_allclose(w.detach().numpy(), ref, rtol=1e-9, atol=1e-12)
    state = opt.state[w]
    assert state["step"] == 3 and not state["exp_avg"].is_sparse


def test_sparse_adam_refuses_dense_and_adam_refuses_sparse():
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
        run(lambda p: torch.optim.SparseAdam(p), False)
    with pytest.raises(RuntimeError, match="Adam does not support sparse gradients"):
        run(lambda p: torch.optim.Adam(p), True)


def test_clip_grad_norm_and_value_on_sparse_grads():
    w = torch.nn.Parameter(torch.zeros(5, 2))
    F.embedding(torch.tensor([1, 1, 3]), w, sparse=True).sum().backward()
    total = torch.nn.utils.clip_grad_norm_([w], 0.5)
    assert total.item() == pytest.approx(np.sqrt(10))
    np.testing.assert_allclose(w.grad.to_dense().numpy()[1], [2 * 0.5 / np.sqrt(10)] * 2, rtol=1e-5)
    torch.nn.utils.clip_grad_value_([w], 0.1)
    assert w.grad.is_sparse and w.grad.to_dense().abs().max().item() <= 0.1 + 1e-7
