"""Autocast with autograd and torch.nn: layers run in bfloat16, losses in float32, the
casts are recorded so float32 parameters get float32 gradients, and GradScaler trains.

Oracles: PyTorch's documented CPU autocast lists (output dtypes); NumPy in float64 within
the rounding bfloat16 allows (unit roundoff u = 2^-8) for values and gradients; the
float32 computation on the same rounded inputs for the float32 ops."""

import threading

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.functional import linear  # taken at import: must still autocast

U = 2.0**-8
OURS = torch.__version__.startswith("0.1")
rng = np.random.RandomState(0)


def _t(*shape, dtype=torch.float32, requires_grad=False):
    return torch.tensor(rng.randn(*shape)).to(dtype).requires_grad_(requires_grad)


def _np(t):
    return t.detach().double().numpy()


def _within(out, exact, scale, u=U):
    assert np.all(np.abs(_np(out) - exact) <= 4 * u * scale + 1e-6)


# ---------------------------------------------------------------- layers
def test_linear_forward_and_gradients():
    x = _t(6, 4, requires_grad=True)
    w, b = _t(3, 4, requires_grad=True), _t(3, requires_grad=True)
    with torch.autocast("cpu"):
        y = F.linear(x, w, b)
        assert y.dtype == torch.bfloat16
        loss = (y.float() * _t(6, 3)).sum()
    loss.backward()
    assert x.grad.dtype == w.grad.dtype == b.grad.dtype == torch.float32
    X, W, B = _np(x), _np(w), _np(b)
    _within(y, X @ W.T + B, np.abs(X) @ np.abs(W).T + np.abs(B))


def test_linear_gradients_match_numpy():
    x, w = _t(5, 4, requires_grad=True), _t(3, 4, requires_grad=True)
    gy = _t(5, 3)
    with torch.autocast("cpu"):
        y = linear(x, w)
    assert y.dtype == torch.bfloat16
    y.backward(gy.bfloat16())
    X, W, G = _np(x), _np(w), _np(gy.bfloat16())
    _within(w.grad, G.T @ X, np.abs(G).T @ np.abs(X))
    _within(x.grad, G @ W, np.abs(G) @ np.abs(W))


def test_stacked_layers():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = _t(3, 4)
    with torch.autocast("cpu"):
        out = model(x)
    assert out.dtype == torch.bfloat16
    out.float().sum().backward()
    for p in model.parameters():
        assert p.dtype == p.grad.dtype == torch.float32


def test_conv_module():
    conv = nn.Conv2d(2, 3, 3, padding=1)
    x = _t(1, 2, 5, 5)
    with torch.autocast("cpu"):
        y = conv(x)
    assert y.dtype == torch.bfloat16
    reference = conv(x)  # float32
    scale = F.conv2d(x.abs(), conv.weight.abs(), conv.bias.abs(), padding=1)
    assert bool(((y.double() - reference.double()).abs() <= 4 * U * scale.double() + 1e-6).all())
    y.float().sum().backward()
    assert conv.weight.grad.dtype == conv.bias.grad.dtype == torch.float32


@pytest.mark.parametrize(
    "fn",
    [
        lambda: F.prelu(_t(2, 3), _t(3)),
        lambda: F.scaled_dot_product_attention(_t(1, 2, 3, 4), _t(1, 2, 3, 4), _t(1, 2, 3, 4)),
        lambda: F.conv1d(_t(1, 2, 6), _t(3, 2, 3)),
        lambda: F.conv_transpose2d(_t(1, 2, 3, 3), _t(2, 3, 2, 2)),
        lambda: nn.MultiheadAttention(4, 2)(_t(3, 1, 4), _t(3, 1, 4), _t(3, 1, 4))[0],
        lambda: nn.LSTM(4, 3)(_t(5, 2, 4))[0],
        lambda: nn.RNN(4, 3, num_layers=2)(_t(5, 2, 4))[0],
    ],
    ids=["prelu", "sdpa", "conv1d", "conv_transpose2d", "mha", "lstm", "rnn"],
)
def test_lower_precision_layers(fn):
    with torch.autocast("cpu"):
        assert fn().dtype == torch.bfloat16
    assert fn().dtype == torch.float32


def test_lstm_gradients_reach_float32_parameters():
    lstm = nn.LSTM(4, 3, bidirectional=True)
    with torch.autocast("cpu"):
        out, (h, c) = lstm(_t(5, 2, 4))
    assert out.dtype == h.dtype == c.dtype == torch.bfloat16
    out.float().sum().backward()
    for p in lstm.parameters():
        assert p.grad.dtype == torch.float32 and bool(p.grad.abs().sum() > 0)


