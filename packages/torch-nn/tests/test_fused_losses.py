"""The elementwise losses as one core kernel each (mse, l1, smooth_l1, huber,
binary_cross_entropy, binary_cross_entropy_with_logits: the loss and its reduction in one
pass, one autograd node), and nll_loss / cross_entropy's direct path: against NumPy written
from PyTorch's definitions (values and gradients), the composed path they fall back to,
gradcheck / gradgradcheck in float64, and the errors PyTorch raises."""

import math
import warnings

import numpy as np
import pytest

import torch
import torch.nn.functional as F

REDUCTIONS = ["none", "mean", "sum"]


def log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name -> (call, loss(x, y, w, pw), d/dx, d/dy, input domain), all in float64 NumPy
def _losses():
    def d_smooth(x, y, beta=1.0):
        d = x - y
        return np.where(d <= -beta, -1.0, np.where(d >= beta, 1.0, d / beta))

    def d_huber(x, y, delta=1.0):
        return np.clip(x - y, -delta, delta)

    def bce(x, y):
        lx = np.maximum(np.log(x), -100)
        l1x = np.maximum(np.log1p(-x), -100)
        return (y - 1) * l1x - y * lx

    def bce_logits(x, y, pw):
        return (1 - y) * x - (1 + (pw - 1) * y) * log_sigmoid(x)

    def d_bce_logits(x, y, pw):
        return (pw * y + 1 - y) * sigmoid(x) - pw * y

    return {
        "mse": (F.mse_loss, lambda x, y: (x - y) ** 2, lambda x, y: 2 * (x - y), None, "any"),
        "l1": (F.l1_loss, lambda x, y: np.abs(x - y), lambda x, y: np.sign(x - y), None, "any"),
        "smooth_l1": (
            F.smooth_l1_loss,
            lambda x, y: np.where(np.abs(x - y) < 1, 0.5 * (x - y) ** 2, np.abs(x - y) - 0.5),
            d_smooth,
            None,
            "any",
        ),
        "smooth_l1_beta": (
            lambda x, y, **kw: F.smooth_l1_loss(x, y, beta=0.3, **kw),
            lambda x, y: np.where(
                np.abs(x - y) < 0.3, 0.5 * (x - y) ** 2 / 0.3, np.abs(x - y) - 0.15
            ),
            lambda x, y: d_smooth(x, y, 0.3),
            None,
            "any",
        ),
        "smooth_l1_beta0": (
            lambda x, y, **kw: F.smooth_l1_loss(x, y, beta=0.0, **kw),
            lambda x, y: np.abs(x - y),
            lambda x, y: np.sign(x - y),
            None,
            "any",
        ),
        "huber": (
            lambda x, y, **kw: F.huber_loss(x, y, delta=0.7, **kw),
            lambda x, y: np.where(
                np.abs(x - y) < 0.7, 0.5 * (x - y) ** 2, 0.7 * (np.abs(x - y) - 0.35)
            ),
            lambda x, y: d_huber(x, y, 0.7),
            None,
            "any",
        ),
        "bce": (
            F.binary_cross_entropy,
            bce,
            lambda x, y: (x - y) / np.maximum((1 - x) * x, 1e-12),
            lambda x, y: np.log1p(-x) - np.log(x),
            "prob",
        ),
        "bce_logits": (
            F.binary_cross_entropy_with_logits,
            lambda x, y: bce_logits(x, y, 1.0),
            lambda x, y: sigmoid(x) - y,
            lambda x, y: -x,
            "logit",
        ),
    }


LOSSES = _losses()
NODES = {
    "mse": "MseLossBackward0",
    "l1": "L1LossBackward0",
    "smooth_l1": "SmoothL1LossBackward0",
    "smooth_l1_beta": "SmoothL1LossBackward0",
    "smooth_l1_beta0": "L1LossBackward0",
    "huber": "HuberLossBackward0",
    "bce": "BinaryCrossEntropyBackward0",
    "bce_logits": "BinaryCrossEntropyWithLogitsBackward0",
}


