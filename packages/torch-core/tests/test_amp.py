"""Automatic mixed precision with the core alone: torch.autocast("cpu") and its op lists,
its per-thread state, the deprecated and CUDA names, and GradScaler's algorithm.

Oracles: the dtypes PyTorch documents for its CPU autocast lists; values against NumPy in
float64 within the rounding that the autocast dtype allows (unit roundoff u: 2^-8 for
bfloat16, 2^-11 for float16); GradScaler against a model of its documented algorithm.
(Autograd and torch.nn under autocast: torch-nn's test_amp_nn.py.)"""

import copy
import pickle
import threading
import types

import numpy as np
import pytest

import torch

BF16_U = 2.0**-8
F16_U = 2.0**-11
rng = np.random.RandomState(0)


def _t(*shape, dtype=torch.float32):
    return torch.tensor(rng.randn(*shape)).to(dtype)


def _np(t):
    return t.double().numpy()


def _close_products(out, a, b, u, product=np.matmul):
    """out approximates product(a, b) with both operands and the result rounded to a dtype
    of unit roundoff u (float32 accumulation): |err| <= 4u * product(|a|, |b|)."""
    exact = product(_np(a), _np(b))
    bound = 4 * u * product(np.abs(_np(a)), np.abs(_np(b))) + 1e-6
    assert np.all(np.abs(_np(out) - exact) <= bound), np.max(np.abs(_np(out) - exact) / bound)


# ---------------------------------------------------------------- the API
def test_one_class_under_its_names():
    assert torch.autocast is torch.amp.autocast
    assert torch.amp.autocast_mode.autocast is torch.autocast
    assert torch.amp.GradScaler is torch.amp.grad_scaler.GradScaler
    assert issubclass(torch.cpu.amp.autocast, torch.autocast)
    assert issubclass(torch.cuda.amp.autocast, torch.autocast)
    assert issubclass(torch.cpu.amp.GradScaler, torch.amp.GradScaler)
    assert issubclass(torch.cuda.amp.GradScaler, torch.amp.GradScaler)


def test_default_state():
    assert not torch.is_autocast_enabled("cpu")
    assert not torch.is_autocast_enabled("cuda") and not torch.is_autocast_enabled()
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert torch.get_autocast_dtype("cuda") == torch.float16
    assert torch.is_autocast_cache_enabled()
    assert torch.amp.is_autocast_available("cpu")


def test_region_sets_and_restores_the_state():
    region = torch.autocast("cpu")
    assert region.fast_dtype == torch.bfloat16 and region.device == "cpu"
    with region as entered:
        assert entered is region
        assert torch.is_autocast_enabled("cpu") and not torch.is_autocast_enabled("cuda")
        assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")


def test_region_restores_the_state_after_an_exception():
    with pytest.raises(ValueError), torch.autocast("cpu", dtype=torch.float16):
        raise ValueError
    assert not torch.is_autocast_enabled("cpu")
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16


def test_bad_device_type():
    with pytest.raises(ValueError, match="device_type"):
        torch.autocast(torch.device("cpu"))
    with pytest.raises(RuntimeError):
        torch.autocast("no_such_device")


# ---------------------------------------------------------------- lower precision ops
A, B = _t(5, 7), _t(7, 3)
BA, BB = _t(2, 5, 7), _t(2, 7, 3)

LOWER = {
    "matmul": (lambda: torch.matmul(A, B), (A, B), np.matmul),
    "@": (lambda: A @ B, (A, B), np.matmul),
    "mm": (lambda: torch.mm(A, B), (A, B), np.matmul),
    "Tensor.mm": (lambda: A.mm(B), (A, B), np.matmul),
    "Tensor.matmul": (lambda: A.matmul(B), (A, B), np.matmul),
    "bmm": (lambda: torch.bmm(BA, BB), (BA, BB), np.matmul),
    "Tensor.bmm": (lambda: BA.bmm(BB), (BA, BB), np.matmul),
    "matmul batched": (lambda: torch.matmul(BA, B), (BA, B), np.matmul),
    "einsum (through bmm)": (lambda: torch.einsum("ij,jk->ik", A, B), (A, B), np.matmul),
}