# ---------------------------------------------------------------- float32 ops
LOSSES = {
    "mse_loss": lambda x, y: F.mse_loss(x, y),
    "l1_loss": lambda x, y: F.l1_loss(x, y),
    "smooth_l1_loss": lambda x, y: F.smooth_l1_loss(x, y),
    "huber_loss": lambda x, y: F.huber_loss(x, y),
    "soft_margin_loss": lambda x, y: F.soft_margin_loss(x, y.sign()),
    "bce_with_logits": lambda x, y: F.binary_cross_entropy_with_logits(x, y.abs() / 4),
    "bce": lambda x, y: F.binary_cross_entropy(x.abs() / 4, y.abs() / 4),
    "kl_div": lambda x, y: F.kl_div(x, y, reduction="batchmean", log_target=True),
    "cross_entropy": lambda x, y: F.cross_entropy(x, torch.tensor([0, 2, 1, 0])),
    "nll_loss": lambda x, y: F.nll_loss(x, torch.tensor([0, 2, 1, 0])),
    "cosine_embedding": lambda x, y: F.cosine_embedding_loss(x, y, torch.tensor([1, -1, 1, 1])),
    "triplet_margin": lambda x, y: F.triplet_margin_loss(x, y, y.flip(0)),
    "margin_ranking": lambda x, y: F.margin_ranking_loss(x, y, y.sign()),
    "hinge_embedding": lambda x, y: F.hinge_embedding_loss(x, y.sign()),
    "poisson_nll": lambda x, y: F.poisson_nll_loss(x, y.abs()),
    "multi_margin": lambda x, y: F.multi_margin_loss(x, torch.tensor([0, 2, 1, 0])),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_losses_run_in_float32(name):
    x, y = _t(4, 3, dtype=torch.bfloat16), _t(4, 3, dtype=torch.bfloat16)
    fn = LOSSES[name]
    with torch.autocast("cpu"):
        loss = fn(x, y)
    assert loss.dtype == torch.float32
    assert torch.allclose(loss, fn(x.float(), y.float()), rtol=1e-6, atol=1e-7)


def test_loss_modules_and_gradients():
    model = nn.Linear(3, 3)
    x, target = _t(4, 3), torch.tensor([0, 1, 2, 1])
    with torch.autocast("cpu"):
        logits = model(x)
        loss = nn.CrossEntropyLoss()(logits, target)
        mse = nn.MSELoss()(logits, torch.zeros(4, 3))
    assert logits.dtype == torch.bfloat16 and loss.dtype == mse.dtype == torch.float32
    (loss + mse).backward()
    assert model.weight.grad.dtype == torch.float32


GRID = _t(1, 2, 2, 2).tanh()


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.avg_pool3d(x, 2),
        lambda x: F.max_pool3d(x, 2),
        lambda x: F.adaptive_avg_pool3d(x, 1),
        lambda x: F.adaptive_max_pool3d(x, 1),
        lambda x: F.pad(x[0, 0], (1, 1), mode="reflect"),
        lambda x: F.pad(x[0], (1, 1, 1, 1), mode="reflect"),
        lambda x: F.pad(x[0], (1, 1, 1, 1), mode="replicate"),
        lambda x: F.grid_sample(x[:, :, 0], GRID, align_corners=False),
    ],
    ids="avg_pool3d max_pool3d adaptive_avg_pool3d adaptive_max_pool3d reflect1d reflect2d "
    "replicate grid_sample".split(),
)
def test_float32_nn_ops(fn):
    x = _t(1, 2, 4, 4, 4, dtype=torch.bfloat16)
    with torch.autocast("cpu"):
        out = fn(x)
    assert out.dtype == torch.float32
    assert torch.equal(out, fn(x.float()))


def test_pad_modes_off_the_list_are_untouched():
    x = _t(1, 2, 4, 4, dtype=torch.bfloat16)
    with torch.autocast("cpu"):
        assert F.pad(x, (1, 1, 1, 1)).dtype == torch.bfloat16
        assert F.pad(x, (1, 1, 1, 1), mode="circular").dtype == torch.bfloat16


def test_activations_and_norms_are_untouched():
    x = _t(2, 3, 4, dtype=torch.bfloat16)
    with torch.autocast("cpu"):
        assert F.relu(x).dtype == F.gelu(x).dtype == F.softmax(x, -1).dtype == torch.bfloat16
        assert F.relu(x.float()).dtype == torch.float32