def inputs(domain, shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if domain == "prob":
        x, y = rng.uniform(0.02, 0.98, shape), rng.uniform(0, 1, shape)
    elif domain == "logit":
        x, y = rng.standard_normal(shape) * 3, rng.uniform(0, 1, shape)
    else:
        x, y = rng.standard_normal(shape), rng.standard_normal(shape)
    return x.astype(dtype), y.astype(dtype)


def reduce_np(v, reduction):
    if reduction == "none":
        return v
    if reduction == "sum":
        return v.sum()
    return v.sum() / v.size if v.size else np.nan


def close(got, want, dtype, tol32=2e-5):
    tol = tol32 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(
        np.asarray(got.detach().numpy(), np.float64), want, rtol=tol, atol=tol
    )


SHAPES = [(10,), (4, 7), (3, 2, 5), (), (0,), (70000,)]  # 70000: blocks split across threads


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_values_and_gradients_match_numpy(name, reduction, dtype, shape):
    call, loss, dx, dy, domain = LOSSES[name]
    x, y = inputs(domain, shape, dtype)
    xt = torch.tensor(x, requires_grad=True)
    yt = torch.tensor(y, requires_grad=True)
    out = call(xt, yt, reduction=reduction)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    close(out, reduce_np(loss(x64, y64), reduction), dtype)
    assert type(out.grad_fn).__name__ == NODES[name]
    assert all(f.name() == "AccumulateGrad" for f, _ in out.grad_fn.next_functions)  # one node
    g = np.random.default_rng(1).standard_normal(out.shape).astype(dtype)
    gx, gy = torch.autograd.grad(out, (xt, yt), torch.tensor(g))
    scale = g if reduction == "none" else g / (max(x.size, 1) if reduction == "mean" else 1)
    want_dy = -dx(x64, y64) if dy is None else dy(x64, y64)
    close(gx, scale * dx(x64, y64), dtype, 1e-4)
    close(gy, scale * want_dy, dtype, 1e-4)


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradcheck_and_gradgradcheck(name, reduction):
    call, _, _, _, domain = LOSSES[name]
    x, y = inputs(domain, (3, 4), np.float64, seed=2)
    if name.startswith(("l1", "smooth_l1_beta0")):  # kinks at 0 only: keep away from them
        x = x + np.sign(x - y) * 0.1
    xt, yt = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    fn = lambda a, b: call(a, b, reduction=reduction)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (xt, yt))
    assert torch.autograd.gradgradcheck(fn, (xt, yt))


def test_non_contiguous_and_expanded_inputs():
    x, y = inputs("any", (6, 8), np.float64)
    xt, yt = torch.tensor(x).t(), torch.tensor(y)[:, ::2]
    close(F.mse_loss(xt, torch.tensor(y).t()), ((x.T - y.T) ** 2).mean(), np.float64)
    close(
        F.l1_loss(torch.tensor(x)[:, ::2], yt, reduction="none"),
        np.abs(x[:, ::2] - y[:, ::2]),
        np.float64,
    )
    e = torch.tensor(0.3, dtype=torch.float64).expand(6, 8)
    close(
        F.binary_cross_entropy_with_logits(torch.tensor(x), e),
        (0.7 * x - log_sigmoid(x)).mean(),
        np.float64,
    )


def test_threads_do_not_change_the_result():
    x, y = inputs("logit", (200001,), np.float32)
    xt, yt = torch.tensor(x), torch.tensor(y)
    old = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = [f(xt, yt) for f in (F.mse_loss, F.binary_cross_entropy_with_logits)]
        torch.set_num_threads(2)
        two = [f(xt, yt) for f in (F.mse_loss, F.binary_cross_entropy_with_logits)]
    finally:
        torch.set_num_threads(old)
    assert all(torch.equal(a, b) for a, b in zip(one, two))


# ---------------------------------------------------------------- weights


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("wshape", [(4, 5), (5,), (1, 5), (4, 1)], ids=str)
def test_bce_weight_broadcasts(reduction, wshape):
    x, y = inputs("prob", (4, 5), np.float64)
    w = np.random.default_rng(3).uniform(0.5, 2, wshape)
    xt = torch.tensor(x, requires_grad=True)
    out = F.binary_cross_entropy(xt, torch.tensor(y), weight=torch.tensor(w), reduction=reduction)
    loss = LOSSES["bce"][1](x, y) * w
    close(out, reduce_np(loss, reduction), np.float64)
    assert torch.autograd.gradcheck(
        lambda a: F.binary_cross_entropy(a, torch.tensor(y), torch.tensor(w), reduction=reduction),
        (xt,),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_with_logits_pos_weight(reduction, weighted):
    x, y = inputs("logit", (3, 4), np.float64)
    pw = np.array([0.5, 1.0, 2.0, 3.0])
    w = np.random.default_rng(4).uniform(0.5, 2, (3, 1)) if weighted else 1.0
    xt, yt = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    kw = dict(pos_weight=torch.tensor(pw), weight=torch.tensor(w) if weighted else None)
    out = F.binary_cross_entropy_with_logits(xt, yt, reduction=reduction, **kw)
    loss = ((1 - y) * x - (1 + (pw - 1) * y) * log_sigmoid(x)) * w
    close(out, reduce_np(loss, reduction), np.float64)
    assert type(out.grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward0"
    fn = lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction, **kw)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (xt, yt))
    assert torch.autograd.gradgradcheck(fn, (xt, yt))


