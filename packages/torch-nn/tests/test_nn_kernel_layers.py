"""Layers over torch-core's NN kernels (convolution, pooling, normalisation, softmax,
nll/cross-entropy, embedding, dropout, interpolation, padding) and what is built on them
(attention, transformer, RNN dropout): NumPy references, gradcheck, module behaviour."""

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F

OURS = torch.__version__.startswith("0.1")
ours_only = pytest.mark.skipif(not OURS, reason="checks this project's own messages")
rng = np.random.RandomState(0)


def _t(a, requires_grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


# ---------------------------------------------------------------- NumPy references
def np_conv(x, w, b, stride, padding, dilation, groups):
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    n, c = x.shape[:2]
    o, k = w.shape[0], w.shape[2:]
    size = [(x.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros((n, o, *size))
    cg, og = c // groups, o // groups
    for pos in np.ndindex(*size):
        window = tuple(
            slice(
                pos[i] * stride[i], pos[i] * stride[i] + dilation[i] * (k[i] - 1) + 1, dilation[i]
            )
            for i in range(nd)
        )
        patch = x[(slice(None), slice(None)) + window].reshape(n, c, -1)
        for g in range(groups):
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.einsum(
                "nck,ock->no",
                patch[:, g * cg : (g + 1) * cg],
                w[g * og : (g + 1) * og].reshape(og, cg, -1),
            )
    if b is not None:
        out += b.reshape(1, -1, *[1] * nd)
    return out


def np_conv_transpose(x, w, b, stride, padding, output_padding, groups, dilation):
    nd = x.ndim - 2
    n, c = x.shape[:2]
    og, k = w.shape[1], w.shape[2:]
    o = og * groups
    cg = c // groups
    full = [(x.shape[2 + i] - 1) * stride[i] + dilation[i] * (k[i] - 1) + 1 + output_padding[i]
            for i in range(nd)]  # fmt: skip
    out = np.zeros((n, o, *full))
    for pos in np.ndindex(*x.shape[2:]):
        for kp in np.ndindex(*k):
            tgt = tuple(pos[i] * stride[i] + kp[i] * dilation[i] for i in range(nd))
            for g in range(groups):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos]  # (n, cg)
                ws = w[(slice(g * cg, (g + 1) * cg), slice(None)) + kp]  # (cg, og)
                out[(slice(None), slice(g * og, (g + 1) * og)) + tgt] += xs @ ws
    crop = tuple(slice(padding[i], full[i] - padding[i]) for i in range(nd))
    out = out[(slice(None), slice(None)) + crop]
    if b is not None:
        out += b.reshape(1, -1, *[1] * nd)
    return out


def np_pool(x, k, stride, padding, mode, dilation=None, count_include_pad=True):
    nd = x.ndim - 2
    dilation = dilation or (1,) * nd
    fill = -np.inf if mode == "max" else 0.0
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding], constant_values=fill)
    ones = np.pad(np.ones(x.shape[2:]), [(p, p) for p in padding])
    size = [(xp.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(size))
    for pos in np.ndindex(*size):
        window = tuple(
            slice(
                pos[i] * stride[i], pos[i] * stride[i] + dilation[i] * (k[i] - 1) + 1, dilation[i]
            )
            for i in range(nd)
        )
        patch = xp[(slice(None), slice(None)) + window].reshape(*x.shape[:2], -1)
        if mode == "max":
            out[(slice(None), slice(None)) + pos] = patch.max(-1)
        else:
            count = np.prod(k) if count_include_pad else ones[window].sum()
            out[(slice(None), slice(None)) + pos] = patch.sum(-1) / count
    return out


def np_adaptive(x, size, mode):
    nd = x.ndim - 2
    out = np.zeros(x.shape[:2] + tuple(size))
    for pos in np.ndindex(*size):
        window = tuple(
            slice(
                (pos[i] * x.shape[2 + i]) // size[i],
                -((-(pos[i] + 1) * x.shape[2 + i]) // size[i]),
            )
            for i in range(nd)
        )
        patch = x[(slice(None), slice(None)) + window].reshape(*x.shape[:2], -1)
        out[(slice(None), slice(None)) + pos] = patch.max(-1) if mode == "max" else patch.mean(-1)
    return out


def np_log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def np_softmax(x, axis):
    return np.exp(np_log_softmax(x, axis))


# ---------------------------------------------------------------- convolution
CONV_CASES = [
    (1, dict(stride=2, padding=1)),
    (1, dict(dilation=2, groups=2)),
    (2, dict()),
    (2, dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2))),
    (2, dict(groups=2, bias=False)),
    (3, dict(padding=1, stride=2)),
]


