"""The NN kernels (pooling, softmax, losses, normalisation, embedding, dropout, interpolation,
padding) against NumPy references on small shapes, over many configurations; running-stat
updates of batch_norm; dropout statistics; and the errors for bad arguments.

The functions have torch.nn.functional's signatures: they are reached as
torch.nn.functional.<name>, or in torch._nn_ops when torch-nn is not installed.
"""

import itertools
import math

import numpy as np
import pytest

import torch

try:
    import torch.nn.functional as F

    F.max_pool2d  # noqa: B018  (torch-nn present: the re-exports)
except (ImportError, AttributeError):  # torch-core alone: the module that defines them
    from torch import _nn_ops as F

ours_only = pytest.mark.ours_only
F64, F32 = torch.float64, torch.float32


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def T(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def N(t):
    return t.detach().numpy()


def close(actual, expected, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(N(actual), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- pooling references


def _out_len(L, k, s, p, d, ceil):
    eff = d * (k - 1) + 1
    n = (L + 2 * p - eff + (s - 1 if ceil else 0)) // s + 1
    if ceil and (n - 1) * s >= L + p:
        n -= 1
    return n


def np_max_pool(x, D, k, s, p, d, ceil):
    sp = x.shape[-D:]
    outs = [_out_len(sp[i], k[i], s[i], p[i], d[i], ceil) for i in range(D)]
    lead = x.shape[:-D]
    flat = x.reshape(lead + (-1,))
    out = np.empty(lead + tuple(outs))
    idx = np.empty(lead + tuple(outs), dtype=np.int64)
    for o in itertools.product(*map(range, outs)):
        taps = [
            [t for t in (o[i] * s[i] - p[i] + j * d[i] for j in range(k[i])) if 0 <= t < sp[i]]
            for i in range(D)
        ]
        pos = [np.ravel_multi_index(q, sp) for q in itertools.product(*taps)]
        vals = flat[..., pos]
        best = vals.argmax(-1)
        out[(...,) + o] = np.take_along_axis(vals, best[..., None], -1)[..., 0]
        idx[(...,) + o] = np.array(pos)[best]
    return out, idx


def np_avg_pool(x, D, k, s, p, ceil, count_include_pad, divisor):
    sp = x.shape[-D:]
    outs = [_out_len(sp[i], k[i], s[i], p[i], 1, ceil) for i in range(D)]
    out = np.empty(x.shape[:-D] + tuple(outs))
    for o in itertools.product(*map(range, outs)):
        sl, padded, real = [], 1, 1
        for i in range(D):
            start = o[i] * s[i] - p[i]
            end = min(start + k[i], sp[i] + p[i])
            padded *= end - start
            a, b = max(start, 0), min(end, sp[i])
            real *= b - a
            sl.append(slice(a, b))
        div = divisor or (padded if count_include_pad else real)
        out[(...,) + o] = x[(...,) + tuple(sl)].sum(tuple(range(-D, 0))) / div
    return out


def np_adaptive(x, sizes, kind):
    D = len(sizes)
    sp = x.shape[-D:]
    out = np.empty(x.shape[:-D] + tuple(sizes))
    idx = np.empty(x.shape[:-D] + tuple(sizes), dtype=np.int64)
    flat = x.reshape(x.shape[:-D] + (-1,))
    for o in itertools.product(*map(range, sizes)):
        ranges = [
            range(o[i] * sp[i] // sizes[i], -(-(o[i] + 1) * sp[i] // sizes[i])) for i in range(D)
        ]
        pos = [np.ravel_multi_index(q, sp) for q in itertools.product(*ranges)]
        vals = flat[..., pos]
        if kind == "avg":
            out[(...,) + o] = vals.mean(-1)
        else:
            best = vals.argmax(-1)
            out[(...,) + o] = vals.max(-1)
            idx[(...,) + o] = np.array(pos)[best]
    return out, idx


POOL_CONFIGS = [
    # kernel, stride, padding, dilation
    (2, None, 0, 1),
    (3, 2, 1, 1),
    (3, 1, 1, 2),
    (2, 3, 1, 1),
    (3, 3, 1, 1),
]


def _tup(v, D):
    return [v] * D if isinstance(v, int) else list(v)


@pytest.mark.parametrize("D", [1, 2, 3])
@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("config", POOL_CONFIGS)
def test_max_pool(D, ceil_mode, config):
    k, s, p, d = config
    shape = {1: (2, 3, 11), 2: (2, 2, 7, 9), 3: (1, 2, 5, 6, 7)}[D]
    x = rand(*shape, seed=D)
    fn = getattr(F, f"max_pool{D}d")
    out, idx = fn(T(x), k, s, p, d, ceil_mode, True)
    ks, ss = _tup(k, D), _tup(s if s is not None else k, D)
    ref, ref_idx = np_max_pool(x, D, ks, ss, _tup(p, D), _tup(d, D), ceil_mode)
    close(out, ref)
    np.testing.assert_array_equal(N(idx), ref_idx)
    assert torch.equal(fn(T(x), k, s, p, d, ceil_mode), out)


def test_max_pool_per_dim_arguments_unbatched_and_float32():
    x = rand(3, 8, 9, dtype=np.float32)
    out, idx = F.max_pool2d(T(x), (2, 3), (1, 2), (1, 0), (2, 1), return_indices=True)
    ref, ref_idx = np_max_pool(x.astype(np.float64), 2, [2, 3], [1, 2], [1, 0], [2, 1], False)
    assert out.dtype == F32 and out.shape == (3,) + ref.shape[1:]
    close(out, ref, rtol=1e-6)
    np.testing.assert_array_equal(N(idx), ref_idx)


def test_max_pool_nan_and_inf():
    x = torch.tensor([[[1.0, math.nan, 3.0, -math.inf, -math.inf, 2.0]]])
    out, idx = F.max_pool1d(x, 2, return_indices=True)
    assert math.isnan(out[0, 0, 0]) and idx[0, 0, 0] == 1
    assert out[0, 0, 1] == 3.0 and out[0, 0, 2] == 2.0
    y, i = F.max_pool1d(torch.full((1, 1, 4), -math.inf), 2, return_indices=True)
    assert torch.equal(i, torch.tensor([[[0, 2]]])) and bool((y == -math.inf).all())


@pytest.mark.parametrize("D", [1, 2, 3])
@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("count_include_pad", [False, True])
@pytest.mark.parametrize("config", [c for c in POOL_CONFIGS if c[3] == 1])
def test_avg_pool(D, ceil_mode, count_include_pad, config):
    k, s, p, _ = config
    shape = {1: (2, 3, 11), 2: (2, 2, 7, 9), 3: (1, 2, 5, 6, 7)}[D]
    x = rand(*shape, seed=D)
    fn = getattr(F, f"avg_pool{D}d")
    out = fn(T(x), k, s, p, ceil_mode, count_include_pad)
    ref = np_avg_pool(
        x, D, _tup(k, D), _tup(s or k, D), _tup(p, D), ceil_mode, count_include_pad, None
    )
    close(out, ref)


@pytest.mark.parametrize("D", [2, 3])
def test_avg_pool_divisor_override(D):
    x = rand(*((2, 3) + (6,) * D))
    out = getattr(F, f"avg_pool{D}d")(T(x), 3, 2, 1, True, False, divisor_override=5)
    close(out, np_avg_pool(x, D, [3] * D, [2] * D, [1] * D, True, False, 5))


@pytest.mark.parametrize(
    "D, sizes",
    [(1, [3]), (1, [11]), (1, [15]), (2, [3, 4]), (2, [7, 9]), (2, [10, 2]), (3, [2, 3, 4])],
)
def test_adaptive_pools(D, sizes):
    x = rand(*((2, 3) + (5, 11, 9, 7)[-D:]), seed=4)
    ref_avg, _ = np_adaptive(x, sizes, "avg")
    ref_max, ref_idx = np_adaptive(x, sizes, "max")
    close(getattr(F, f"adaptive_avg_pool{D}d")(T(x), sizes), ref_avg)
    out, idx = getattr(F, f"adaptive_max_pool{D}d")(T(x), sizes, True)
    close(out, ref_max)
    np.testing.assert_array_equal(N(idx), ref_idx)


def test_adaptive_pool_none_size_and_int():
    x = rand(2, 5, 7)
    close(F.adaptive_avg_pool2d(T(x), (None, 3)), np_adaptive(x, [5, 3], "avg")[0])
    close(F.adaptive_max_pool2d(T(x), 2), np_adaptive(x, [2, 2], "max")[0])


def test_max_unpool_inverts_max_pool():
    x = T(rand(2, 3, 6, 8))
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    up = F.max_unpool2d(out, idx, 2)
    assert up.shape == x.shape
    mask = up != 0
    assert torch.equal(up[mask], x[mask]) and int(mask.sum()) == out.numel()
    up1 = F.max_unpool1d(*F.max_pool1d(x[0, :, 0], 2, return_indices=True), 2, output_size=[9])
    assert up1.shape == (3, 9)


# ---------------------------------------------------------------- softmax


def np_log_softmax(x, dim):
    m = x.max(dim, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(dim, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softmax_family(dim, dtype):
    x = rand(3, 4, 5, dtype=dtype) * 3
    ref = np_log_softmax(x.astype(np.float64), dim)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else {}
    close(F.log_softmax(T(x), dim), ref, **tol)
    close(F.softmax(T(x), dim), np.exp(ref), **tol)
    close(F.softmin(T(x), dim), np.exp(np_log_softmax(-x.astype(np.float64), dim)), **tol)
    close(T(x).softmax(dim), np.exp(ref), **tol)
    close(T(x).log_softmax(dim), ref, **tol)


def test_softmax_large_rows_and_values():
    x = rand(7, 3000) * 50
    close(F.log_softmax(T(x), 1), np_log_softmax(x, 1))
    big = torch.tensor([[1000.0, 1000.0], [1000.0, 0.0]], dtype=F64)
    close(F.softmax(big, 1), np.array([[0.5, 0.5], [1.0, 0.0]]))
    close(F.log_softmax(big, 1), np.array([[-math.log(2), -math.log(2)], [0.0, -1000.0]]))
    assert bool(F.softmax(torch.tensor([1.0, math.nan]), 0).isnan().all())


def test_softmax_dtype_and_zero_dim():
    x = torch.tensor([[1.0, 2.0]])
    y = F.softmax(x, 1, dtype=F64)
    assert y.dtype == F64
    assert torch.softmax(x, 1, torch.float64).dtype == F64
    assert F.softmax(torch.tensor(3.0), 0).item() == 1.0
    assert F.log_softmax(torch.tensor(3.0), -1).item() == 0.0


def test_softmax_implicit_dim_warns():
    x = torch.ones(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension") as rec:
        y = F.softmax(x)
    close(y, np.full((2, 3), 1 / 3), rtol=1e-6)
    assert rec[0].filename == __file__  # the warning names the caller's line
    with pytest.warns(UserWarning, match="Implicit dimension") as rec:
        F.log_softmax(x)
    assert rec[0].filename == __file__


# ---------------------------------------------------------------- losses


def np_nll(logp, target, weight, ignore_index, reduction):
    """logp: (N, C, *), target: (N, *)"""
    C = logp.shape[1]
    w = np.ones(C) if weight is None else weight
    valid = target != ignore_index
    t = np.where(valid, target, 0)
    picked = np.take_along_axis(logp, t[:, None], 1)[:, 0]
    wt = np.where(valid, w[t], 0.0)
    loss = -wt * picked
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


def np_cross_entropy(x, target, weight, ignore_index, reduction, ls):
    logp = np_log_softmax(x, 1)
    C = x.shape[1]
    wshape = (1, C) + (1,) * (x.ndim - 2)
    w = np.ones(C) if weight is None else weight
    if np.issubdtype(target.dtype, np.floating):
        tgt = target * (1 - ls) + ls / C
        loss = -(logp * tgt * w.reshape(wshape)).sum(1)
        if reduction == "none":
            return loss
        return loss.sum() if reduction == "sum" else loss.sum() / (x.size // C)
    nll = np_nll(logp, target, weight, ignore_index, reduction)
    valid = target != ignore_index
    smooth = np.where(valid, -(logp * w.reshape(wshape)).sum(1), 0.0)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        smooth = smooth.sum() / np.where(valid, w[np.where(valid, target, 0)], 0).sum()
    return (1 - ls) * nll + smooth * ls / C


LOSS_SHAPES = [(5, 4), (3, 4, 2, 5), (2, 3, 6)]


def _targets(shape, seed, ignore=None):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    if ignore is not None:
        t.reshape(-1)[1] = ignore
    return t


@pytest.mark.parametrize("shape", LOSS_SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_nll_loss(shape, reduction, weighted, ignore_index):
    x = np_log_softmax(rand(*shape), 1)
    t = _targets(shape, 1, ignore=-100 if ignore_index == -100 else None)
    w = np.random.default_rng(2).random(shape[1]) + 0.5 if weighted else None
    out = F.nll_loss(
        T(x), T(t), None if w is None else T(w), ignore_index=ignore_index, reduction=reduction
    )
    close(out, np_nll(x, t, w, ignore_index, reduction))


def test_nll_loss_unbatched_and_all_ignored():
    x = np_log_softmax(rand(1, 4), 1)[0]
    close(F.nll_loss(T(x), torch.tensor(2)), -x[2])
    close(F.nll_loss(T(x), torch.tensor(2), reduction="none"), -x[2])
    allign = F.nll_loss(T(np_log_softmax(rand(3, 4), 1)), torch.tensor([-100, -100, -100]))
    assert math.isnan(allign.item())


def test_nll_loss_legacy_reduction_arguments_warn():
    x, t = T(np_log_softmax(rand(5, 4), 1)), T(_targets((5, 4), 3))
    with pytest.warns(UserWarning):
        out = F.nll_loss(x, t, size_average=False)
    close(out, np_nll(N(x), N(t), None, -100, "sum"))


@pytest.mark.parametrize("shape", LOSS_SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_class_indices(shape, reduction, weighted, label_smoothing):
    x = rand(*shape)
    t = _targets(shape, 4, ignore=-100)
    w = np.random.default_rng(5).random(shape[1]) + 0.5 if weighted else None
    out = F.cross_entropy(
        T(x),
        T(t),
        None if w is None else T(w),
        reduction=reduction,
        label_smoothing=label_smoothing,
    )
    close(out, np_cross_entropy(x, t, w, -100, reduction, label_smoothing))


@pytest.mark.parametrize("shape", LOSS_SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
def test_cross_entropy_probabilities(shape, reduction, weighted, label_smoothing):
    x = rand(*shape)
    p = np.exp(np_log_softmax(rand(*shape, seed=6), 1))
    w = np.random.default_rng(7).random(shape[1]) + 0.5 if weighted else None
    out = F.cross_entropy(
        T(x),
        T(p),
        None if w is None else T(w),
        reduction=reduction,
        label_smoothing=label_smoothing,
    )
    close(out, np_cross_entropy(x, p, w, -100, reduction, label_smoothing))


def test_cross_entropy_float32_and_unbatched():
    x = rand(6, 10, dtype=np.float32)
    t = _targets((6, 10), 8)
    out = F.cross_entropy(T(x), T(t))
    assert out.dtype == F32
    close(out, np_cross_entropy(x.astype(np.float64), t, None, -100, "mean", 0.0), rtol=1e-6)
    close(
        F.cross_entropy(T(x[0]), torch.tensor(int(t[0]))),
        np_cross_entropy(x[:1].astype(np.float64), t[:1], None, -100, "mean", 0.0),
        rtol=1e-6,
    )


# ---------------------------------------------------------------- normalisation


def np_norm(x, axes, eps):
    m = x.mean(axes, keepdims=True)
    v = x.var(axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (3, 3, 4, 2)])
@pytest.mark.parametrize("momentum", [0.1, 0.6])
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_training_updates_running_stats(shape, momentum, affine):
    x = rand(*shape)
    c = shape[1]
    rm0, rv0 = np.random.default_rng(1).random(c), np.random.default_rng(2).random(c) + 0.5
    rm, rv = T(rm0.copy()), T(rv0.copy())
    w, b = (rand(c, seed=3), rand(c, seed=4)) if affine else (None, None)
    out = F.batch_norm(
        T(x), rm, rv, w if w is None else T(w), b if b is None else T(b), True, momentum, 1e-3
    )
    axes = (0,) + tuple(range(2, len(shape)))
    view = (1, c) + (1,) * (len(shape) - 2)
    ref = np_norm(x, axes, 1e-3)
    if affine:
        ref = ref * w.reshape(view) + b.reshape(view)
    close(out, ref)
    n = x.size // c
    close(rm, (1 - momentum) * rm0 + momentum * x.mean(axes))
    close(rv, (1 - momentum) * rv0 + momentum * x.var(axes) * n / (n - 1))


def test_batch_norm_eval_uses_running_stats():
    x = rand(4, 3, 5)
    rm, rv = rand(3, seed=1), np.random.default_rng(2).random(3) + 0.5
    w, b = rand(3, seed=3), rand(3, seed=4)
    rmt, rvt = T(rm.copy()), T(rv.copy())
    out = F.batch_norm(T(x), rmt, rvt, T(w), T(b), False, 0.1, 1e-5)
    ref = (x - rm[:, None]) / np.sqrt(rv[:, None] + 1e-5) * w[:, None] + b[:, None]
    close(out, ref)
    close(rmt, rm)  # untouched
    close(rvt, rv)


def test_batch_norm_training_without_running_stats_and_float32():
    x = rand(8, 4, 3, dtype=np.float32)
    out = F.batch_norm(T(x), None, None, training=True)
    close(out, np_norm(x.astype(np.float64), (0, 2), 1e-5), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("normalized_shape", [(5,), (4, 5), (3, 4, 5)])
def test_layer_norm(normalized_shape):
    x = rand(2, 3, 4, 5)
    k = len(normalized_shape)
    w, b = rand(*normalized_shape, seed=1), rand(*normalized_shape, seed=2)
    ref = np_norm(x, tuple(range(-k, 0)), 1e-5)
    close(F.layer_norm(T(x), normalized_shape), ref)
    close(
        F.layer_norm(T(x), normalized_shape, T(w), T(b), 1e-3),
        np_norm(x, tuple(range(-k, 0)), 1e-3) * w + b,
    )
    close(F.layer_norm(T(x), normalized_shape, T(w)), ref * w)


@pytest.mark.parametrize("groups", [1, 2, 6])
def test_group_norm(groups):
    x = rand(3, 6, 4, 2)
    w, b = rand(6, seed=1), rand(6, seed=2)
    g = x.reshape(3, groups, -1)
    ref = np_norm(g, (2,), 1e-5).reshape(x.shape) * w[:, None, None] + b[:, None, None]
    close(F.group_norm(T(x), groups, T(w), T(b)), ref)


def test_instance_norm_with_running_stats():
    x = rand(4, 3, 5, 2)
    rm0, rv0 = rand(3, seed=1), np.random.default_rng(2).random(3) + 0.5
    rm, rv = T(rm0.copy()), T(rv0.copy())
    w, b = rand(3, seed=3), rand(3, seed=4)
    out = F.instance_norm(T(x), rm, rv, T(w), T(b), True, 0.3, 1e-5)
    ref = np_norm(x, (2, 3), 1e-5) * w[:, None, None] + b[:, None, None]
    close(out, ref)
    close(rm, 0.7 * rm0 + 0.3 * x.mean((2, 3)).mean(0))
    close(rv, 0.7 * rv0 + 0.3 * x.var((2, 3), ddof=1).mean(0))
    evald = F.instance_norm(T(x), rm, rv, use_input_stats=False)
    close(evald, (x - N(rm)[:, None, None]) / np.sqrt(N(rv)[:, None, None] + 1e-5))


# ---------------------------------------------------------------- embedding


def test_embedding():
    w = rand(10, 3)
    idx = np.array([[1, 2, 4, 5], [4, 3, 2, 9]])
    close(F.embedding(T(idx), T(w)), w[idx])
    close(F.embedding(T(idx).to(torch.int32), T(w)), w[idx])
    close(F.embedding(torch.tensor(7), T(w)), w[7])


def test_embedding_max_norm_renormalises_used_rows_in_place():
    w = rand(6, 3) * 3
    wt = T(w.copy())
    idx = np.array([0, 2, 2])
    out = F.embedding(T(idx), wt, max_norm=1.0)
    norms = np.linalg.norm(w, axis=1)
    expect = w.copy()
    for r in (0, 2):
        if norms[r] > 1.0:
            expect[r] = w[r] / (norms[r] + 1e-7)
    close(wt, expect)
    close(out, expect[idx])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    w = rand(10, 3)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = [0, 2, 2, 5]
    bags = [idx[a:b] for a, b in zip(offsets, offsets[1:] + [len(idx)])]
    reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    ref = np.stack([reduce(w[b], 0) if len(b) else np.zeros(3) for b in bags])
    close(F.embedding_bag(T(idx), T(w), T(np.array(offsets)), mode=mode), ref)
    last = F.embedding_bag(
        T(idx), T(w), T(np.array(offsets + [8])), mode=mode, include_last_offset=True
    )
    close(last, ref)
    two_d = F.embedding_bag(T(idx.reshape(2, 4)), T(w), mode=mode)
    close(two_d, np.stack([reduce(w[r], 0) for r in idx.reshape(2, 4)]))
    padded = F.embedding_bag(T(idx), T(w), T(np.array(offsets)), mode=mode, padding_idx=4)
    bags_p = [b[b != 4] for b in bags]
    close(padded, np.stack([reduce(w[b], 0) if len(b) else np.zeros(3) for b in bags_p]))


def test_embedding_bag_per_sample_weights():
    w, psw = rand(10, 3), rand(2, 4, seed=1)
    idx = np.array([[1, 2, 4, 5], [4, 3, 2, 9]])
    out = F.embedding_bag(T(idx), T(w), mode="sum", per_sample_weights=T(psw))
    close(out, (w[idx] * psw[..., None]).sum(1))


# ---------------------------------------------------------------- dropout


def test_dropout_statistics_and_scaling():
    torch.manual_seed(0)
    x = torch.ones(200_000, dtype=F64)
    for p in (0.1, 0.5, 0.8):
        y = F.dropout(x, p)
        kept = y != 0
        assert abs(kept.to(F64).mean().item() - (1 - p)) < 0.01
        assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / (1 - p)))
    y32 = F.dropout(torch.ones(1000), 0.5)
    assert y32.dtype == F32 and set(y32.unique().tolist()) <= {0.0, 2.0}


def test_dropout_seeded_and_identity_cases():
    x = torch.arange(1.0, 1001.0)
    torch.manual_seed(3)
    a = F.dropout(x, 0.3)
    torch.manual_seed(3)
    b = F.dropout(x, 0.3)
    assert torch.equal(a, b)
    assert not torch.equal(a, F.dropout(x, 0.3))  # the generator moved on
    g = torch.Generator().manual_seed(1)
    assert F.dropout(x, 0.5, training=False) is x
    assert torch.equal(F.dropout(x, 0.0), x)
    assert bool((F.dropout(x, 1.0) == 0).all())
    y = x.clone()
    out = F.dropout(y, 0.5, inplace=True)
    assert out is y and bool(((y == 0) | (y == 2 * x)).all())
    del g


@pytest.mark.parametrize(
    "fn, shape, mask_dims",
    [
        ("dropout1d", (4, 8, 30), 2),
        ("dropout1d", (30, 30), 1),
        ("dropout2d", (4, 8, 6, 7), 2),
        ("dropout3d", (3, 8, 2, 5, 6), 2),
        ("dropout3d", (30, 2, 5, 6), 1),
    ],
)
def test_channel_dropout_zeroes_whole_channels(fn, shape, mask_dims):
    torch.manual_seed(1)
    x = torch.ones(shape, dtype=F64)
    y = getattr(F, fn)(x, 0.5)
    per_channel = y.reshape(math.prod(shape[:mask_dims]), -1)
    first = per_channel[:, :1]
    assert torch.equal(per_channel, first.expand_as(per_channel))
    assert set(first.reshape(-1).tolist()) <= {0.0, 2.0}
    assert 0 < int((first == 0).sum()) < first.numel()


def test_alpha_dropout_keeps_mean_and_variance():
    torch.manual_seed(2)
    x = torch.randn(200_000, dtype=F64)
    y = F.alpha_dropout(x, 0.2, training=True)
    assert abs(y.mean().item()) < 0.02 and abs(y.std().item() - 1) < 0.02
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False


# ---------------------------------------------------------------- interpolation


def np_taps(L, n, mode, align, scale):
    """The (n, L) matrix of one dim's resampling."""
    M = np.zeros((n, L))
    for o in range(n):
        if mode in ("nearest", "nearest-exact"):
            s = 1 / scale if scale else L / n
            src = math.floor((o + (0.5 if mode == "nearest-exact" else 0)) * s)
            M[o, min(src, L - 1)] = 1
            continue
        if align:
            src = o * ((L - 1) / (n - 1) if n > 1 else 0)
        else:
            s = 1 / scale if scale else L / n
            src = max((o + 0.5) * s - 0.5, 0)
        i0 = min(int(src), L - 1)
        i1 = min(i0 + 1, L - 1)
        l1 = src - i0
        M[o, i0] += 1 - l1
        M[o, i1] += l1
    return M


def np_interpolate(x, sizes, mode, align, scales):
    out = x
    D = len(sizes)
    for i in range(D):
        axis = x.ndim - D + i
        M = np_taps(x.shape[axis], sizes[i], mode, align, scales[i] if scales else None)
        out = np.moveaxis(np.tensordot(out, M, axes=([axis], [1])), -1, axis)
    return out


INTERP_MODES = [
    ("nearest", None),
    ("nearest-exact", None),
    ("linear", False),
    ("linear", True),
    ("bilinear", False),
    ("bilinear", True),
    ("trilinear", False),
    ("trilinear", True),
]


@pytest.mark.parametrize("mode, align", INTERP_MODES)
@pytest.mark.parametrize(
    "size, scale", [(7, None), (3, None), (1, None), (None, 2.0), (None, 1.7), (None, 0.6)]
)
def test_interpolate(mode, align, size, scale):
    dims = {"linear": [1], "bilinear": [2], "trilinear": [3]}.get(mode, [1, 2, 3])
    for D in dims:
        x = rand(*((2, 3) + (4, 5, 6)[:D]), seed=D)
        out = F.interpolate(
            T(x), None if size is None else [size] * D, scale, mode, align_corners=align
        )
        sizes = [size] * D if size else [math.floor(n * scale) for n in x.shape[2:]]
        close(
            out,
            np_interpolate(
                x,
                sizes,
                mode.replace("bi", "").replace("tri", ""),
                align,
                [scale] * D if scale else None,
            ),
        )


def test_interpolate_recompute_scale_factor_and_area():
    x = rand(1, 2, 5, 7)
    out = F.interpolate(T(x), scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)
    close(out, np_interpolate(x, [8, 11], "linear", False, None))
    close(F.interpolate(T(x), size=(2, 3), mode="area"), np_adaptive(x, [2, 3], "avg")[0])


def test_interpolate_float32_matches_its_own_precision():
    x = rand(1, 1, 3, 7, dtype=np.float32)
    out = F.interpolate(T(x), size=(7, 9), mode="nearest")
    close(out, np_interpolate(x.astype(np.float64), [7, 9], "nearest", None, None), rtol=1e-6)


# ---------------------------------------------------------------- padding


def np_pad(x, pads, mode, value=0.0):
    k = len(pads) // 2
    for i in range(k):  # negative padding crops first
        axis = x.ndim - 1 - i
        lo, hi = pads[2 * i], pads[2 * i + 1]
        x = np.take(x, range(max(-lo, 0), x.shape[axis] - max(-hi, 0)), axis=axis)
    width = [(0, 0)] * x.ndim
    for i in range(k):
        width[x.ndim - 1 - i] = (max(pads[2 * i], 0), max(pads[2 * i + 1], 0))
    np_mode = {
        "constant": "constant",
        "reflect": "reflect",
        "replicate": "edge",
        "circular": "wrap",
    }[mode]
    kw = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x, width, mode=np_mode, **kw)


PADS = [(1, 2), (0, 3, 2, 1), (1, 1, 2, 2, 1, 0), (-1, 2), (2, -1, 1, -2), (3, 3, 3, 3)]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pads", PADS)
@pytest.mark.parametrize("ndim", [2, 3, 4, 5])
def test_pad(mode, pads, ndim):
    x = rand(*(2, 3, 4, 5, 6)[-ndim:])
    k = len(pads) // 2
    if k > ndim:
        with pytest.raises(RuntimeError):
            F.pad(T(x), pads, mode)
        return
    if mode != "constant" and ndim not in (k + 1, k + 2):
        with pytest.raises(NotImplementedError):
            F.pad(T(x), pads, mode)
        return
    ok = all(
        (max(pads[2 * i], 0) < x.shape[-1 - i] and max(pads[2 * i + 1], 0) < x.shape[-1 - i])
        for i in range(k)
    )
    if mode == "reflect" and not ok:
        with pytest.raises(RuntimeError):
            F.pad(T(x), pads, mode)
        return
    args = (1.5,) if mode == "constant" else ()
    close(F.pad(T(x), pads, mode, *args), np_pad(x, pads, mode, 1.5))


def test_pad_constant_any_dims_and_integer_tensors():
    x = rand(2, 3, 4)
    close(F.pad(T(x), (1, 1, 0, 2, 1, 0)), np.pad(x, [(1, 0), (0, 2), (1, 1)]))
    ints = torch.arange(6).reshape(2, 3)
    out = F.pad(ints, (1, -1, 1, 0), value=7)
    assert out.dtype == torch.int64
    np.testing.assert_array_equal(N(out), [[7, 7, 7], [7, 0, 1], [7, 3, 4]])


# ---------------------------------------------------------------- errors


def _raises(kind, match, fn, *args, **kwargs):
    with pytest.raises(kind, match=match):
        fn(*args, **kwargs)


@ours_only
def test_errors_name_the_op_shapes_and_dtypes():
    x4 = torch.randn(2, 3, 4, 4)
    _raises(RuntimeError, r"max_pool2d\(\).*4D.*\(4, 4\)", F.max_pool2d, torch.randn(4, 4), 2)
    _raises(
        NotImplementedError,
        r"max_pool2d\(\).*not implemented for 'Bool'",
        F.max_pool2d,
        torch.ones(1, 4, 4, dtype=torch.bool),
        2,
    )
    _raises(RuntimeError, r"avg_pool2d\(\).*pad should be", F.avg_pool2d, x4, 2, 1, 2)
    _raises(RuntimeError, r"max_pool2d\(\).*output size.*too small", F.max_pool2d, x4, 5)
    _raises(RuntimeError, r"avg_pool2d\(\).*divisor", F.avg_pool2d, x4, 2, divisor_override=0)
    _raises(
        NotImplementedError, r"softmax\(\).*'Long'", F.softmax, torch.ones(2, dtype=torch.int64), 0
    )
    _raises(IndexError, r"log_softmax", F.log_softmax, x4, 4)
    logp = torch.randn(3, 5)
    _raises(
        RuntimeError,
        r"nll_loss\(\).*class indices.*torch.float32",
        F.nll_loss,
        logp,
        torch.zeros(3),
    )
    _raises(
        IndexError,
        r"nll_loss\(\).*target 5 is out of bounds for 5 classes",
        F.nll_loss,
        logp,
        torch.tensor([0, 5, 1]),
    )
    _raises(IndexError, r"target -1 is out of bounds", F.nll_loss, logp, torch.tensor([0, -1, 1]))
    _raises(
        ValueError, r"nll_loss\(\).*batch_size \(3\).*\(2\)", F.nll_loss, logp, torch.tensor([0, 1])
    )
    _raises(
        RuntimeError,
        r"nll_loss\(\).*weight.*5 values",
        F.nll_loss,
        logp,
        torch.tensor([0, 1, 2]),
        torch.ones(4),
    )
    _raises(
        ValueError,
        r"not a valid value for reduction",
        F.nll_loss,
        logp,
        torch.tensor([0, 1, 2]),
        reduction="avg",
    )
    _raises(
        RuntimeError,
        r"cross_entropy\(\).*class probabilities.*\(3, 5\)",
        F.cross_entropy,
        logp,
        torch.zeros(3, 4),
    )
    _raises(
        RuntimeError,
        r"label_smoothing",
        F.cross_entropy,
        logp,
        torch.tensor([0, 1, 2]),
        label_smoothing=1.5,
    )
    _raises(
        ValueError,
        r"more than 1 value per channel",
        F.batch_norm,
        torch.randn(1, 3),
        None,
        None,
        training=True,
    )
    _raises(
        RuntimeError,
        r"batch_norm\(\).*running_mean.*3 values.*\(4,\)",
        F.batch_norm,
        x4,
        torch.zeros(4),
        torch.ones(3),
    )
    _raises(RuntimeError, r"layer_norm\(\).*\[\*, 5\].*\(2, 3, 4, 4\)", F.layer_norm, x4, (5,))
    _raises(RuntimeError, r"group_norm\(\).*channels \(3\).*num_groups \(2\)", F.group_norm, x4, 2)
    _raises(
        IndexError,
        r"embedding\(\).*index 10 is out of range for a weight of 10 rows",
        F.embedding,
        torch.tensor([1, 10]),
        torch.randn(10, 3),
    )
    _raises(
        RuntimeError,
        r"embedding\(\).*integer tensor.*torch.float32",
        F.embedding,
        torch.tensor([1.0]),
        torch.randn(10, 3),
    )
    _raises(ValueError, r"dropout\(\).*between 0 and 1, but got 1.5", F.dropout, x4, 1.5)
    _raises(
        RuntimeError,
        r"dropout\(\).*can't be cast to the desired output type Long",
        F.dropout,
        torch.ones(3, dtype=torch.int64),
    )
    _raises(ValueError, r"only one of size or scale_factor", F.interpolate, x4, 3, 2.0)
    _raises(
        NotImplementedError,
        r"bilinear mode needs 4D input",
        F.interpolate,
        torch.randn(1, 2, 3),
        4,
        mode="bilinear",
    )
    _raises(ValueError, r"align_corners option", F.interpolate, x4, 3, align_corners=True)
    _raises(
        RuntimeError,
        r"pad\(\): reflect padding must be smaller.*\(4, 0\) at dim 3 of size 4",
        F.pad,
        x4,
        (4, 0, 0, 0),
        "reflect",
    )
    _raises(RuntimeError, r"divisible by 2", F.pad, x4, (1, 2, 3))
    _raises(RuntimeError, r"pad\(\).*negative output size", F.pad, x4, (-3, -2))


# ---------------------------------------------------------------- layouts, empty inputs, dtypes


def test_non_contiguous_inputs():
    base = rand(2, 3, 9, 7)
    xt = T(base).transpose(2, 3)  # (2, 3, 7, 9), strided
    x = np.ascontiguousarray(base.transpose(0, 1, 3, 2))
    assert not xt.is_contiguous()
    out, idx = F.max_pool2d(xt, 2, return_indices=True)
    ref, ref_idx = np_max_pool(x, 2, [2, 2], [2, 2], [0, 0], [1, 1], False)
    close(out, ref)
    np.testing.assert_array_equal(N(idx), ref_idx)
    close(F.avg_pool2d(xt, 3, 2, 1), np_avg_pool(x, 2, [3, 3], [2, 2], [1, 1], False, True, None))
    close(F.log_softmax(xt, 2), np_log_softmax(x, 2))
    close(F.batch_norm(xt, None, None, training=True), np_norm(x, (0, 2, 3), 1e-5))
    close(F.pad(xt, (1, 2, 2, 1), "reflect"), np_pad(x, (1, 2, 2, 1), "reflect"))
    close(
        F.interpolate(xt, size=(4, 5), mode="bilinear"),
        np_interpolate(x, [4, 5], "linear", False, None),
    )


def test_empty_inputs():
    assert F.max_pool2d(torch.zeros(0, 3, 4, 4), 2).shape == (0, 3, 2, 2)
    assert F.avg_pool1d(torch.zeros(0, 2, 6), 3).shape == (0, 2, 2)
    assert F.adaptive_avg_pool2d(torch.zeros(0, 2, 5, 5), 3).shape == (0, 2, 3, 3)
    assert F.softmax(torch.zeros(0, 5), 1).shape == (0, 5)
    assert F.log_softmax(torch.zeros(3, 0), 1).shape == (3, 0)
    assert F.nll_loss(
        torch.zeros(0, 4), torch.zeros(0, dtype=torch.int64), reduction="none"
    ).shape == (0,)
    assert (
        F.nll_loss(torch.zeros(0, 4), torch.zeros(0, dtype=torch.int64), reduction="sum").item()
        == 0
    )
    assert F.layer_norm(torch.zeros(0, 4), (4,)).shape == (0, 4)
    assert F.embedding(torch.zeros(0, dtype=torch.int64), torch.randn(5, 3)).shape == (0, 3)
    assert F.pad(torch.zeros(2, 0), (1, 1)).shape == (2, 2)
    assert F.dropout(torch.zeros(0, 3), 0.5).shape == (0, 3)


def test_integer_nearest_interpolation_and_padding():
    x = np.arange(24, dtype=np.uint8).reshape(1, 2, 3, 4)
    out = F.interpolate(T(x), scale_factor=2)
    assert out.dtype == torch.uint8
    np.testing.assert_array_equal(
        N(out), np_interpolate(x.astype(np.float64), [6, 8], "nearest", None, [2.0, 2.0])
    )
    for mode in ("reflect", "replicate", "circular"):
        y = F.pad(T(x[0]), (1, 2), mode)
        assert y.dtype == torch.uint8
        np.testing.assert_array_equal(N(y), np_pad(x[0], (1, 2), mode))
    half = F.pad(T(x).to(torch.float16), (1, 1), value=2.5)
    assert half.dtype == torch.float16
    close(half.to(F64), np.pad(x.astype(np.float64), [(0, 0)] * 3 + [(1, 1)], constant_values=2.5))


# float32 softmax rows on AVX-512 and AVX2 (masked tails: row lengths around multiples of 8
# and 16) and the generic loops agree with NumPy in float64, forward and backward, softmax
# and log_softmax, at several row counts.
@pytest.mark.parametrize("rows", [37, 64, 130])
@pytest.mark.parametrize("n", [1, 7, 10, 16, 17, 64, 100, 1000])
def test_softmax_rows_of_every_length_match_numpy(n, rows):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((rows, n)).astype(np.float32) * 4
    g = rng.standard_normal((rows, n)).astype(np.float32)
    a = x.astype(np.float64)
    e = np.exp(a - a.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    y = torch.softmax(torch.from_numpy(x), -1)
    ly = torch.log_softmax(torch.from_numpy(x), -1)
    np.testing.assert_allclose(y.numpy(), sm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ly.numpy(), np.log(sm), rtol=1e-5, atol=1e-5)
    gx = torch._C._softmax_backward(torch.from_numpy(g), y, -1)
    want = sm * (g - (g * sm).sum(1, keepdims=True))
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-4, atol=1e-6)
    lgx = torch._C._log_softmax_backward(torch.from_numpy(g), ly, -1)
    np.testing.assert_allclose(lgx.numpy(), g - sm * g.sum(1, keepdims=True), rtol=1e-4, atol=1e-5)