def test_weights_that_require_grad_are_refused_as_pytorch_does():
    x, y = torch.rand(3), torch.rand(3)
    w = torch.rand(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="binary_cross_entropy.*'weight'"):
        F.binary_cross_entropy(x, y, weight=w)
    with pytest.raises(RuntimeError, match="binary_cross_entropy_with_logits.*'pos_weight'"):
        F.binary_cross_entropy_with_logits(x, y, pos_weight=w)
    with torch.no_grad():
        F.binary_cross_entropy(x, y, weight=w)  # no graph, nothing to refuse


def test_mse_and_l1_weights_divide_the_mean_by_their_sum():
    x, y = inputs("any", (5,), np.float64)
    w = np.array([1.0, 2.0, 0.0, 3.0, 0.5])
    for fn, e in ((F.mse_loss, (x - y) ** 2), (F.l1_loss, np.abs(x - y))):
        close(
            fn(torch.tensor(x), torch.tensor(y), weight=torch.tensor(w)),
            (e * w).sum() / w.sum(),
            np.float64,
        )
        close(
            fn(torch.tensor(x), torch.tensor(y), weight=torch.tensor(w), reduction="sum"),
            (e * w).sum(),
            np.float64,
        )
        with pytest.raises(ValueError, match="same size"):
            fn(torch.tensor(x), torch.tensor(y), weight=torch.ones(1, dtype=torch.float64))
    hub = np.where(np.abs(x - y) < 1, 0.5 * (x - y) ** 2, np.abs(x - y) - 0.5)
    close(
        F.huber_loss(torch.tensor(x), torch.tensor(y), weight=torch.tensor(w)),
        (hub * w).mean(),
        np.float64,
    )


# ---------------------------------------------------------------- the composed path


def test_broadcasting_falls_back_with_the_warning():
    x, y = inputs("any", (4, 3), np.float64)
    yt = torch.tensor(y[:1])
    for fn, ref in ((F.mse_loss, (x - y[:1]) ** 2), (F.l1_loss, np.abs(x - y[:1]))):
        with pytest.warns(UserWarning, match="different to the input size"):
            out = fn(torch.tensor(x), yt)
        close(out, ref.mean(), np.float64)


def test_mixed_and_16_bit_dtypes_fall_back():
    x, y = inputs("any", (6,), np.float64)
    out = F.mse_loss(torch.tensor(x, dtype=torch.float32), torch.tensor(y))
    assert out.dtype == torch.float64
    close(out, ((x.astype(np.float32) - y) ** 2).mean(), np.float64)
    h = F.smooth_l1_loss(torch.tensor(x, dtype=torch.float16), torch.tensor(y, dtype=torch.float16))
    assert h.dtype == torch.float16
    assert h.item() == pytest.approx(LOSSES["smooth_l1"][1](x, y).mean(), rel=1e-2)
    p, q = inputs("prob", (5,), np.float64)
    b = F.binary_cross_entropy(
        torch.tensor(p, dtype=torch.float16), torch.tensor(q, dtype=torch.float16)
    )
    assert b.item() == pytest.approx(LOSSES["bce"][1](p, q).mean(), rel=1e-2)


def test_legacy_flags_take_the_composed_path():
    x, y = inputs("any", (5,), np.float64)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        out = F.mse_loss(torch.tensor(x), torch.tensor(y), size_average=False)
    close(out, ((x - y) ** 2).sum(), np.float64)


# ---------------------------------------------------------------- errors and special values