@pytest.mark.parametrize("nd,kw", CONV_CASES)
def test_conv_forward_matches_numpy(nd, kw):
    torch.manual_seed(0)
    cls = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}[nd]
    conv = cls(4, 6, 3, **kw).double()
    x = rng.randn(2, 4, *[7 - nd] * nd)
    tup = lambda v: tuple(v) if isinstance(v, tuple) else (v,) * nd  # noqa: E731
    b = None if conv.bias is None else _np(conv.bias)
    expected = np_conv(x, _np(conv.weight), b, tup(kw.get("stride", 1)), tup(kw.get("padding", 0)),
                       tup(kw.get("dilation", 1)), kw.get("groups", 1))  # fmt: skip
    np.testing.assert_allclose(_np(conv(_t(x))), expected, rtol=1e-10, atol=1e-12)
    unbatched = conv(_t(x[0]))
    np.testing.assert_allclose(_np(unbatched), expected[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])  # fmt: skip
def test_conv_padding_modes(mode, np_mode):
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode).double()
    x = rng.randn(1, 2, 5, 6)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (2, 2)], mode=np_mode)
    expected = np_conv(xp, _np(conv.weight), _np(conv.bias), (1, 1), (0, 0), (1, 1), 1)
    np.testing.assert_allclose(_np(conv(_t(x))), expected, rtol=1e-10)


def test_conv_padding_same_and_valid():
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 2, (3, 4), padding="same", dilation=2).double()
    x = _t(rng.randn(1, 2, 7, 8))
    assert conv(x).shape == (1, 2, 7, 8)
    assert nn.Conv1d(1, 1, 3, padding="valid")(torch.randn(1, 1, 9)).shape == (1, 1, 7)
    same_reflect = nn.Conv2d(2, 2, 3, padding="same", padding_mode="reflect")
    assert same_reflect(torch.randn(1, 2, 5, 5)).shape == (1, 2, 5, 5)


def test_conv_gradcheck():
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 4, 3, stride=2, padding=1, groups=2).double()
    x = _t(rng.randn(2, 2, 5, 5), requires_grad=True)
    assert torch.autograd.gradcheck(F.conv2d, (x, conv.weight, conv.bias, 2, 1, 1, 2))
    assert torch.autograd.gradcheck(conv, (x,))


@ours_only
def test_conv_bad_input_names_the_layer_and_shapes():
    conv = nn.Conv2d(3, 4, 3)
    with pytest.raises(RuntimeError) as info:
        conv(torch.randn(2, 5, 8, 8))
    assert "Conv2d(3, 4, kernel_size=(3, 3)" in str(info.value) and "[2, 5, 8, 8]" in str(
        info.value
    )
    with pytest.raises(RuntimeError) as info:
        conv(torch.randn(8, 8))
    assert "Conv2d" in str(info.value) and "[8, 8]" in str(info.value)


def test_batchnorm_and_lstm_bad_input_name_the_layer_and_shapes():
    with pytest.raises(RuntimeError, match=r"BatchNorm2d\(3\): .* 3 channels .*\[2, 4, 5, 5\]"):
        nn.BatchNorm2d(3)(torch.randn(2, 4, 5, 5))
    with pytest.raises(ValueError, match=r"BatchNorm2d: expected 4D input .*\[2, 3\]"):
        nn.BatchNorm2d(3)(torch.randn(2, 3))
    # no weights nor running statistics: any channel count, as PyTorch
    free = nn.BatchNorm2d(3, affine=False, track_running_stats=False)
    assert free(torch.randn(2, 4, 5, 5)).shape == (2, 4, 5, 5)
    with pytest.raises(RuntimeError, match=r"LSTM\(3, 4\): .*Expected 3, got 7"):
        nn.LSTM(3, 4)(torch.randn(5, 2, 7))


@pytest.mark.parametrize("nd,kw", [(1, dict(stride=2, padding=1, output_padding=1)),
                                   (2, dict(stride=2, groups=2)),
                                   (2, dict(padding=1, dilation=2, bias=False))])  # fmt: skip