@pytest.mark.parametrize("name", list(LOWER))
@pytest.mark.parametrize("dtype,u", [(torch.bfloat16, BF16_U), (torch.float16, F16_U)])
def test_products_run_in_the_autocast_dtype(name, dtype, u):
    fn, (a, b), product = LOWER[name]
    with torch.autocast("cpu", dtype=dtype):
        out = fn()
    assert out.dtype == dtype
    _close_products(out, a, b, u, product)
    assert fn().dtype == torch.float32  # outside: as written


def test_addmm_family():
    c, bc = _t(5, 3), _t(2, 5, 3)
    with torch.autocast("cpu"):
        outs = {
            "addmm": torch.addmm(c, A, B),
            "Tensor.addmm": c.addmm(A, B),
            "baddbmm": torch.baddbmm(bc, BA, BB),
            "Tensor.baddbmm": bc.baddbmm(BA, BB),
        }
    assert {k: v.dtype for k, v in outs.items()} == dict.fromkeys(outs, torch.bfloat16)
    for name, (bias, a, b) in {"addmm": (c, A, B), "baddbmm": (bc, BA, BB)}.items():
        exact = _np(bias) + _np(a) @ _np(b)
        bound = 4 * BF16_U * (np.abs(_np(bias)) + np.abs(_np(a)) @ np.abs(_np(b)))
        assert np.all(np.abs(_np(outs[name]) - exact) <= bound)


def _np_conv1d(x, w, padding=0):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[-1], axis=2)  # N,C,L,k
    return np.einsum("nclk,ock->nol", win, w)


def _np_conv2d(x, w):
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[-2:], axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", win, w)


def _np_conv_transpose1d(x, w):
    # the adjoint of conv1d: a full correlation with the flipped kernel, channels swapped
    k = w.shape[-1]
    return _np_conv1d(x, np.flip(w, -1).transpose(1, 0, 2), padding=k - 1)


CONV = {
    "conv1d": (torch.conv1d, (2, 3, 9), (4, 3, 3), _np_conv1d),
    "conv2d": (torch.conv2d, (2, 3, 6, 5), (4, 3, 3, 2), _np_conv2d),
    "conv_transpose1d": (torch.conv_transpose1d, (2, 3, 9), (3, 4, 3), _np_conv_transpose1d),
}


@pytest.mark.parametrize("name", list(CONV))
def test_convolutions_run_in_bfloat16(name):
    op, xs, ws, reference = CONV[name]
    x, w = _t(*xs), _t(*ws)
    with torch.autocast("cpu"):
        out = op(x, w)
    assert out.dtype == torch.bfloat16
    exact = reference(_np(x), _np(w))
    bound = 4 * BF16_U * reference(np.abs(_np(x)), np.abs(_np(w))) + 1e-6
    assert out.shape == exact.shape and np.all(np.abs(_np(out) - exact) <= bound)


@pytest.mark.parametrize(
    "op,xs,ws",
    [
        (torch.conv3d, (1, 2, 4, 4, 4), (3, 2, 2, 2, 2)),
        (torch.conv_transpose2d, (1, 2, 4, 4), (2, 3, 2, 2)),
        (torch.conv_transpose3d, (1, 2, 3, 3, 3), (2, 3, 2, 2, 2)),
    ],
)
def test_more_convolutions_run_in_bfloat16(op, xs, ws):
    x, w, b = _t(*xs), _t(*ws), _t(ws[1] if "transpose" in op.__name__ else ws[0])
    with torch.autocast("cpu"):
        out = op(x, w, b)
    assert out.dtype == torch.bfloat16
    full = op(x, w, b)  # float32, outside
    assert full.dtype == torch.float32
    scale = op(x.abs(), w.abs(), b.abs())
    assert bool(((out.double() - full.double()).abs() <= 4 * BF16_U * scale.double()).all())


def test_float64_operands_are_not_cast():
    a, b = A.double(), B.double()
    with torch.autocast("cpu"):
        assert torch.mm(a, b).dtype == torch.float64
        with pytest.raises(RuntimeError):
            torch.mm(a, B)  # B becomes bfloat16: mixed dtypes, as in PyTorch


def test_integer_operands_are_not_cast():
    a = torch.arange(6).reshape(2, 3)
    with torch.autocast("cpu"):
        assert torch.mm(a, a.t()).dtype == torch.int64


