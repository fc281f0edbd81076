"""Losses built from core ops: NumPy references for every reduction, gradcheck in float64,
the legacy size_average/reduce arguments and bad input.  (NLLLoss and CrossEntropyLoss,
which are core kernels, are in test_nn_kernel_layers.py.)"""

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.RandomState(0)
A = rng.randn(4, 5)
B = rng.randn(4, 5)
P = rng.uniform(0.05, 0.95, (4, 5))  # probabilities
T01 = (rng.uniform(size=(4, 5)) > 0.5).astype(float)  # binary targets
Y = np.array([1.0, -1.0, 1.0, -1.0])  # +-1 labels per row


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _log_sigmoid(x):
    return -np.log1p(np.exp(-x))


def _reduce(loss, reduction):
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean()}[reduction]


def _cos(a, b):
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def _pdist(a, b, p=2.0, eps=1e-6):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


# name -> (module factory, args (NumPy), elementwise-or-per-sample NumPy loss, grad args)
def _smooth_l1(d, beta=1.0):
    d = np.abs(d)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def _huber(d, delta=1.0):
    d = np.abs(d)
    return np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))


POS_W = np.array([1.0, 2.0, 0.5, 3.0, 1.5])
W = rng.uniform(0.5, 2.0, (4, 5))

CASES = {
    "l1": (nn.L1Loss, {}, (A, B), lambda a, b: np.abs(a - b)),
    "mse": (nn.MSELoss, {}, (A, B), lambda a, b: (a - b) ** 2),
    "smooth_l1": (nn.SmoothL1Loss, {}, (A, B), lambda a, b: _smooth_l1(a - b)),
    "smooth_l1_beta": (nn.SmoothL1Loss, {"beta": 0.5}, (A, B), lambda a, b: _smooth_l1(a - b, 0.5)),
    "huber": (nn.HuberLoss, {"delta": 0.7}, (A, B), lambda a, b: _huber(a - b, 0.7)),
    "bce": (
        nn.BCELoss,
        {},
        (P, T01),
        lambda p, t: -(t * np.log(p) + (1 - t) * np.log(1 - p)),
    ),
    "bce_weight": (
        lambda **kw: nn.BCELoss(weight=torch.tensor(W), **kw),
        {},
        (P, T01),
        lambda p, t: -W * (t * np.log(p) + (1 - t) * np.log(1 - p)),
    ),
    "bce_logits": (
        nn.BCEWithLogitsLoss,
        {},
        (A, T01),
        lambda x, t: -(t * _log_sigmoid(x) + (1 - t) * _log_sigmoid(-x)),
    ),
    "bce_logits_pos_weight": (
        lambda **kw: nn.BCEWithLogitsLoss(pos_weight=torch.tensor(POS_W), **kw),
        {},
        (A, T01),
        lambda x, t: -(POS_W * t * _log_sigmoid(x) + (1 - t) * _log_sigmoid(-x)),
    ),
    "kl_div": (
        nn.KLDivLoss,
        {},
        (np.log(P), P[::-1].copy()),
        lambda lp, t: t * (np.log(t) - lp),
    ),
    "kl_div_log_target": (
        nn.KLDivLoss,
        {"log_target": True},
        (np.log(P), np.log(P[::-1].copy())),
        lambda lp, lt: np.exp(lt) * (lt - lp),
    ),
    "soft_margin": (
        nn.SoftMarginLoss,
        {},
        (A, np.sign(B)),
        lambda x, y: np.log1p(np.exp(-y * x)),
    ),
    "margin_ranking": (
        nn.MarginRankingLoss,
        {"margin": 0.3},
        (A[:, 0], B[:, 0], Y),
        lambda a, b, y: np.maximum(0, -y * (a - b) + 0.3),
    ),
    "hinge_embedding": (
        nn.HingeEmbeddingLoss,
        {"margin": 1.5},
        (A[:, 0], Y),
        lambda x, y: np.where(y == 1, x, np.maximum(0, 1.5 - x)),
    ),
    "cosine_embedding": (
        nn.CosineEmbeddingLoss,
        {"margin": 0.1},
        (A, B, Y),
        lambda a, b, y: np.where(y == 1, 1 - _cos(a, b), np.maximum(0, _cos(a, b) - 0.1)),
    ),
    "triplet_margin": (
        nn.TripletMarginLoss,
        {"margin": 1.0},
        (A, B, A[::-1].copy()),
        lambda a, p, n: np.maximum(_pdist(a, p) - _pdist(a, n) + 1.0, 0),
    ),
    "triplet_margin_p1_swap": (
        nn.TripletMarginLoss,
        {"margin": 2.0, "p": 1.0, "swap": True},
        (A, B, A[::-1].copy()),
        lambda a, p, n: np.maximum(
            _pdist(a, p, 1.0) - np.minimum(_pdist(a, n, 1.0), _pdist(p, n, 1.0)) + 2.0, 0
        ),
    ),
    "multilabel_soft_margin": (
        nn.MultiLabelSoftMarginLoss,
        {},
        (A, T01),
        lambda x, t: -(t * _log_sigmoid(x) + (1 - t) * _log_sigmoid(-x)).mean(-1),
    ),
}

