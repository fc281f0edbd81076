"""torch.<nn op> functions (torch.cosine_similarity, torch.batch_norm in ATen's argument order,
the losses with an int reduction, the recurrent cells, ...), F.rms_norm and F.channel_shuffle,
and Tensor.hardshrink/prelu: values against NumPy or the formula, gradients with gradcheck,
and errors."""

import math

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from torch.autograd import gradcheck

RNG = np.random.default_rng(11)


def _t(*shape, grad=False):
    return torch.tensor(RNG.standard_normal(shape), dtype=torch.float64, requires_grad=grad)


def _close(got, want, tol=1e-10):
    got = got.detach().numpy() if isinstance(got, torch.Tensor) else got
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else want
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# ---------------------------------------------------------------- same signature as F
def test_distances_match_formulas():
    a, b = _t(4, 5), _t(4, 5)
    x, y = a.numpy(), b.numpy()
    cos = (x * y).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    _close(torch.cosine_similarity(a, b), cos)
    _close(torch.cosine_similarity(a, b, dim=0, eps=1e-8), F.cosine_similarity(a, b, 0))
    _close(torch.pairwise_distance(a, b), np.linalg.norm(x - y + 1e-6, axis=1))
    _close(torch.pairwise_distance(a, b, p=1, keepdim=True).squeeze(1), np.abs(x - y + 1e-6).sum(1))
    i, j = np.triu_indices(4, 1)
    _close(torch.pdist(a), np.linalg.norm(x[i] - x[j], axis=1))
    _close(torch.pdist(a, p=3), (np.abs(x[i] - x[j]) ** 3).sum(1) ** (1 / 3))
    assert gradcheck(
        lambda u, v: torch.cosine_similarity(u, v), (_t(3, 4, grad=True), _t(3, 4, grad=True))
    )
    assert gradcheck(lambda u: torch.pdist(u), (_t(4, 3, grad=True),))


def test_shuffles():
    x = _t(2, 8, 3, 3)
    _close(torch.pixel_shuffle(x, 2), F.pixel_shuffle(x, 2))
    _close(torch.pixel_unshuffle(torch.pixel_shuffle(x, 2), 2), x)
    a = x.numpy()
    want = a.reshape(2, 4, 2, 3, 3).swapaxes(1, 2).reshape(2, 8, 3, 3)
    _close(torch.channel_shuffle(x, 4), want)
    _close(F.channel_shuffle(x, 4), want)
    with pytest.raises(RuntimeError, match="divisible by groups. Got 8 channels and 3 groups"):
        torch.channel_shuffle(x, 3)
    with pytest.raises(RuntimeError, match="> 2 dims"):
        F.channel_shuffle(torch.ones(2, 3), 3)
    with pytest.raises(RuntimeError, match="must be positive"):
        F.channel_shuffle(x, 0)
    assert gradcheck(lambda u: torch.channel_shuffle(u, 2), (_t(1, 4, 2, grad=True),))


def test_activations_and_bilinear():
    x = _t(3, 4)
    a = x.numpy()
    _close(torch.hardshrink(x), np.where(np.abs(a) > 0.5, a, 0))
    _close(x.hardshrink(lambd=1.0), np.where(np.abs(a) > 1.0, a, 0))
    w = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
    _close(torch.prelu(x, w), np.where(a > 0, a, w.numpy() * a))
    _close(x.prelu(torch.tensor([0.25], dtype=torch.float64)), np.where(a > 0, a, 0.25 * a))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
        torch.prelu(x, torch.ones(2, dtype=torch.float64))
    x1, x2, W, b = _t(5, 3), _t(5, 2), _t(4, 3, 2), _t(4)
    want = np.einsum("ni,oij,nj->no", x1.numpy(), W.numpy(), x2.numpy()) + b.numpy()
    _close(torch.bilinear(x1, x2, W, b), want)
    _close(torch.bilinear(x1, x2, W), want - b.numpy())
    assert gradcheck(lambda u, v: torch.prelu(u, v), (_t(2, 3, grad=True), _t(3, grad=True)))