def test_out_forms_are_not_cast():
    out = torch.empty(5, 3)
    with torch.autocast("cpu"):
        torch.mm(A, B, out=out)
    assert out.dtype == torch.float32
    assert np.allclose(_np(out), _np(A) @ _np(B), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- float32 and promote ops
def test_float32_ops_take_bfloat16_inputs_to_float32():
    x = _t(4, 4, dtype=torch.bfloat16)
    spd = (x.float() @ x.float().t() + 4 * torch.eye(4)).bfloat16()
    v = _t(4, dtype=torch.bfloat16)
    cases = {
        "prod": (lambda: torch.prod(v), lambda: torch.prod(v.float())),
        "Tensor.prod": (lambda: v.prod(), lambda: v.float().prod()),
        "quantile": (lambda: torch.quantile(v, 0.3), lambda: torch.quantile(v.float(), 0.3)),
        "trace": (lambda: torch.trace(x), lambda: torch.trace(x.float())),
        "linalg.inv": (lambda: torch.linalg.inv(spd), lambda: torch.linalg.inv(spd.float())),
        "inverse": (lambda: torch.inverse(spd), lambda: torch.inverse(spd.float())),
        "linalg.solve": (
            lambda: torch.linalg.solve(spd, v),
            lambda: torch.linalg.solve(spd.float(), v.float()),
        ),
        "linalg.cholesky": (
            lambda: torch.linalg.cholesky(spd),
            lambda: torch.linalg.cholesky(spd.float()),
        ),
        "linalg.svdvals": (
            lambda: torch.linalg.svdvals(x),
            lambda: torch.linalg.svdvals(x.float()),
        ),
        "linalg.eigvalsh": (
            lambda: torch.linalg.eigvalsh(spd),
            lambda: torch.linalg.eigvalsh(spd.float()),
        ),
    }
    for name, (fn, reference) in cases.items():
        with torch.autocast("cpu"):
            out = fn()
        assert out.dtype == torch.float32, name
        assert torch.equal(out, reference()), name


def test_float32_ops_leave_float64_alone():
    x = _t(3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
    with torch.autocast("cpu"):
        assert torch.linalg.inv(x).dtype == torch.float64
        assert torch.prod(x).dtype == torch.float64


def test_promote_ops_take_the_widest_dtype():
    lo, hi = _t(2, 3, dtype=torch.bfloat16), _t(2, 3)
    with torch.autocast("cpu"):
        assert torch.cat([lo, hi]).dtype == torch.float32
        assert torch.cat([lo, lo]).dtype == torch.bfloat16
        assert torch.stack([hi, lo]).dtype == torch.float32
        assert torch.stack([lo, lo]).dtype == torch.bfloat16
        index = torch.tensor([1])
        out = torch.index_copy(lo, 0, index, hi[:1])
        assert out.dtype == torch.float32
        assert torch.equal(out[1], hi[0]) and torch.equal(out[0], lo[0].float())
        assert lo.index_copy(0, index, hi[:1]).dtype == torch.float32


def test_other_ops_are_untouched():
    x, bx = _t(3, 4), _t(3, 4, dtype=torch.bfloat16)
    with torch.autocast("cpu"):
        for t in (x, bx):
            assert (t + t).dtype == t.dtype
            assert torch.exp(t).dtype == t.dtype
            assert t.sum().dtype == t.dtype
            assert torch.relu(t).dtype == t.dtype
            assert torch.softmax(t, -1).dtype == t.dtype
        assert torch.mv(x, x[0]).dtype == torch.float32  # mv is on no list
        assert torch.dot(x[0], x[1]).dtype == torch.float32


# ---------------------------------------------------------------- regions
def test_a_disabled_region_nested_in_an_enabled_one():
    with torch.autocast("cpu"):
        assert torch.mm(A, B).dtype == torch.bfloat16
        with torch.autocast("cpu", enabled=False):
            assert not torch.is_autocast_enabled("cpu")
            inner = torch.mm(A, B)
            assert inner.dtype == torch.float32
        assert torch.is_autocast_enabled("cpu")
        assert torch.mm(inner.t(), inner).dtype == torch.bfloat16


def test_nested_region_dtype_defaults_to_the_current_one():
    with torch.autocast("cpu", dtype=torch.float16):
        with torch.autocast("cpu"):  # dtype: the current one, as in PyTorch
            assert torch.get_autocast_dtype("cpu") == torch.float16
            assert torch.mm(A, B).dtype == torch.float16
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert torch.mm(A, B).dtype == torch.bfloat16
        assert torch.mm(A, B).dtype == torch.float16
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16


def test_decorator():
    @torch.autocast("cpu")
    def product(a, b):
        assert torch.is_autocast_enabled("cpu")
        return torch.mm(a, b)

    assert product(A, B).dtype == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")
    assert product.__name__ == "product"
    with pytest.raises(TypeError):
        torch.autocast("cpu")(3)


@pytest.mark.ours_only  # PyTorch's decorator shares one region: re-entry leaves it on
def test_recursive_decorated_function():
    @torch.autocast("cpu")
    def product(a, b, depth):
        if depth:
            product(a, b, depth - 1)
            assert torch.is_autocast_enabled("cpu")
        return torch.mm(a, b)

    assert product(A, B, 2).dtype == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")


def test_disabled_decorator():
    @torch.autocast("cpu", enabled=False)
    def product(a, b):
        return torch.mm(a, b)

    with torch.autocast("cpu"):
        assert product(A, B).dtype == torch.float32


def test_state_functions():
    torch.set_autocast_enabled("cpu", True)
    try:
        assert torch.is_autocast_enabled("cpu")
        assert torch.mm(A, B).dtype == torch.bfloat16
        torch.set_autocast_dtype("cpu", torch.float16)
        assert torch.mm(A, B).dtype == torch.float16
    finally:
        torch.set_autocast_enabled("cpu", False)
        torch.set_autocast_dtype("cpu", torch.bfloat16)
    assert torch.mm(A, B).dtype == torch.float32
    torch.set_autocast_cache_enabled(False)
    assert not torch.is_autocast_cache_enabled()
    torch.set_autocast_cache_enabled(True)
    assert torch.autocast_increment_nesting() == 1
    assert torch.autocast_decrement_nesting() == 0
    torch.clear_autocast_cache()


def test_deprecated_state_functions_warn():
    with pytest.warns(DeprecationWarning, match=r"is_autocast_enabled\('cpu'\)"):
        assert torch.is_autocast_cpu_enabled() is False
    with pytest.warns(DeprecationWarning, match=r"get_autocast_dtype\('cpu'\)"):
        assert torch.get_autocast_cpu_dtype() == torch.bfloat16
    with pytest.warns(DeprecationWarning, match=r"get_autocast_dtype\('cuda'\)"):
        assert torch.get_autocast_gpu_dtype() == torch.float16


def test_the_state_is_per_thread():
    entered, checked = threading.Event(), threading.Event()
    seen = {}

    def other():
        try:
            entered.wait(60)
            seen["enabled"] = torch.is_autocast_enabled("cpu")
            seen["dtype"] = torch.mm(A, B).dtype
            with torch.autocast("cpu", dtype=torch.float16):
                seen["own"] = torch.mm(A, B).dtype
        finally:
            checked.set()

    thread = threading.Thread(target=other, daemon=True)  # a failure here cannot hang pytest
    thread.start()
    try:
        with torch.autocast("cpu"):
            entered.set()
            checked.wait(60)
            assert torch.mm(A, B).dtype == torch.bfloat16  # the other thread's region: its own
    finally:
        entered.set()
        thread.join(60)
    assert seen == {"enabled": False, "dtype": torch.float32, "own": torch.float16}


def test_a_thread_that_ends_inside_a_region_leaves_none_behind():
    def other():
        torch.set_autocast_enabled("cpu", True)  # never turned off

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert torch.mm(A, B).dtype == torch.float32


@pytest.mark.ours_only
def test_the_wrappers_fast_path_comes_back_after_regions_and_threads():
    from torch.amp import autocast_mode

    with torch.autocast("cpu"):
        assert autocast_mode._active >= 1
    thread = threading.Thread(target=torch.set_autocast_enabled, args=("cpu", True))
    thread.start()
    thread.join()
    assert autocast_mode._active == 0  # the ended thread's state went with it


# ---------------------------------------------------------------- dtypes and devices
def test_float16_is_allowed_on_cpu():
    with torch.autocast("cpu", dtype=torch.float16):
        assert torch.is_autocast_enabled("cpu")
        assert torch.mm(A, B).dtype == torch.float16


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_other_dtypes_warn_and_disable(dtype):
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of torch.bfloat16"):
        region = torch.autocast("cpu", dtype=dtype)
    with region:
        assert not torch.is_autocast_enabled("cpu")
        assert torch.mm(A, B).dtype == torch.float32
    with torch.autocast("cpu", dtype=dtype, enabled=False):  # asked off: no warning
        pass


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without a GPU")
def test_cuda_autocast_warns_and_is_disabled_without_a_gpu():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        region = torch.autocast("cuda")
    with region:
        assert not torch.is_autocast_enabled("cuda")
        assert torch.mm(A, B).dtype == torch.float32
    with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cuda'"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            region = torch.cuda.amp.autocast()
    with region:
        assert not torch.is_autocast_enabled("cuda") and not torch.is_autocast_enabled("cpu")


def test_cpu_amp_autocast_is_deprecated():
    with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cpu'"):
        region = torch.cpu.amp.autocast()
    with region:
        assert torch.mm(A, B).dtype == torch.bfloat16
    with pytest.warns(FutureWarning):
        region = torch.cpu.amp.autocast(dtype=torch.float16)
    with region:
        assert torch.mm(A, B).dtype == torch.float16


def test_torch_cpu():
    assert torch.cpu.is_available() and torch.cpu.device_count() == 1
    assert torch.cpu.current_device() == "cpu"
    assert torch.cpu.synchronize() is None
    with torch.cpu.stream(torch.cpu.current_stream()):
        pass


@pytest.mark.ours_only
def test_wrapped_ops_keep_their_names():
    assert torch.matmul.__name__ == "matmul" and torch.Tensor.mm.__name__ == "mm"
    assert torch.conv2d.__name__ == "conv2d" and torch.cat.__name__ == "cat"
    assert torch.matmul is torch._C.matmul  # one wrapper wherever the op is held


def test_custom_fwd_and_bwd_restore_the_forward_state():
    ctx = types.SimpleNamespace()
    seen = {}

    @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, x):
        seen["fwd"] = (torch.is_autocast_enabled("cpu"), x.dtype)
        return x

    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, g):
        seen["bwd"] = torch.is_autocast_enabled("cpu")
        return g

    with torch.autocast("cpu"):
        forward(ctx, _t(2, dtype=torch.bfloat16))
    backward(ctx, None)
    assert seen == {"fwd": (False, torch.float32), "bwd": False}

    @torch.amp.custom_fwd(device_type="cpu")
    def forward2(ctx, x):
        return x

    with torch.autocast("cpu"):
        forward2(ctx, _t(2))
    backward(ctx, None)
    assert seen["bwd"] is True


