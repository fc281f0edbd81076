"""Gradients of the NN kernels: gradcheck and gradgradcheck (float64, small shapes) of pooling,
softmax, nll_loss / cross_entropy, the normalisations, embedding, dropout, interpolation and
padding. Their formulas live in formulas/nn.py; the backward kernels have formulas of their
own, so second derivatives go through them too."""

import pytest

import torch
from torch.autograd import gradcheck, gradgradcheck

try:
    import torch.nn.functional as F

    F.max_pool2d  # noqa: B018  (torch-nn present: the re-exports)
except (ImportError, AttributeError):
    F = torch

F64 = torch.float64


def randn(*shape, seed=0):
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def distinct(*shape, seed=0):
    """Values at least 1 / numel apart (no ties for max pooling), shuffled."""
    n = 1
    for s in shape:
        n *= s
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).to(F64)
    return (2 * perm / n - 1).reshape(shape)


def check(fn, *inputs):
    inputs = [t.detach().requires_grad_() if isinstance(t, torch.Tensor) else t for t in inputs]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


# ---------------------------------------------------------------- pooling


@pytest.mark.parametrize(
    "D, args",
    [
        (1, (3, 2, 1, 1, True)),
        (2, (2, None, 0, 1, False)),
        (2, ((3, 2), (2, 1), (1, 0), (1, 2), True)),
        (3, (2, 1, 1, 1, False)),
    ],
)
def test_max_pool(D, args):
    shape = {1: (2, 2, 7), 2: (2, 2, 5, 6), 3: (1, 2, 3, 4, 3)}[D]
    check(lambda x: getattr(F, f"max_pool{D}d")(x, *args), distinct(*shape))


def test_max_pool_unbatched_and_indices_output():
    check(lambda x: F.max_pool2d(x, 2, return_indices=True)[0], distinct(3, 4, 4))
    x = distinct(1, 1, 4).requires_grad_()
    values, indices = F.max_pool1d(x, 2, return_indices=True)
    assert not indices.requires_grad
    values.sum().backward()
    assert torch.equal(x.grad.reshape(-1)[indices.reshape(-1)], torch.ones(2, dtype=F64))


@pytest.mark.parametrize(
    "D, args",
    [
        (1, (3, 2, 1, True, False)),
        (2, (3, 2, 1, False, True)),
        (2, (2, 1, 0, True, True, 3)),
        (3, (2, 2, 1, True, False)),
    ],
)
def test_avg_pool(D, args):
    shape = {1: (2, 2, 7), 2: (2, 2, 5, 6), 3: (1, 2, 3, 4, 3)}[D]
    check(lambda x: getattr(F, f"avg_pool{D}d")(x, *args), randn(*shape))


@pytest.mark.parametrize("D, size", [(1, 3), (2, (3, 4)), (2, (7, 2)), (3, (2, 1, 3))])
def test_adaptive_pools(D, size):
    shape = (2, 2) + (5, 6, 4)[:D] if D > 1 else (2, 2, 5)
    check(lambda x: getattr(F, f"adaptive_avg_pool{D}d")(x, size), randn(*shape))
    if D < 3:
        check(lambda x: getattr(F, f"adaptive_max_pool{D}d")(x, size), distinct(*shape))


def test_max_unpool():
    x = distinct(1, 2, 4, 4)
    _, idx = F.max_pool2d(x, 2, return_indices=True)
    check(lambda v: F.max_unpool2d(v, idx, 2), randn(1, 2, 2, 2))


# ---------------------------------------------------------------- softmax


@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(fn, dim):
    check(lambda x: getattr(F, fn)(x, dim), randn(3, 4, 2))


def test_softmax_methods_dtype_and_zero_dim():
    check(lambda x: x.softmax(1), randn(2, 5))
    check(lambda x: x.log_softmax(0), randn(4))
    x32 = randn(2, 3).float().requires_grad_()
    F.log_softmax(x32, 1, dtype=F64)[:, 0].sum().backward()
    assert x32.grad.dtype == torch.float32
    expect = -torch.softmax(x32.detach().double(), 1)
    expect[:, 0] += 1
    assert torch.allclose(x32.grad.double(), expect, atol=1e-6)
    check(lambda x: F.softmax(x, 0), randn(()))