def test_conv_transpose_matches_numpy(nd, kw):
    torch.manual_seed(0)
    cls = nn.ConvTranspose1d if nd == 1 else nn.ConvTranspose2d
    conv = cls(4, 6, 3, **kw).double()
    x = rng.randn(2, 4, *[4] * nd)
    tup = lambda v: (v,) * nd  # noqa: E731
    b = None if conv.bias is None else _np(conv.bias)
    expected = np_conv_transpose(
        x, _np(conv.weight), b, tup(kw.get("stride", 1)), tup(kw.get("padding", 0)),
        tup(kw.get("output_padding", 0)), kw.get("groups", 1), tup(kw.get("dilation", 1)),
    )  # fmt: skip
    np.testing.assert_allclose(_np(conv(_t(x))), expected, rtol=1e-10, atol=1e-12)
    xg = _t(x[:1, :, :3], requires_grad=True) if nd == 1 else _t(x[:1, :, :3, :3], True)
    assert torch.autograd.gradcheck(conv, (xg,))


def test_conv_transpose_output_size():
    conv = nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1)
    x = torch.randn(1, 2, 4, 4)
    assert conv(x).shape == (1, 2, 7, 7)
    assert conv(x, output_size=[8, 8]).shape == (1, 2, 8, 8)
    assert conv(x, output_size=(1, 2, 8, 8)).shape == (1, 2, 8, 8)
    with pytest.raises(ValueError):
        conv(x, output_size=(10, 10))


# ---------------------------------------------------------------- pooling
def test_max_pool2d_with_indices_and_gradcheck():
    x = rng.randn(2, 3, 7, 6)
    pool = nn.MaxPool2d((3, 2), stride=2, padding=1, return_indices=True)
    out, idx = pool(_t(x))
    np.testing.assert_allclose(_np(out), np_pool(x, (3, 2), (2, 2), (1, 1), "max"))
    flat = x.reshape(2, 3, -1)
    np.testing.assert_allclose(np.take_along_axis(flat, _np(idx).reshape(2, 3, -1), -1),
                               _np(out).reshape(2, 3, -1))  # fmt: skip
    dil = nn.MaxPool2d(2, stride=1, dilation=2)(_t(x))
    np.testing.assert_allclose(_np(dil), np_pool(x, (2, 2), (1, 1), (0, 0), "max", (2, 2)))
    assert torch.autograd.gradcheck(nn.MaxPool2d(2), (_t(rng.randn(1, 2, 4, 4), True),))


def test_max_pool_1d_3d_and_ceil_mode():
    x = rng.randn(2, 3, 9)
    np.testing.assert_allclose(_np(nn.MaxPool1d(3, 2)(_t(x))), np_pool(x, (3,), (2,), (0,), "max"))
    x3 = rng.randn(1, 2, 4, 4, 4)
    np.testing.assert_allclose(
        _np(nn.MaxPool3d(2)(_t(x3))), np_pool(x3, (2,) * 3, (2,) * 3, (0,) * 3, "max")
    )
    assert nn.MaxPool2d(2, ceil_mode=True)(torch.randn(1, 1, 5, 5)).shape == (1, 1, 3, 3)


def test_avg_pool():
    x = rng.randn(2, 3, 7, 6)
    out = nn.AvgPool2d(3, 2, 1)(_t(x))
    np.testing.assert_allclose(_np(out), np_pool(x, (3, 3), (2, 2), (1, 1), "avg"))
    out = nn.AvgPool2d(3, 2, 1, count_include_pad=False)(_t(x))
    np.testing.assert_allclose(
        _np(out), np_pool(x, (3, 3), (2, 2), (1, 1), "avg", count_include_pad=False)
    )
    x1 = rng.randn(2, 3, 8)
    np.testing.assert_allclose(_np(nn.AvgPool1d(2)(_t(x1))), x1.reshape(2, 3, 4, 2).mean(-1))
    x3 = rng.randn(1, 1, 4, 4, 4)
    np.testing.assert_allclose(_np(nn.AvgPool3d(2)(_t(x3))),
                               x3.reshape(1, 1, 2, 2, 2, 2, 2, 2).mean((3, 5, 7)))  # fmt: skip
    assert torch.autograd.gradcheck(nn.AvgPool2d(2, 1), (_t(rng.randn(1, 2, 3, 3), True),))