# ---------------------------------------------------------------- GradScaler
def _param(grad):
    param = torch.zeros(grad.shape, dtype=grad.dtype)
    param.grad = grad
    return param


class _Optimizer:
    """What GradScaler needs of an optimizer: param_groups of tensors with a .grad."""

    def __init__(self, grads):
        self.params = [_param(g) for g in grads]
        self.param_groups = [{"params": self.params}]
        self.steps = 0

    def step(self):
        self.steps += 1
        return "stepped"


def test_scale_multiplies_by_the_scale():
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    assert scaler.is_enabled() and scaler.get_scale() == 1024.0
    loss = torch.tensor(3.0)
    assert scaler.scale(loss).item() == 3072.0
    half = torch.tensor([0.5, 2.0], dtype=torch.bfloat16)
    assert scaler.scale(half).dtype == torch.bfloat16
    a, (b, c) = scaler.scale([loss, (loss, loss * 2)])
    assert [a.item(), b.item(), c.item()] == [3072.0, 3072.0, 6144.0]
    with pytest.raises(ValueError):
        scaler.scale(3.0)


def test_step_unscales_and_steps_when_the_gradients_are_finite():
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
    scaler.scale(torch.tensor(1.0))
    grads = [torch.tensor([8.0, -16.0]), torch.tensor([[4.0]])]
    opt = _Optimizer(grads)
    assert scaler.step(opt) == "stepped" and opt.steps == 1
    assert grads[0].tolist() == [1.0, -2.0] and grads[1].tolist() == [[0.5]]
    scaler.update()
    assert scaler.get_scale() == 8.0


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_a_non_finite_gradient_skips_the_step_and_halves_the_scale(bad):
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
    scaler.scale(torch.tensor(1.0))
    opt = _Optimizer([torch.tensor([1.0, bad]), torch.tensor([2.0])])
    assert scaler.step(opt) is None and opt.steps == 0
    scaler.update()
    assert scaler.get_scale() == 4.0
    assert scaler.state_dict()["_growth_tracker"] == 0