def test_bce_range_and_dtype_errors():
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([0.5, 1.5]), torch.tensor([0.5, 0.5]))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([math.nan]), torch.tensor([0.5]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([2.0]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(
            torch.tensor([0.5], dtype=torch.float16), torch.tensor([2.0], dtype=torch.float16)
        )
    with pytest.raises(RuntimeError, match="binary_cross_entropy.*dtype"):
        F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([0.5], dtype=torch.float64))
    with pytest.raises(ValueError, match="target size"):
        F.binary_cross_entropy(torch.tensor([0.5, 0.5]), torch.tensor([0.5]))
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(torch.tensor([0.5, 0.5]), torch.tensor([0.5]))
    with pytest.raises(TypeError, match="binary_cross_entropy.*target"):
        F.binary_cross_entropy(torch.tensor([0.5]), [0.5])


def test_integer_inputs_raise_naming_the_op():
    a = torch.ones(3, dtype=torch.int64)
    for fn, name in (
        (F.mse_loss, "mse_loss"),
        (F.smooth_l1_loss, "smooth_l1_loss"),
        (F.huber_loss, "huber_loss"),
    ):
        with pytest.raises(NotImplementedError, match=name):
            fn(a, a)
    with pytest.raises(NotImplementedError, match="binary_cross_entropy_with_logits"):
        F.binary_cross_entropy_with_logits(a, a.float())
    with pytest.raises(TypeError, match="mse_loss.*target"):
        F.mse_loss(torch.ones(2), 1.0)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.l1_loss(torch.ones(2), torch.ones(2), reduction="avg")
    with pytest.raises(RuntimeError, match="negative values for beta"):
        F.smooth_l1_loss(torch.ones(2), torch.ones(2), beta=-1.0)
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        F.huber_loss(torch.ones(2), torch.ones(2), delta=0.0)


def test_special_values_follow_pytorch():
    # BCE at 0 and 1: logs clamped at -100, gradient by the 1e-12 floor, target gradient inf
    x = torch.tensor([0.0, 1.0, 0.5], requires_grad=True)
    y = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
    out = F.binary_cross_entropy(x, y, reduction="sum")
    assert out.item() == pytest.approx(100.0 + math.log(2))
    out.backward()
    assert x.grad.tolist() == pytest.approx([-5e11, 5e11, 0.0], rel=1e-6)
    assert y.grad[0].item() == math.inf and y.grad[1].item() == -math.inf
    # large logits do not overflow
    z = F.binary_cross_entropy_with_logits(
        torch.tensor([100.0, -100.0]), torch.tensor([0.0, 1.0]), reduction="none"
    )
    assert z.tolist() == pytest.approx([100.0, 100.0])
    # l1's gradient at a NaN difference is 0 (sign), smooth_l1's and huber's NaN
    n = torch.tensor([math.nan, 1.0], requires_grad=True)
    F.l1_loss(n, torch.zeros(2)).backward()
    assert n.grad.tolist() == [0.0, 0.5]
    n.grad = None
    F.smooth_l1_loss(n, torch.zeros(2)).backward()
    assert math.isnan(n.grad[0].item()) and n.grad[1].item() == 0.5
    # empty: mean is NaN, sum is 0
    e = torch.zeros(0)
    assert math.isnan(F.mse_loss(e, e).item()) and F.mse_loss(e, e, reduction="sum").item() == 0


def test_meta_tensors_are_shaped():
    m = torch.empty(3, 4, device="meta")
    assert F.mse_loss(m, m).shape == () and F.mse_loss(m, m).is_meta
    assert F.binary_cross_entropy_with_logits(m, m, reduction="none").shape == (3, 4)


# ---------------------------------------------------------------- nll_loss, cross_entropy


def _nll_ref(logp, t, ignore, reduction):
    keep = t != ignore
    picked = -logp[np.arange(len(t)), np.where(keep, t, 0)] * keep
    if reduction == "none":
        return picked
    return picked.sum() / keep.sum() if reduction == "mean" else picked.sum()


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_and_cross_entropy_direct_path_match_numpy(reduction):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((50, 7))
    t = rng.integers(0, 7, 50)
    t[::9] = -100
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    xt = torch.tensor(x, requires_grad=True)
    close(
        F.nll_loss(torch.tensor(logp), torch.tensor(t), reduction=reduction),
        _nll_ref(logp, t, -100, reduction),
        np.float64,
    )
    out = F.cross_entropy(xt, torch.tensor(t), reduction=reduction)
    close(out, _nll_ref(logp, t, -100, reduction), np.float64)
    assert torch.autograd.gradcheck(
        lambda a: F.cross_entropy(a, torch.tensor(t), reduction=reduction), (xt,)
    )
    u8 = torch.tensor(np.where(t < 0, 0, t), dtype=torch.uint8)  # converted on the checked path
    close(
        F.nll_loss(torch.tensor(logp), u8, reduction=reduction),
        _nll_ref(logp, np.where(t < 0, 0, t), -100, reduction),
        np.float64,
    )


def test_nll_and_cross_entropy_errors_are_those_of_the_checked_path():
    x = torch.randn(4, 3)
    with pytest.raises(IndexError, match="out of bounds"):
        F.nll_loss(x, torch.tensor([0, 1, 3, 0]))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, torch.tensor([0, -1, 2, 0]))
    with pytest.raises(ValueError, match="batch_size"):
        F.nll_loss(x, torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="batch_size"):
        F.cross_entropy(x, torch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="class indices"):
        F.nll_loss(x, torch.zeros(4))
    with pytest.raises(TypeError, match="ignore_index"):
        F.nll_loss(x, torch.tensor([0, 1, 2, 0]), ignore_index=True)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.cross_entropy(x, torch.tensor([0, 1, 2, 0]), reduction="avg")
    # class-probability targets and label smoothing still take their own path
    p = torch.softmax(torch.randn(4, 3), 1)
    ref = -(torch.log_softmax(x, 1) * p).sum(1).mean()
    assert torch.allclose(F.cross_entropy(x, p), ref)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.cross_entropy(x, torch.tensor([0, 1, 2, 0]), label_smoothing=0.1)
