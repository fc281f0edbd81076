"""torch.legacy.nn criteria: forward against NumPy, backward against finite differences."""

import math

import numpy as np
import pytest
from legacy_spatial_jacobian import numeric_grad

import torch
from torch.legacy import nn

rng = np.random.default_rng(7)


def T(a):
    return torch.from_numpy(np.array(a, dtype=np.float64))


def L(a):
    return torch.from_numpy(np.array(a, dtype=np.int64))


def randn(*shape):
    return rng.standard_normal(shape)


def signs(*shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# ------------------------------------------------------------------ NumPy oracles
def nll(x, t, w=None, size_average=True):
    w = np.ones(x.shape[1]) if w is None else w
    picked = np.array([-x[i, t[i]] * w[t[i]] for i in range(len(t))])
    return picked.sum() / (w[t].sum() if size_average else 1)


def bce(x, t, w=None, size_average=True):
    w = 1.0 if w is None else w
    eps = 1e-12
    loss = -(w * (t * np.log(x + eps) + (1 - t) * np.log(1 - x + eps))).sum()
    return loss / x.size if size_average else loss


def multi_margin(x, t, p=1, w=None, margin=1, size_average=True):
    x = x.reshape(-1, x.shape[-1])
    total = 0.0
    for n, y in enumerate(np.atleast_1d(t)):
        for i in range(x.shape[1]):
            if i != y:
                z = max(0.0, margin - x[n, y] + x[n, i]) ** p
                total += z * (1 if w is None else w[y]) / x.shape[1]
    return total / (x.shape[0] if size_average else 1)


def multi_label_margin(x, t, size_average=True):
    x, t = x.reshape(-1, x.shape[-1]), t.reshape(-1, x.shape[-1])
    total = 0.0
    for n in range(x.shape[0]):
        listed = []
        for k in t[n]:
            if k < 0:
                break
            listed.append(k)
        for j in listed:
            for i in range(x.shape[1]):
                if i not in listed:
                    total += max(0.0, 1 - (x[n, j] - x[n, i])) / x.shape[1]
    return total / (x.shape[0] if size_average else 1)


def cosine_embedding(x1, x2, y, margin=0, size_average=True):
    x1, x2 = np.atleast_2d(x1), np.atleast_2d(x2)
    total = 0.0
    for n in range(x1.shape[0]):
        c = x1[n] @ x2[n] / math.sqrt((x1[n] @ x1[n] + 1e-12) * (x2[n] @ x2[n] + 1e-12))
        total += 1 - c if y[n] == 1 else max(0.0, c - margin)
    return total / (x1.shape[0] if size_average else 1)


def kl(x, t, size_average=True):
    loss = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0).sum()
    return loss / x.size if size_average else loss


def smooth_l1(x, t, size_average=True):
    d = np.abs(x - t)
    loss = np.where(d < 1, 0.5 * d * d, d - 0.5).sum()
    return loss / x.size if size_average else loss


def hinge(x, y, margin=1, size_average=True):
    loss = np.where(y == 1, x, np.maximum(0, margin - x)).sum()
    return loss / x.size if size_average else loss


# Each case: (id, criterion factory, input (array or list of arrays), target, oracle value).
x34, t3 = randn(3, 4), np.array([0, 3, 1])
w4 = rng.random(4) + 0.5
p34, b34 = rng.uniform(0.1, 0.9, (3, 4)), (rng.random((3, 4)) < 0.5).astype(float)
q34 = rng.dirichlet(np.ones(4), 3) * (rng.random((3, 4)) < 0.7)
s34 = signs(3, 4)
x2345, t245 = randn(2, 3, 4, 5), rng.integers(0, 3, (2, 4, 5))
a35, b35, y3 = randn(3, 5), randn(3, 5), signs(3)
mlm_t = np.array([[3, 0, -1, 1], [1, -1, 2, 2], [-1, 0, 0, 0]])
mse_abs = 0.6 * ((x34 - p34) ** 2).mean() + 1.5 * np.abs(x34 - p34).mean()