def test_adaptive_pools():
    x = rng.randn(2, 3, 7, 5)
    np.testing.assert_allclose(
        _np(nn.AdaptiveAvgPool2d((3, 2))(_t(x))), np_adaptive(x, (3, 2), "avg")
    )
    np.testing.assert_allclose(_np(nn.AdaptiveAvgPool2d(1)(_t(x))), x.mean((2, 3), keepdims=True))
    np.testing.assert_allclose(
        _np(nn.AdaptiveAvgPool2d((None, 2))(_t(x))), np_adaptive(x, (7, 2), "avg")
    )
    np.testing.assert_allclose(
        _np(nn.AdaptiveMaxPool2d((4, 3))(_t(x))), np_adaptive(x, (4, 3), "max")
    )
    out, idx = nn.AdaptiveMaxPool2d(2, return_indices=True)(_t(x))
    assert idx.dtype == torch.int64 and idx.shape == (2, 3, 2, 2)
    x1 = rng.randn(2, 3, 10)
    np.testing.assert_allclose(_np(nn.AdaptiveAvgPool1d(4)(_t(x1))), np_adaptive(x1, (4,), "avg"))
    assert torch.autograd.gradcheck(
        nn.AdaptiveAvgPool2d((2, 3)), (_t(rng.randn(1, 2, 5, 4), True),)
    )


# ---------------------------------------------------------------- normalisation
def test_batchnorm_training_eval_and_running_stats():
    bn = nn.BatchNorm2d(3, momentum=0.2).double()
    with torch.no_grad():
        bn.weight.copy_(_t([1.0, 2.0, 0.5]))
        bn.bias.copy_(_t([0.0, -1.0, 3.0]))
    x = rng.randn(4, 3, 5, 2) * 3 + 1
    mean = x.mean((0, 2, 3))
    var = x.var((0, 2, 3))
    w, b = np.array([1.0, 2.0, 0.5]), np.array([0.0, -1.0, 3.0])
    norm = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5)
    expected = norm * w[:, None, None] + b[:, None, None]
    np.testing.assert_allclose(_np(bn(_t(x))), expected, rtol=1e-8, atol=1e-10)
    n = x.size / 3
    np.testing.assert_allclose(_np(bn.running_mean), 0.2 * mean, rtol=1e-10)
    np.testing.assert_allclose(_np(bn.running_var), 0.8 + 0.2 * var * n / (n - 1), rtol=1e-10)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    rm, rv = _np(bn.running_mean), _np(bn.running_var)
    expected = (x - rm[:, None, None]) / np.sqrt(rv[:, None, None] + 1e-5) * w[:, None, None]
    np.testing.assert_allclose(_np(bn(_t(x))), expected + b[:, None, None], rtol=1e-8)
    assert bn.num_batches_tracked.item() == 1


def test_batchnorm_cumulative_average_and_no_running_stats():
    bn = nn.BatchNorm1d(2, momentum=None).double()
    batches = [rng.randn(6, 2) + i for i in range(3)]
    for x in batches:
        bn(_t(x))
    np.testing.assert_allclose(_np(bn.running_mean), np.mean([x.mean(0) for x in batches], 0))
    assert bn.num_batches_tracked.item() == 3
    free = nn.BatchNorm1d(2, track_running_stats=False).double().eval()
    x = rng.randn(5, 2, 3)
    expected = (x - x.mean((0, 2), keepdims=True)) / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(_np(free(_t(x))), expected, rtol=1e-8)
    with pytest.raises(ValueError):
        nn.BatchNorm2d(2)(torch.randn(2, 2, 3))


def test_batchnorm_gradcheck_and_old_checkpoints():
    bn = nn.BatchNorm1d(3).double()
    x = _t(rng.randn(4, 3), requires_grad=True)
    assert torch.autograd.gradcheck(bn, (x,))
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1  # saved before num_batches_tracked existed
    assert nn.BatchNorm1d(3).double().load_state_dict(sd).missing_keys == []