# which arguments are differentiable (targets and labels are not)
N_DIFF = {"margin_ranking": 2, "cosine_embedding": 2, "triplet_margin": 3,
          "triplet_margin_p1_swap": 3}  # fmt: skip


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides:UserWarning")  # kl_div's
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_loss_matches_numpy(name, reduction):
    factory, kw, args, ref = CASES[name]
    loss = factory(reduction=reduction, **kw)
    got = loss(*(torch.tensor(a) for a in args))
    expected = _reduce(ref(*args), reduction)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-9, atol=1e-12)
    got32 = loss.float()(*(torch.tensor(a, dtype=torch.float32) for a in args))
    assert got32.dtype == torch.float32
    np.testing.assert_allclose(got32.numpy(), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_gradcheck(name):
    factory, kw, args, _ = CASES[name]
    loss = factory(reduction="sum", **kw).double()
    n = N_DIFF.get(name, 1)
    tensors = [torch.tensor(a, requires_grad=i < n) for i, a in enumerate(args)]
    assert torch.autograd.gradcheck(lambda *d: loss(*d, *tensors[n:]), tuple(tensors[:n]))


def test_kl_div_batchmean_and_mean_warning():
    lp, t = torch.tensor(np.log(P)), torch.tensor(P[::-1].copy())
    expected = (P[::-1] * (np.log(P[::-1]) - np.log(P))).sum() / 4
    np.testing.assert_allclose(F.kl_div(lp, t, reduction="batchmean").item(), expected)
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(lp, t)


def test_l1_mse_with_weight():
    a, b, w = torch.tensor([1.0, 2.0, 3.0]), torch.zeros(3), torch.tensor([1.0, 0.0, 2.0])
    assert F.mse_loss(a, b, weight=w).item() == pytest.approx(19 / 3)
    assert F.mse_loss(a, b, weight=w, reduction="sum").item() == pytest.approx(19)
    assert F.l1_loss(a, b, weight=w).item() == pytest.approx(7 / 3)


def test_legacy_size_average_and_reduce_map_to_reduction():
    a, b = torch.tensor(A), torch.tensor(B)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        m = nn.MSELoss(size_average=False)
    assert m.reduction == "sum"
    np.testing.assert_allclose(m(a, b).item(), ((A - B) ** 2).sum())
    with pytest.warns(UserWarning):
        assert nn.L1Loss(reduce=False).reduction == "none"
    with pytest.warns(UserWarning):
        assert nn.L1Loss(size_average=True, reduce=True).reduction == "mean"
    with pytest.warns(UserWarning):
        out = F.mse_loss(a, b, reduce=False)
    assert out.shape == (4, 5)


def test_bad_reduction_and_shapes():
    a = torch.ones(3)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.l1_loss(a, a, reduction="avg")
    with pytest.warns(UserWarning, match="target size"):
        F.mse_loss(torch.ones(3, 1), torch.ones(3))
    with pytest.raises(ValueError, match="different to the input size"):
        F.binary_cross_entropy(torch.full((3, 1), 0.5), torch.ones(3))
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(torch.ones(3, 1), torch.ones(3))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))


def test_bce_clamps_log_at_minus_100():
    loss = F.binary_cross_entropy(
        torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0]), reduction="none"
    )
    assert loss.tolist() == [100.0, 100.0]


def test_bce_with_logits_stable_for_large_logits():
    x = torch.tensor([-500.0, 500.0], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, torch.tensor([1.0, 0.0]), reduction="none")
    assert loss.tolist() == [500.0, 500.0]
    loss.sum().backward()
    assert x.grad.tolist() == [-1.0, 1.0]


def test_loss_module_reprs():
    assert repr(nn.MSELoss(reduction="sum")) == "MSELoss()"
    assert repr(nn.BCEWithLogitsLoss(pos_weight=torch.ones(2))) == "BCEWithLogitsLoss()"
    assert list(nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)).state_dict()) == ["pos_weight"]


def test_other_losses():
    x, t = torch.tensor(A), torch.tensor(np.abs(B))
    expected = (np.exp(A) - np.abs(B) * A).mean()
    np.testing.assert_allclose(F.poisson_nll_loss(x, t).item(), expected)
    var = torch.full((4, 5), 0.5, dtype=torch.float64)
    g = 0.5 * (np.log(0.5) + (A - B) ** 2 / 0.5)
    np.testing.assert_allclose(F.gaussian_nll_loss(x, torch.tensor(B), var).item(), g.mean())
    target = torch.tensor([1, 0, 4, 2])
    xm = A
    margins = np.maximum(0, 1 - xm[np.arange(4), target.numpy()][:, None] + xm)
    margins[np.arange(4), target.numpy()] = 0
    np.testing.assert_allclose(F.multi_margin_loss(x, target).item(), (margins.sum(1) / 5).mean())