CASES = [
    ("MSE", lambda: nn.MSECriterion(), x34, p34, ((x34 - p34) ** 2).mean()),
    ("MSE-sum", lambda: nn.MSECriterion(False), x34, p34, ((x34 - p34) ** 2).sum()),
    ("Abs", lambda: nn.AbsCriterion(), x34, p34, np.abs(x34 - p34).mean()),
    ("Abs-sum", lambda: nn.AbsCriterion(False), x34, p34, np.abs(x34 - p34).sum()),
    ("ClassNLL", lambda: nn.ClassNLLCriterion(), x34, t3, nll(x34, t3)),
    ("ClassNLL-w", lambda: nn.ClassNLLCriterion(T(w4)), x34, t3, nll(x34, t3, w4)),
    (
        "ClassNLL-w-sum",
        lambda: nn.ClassNLLCriterion(T(w4), False),
        x34,
        t3,
        nll(x34, t3, w4, False),
    ),
    ("ClassNLL-1d", lambda: nn.ClassNLLCriterion(), x34[0], 2, -x34[0, 2]),
    (
        "SpatialClassNLL",
        lambda: nn.SpatialClassNLLCriterion(),
        x2345,
        t245,
        nll(x2345.transpose(0, 2, 3, 1).reshape(-1, 3), t245.reshape(-1)),
    ),
    (
        "SpatialClassNLL-3d-sum",
        lambda: nn.SpatialClassNLLCriterion(None, False),
        x2345[0],
        t245[0],
        nll(x2345[0].transpose(1, 2, 0).reshape(-1, 3), t245[0].reshape(-1), None, False),
    ),
    ("CrossEntropy", lambda: nn.CrossEntropyCriterion(), x34, t3, nll(log_softmax(x34), t3)),
    (
        "CrossEntropy-w",
        lambda: nn.CrossEntropyCriterion(T(w4)),
        x34,
        t3,
        nll(log_softmax(x34), t3, w4),
    ),
    (
        "CrossEntropy-1xC",
        lambda: nn.CrossEntropyCriterion(),
        x34[:1],
        t3[:1],
        nll(log_softmax(x34[:1]), t3[:1]),
    ),
    ("BCE", lambda: nn.BCECriterion(), p34, b34, bce(p34, b34)),
    ("BCE-w-sum", lambda: nn.BCECriterion(T(w4), False), p34, b34, bce(p34, b34, w4, False)),
    ("DistKLDiv", lambda: nn.DistKLDivCriterion(), x34, q34, kl(x34, q34)),
    ("SmoothL1", lambda: nn.SmoothL1Criterion(), 2 * x34, p34, smooth_l1(2 * x34, p34)),
    ("HingeEmbedding", lambda: nn.HingeEmbeddingCriterion(0.5), x34, s34, hinge(x34, s34, 0.5)),
    (
        "Margin",
        lambda: nn.MarginCriterion(),
        x34,
        s34,
        np.maximum(0, 1 - s34 * x34).mean(),
    ),
    (
        "SoftMargin",
        lambda: nn.SoftMarginCriterion(),
        3 * x34,
        s34,
        np.log1p(np.exp(-s34 * 3 * x34)).mean(),
    ),
    ("MultiMargin", lambda: nn.MultiMarginCriterion(), x34, t3, multi_margin(x34, t3)),
    (
        "MultiMargin-p2-w",
        lambda: nn.MultiMarginCriterion(2, T(w4), 0.5),
        x34,
        t3,
        multi_margin(x34, t3, 2, w4, 0.5),
    ),
    ("MultiMargin-1d", lambda: nn.MultiMarginCriterion(), x34[1], 3, multi_margin(x34[1], 3)),
    (
        "MultiLabelMargin",
        lambda: nn.MultiLabelMarginCriterion(),
        x34,
        mlm_t,
        multi_label_margin(x34, mlm_t),
    ),
    (
        "MultiLabelSoftMargin",
        lambda: nn.MultiLabelSoftMarginCriterion(),
        x34,
        b34,
        bce(sigmoid(x34), b34),
    ),
    (
        "CosineEmbedding",
        lambda: nn.CosineEmbeddingCriterion(0.1),
        [a35, b35],
        y3,
        cosine_embedding(a35, b35, y3, 0.1),
    ),
    (
        "MarginRanking",
        lambda: nn.MarginRankingCriterion(0.3),
        [a35[:, 0], b35[:, 0]],
        y3,
        np.maximum(0, -y3 * (a35[:, 0] - b35[:, 0]) + 0.3).mean(),
    ),
    (
        "L1HingeEmbedding-pos",
        lambda: nn.L1HingeEmbeddingCriterion(2.0),
        [a35[0], b35[0]],
        1,
        np.abs(a35[0] - b35[0]).sum(),
    ),
    (
        "L1HingeEmbedding-neg",
        lambda: nn.L1HingeEmbeddingCriterion(100.0),
        [a35[0], b35[0]],
        -1,
        100.0 - np.abs(a35[0] - b35[0]).sum(),
    ),
    (
        "MultiCriterion",
        lambda: nn.MultiCriterion().add(nn.MSECriterion(), 0.6).add(nn.AbsCriterion(), 1.5),
        x34,
        p34,
        mse_abs,
    ),
    (
        "ParallelCriterion",
        lambda: nn.ParallelCriterion().add(nn.MSECriterion(), 0.5).add(nn.ClassNLLCriterion()),
        [x34, x34 + 1],
        [p34, t3],
        0.5 * ((x34 - p34) ** 2).mean() + nll(x34 + 1, t3),
    ),
    (
        "ParallelCriterion-repeat",
        lambda: nn.ParallelCriterion(True).add(nn.MSECriterion()).add(nn.AbsCriterion(), 2),
        [x34, 2 * x34],
        p34,
        ((x34 - p34) ** 2).mean() + 2 * np.abs(2 * x34 - p34).mean(),
    ),
]