def _documented_scales(events, init_scale, growth_factor, backoff_factor, growth_interval):
    """The scale after each update: backoff on an inf/NaN iteration (the tracker restarts),
    growth after growth_interval clean iterations in a row."""
    scale, tracker, out = init_scale, 0, []
    for bad in events:
        if bad:
            scale, tracker = scale * backoff_factor, 0
        else:
            tracker += 1
            if tracker == growth_interval:
                scale, tracker = scale * growth_factor, 0
        out.append(scale)
    return out


def test_the_scale_follows_the_documented_algorithm():
    events = [False] * 5 + [True] + [False] * 7 + [True, True] + [False] * 3
    params = dict(init_scale=2.0**10, growth_factor=4.0, backoff_factor=0.25, growth_interval=3)
    scaler = torch.amp.GradScaler("cpu", **params)
    scales, steps = [], 0
    for bad in events:
        scaler.scale(torch.tensor(1.0))
        opt = _Optimizer([torch.tensor([float("nan") if bad else 1.0])])
        scaler.step(opt)
        steps += opt.steps
        scaler.update()
        scales.append(scaler.get_scale())
    assert scales == _documented_scales(events, **params)
    assert steps == events.count(False)


def test_growth_stops_below_infinity():
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**127, growth_interval=1)
    scaler.scale(torch.tensor(1.0))
    scaler.step(_Optimizer([torch.tensor([1.0])]))
    scaler.update()
    assert scaler.get_scale() == 2.0**127  # 2^128 is inf in float32: kept