def test_layer_group_instance_norm():
    x = rng.randn(2, 4, 3, 5)
    ln = nn.LayerNorm([3, 5]).double()
    with torch.no_grad():
        ln.weight.normal_()
        ln.bias.normal_()
    m, v = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    expected = (x - m) / np.sqrt(v + 1e-5) * _np(ln.weight) + _np(ln.bias)
    np.testing.assert_allclose(_np(ln(_t(x))), expected, rtol=1e-8, atol=1e-10)
    gn = nn.GroupNorm(2, 4).double()
    g = x.reshape(2, 2, -1)
    expected = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(_np(gn(_t(x))), expected.reshape(x.shape), rtol=1e-8, atol=1e-10)
    inorm = nn.InstanceNorm2d(4).double()
    m, v = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    np.testing.assert_allclose(
        _np(inorm(_t(x))), (x - m) / np.sqrt(v + 1e-5), rtol=1e-8, atol=1e-10
    )
    np.testing.assert_allclose(
        _np(inorm(_t(x[0]))), ((x - m) / np.sqrt(v + 1e-5))[0], rtol=1e-8, atol=1e-10
    )
    xg = _t(rng.randn(2, 4, 3), requires_grad=True)
    for mod in (nn.LayerNorm(3).double(), nn.GroupNorm(2, 4).double(),
                nn.InstanceNorm1d(4, affine=True).double()):  # fmt: skip
        assert torch.autograd.gradcheck(mod, (xg,))
    with pytest.raises(RuntimeError):
        nn.LayerNorm(4)(torch.randn(2, 3))
    with pytest.raises(ValueError):
        nn.GroupNorm(3, 4)


# ---------------------------------------------------------------- softmax, nll, cross-entropy
def test_softmax_modules():
    x = rng.randn(3, 4, 5)
    np.testing.assert_allclose(_np(nn.Softmax(dim=1)(_t(x))), np_softmax(x, 1), rtol=1e-10)
    np.testing.assert_allclose(_np(nn.LogSoftmax(dim=-1)(_t(x))), np_log_softmax(x, -1), rtol=1e-10)
    np.testing.assert_allclose(_np(nn.Softmin(dim=0)(_t(x))), np_softmax(-x, 0), rtol=1e-10)
    np.testing.assert_allclose(_np(nn.Softmax2d()(_t(x))), np_softmax(x, 0), rtol=1e-10)
    assert torch.autograd.gradcheck(lambda a: F.log_softmax(a, 1), (_t(x[:2, :3], True),))


def np_cross_entropy(logits, target, weight=None, ignore_index=-100, reduction="mean", eps=0.0):
    c = logits.shape[1]
    logp = np_log_softmax(logits, 1)
    w = np.ones(c) if weight is None else weight
    if target.dtype.kind == "f":  # class probabilities
        t = target * (1 - eps) + eps / c
        loss = -(t * logp * w.reshape(1, c, *[1] * (logits.ndim - 2))).sum(1)
        return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / logits.shape[0]}[reduction]
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    picked = np.take_along_axis(logp, safe[:, None], 1)[:, 0]
    wt = w[safe] * valid
    nll = -picked * wt
    smooth = -(logp * w.reshape(1, c, *[1] * (logits.ndim - 2))).sum(1) * valid
    if reduction == "none":
        return (1 - eps) * nll + eps / c * smooth
    if reduction == "sum":
        return (1 - eps) * nll.sum() + eps / c * smooth.sum()
    return (1 - eps) * nll.sum() / wt.sum() + eps / c * smooth.sum() / wt.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_and_nll(reduction, weighted, smoothing):
    logits = rng.randn(6, 4, 3)  # (N, C, d1)
    target = rng.randint(0, 4, (6, 3))
    target[0, 1] = target[3, 2] = -100  # ignored
    weight = np.array([0.5, 1.0, 2.0, 1.5]) if weighted else None
    wt = None if weight is None else _t(weight)
    loss = nn.CrossEntropyLoss(weight=wt, reduction=reduction, label_smoothing=smoothing)
    got = loss(_t(logits), torch.tensor(target))
    expected = np_cross_entropy(logits, target, weight, -100, reduction, smoothing)
    np.testing.assert_allclose(_np(got), expected, rtol=1e-9, atol=1e-12)
    if smoothing == 0.0:
        nll = nn.NLLLoss(weight=wt, reduction=reduction)(
            _t(np_log_softmax(logits, 1)), torch.tensor(target)
        )
        np.testing.assert_allclose(_np(nll), expected, rtol=1e-9, atol=1e-12)