# ---------------------------------------------------------------- losses


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, weighted):
    w = (
        torch.rand(4, dtype=F64, generator=torch.Generator().manual_seed(1)) + 0.5
        if weighted
        else None
    )
    t = torch.tensor([1, 0, 3, -100, 2])
    check(lambda x: F.nll_loss(x, t, w, reduction=reduction), randn(5, 4))
    tk = torch.tensor([[[1, 0], [3, 2]], [[-100, 2], [0, 0]]])
    check(lambda x: F.nll_loss(x, tk, w, ignore_index=-100, reduction=reduction), randn(2, 4, 2, 2))


def test_nll_loss_unbatched():
    check(lambda x: F.nll_loss(x, torch.tensor(2)), randn(4))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
def test_cross_entropy(reduction, label_smoothing):
    w = torch.tensor([0.5, 1.0, 2.0, 1.5], dtype=F64)
    t = torch.tensor([1, 0, 3, -100, 2])
    check(
        lambda x: F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=label_smoothing),
        randn(5, 4),
    )
    check(
        lambda x: F.cross_entropy(
            x, t.reshape(5, 1), reduction=reduction, label_smoothing=label_smoothing
        ),
        randn(5, 4, 1),
    )
    p = torch.softmax(randn(3, 4, seed=2), 1)
    check(
        lambda x, p: F.cross_entropy(x, p, w, reduction=reduction, label_smoothing=label_smoothing),
        randn(3, 4),
        p,
    )


# ---------------------------------------------------------------- normalisation


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 4)])
def test_batch_norm(training, shape):
    c = shape[1]
    rm, rv = torch.zeros(c, dtype=F64), torch.ones(c, dtype=F64) * 1.5

    def fn(x, w, b):
        return F.batch_norm(x, rm.clone(), rv.clone(), w, b, training, 0.1, 1e-3)

    check(fn, randn(*shape), randn(c, seed=1), randn(c, seed=2))
    check(lambda x: F.batch_norm(x, None, None, training=True), randn(*shape))


def test_batch_norm_backward_kernel_matches_the_composite():
    """The plain backward runs the kernel; a create_graph backward, differentiable ops."""
    x, w, b = (
        randn(4, 3, 5).requires_grad_(),
        randn(3, seed=1).requires_grad_(),
        randn(3, seed=2).requires_grad_(),
    )
    g = randn(4, 3, 5, seed=3)
    for training in (True, False):
        rm, rv = randn(3, seed=4), torch.rand(3, dtype=F64) + 0.5
        out = F.batch_norm(x, rm, rv, w, b, training)
        plain = torch.autograd.grad(out, (x, w, b), g, retain_graph=True)
        composite = torch.autograd.grad(out, (x, w, b), g, create_graph=True)
        for a, c in zip(plain, composite):
            assert torch.allclose(a, c, rtol=1e-10, atol=1e-12)


def test_batch_norm_weight_only_requires_grad():
    x = randn(4, 3)
    w = randn(3, seed=1).requires_grad_()
    (gw,) = torch.autograd.grad(F.batch_norm(x, None, None, w, None, True).pow(2).sum(), (w,))
    assert gw.shape == (3,)
    check(lambda w: F.batch_norm(x, None, None, w, None, True), randn(3, seed=1))


def test_layer_group_instance_norm():
    x = randn(2, 4, 3)
    check(
        lambda x, w, b: F.layer_norm(x, (4, 3), w, b), x, randn(4, 3, seed=1), randn(4, 3, seed=2)
    )
    check(lambda x: F.layer_norm(x, (3,)), x)
    check(lambda x, w, b: F.group_norm(x, 2, w, b), x, randn(4, seed=1), randn(4, seed=2))
    check(
        lambda x, w, b: F.instance_norm(x, None, None, w, b), x, randn(4, seed=1), randn(4, seed=2)
    )


# ---------------------------------------------------------------- embedding