def test_unscale_then_step_unscales_once():
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale(torch.tensor(1.0))
    grad = torch.tensor([8.0])
    opt = _Optimizer([grad])
    scaler.unscale_(opt)
    assert grad.item() == 2.0
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    assert grad.item() == 2.0 and opt.steps == 1
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        scaler.unscale_(opt)
    scaler.update()
    with pytest.raises(RuntimeError, match="Closure"):
        scaler.step(opt, closure=lambda: None)


def test_update_with_a_new_scale():
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(torch.tensor(1.0))
    scaler.update(new_scale=32.0)
    assert scaler.get_scale() == 32.0
    scaler.update(torch.tensor(16.0))
    assert scaler.get_scale() == 16.0


def test_fp16_gradients_are_refused():
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(torch.tensor(1.0))
    with pytest.raises(ValueError, match="FP16 gradients"):
        scaler.unscale_(_Optimizer([torch.ones(2, dtype=torch.float16)]))


def test_state_dict_round_trip():
    scaler = torch.amp.GradScaler("cpu", init_scale=16.0, growth_interval=2)
    scaler.scale(torch.tensor(1.0))
    scaler.step(_Optimizer([torch.tensor([1.0])]))
    scaler.update()
    state = scaler.state_dict()
    assert state == {
        "scale": 16.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 2,
        "_growth_tracker": 1,
    }
    other = torch.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.state_dict() == state
    other.scale(torch.tensor(1.0))
    other.step(_Optimizer([torch.tensor([1.0])]))
    other.update()
    assert other.get_scale() == 32.0  # the tracker came along: the second clean step grows
    with pytest.raises(RuntimeError, match="empty"):
        other.load_state_dict({})
    clone = pickle.loads(pickle.dumps(scaler))
    assert clone.state_dict() == state
    assert copy.deepcopy(scaler).get_scale() == 16.0


def test_disabled_scaler_passes_through():
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    loss = torch.tensor(3.0)
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    opt = _Optimizer([torch.tensor([float("inf")])])
    scaler.unscale_(opt)
    assert scaler.step(opt) == "stepped" and opt.steps == 1
    scaler.update()
    assert scaler.state_dict() == {}
    scaler.load_state_dict({})  # ignored


def test_bad_factors():
    with pytest.raises(AssertionError, match="growth factor"):
        torch.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor"):
        torch.amp.GradScaler("cpu", backoff_factor=1.5)


def test_cpu_amp_grad_scaler_is_deprecated():
    with pytest.warns(FutureWarning, match=r"torch.amp.GradScaler\('cpu'"):
        scaler = torch.cpu.amp.GradScaler(init_scale=2.0)
    assert scaler.is_enabled() and scaler.scale(torch.tensor(1.0)).item() == 2.0


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without a GPU")
def test_cuda_grad_scaler_disables_itself_without_a_gpu():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        scaler = torch.amp.GradScaler("cuda")
    assert not scaler.is_enabled()
    with pytest.warns(FutureWarning), pytest.warns(UserWarning, match="CUDA is not available"):
        scaler = torch.cuda.amp.GradScaler()
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0