def _tensor(a):
    if isinstance(a, list):
        return [_tensor(v) for v in a]
    if isinstance(a, (int, float)):
        return a
    return L(a) if np.asarray(a).dtype.kind == "i" else T(a)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy(case):
    _, make, x, t, expected = case
    crit = make()
    out = crit.forward(_tensor(x), _tensor(t))
    assert isinstance(out, float)
    assert out == pytest.approx(expected, rel=1e-10, abs=1e-12)
    assert crit.output == out


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_backward_matches_finite_differences(case):
    _, make, x, t, _ = case
    crit = make()
    input, target = _tensor(x), _tensor(t)
    grad = crit.backward(input, target)
    inputs = input if isinstance(input, list) else [input]
    grads = grad if isinstance(input, list) else [grad]
    assert len(grads) == len(inputs)
    for xi, gi in zip(inputs, grads):
        assert tuple(gi.shape) == tuple(xi.shape)
        expected = numeric_grad(lambda: crit.forward(input, target), xi)
        np.testing.assert_allclose(gi.numpy(), expected.numpy(), rtol=1e-5, atol=1e-7)


def test_base_contract_and_type_conversion():
    crit = nn.ClassNLLCriterion(T([1.0, 2.0, 3.0]))
    assert crit.output == 0 and repr(crit) == "nn.ClassNLLCriterion"
    assert crit.type() == torch.Tensor().type()
    assert crit.double() is crit and crit.weights.dtype == torch.float64
    assert crit.float().weights.dtype == torch.float32
    x = torch.from_numpy(log_softmax(randn(2, 3))).float()
    out = crit.forward(x, L([2, 0]))
    assert out == pytest.approx(nll(x.double().numpy(), [2, 0], np.array([1.0, 2, 3])), rel=1e-6)
    assert crit.backward(x, L([2, 0])).dtype == torch.float32
    both = nn.ParallelCriterion().add(nn.ClassNLLCriterion(T([1.0, 2.0]))).float()
    assert both.criterions[0].weights.dtype == torch.float32
    shared = T([1.0, 2.0]).float()
    pair = nn.ParallelCriterion().add(nn.ClassNLLCriterion(shared)).add(nn.BCECriterion(shared))
    pair.double()
    a, b = pair.criterions[0].weights, pair.criterions[1].weights
    assert a.dtype == torch.float64 and a.data_ptr() == b.data_ptr()  # still shared
    with pytest.raises(ValueError, match="torch.DoubleTensor"):
        crit.type("torch.LongTensor")
    with pytest.raises(NotImplementedError):
        nn.Criterion().forward(x, x)