# ---------------------------------------------------------------- autograd interplay
def test_the_weight_cast_is_made_once_per_region():
    w, x = _t(3, 3, requires_grad=True), _t(2, 3)
    with torch.autocast("cpu"):
        with torch.no_grad():
            x @ w  # no cast kept from here: it has no history
        y, z = x @ w, x @ w
        assert y.requires_grad
        assert y.grad_fn.next_functions[1][0] is z.grad_fn.next_functions[1][0]
    with torch.autocast("cpu", cache_enabled=False):
        y, z = x @ w, x @ w
        assert y.grad_fn.next_functions[1][0] is not z.grad_fn.next_functions[1][0]
    with torch.autocast("cpu"):
        y2 = x @ w  # a new region: a new cast
    assert y2.grad_fn.next_functions[1][0] is not y.grad_fn.next_functions[1][0]
    (y.float().sum() + z.float().sum() + y2.float().sum()).backward()
    assert w.grad.dtype == torch.float32
    expected = 3 * np.repeat(_np(x).sum(0)[:, None], 3, axis=1)
    _within(w.grad, expected, 3 * np.repeat(np.abs(_np(x)).sum(0)[:, None], 3, axis=1))


@pytest.mark.skipif(not OURS, reason="PyTorch reuses the stale cast of an updated weight")
def test_a_training_loop_inside_one_region_sees_the_updated_weights():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = _t(8, 3)
    losses = []
    with torch.autocast("cpu"):
        for _ in range(3):
            opt.zero_grad()
            loss = model(x).float().pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert losses[0] > losses[1] > losses[2]


def test_backward_inside_the_region():
    w = _t(4, 4, requires_grad=True)
    with torch.autocast("cpu"):
        loss = (_t(2, 4) @ w).float().pow(2).sum()
        loss.backward()
    assert w.grad.dtype == torch.float32


def test_nested_disabled_region_with_gradients():
    w1, w2 = _t(4, 4, requires_grad=True), _t(4, 4, requires_grad=True)
    x = _t(2, 4)
    with torch.autocast("cpu"):
        h = x @ w1
        with torch.autocast("cpu", enabled=False):
            out = h.float() @ w2
            assert out.dtype == torch.float32
    out.sum().backward()
    assert w1.grad.dtype == w2.grad.dtype == torch.float32
    H = _np(h)
    _within(w2.grad, np.repeat(H.sum(0)[:, None], 4, axis=1), 0)  # float32 product of h


def test_custom_function_with_custom_fwd():
    class Square(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.seen = (torch.is_autocast_enabled("cpu"), x.dtype)
            return torch.mm(x, x)

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return torch.mm(g, x.t()) + torch.mm(x.t(), g)

    x = _t(3, 3, dtype=torch.bfloat16, requires_grad=True)
    with torch.autocast("cpu"):
        y = Square.apply(x)
    assert y.dtype == torch.float32  # ran with autocast off, on float32 inputs
    y.sum().backward()
    assert x.grad.dtype == torch.bfloat16


def test_regions_in_threads_with_gradients():
    results = {}

    def work(name, enabled):
        layer = nn.Linear(3, 2)
        with torch.autocast("cpu", enabled=enabled):
            out = layer(_t(2, 3))
        out.float().sum().backward()
        results[name] = (out.dtype, layer.weight.grad.dtype)

    threads = [threading.Thread(target=work, args=(n, n == "on")) for n in ("on", "off")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {
        "on": (torch.bfloat16, torch.float32),
        "off": (torch.float32, torch.float32),
    }


# ---------------------------------------------------------------- training with GradScaler
def test_training_with_autocast_and_grad_scaler():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=5)
    x = _t(32, 3)
    y = (x[:, :1] * 2 - x[:, 1:2]).detach()
    losses = []
    for _ in range(40):
        opt.zero_grad()
        with torch.autocast("cpu"):
            loss = F.mse_loss(model(x), y)
        assert loss.dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    assert scaler.get_scale() == 2.0**10 * 2**8  # 40 clean steps, growth every 5
    assert all(p.dtype == torch.float32 for p in model.parameters())


def test_an_overflowing_step_is_skipped():
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    before = [p.detach().clone() for p in model.parameters()]
    with torch.autocast("cpu"):
        loss = model(_t(3, 2)).float().sum()
    scaler.scale(loss).backward()
    model.weight.grad[0, 0] = float("inf")
    assert scaler.step(opt) is None
    scaler.update()
    assert scaler.get_scale() == 2.0
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), before))
    # unscale_ then clip, then step: the gradients are divided by the scale once
    opt.zero_grad()
    loss = model(_t(3, 2)).sum()
    scaler.scale(loss).backward()
    scaled = model.bias.grad.clone()
    scaler.unscale_(opt)
    assert torch.equal(model.bias.grad, scaled / 2.0)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    assert not all(torch.equal(p, q) for p, q in zip(model.parameters(), before))


@pytest.mark.skipif(not OURS, reason="checks where this project's wrappers live")
def test_functional_ops_are_wrapped_where_torch_nn_holds_them():
    assert F.linear is linear and F.linear.__name__ == "linear"
    assert hasattr(F.linear, "__wrapped__") and hasattr(F.mse_loss, "__wrapped__")
    assert F.conv2d is torch.conv2d