def test_rms_norm():
    x, w = _t(2, 3, 4), _t(3, 4)
    a = x.numpy()
    rms = np.sqrt((a * a).mean((-2, -1), keepdims=True) + 1e-5)
    _close(torch.rms_norm(x, [3, 4], w, 1e-5), a / rms * w.numpy())
    eps = torch.finfo(torch.float64).eps
    _close(F.rms_norm(x, (4,)), a / np.sqrt((a * a).mean(-1, keepdims=True) + eps))
    with pytest.raises(RuntimeError, match="expected input with shape"):
        torch.rms_norm(x, [3])
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        F.rms_norm(x, (4,), torch.ones(3, dtype=torch.float64))
    m = torch.nn.RMSNorm(4, eps=1e-6).double()
    _close(m(x), F.rms_norm(x, (4,), m.weight, 1e-6))
    assert gradcheck(
        lambda u, v: torch.rms_norm(u, [4], v), (_t(2, 4, grad=True), _t(4, grad=True))
    )


# ---------------------------------------------------------------- ATen's argument order
def test_batch_and_instance_norm_aten_order():
    x, w, b = _t(4, 3, 5), _t(3), _t(3)
    a = x.numpy()
    mean, var = a.mean((0, 2), keepdims=True), a.var((0, 2), keepdims=True)
    want = (a - mean) / np.sqrt(var + 1e-5) * w.numpy()[:, None] + b.numpy()[:, None]
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    _close(torch.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False), want)
    _close(rm, 0.1 * mean.ravel())  # the running statistics were updated in place
    _close(rv, 0.9 + 0.1 * a.var((0, 2), ddof=1))
    evaluated = torch.batch_norm(x, None, None, rm, rv, False, 0.1, 1e-5, True)
    _close(evaluated, (a - rm.numpy()[:, None]) / np.sqrt(rv.numpy()[:, None] + 1e-5))
    mean, var = a.mean(2, keepdims=True), a.var(2, keepdims=True)
    want = (a - mean) / np.sqrt(var + 1e-5)
    _close(torch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False), want)
    assert gradcheck(
        lambda u, v: torch.batch_norm(u, v, None, None, None, True, 0.1, 1e-5, False),
        (_t(3, 2, 2, grad=True), _t(2, grad=True)),
    )


def test_embedding_and_constant_pad_nd():
    weight = _t(5, 3)
    idx = torch.tensor([[0, 4], [2, 2]])
    _close(torch.embedding(weight, idx), weight.detach().numpy()[idx.numpy()])
    w = _t(5, 3, grad=True)
    torch.embedding(w, torch.tensor([1, 4, 4]), padding_idx=4).sum().backward()
    assert w.grad[4].abs().sum() == 0 and w.grad[1].tolist() == [1.0, 1.0, 1.0]
    x = torch.ones(2, 2)
    got = torch.constant_pad_nd(x, [1, 2], 3.0)
    np.testing.assert_array_equal(
        got.numpy(), np.pad(x.numpy(), ((0, 0), (1, 2)), constant_values=3)
    )
    assert torch.constant_pad_nd(x, [1, -1]).tolist() == [[0.0, 1.0], [0.0, 1.0]]


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def test_losses_with_int_reduction():
    x, y = _t(4, 3), _t(4, 3)
    a, b = x.numpy(), y.numpy()
    t = np.exp(b)
    kl = t * (b - a)  # log_target: exp(target) * (target - input)
    _close(torch.kl_div(x, y, 0, log_target=True), kl)
    _close(torch.kl_div(x, y, 2, log_target=True), kl.sum())
    _close(torch.kl_div(x, y.exp(), 1), (t * (np.log(t) - a)).mean())
    _close(torch.kl_div(x, y.exp()), t * (np.log(t) - a))  # no reduction by default
    p = _sigmoid(b)
    bce = -(p * np.log(_sigmoid(a)) + (1 - p) * np.log(1 - _sigmoid(a)))
    _close(torch.binary_cross_entropy_with_logits(x, torch.sigmoid(y)), bce)
    _close(torch.binary_cross_entropy_with_logits(x, torch.sigmoid(y), reduction=1), bce.mean())
    pw = torch.full((3,), 2.0, dtype=torch.float64)
    bce_pw = -(2 * p * np.log(_sigmoid(a)) + (1 - p) * np.log(1 - _sigmoid(a)))
    _close(torch.binary_cross_entropy_with_logits(x, torch.sigmoid(y), None, pw, 0), bce_pw)
    sign = torch.tensor(np.where(RNG.standard_normal(4) > 0, 1.0, -1.0))
    s = sign.numpy()
    u, v = _t(4), _t(4)
    _close(
        torch.margin_ranking_loss(u, v, sign, 0.5, 0),
        np.maximum(0, -s * (u.numpy() - v.numpy()) + 0.5),
    )
    hinge = np.where(s == 1, u.numpy(), np.maximum(0, 1.0 - u.numpy()))
    _close(torch.hinge_embedding_loss(u, sign, reduction=1), hinge.mean())
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    cel = np.where(s == 1, 1 - cos, np.maximum(0, cos - 0.1))
    _close(torch.cosine_embedding_loss(x, y, sign, 0.1, 2), cel.sum())
    n = _t(4, 3)
    d_ap = np.linalg.norm(a - b + 1e-6, axis=1)
    d_an = np.linalg.norm(a - n.numpy() + 1e-6, axis=1)
    _close(torch.triplet_margin_loss(x, y, n), np.maximum(d_ap - d_an + 1.0, 0))
    rate = torch.rand(4, 3, dtype=torch.float64) * 3
    _close(
        torch.poisson_nll_loss(x, rate, True, False, 1e-8, 1),
        (np.exp(a) - rate.numpy() * a).mean(),
    )
    with pytest.raises(ValueError, match="reduction"):
        torch.kl_div(x, y, 5)
    assert gradcheck(
        lambda u, v: torch.binary_cross_entropy_with_logits(u, v, None, None, 2),
        (_t(3, grad=True), torch.rand(3, dtype=torch.float64, requires_grad=True)),
    )
    assert gradcheck(
        lambda u, v, w: torch.triplet_margin_loss(u, v, w, 1.0, 2.0, 1e-6, True, 1),
        (_t(2, 3, grad=True), _t(2, 3, grad=True), _t(2, 3, grad=True)),
    )