def test_call_runs_forward_and_backward():
    crit = nn.MSECriterion()
    x, t = T(randn(2, 2)), T(randn(2, 2))
    out, grad = crit(x, t)
    assert out == pytest.approx(((x - t) ** 2).mean().item())
    np.testing.assert_allclose(grad.numpy(), (2 * (x - t) / 4).numpy())


def test_ignore_index_drops_samples():
    x, t = T(log_softmax(randn(3, 4))), L([1, -100, 2])
    crit = nn.ClassNLLCriterion(ignore_index=-100)
    assert crit.forward(x, t) == pytest.approx(-(x[0, 1] + x[2, 2]).item() / 2)
    assert crit.backward(x, t)[1].abs().sum().item() == 0


@pytest.mark.parametrize(
    "make, x, t, exc, words",
    [
        (nn.MSECriterion, T(randn(2, 3)), T(randn(3, 3)), ValueError, ["MSECriterion", "(3, 3)"]),
        (nn.AbsCriterion, randn(2), T(randn(2)), TypeError, ["AbsCriterion", "input"]),
        (nn.ClassNLLCriterion, T(randn(2, 3)), L([0, 1, 2]), ValueError, ["ClassNLL", "3"]),
        (nn.ClassNLLCriterion, T(randn(2, 3, 4)), L([0, 1]), ValueError, ["(2, 3, 4)"]),
        (nn.ClassNLLCriterion, T(randn(2, 3)), L([0, 3]), IndexError, ["3"]),
        (
            nn.SpatialClassNLLCriterion,
            T(randn(2, 3, 4, 5)),
            L(np.zeros((2, 4, 4), dtype=int)),
            ValueError,
            ["SpatialClassNLL", "(2, 4, 4)"],
        ),
        (nn.CrossEntropyCriterion, T(randn(2, 3, 4)), L([0, 1]), ValueError, ["CrossEntropy"]),
        (nn.MultiMarginCriterion, T(randn(2, 3)), L([0, 5]), IndexError, ["MultiMargin", "5"]),
        (
            nn.MultiLabelMarginCriterion,
            T(randn(2, 3)),
            L([[0, -1, 0]]),
            ValueError,
            ["MultiLabelMargin", "(1, 3)"],
        ),
        (
            nn.CosineEmbeddingCriterion,
            [T(randn(2, 3)), T(randn(2, 4))],
            T([1.0, -1.0]),
            ValueError,
            ["CosineEmbedding", "(2, 4)"],
        ),
        (nn.MarginRankingCriterion, T(randn(3)), T([1.0]), TypeError, ["MarginRanking"]),
        (nn.ParallelCriterion, [T(randn(2))], [T(randn(2))], ValueError, ["ParallelCriterion"]),
    ],
)
def test_bad_input_raises_naming_the_criterion(make, x, t, exc, words):
    crit = make()
    if isinstance(crit, nn.ParallelCriterion):
        crit.add(nn.MSECriterion()).add(nn.MSECriterion())
    with pytest.raises(exc) as info:
        crit.forward(x, t)
    for word in words:
        assert word in str(info.value)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="p = 1 and p = 2"):
        nn.MultiMarginCriterion(p=3)
    with pytest.raises(TypeError, match="MultiCriterion.add"):
        nn.MultiCriterion().add(nn.MSECriterion).add(3)
    with pytest.raises(ValueError, match="weights"):
        nn.ClassNLLCriterion(T(randn(2, 2)))