def test_cross_entropy_probability_targets_and_gradcheck():
    logits = rng.randn(5, 4)
    probs = np_softmax(rng.randn(5, 4), 1)
    got = F.cross_entropy(_t(logits), _t(probs), label_smoothing=0.1)
    np.testing.assert_allclose(_np(got), np_cross_entropy(logits, probs, eps=0.1), rtol=1e-10)
    x = _t(logits, requires_grad=True)
    target = torch.tensor([0, 3, 1, 1, 2])
    assert torch.autograd.gradcheck(lambda a: F.cross_entropy(a, target), (x,))
    assert torch.autograd.gradcheck(lambda a: F.nll_loss(F.log_softmax(a, 1), target), (x,))
    with pytest.raises((RuntimeError, IndexError)):
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))


# ---------------------------------------------------------------- embedding
def test_embedding_lookup_padding_and_gradient():
    emb = nn.Embedding(5, 3, padding_idx=1).double()
    assert not emb.weight[1].any()
    idx = torch.tensor([[0, 1, 4], [4, 4, 2]])
    out = emb(idx)
    np.testing.assert_allclose(_np(out), _np(emb.weight)[idx.numpy()])
    out.sum().backward()
    grad = _np(emb.weight.grad)
    assert grad[4].tolist() == [3.0] * 3 and grad[0].tolist() == [1.0] * 3
    assert not grad[1].any() and not grad[3].any()


def test_embedding_bag_modes():
    torch.manual_seed(0)
    w = rng.randn(6, 2)
    flat = torch.tensor([0, 2, 2, 5, 1, 3])
    offsets = torch.tensor([0, 3, 4])
    bags = [[0, 2, 2], [5], [1, 3]]
    for mode, red in (("sum", np.sum), ("mean", np.mean), ("max", np.max)):
        bag = nn.EmbeddingBag.from_pretrained(_t(w), mode=mode)
        expected = np.stack([red(w[b], 0) for b in bags])
        np.testing.assert_allclose(_np(bag(flat, offsets)), expected, rtol=1e-10)
    two_d = nn.EmbeddingBag.from_pretrained(_t(w), mode="sum")(torch.tensor([[0, 1], [2, 3]]))
    np.testing.assert_allclose(_np(two_d), np.stack([w[0] + w[1], w[2] + w[3]]))