# ---------------------------------------------------------------- recurrent cells
def test_cells_match_formulas():
    x, h, c = _t(2, 3), _t(2, 4), _t(2, 4)
    w_ih, w_hh, b_ih, b_hh = _t(16, 3), _t(16, 4), _t(16), _t(16)
    g = x.numpy() @ w_ih.numpy().T + b_ih.numpy() + h.numpy() @ w_hh.numpy().T + b_hh.numpy()
    i, f, gg, o = np.split(g, 4, 1)
    c2 = _sigmoid(f) * c.numpy() + _sigmoid(i) * np.tanh(gg)
    h2, c_out = torch.lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)
    _close(c_out, c2)
    _close(h2, _sigmoid(o) * np.tanh(c2))
    wi, wh = _t(12, 3), _t(12, 4)
    xw, hw = x.numpy() @ wi.numpy().T, h.numpy() @ wh.numpy().T
    r = _sigmoid(xw[:, :4] + hw[:, :4])
    z = _sigmoid(xw[:, 4:8] + hw[:, 4:8])
    n = np.tanh(xw[:, 8:] + r * hw[:, 8:])
    _close(torch.gru_cell(x, h, wi, wh), (1 - z) * n + z * h.numpy())
    wi, wh = _t(4, 3), _t(4, 4)
    pre = x.numpy() @ wi.numpy().T + h.numpy() @ wh.numpy().T
    _close(torch.rnn_tanh_cell(x, h, wi, wh), np.tanh(pre))
    _close(torch.rnn_relu_cell(x, h, wi, wh), np.maximum(pre, 0))
    with pytest.raises(RuntimeError, match="weight_ih first dim must be 1 \\* hidden_size = 4"):
        torch.rnn_tanh_cell(x, h, _t(8, 3), wh)
    assert gradcheck(
        lambda u, hh, cc, a, b: torch.lstm_cell(u, (hh, cc), a, b),
        (
            _t(2, 3, grad=True),
            _t(2, 2, grad=True),
            _t(2, 2, grad=True),
            _t(8, 3, grad=True),
            _t(8, 2, grad=True),
        ),
    )
    assert gradcheck(
        lambda u, hh, a, b: torch.gru_cell(u, hh, a, b),
        (_t(2, 3, grad=True), _t(2, 2, grad=True), _t(6, 3, grad=True), _t(6, 2, grad=True)),
    )


def test_cells_agree_with_modules():
    cell = torch.nn.LSTMCell(3, 4).double()
    x, h, c = _t(2, 3), _t(2, 4), _t(2, 4)
    want = cell(x, (h, c))
    got = torch.lstm_cell(x, (h, c), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    for g, w in zip(got, want, strict=True):
        _close(g, w)
    rnn = torch.nn.RNNCell(3, 4, nonlinearity="relu").double()
    _close(torch.rnn_relu_cell(x, h, *rnn.parameters()), rnn(x, h))
    assert not math.isnan(float(torch.gru_cell(x, h, _t(12, 3), _t(12, 4)).sum()))