def test_embedding():
    idx = torch.tensor([[1, 2, 1], [0, 3, 1]])
    check(lambda w: F.embedding(idx, w), randn(5, 3))


def test_embedding_padding_idx_and_scale_grad_by_freq():
    idx = torch.tensor([[1, 2, 1], [0, 3, 1]])
    w = randn(5, 3).requires_grad_()
    g = randn(2, 3, 3, seed=1)
    (gw,) = torch.autograd.grad(F.embedding(idx, w, padding_idx=1), (w,), g)
    expect = torch.zeros(5, 3, dtype=F64)
    for i, row in enumerate(idx.reshape(-1).tolist()):
        if row != 1:
            expect[row] += g.reshape(-1, 3)[i]
    assert torch.allclose(gw, expect)
    (gw,) = torch.autograd.grad(F.embedding(idx, w, scale_grad_by_freq=True), (w,), g)
    counts = torch.bincount(idx.reshape(-1), minlength=5).to(F64)
    expect = torch.zeros(5, 3, dtype=F64)
    for i, row in enumerate(idx.reshape(-1).tolist()):
        expect[row] += g.reshape(-1, 3)[i] / counts[row]
    assert torch.allclose(gw, expect)
    # second order: the gradient is linear in g
    (gw,) = torch.autograd.grad(
        F.embedding(idx, w, padding_idx=1), (w,), g.requires_grad_(), create_graph=True
    )
    (gg,) = torch.autograd.grad(gw.sum(), (g,))
    assert torch.equal(gg, (idx != 1).to(F64).unsqueeze(-1).expand(2, 3, 3))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    idx, offsets = torch.tensor([1, 2, 0, 3, 1, 4]), torch.tensor([0, 2, 2])
    check(lambda w: F.embedding_bag(idx, w, offsets, mode=mode), distinct(5, 3))
    if mode == "sum":
        check(
            lambda w, p: F.embedding_bag(idx.reshape(2, 3), w, mode="sum", per_sample_weights=p),
            randn(5, 3),
            randn(2, 3, seed=1),
        )


# ---------------------------------------------------------------- dropout


@pytest.mark.parametrize("fn", ["dropout", "dropout2d", "alpha_dropout"])
def test_dropout(fn):
    def f(x):
        torch.manual_seed(0)  # the same mask for every call gradcheck makes
        return getattr(F, fn)(x, 0.4, training=True)

    check(f, randn(3, 4, 2, 2))
    x = randn(50, 20).requires_grad_()
    torch.manual_seed(1)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    assert torch.equal(x.grad, (y != 0).to(F64) * 2)


# ---------------------------------------------------------------- interpolation and padding


@pytest.mark.parametrize(
    "mode, align, shape, kwargs",
    [
        ("nearest", None, (1, 2, 4), {"size": 7}),
        ("nearest", None, (1, 2, 3, 4), {"scale_factor": 1.5}),
        ("nearest-exact", None, (1, 2, 5, 3), {"size": (3, 4)}),
        ("nearest", None, (1, 1, 2, 3, 2), {"scale_factor": 2}),
        ("linear", False, (1, 2, 4), {"size": 7}),
        ("linear", True, (1, 2, 5), {"size": 3}),
        ("bilinear", False, (1, 2, 3, 4), {"scale_factor": 1.7}),
        ("bilinear", True, (1, 2, 3, 4), {"size": (5, 2)}),
        ("trilinear", False, (1, 1, 2, 3, 2), {"size": (3, 2, 4)}),
        ("area", None, (1, 2, 5, 4), {"size": (2, 3)}),
    ],
)
def test_interpolate(mode, align, shape, kwargs):
    check(lambda x: F.interpolate(x, mode=mode, align_corners=align, **kwargs), randn(*shape))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pads", [(2, 1), (1, 2, 2, -1), (1, 0, 0, 1, 1, 1)])
def test_pad(mode, pads):
    shape = (1, 2, 3, 4, 3)[-(len(pads) // 2 + 2) :]
    extra = (0.5,) if mode == "constant" else ()
    check(lambda x: F.pad(x, pads, mode, *extra), randn(*shape))