# ---------------------------------------------------------------- dropout
def test_dropout_train_and_eval():
    torch.manual_seed(0)
    x = torch.ones(200, 200)
    drop = nn.Dropout(0.3)
    y = drop(x)
    kept = y != 0
    assert abs(kept.float().mean().item() - 0.7) < 0.02
    np.testing.assert_allclose(_np(y[kept]), 1 / 0.7, rtol=1e-6)
    assert torch.equal(drop.eval()(x), x)
    ch = nn.Dropout2d(0.5)(torch.ones(4, 50, 3, 3))
    per_channel = ch.reshape(4, 50, 9)
    assert bool(((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all())
    assert torch.equal(nn.AlphaDropout(0.2).eval()(x), x)


def test_rnn_dropout_between_layers():
    torch.manual_seed(0)
    rnn = nn.GRU(3, 4, num_layers=2, dropout=1.0).double()
    x = _t(rng.randn(5, 2, 3))
    out_train = rnn(x)[0]
    # every output of layer 0 is dropped: layer 1 sees zeros
    ref = nn.GRU(4, 4).double()
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(ref, name + "_l0").copy_(getattr(rnn, name + "_l1"))
    np.testing.assert_allclose(
        _np(out_train), _np(ref(torch.zeros(5, 2, 4, dtype=torch.float64))[0])
    )
    rnn.eval()
    assert not torch.equal(rnn(x)[0], out_train)


# ---------------------------------------------------------------- interpolation, padding
def test_upsample_nearest_and_bilinear():
    x = rng.randn(1, 2, 3, 4)
    up = nn.Upsample(scale_factor=2)(_t(x))
    np.testing.assert_allclose(_np(up), x.repeat(2, 2).repeat(2, 3))
    small = np.array([[[[0.0, 1.0], [2.0, 3.0]]]])
    bil = nn.Upsample(size=(3, 3), mode="bilinear", align_corners=True)(_t(small))
    np.testing.assert_allclose(_np(bil)[0, 0], [[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]])
    assert nn.UpsamplingNearest2d(size=(5, 6))(torch.randn(1, 1, 2, 3)).shape == (1, 1, 5, 6)


def test_padding_modules():
    x = rng.randn(1, 2, 3, 4)
    cases = [
        (nn.ZeroPad2d((1, 2, 0, 1)), x, [(0, 1), (1, 2)], {}),
        (nn.ConstantPad1d(2, 3.5), x[0], [(2, 2)], {"constant_values": 3.5}),
        (nn.ReflectionPad2d(1), x, [(1, 1), (1, 1)], {"mode": "reflect"}),
        (nn.ReplicationPad2d((2, 0, 1, 0)), x, [(1, 0), (2, 0)], {"mode": "edge"}),
        (nn.CircularPad2d(1), x, [(1, 1), (1, 1)], {"mode": "wrap"}),
    ]
    for module, a, pads, kw in cases:
        lead = [(0, 0)] * (a.ndim - len(pads))
        np.testing.assert_allclose(_np(module(_t(a))), np.pad(a, lead + pads, **kw))


# ---------------------------------------------------------------- attention
def np_attention(q, k, v, mask=None, scale=None):
    s = (q @ np.swapaxes(k, -1, -2)) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if mask is not None:
        s = s + mask
    w = np_softmax(s, -1)
    return w @ v, w


def test_scaled_dot_product_attention():
    q, k, v = rng.randn(2, 3, 4, 5), rng.randn(2, 3, 6, 5), rng.randn(2, 3, 6, 2)
    out = F.scaled_dot_product_attention(_t(q), _t(k), _t(v))
    np.testing.assert_allclose(_np(out), np_attention(q, k, v)[0], rtol=1e-10)
    bool_mask = rng.uniform(size=(4, 6)) > 0.3
    bool_mask[:, 0] = True
    add = np.where(bool_mask, 0, -np.inf)
    out = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), attn_mask=torch.tensor(bool_mask))
    np.testing.assert_allclose(_np(out), np_attention(q, k, v, add)[0], rtol=1e-10)
    float_mask = rng.randn(4, 6)
    out = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), attn_mask=_t(float_mask), scale=0.3)
    np.testing.assert_allclose(_np(out), np_attention(q, k, v, float_mask, 0.3)[0], rtol=1e-10)
    kk, vv = rng.randn(2, 3, 4, 5), rng.randn(2, 3, 4, 2)
    causal = np.where(np.tril(np.ones((4, 4))) > 0, 0, -np.inf)
    out = F.scaled_dot_product_attention(_t(q), _t(kk), _t(vv), is_causal=True)
    np.testing.assert_allclose(_np(out), np_attention(q, kk, vv, causal)[0], rtol=1e-10)
    args = (_t(q[:1, :1], True), _t(k[:1, :1], True), _t(v[:1, :1], True))
    assert torch.autograd.gradcheck(F.scaled_dot_product_attention, args)


def np_mha(m, q, k, v, key_padding_mask=None, attn_mask=None):
    """Sequence-first (L, N, E) reference from the module's weights."""
    E, H = m.embed_dim, m.num_heads
    w, b = _np(m.in_proj_weight), _np(m.in_proj_bias)
    qp, kp, vp = (
        q @ w[:E].T + b[:E],
        k @ w[E : 2 * E].T + b[E : 2 * E],
        v @ w[2 * E :].T + b[2 * E :],
    )
    L, N, _ = q.shape
    S = k.shape[0]

    def heads(x, n):
        return x.reshape(n, N * H, E // H).transpose(1, 0, 2)

    mask = np.zeros((N * H, L, S))
    if attn_mask is not None:
        mask = (
            mask + np.where(attn_mask, -np.inf, 0) if attn_mask.dtype == bool else mask + attn_mask
        )
    if key_padding_mask is not None:
        kpm = np.where(key_padding_mask, -np.inf, 0).reshape(N, 1, 1, S)
        mask = mask + np.broadcast_to(kpm, (N, H, 1, S)).reshape(N * H, 1, S)
    out, weights = np_attention(heads(qp, L), heads(kp, S), heads(vp, S), mask)
    out = out.transpose(1, 0, 2).reshape(L, N, E)
    out = out @ _np(m.out_proj.weight).T + _np(m.out_proj.bias)
    return out, weights.reshape(N, H, L, S).mean(1)


def test_multihead_attention_against_numpy():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2).double()
    with torch.no_grad():
        m.in_proj_bias.normal_()
        m.out_proj.bias.normal_()
    q, k, v = rng.randn(4, 3, 8), rng.randn(5, 3, 8), rng.randn(5, 3, 8)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[1, 3:] = True
    am = rng.uniform(size=(4, 5)) > 0.7
    am[:, 0] = False
    out, weights = m(
        _t(q), _t(k), _t(v), key_padding_mask=torch.tensor(kpm), attn_mask=torch.tensor(am)
    )
    ref_out, ref_w = np_mha(m, q, k, v, kpm, am)
    np.testing.assert_allclose(_np(out), ref_out, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_np(weights), ref_w, rtol=1e-9, atol=1e-12)
    fm = rng.randn(4, 5)
    out, _ = m(_t(q), _t(k), _t(v), attn_mask=_t(fm))
    np.testing.assert_allclose(_np(out), np_mha(m, q, k, v, attn_mask=fm)[0], rtol=1e-9)
    bf = nn.MultiheadAttention(8, 2, batch_first=True).double()
    bf.load_state_dict(m.state_dict())
    out_bf, _ = bf(_t(q.transpose(1, 0, 2)), _t(k.transpose(1, 0, 2)), _t(v.transpose(1, 0, 2)))
    np.testing.assert_allclose(_np(out_bf).transpose(1, 0, 2), np_mha(m, q, k, v)[0], rtol=1e-9)
    self_out, w = m(_t(q), _t(q), _t(q), need_weights=False)
    assert w is None
    np.testing.assert_allclose(_np(self_out), np_mha(m, q, q, q)[0], rtol=1e-9)
    bool_mask = np.triu(np.ones((4, 4), dtype=bool), 1)
    out, _ = m(_t(q), _t(q), _t(q), attn_mask=torch.tensor(bool_mask))
    np.testing.assert_allclose(_np(out), np_mha(m, q, q, q, attn_mask=bool_mask)[0], rtol=1e-9)
    per_head = m(_t(q), _t(k), _t(v), average_attn_weights=False)[1]
    assert per_head.shape == (3, 2, 4, 5)


def test_multihead_attention_gradcheck_and_kdim():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=5).double()
    q = _t(rng.randn(2, 1, 4), True)
    k = _t(rng.randn(3, 1, 3), True)
    v = _t(rng.randn(3, 1, 5), True)
    assert torch.autograd.gradcheck(lambda a, b, c: m(a, b, c)[0], (q, k, v))


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_encoder_layer_against_numpy(norm_first, activation):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation=activation, norm_first=norm_first)
    layer = layer.double().eval()
    x = rng.randn(5, 3, 8)

    def ln(a, mod):
        m, v = a.mean(-1, keepdims=True), a.var(-1, keepdims=True)
        return (a - m) / np.sqrt(v + 1e-5) * _np(mod.weight) + _np(mod.bias)

    def ff(a):
        h = a @ _np(layer.linear1.weight).T + _np(layer.linear1.bias)
        h = (
            np.maximum(h, 0)
            if activation == "relu"
            else 0.5 * h * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))
        )
        return h @ _np(layer.linear2.weight).T + _np(layer.linear2.bias)

    def sa(a):
        return np_mha(layer.self_attn, a, a, a)[0]

    if norm_first:
        y = x + sa(ln(x, layer.norm1))
        y = y + ff(ln(y, layer.norm2))
    else:
        y = ln(x + sa(x), layer.norm1)
        y = ln(y + ff(y), layer.norm2)
    np.testing.assert_allclose(_np(layer(_t(x))), y, rtol=1e-8, atol=1e-10)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    assert enc(_t(x)).shape == (5, 3, 8)


# ---------------------------------------------------------------- a small training run
def test_small_cnn_training_converges():
    torch.manual_seed(0)
    x = torch.randn(64, 1, 8, 8)
    y = (x[:, 0, :4].sum((1, 2)) > x[:, 0, 4:].sum((1, 2))).long()
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.1),
        nn.Flatten(), nn.Linear(64, 2), nn.LogSoftmax(dim=1),
    )  # fmt: skip
    losses = []
    for _ in range(100):
        loss = F.nll_loss(model(x), y)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
        losses.append(loss.item())
    assert losses[-1] < 0.6 * losses[0]


def test_batch_norm_output_is_its_own_tensor_so_inplace_relu_keeps_a_plain_graph():
    # (a reshaped view would make ReLU(inplace=True) rewrite the view's history each step)
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(inplace=True)
    )
    y = m(torch.randn(2, 3, 8, 8))
    assert y._base is None
    assert type(y.grad_fn).__name__ == "ReluBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "NativeBatchNormBackward0"
