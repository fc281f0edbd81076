"""Convolutions on a real GPU (cuDNN): every result is checked against the same computation
on the CPU, or against float32 on the GPU for the 16-bit dtypes.

Runs only where ``torch.cuda.is_available()``; elsewhere the whole module is skipped
(test_cudnn_cpu.py covers the machines without a GPU). Backward calls pass their gradient
explicitly.
"""

import numpy as np
import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)

CUDA = torch.device("cuda", torch.cuda.current_device())
cudnn = torch.backends.cudnn


@pytest.fixture(autouse=True)
def full_float32():
    """float32 in full precision (no TF32) unless a test asks otherwise; flags restored."""
    with cudnn.flags(enabled=True, benchmark=False, deterministic=False, allow_tf32=False):
        yield


def _values(shape, seed, dtype=torch.float64):
    rng = np.random.default_rng(seed)
    return torch.from_numpy(rng.uniform(-1.0, 1.0, shape)).to(dtype)


# (function, input shape, weight shape, keyword arguments)
CASES = {
    "conv1d": ("conv1d", (2, 4, 11), (6, 4, 3), dict(stride=2, padding=1)),
    "conv2d": ("conv2d", (2, 3, 9, 8), (4, 3, 3, 3), dict(padding=1)),
    "conv2d_strided_dilated_groups": (
        "conv2d",
        (2, 4, 10, 10),
        (6, 2, 3, 3),
        dict(stride=(2, 1), padding=(2, 1), dilation=(2, 1), groups=2),
    ),
    "conv2d_depthwise": ("conv2d", (2, 6, 8, 8), (6, 1, 3, 3), dict(padding=1, groups=6)),
    "conv2d_1x1": ("conv2d", (3, 8, 5, 5), (4, 8, 1, 1), {}),
    "conv3d": ("conv3d", (1, 2, 5, 6, 7), (3, 2, 3, 3, 3), dict(padding=1)),
    "conv_transpose1d_groups": (
        "conv_transpose1d",
        (2, 4, 7),
        (4, 3, 3),
        dict(stride=3, padding=1, output_padding=2, groups=2),
    ),
    "conv_transpose2d": (
        "conv_transpose2d",
        (2, 4, 5, 5),
        (4, 3, 3, 3),
        dict(stride=2, padding=1, output_padding=1),
    ),
    # an output_padding of the stride or more (allowed as it is below the dilation)
    "conv_transpose2d_wide_output_padding": (
        "conv_transpose2d",
        (1, 2, 4, 4),
        (2, 3, 3, 3),
        dict(stride=1, padding=1, dilation=3, output_padding=2),
    ),
    "conv_transpose3d": ("conv_transpose3d", (1, 2, 3, 4, 3), (2, 3, 2, 2, 2), dict(stride=2)),
}


def _run(name, x, w, b, kwargs, gy_dtype=None):
    """(out, x.grad, w.grad, b.grad) of conv `name`, the backward pass from a fixed gradient
    (rounded to `gy_dtype` first, when given)."""
    x = x.detach().requires_grad_(True)
    w = w.detach().requires_grad_(True)
    b = b.detach().requires_grad_(True)
    out = getattr(torch, name)(x, w, b, **kwargs)
    gy = _values(tuple(out.shape), 7, gy_dtype or out.dtype).to(out.dtype).to(out.device)
    out.backward(gy)
    return out.detach(), x.grad, w.grad, b.grad


def _case_inputs(case, dtype):
    name, xs, ws, kwargs = CASES[case]
    out_channels = ws[0] if "transpose" not in name else ws[1] * kwargs.get("groups", 1)
    x, w, b = _values(xs, 1, dtype), _values(ws, 2, dtype), _values((out_channels,), 3, dtype)
    return name, x, w, b, kwargs


def _close(got, want, rtol, atol):
    assert got.device.type == "cuda"
    torch.testing.assert_close(got.cpu(), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CASES))
def test_forward_and_backward_match_the_cpu(case, dtype):
    pytest.importorskip("torch.autograd")
    name, x, w, b, kwargs = _case_inputs(case, dtype)
    want = _run(name, x, w, b, kwargs)
    got = _run(name, x.to(CUDA), w.to(CUDA), b.to(CUDA), kwargs)
    # float32: cuDNN may sum in another order (or by FFT or Winograd); values are O(1)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-12)
    for g, c in zip(got, want):
        assert g.shape == c.shape and g.dtype == dtype
        _close(g, c, **tol)


def test_non_contiguous_input_and_weight():
    pytest.importorskip("torch.autograd")
    base = _values((2, 3, 10, 12), 1, torch.float32)
    x = base[:, :, ::2, 1:].transpose(2, 3)  # strided and transposed: (2, 3, 11, 5)
    w = _values((4, 5, 3, 3), 2, torch.float32)[:, 1:4]  # (4, 3, 3, 3), not contiguous
    b = _values((4,), 3, torch.float32)
    kwargs = dict(padding=1, stride=(1, 2))
    want = _run("conv2d", x, w, b, kwargs)
    xg, wg = base.to(CUDA)[:, :, ::2, 1:].transpose(2, 3), _values((4, 5, 3, 3), 2).to(CUDA)
    wg = wg.to(torch.float32)[:, 1:4]
    assert not xg.is_contiguous() and not wg.is_contiguous()
    got = _run("conv2d", xg, wg, b.to(CUDA), kwargs)
    for g, c in zip(got, want):
        _close(g, c, rtol=1e-4, atol=1e-4)


def test_views_at_odd_offsets():
    """A float16 view starting 2 bytes into its storage (cuDNN wants aligned buffers)."""
    pytest.importorskip("torch.autograd")
    flat = _values((1 + 2 * 3 * 7 * 7,), 1, torch.float16).to(CUDA)
    x = flat[1:].view(2, 3, 7, 7)
    w = _values((4, 3, 3, 3), 2, torch.float16).to(CUDA)
    b = _values((4,), 3, torch.float16).to(CUDA)
    got = _run("conv2d", x, w, b, dict(padding=1))
    want = _run("conv2d", x.float(), w.float(), b.float(), dict(padding=1), gy_dtype=torch.float16)
    for g, c in zip(got, want):
        scale = max(c.abs().max().item(), 1.0)
        torch.testing.assert_close(g.float().cpu(), c.cpu(), rtol=5e-3, atol=5e-3 * scale)


@pytest.mark.parametrize(
    "dtype, tol",
    [(torch.float16, dict(rtol=5e-3, atol=5e-3)), (torch.bfloat16, dict(rtol=3e-2, atol=3e-2))],
    ids=["f16", "bf16"],
)
@pytest.mark.parametrize("case", ["conv2d", "conv2d_depthwise", "conv_transpose2d", "conv3d"])
def test_16_bit_floats_match_float32(case, dtype, tol):
    """The same rounded inputs in float32 on the GPU: only the accumulation and the rounding
    of the results differ (cuDNN accumulates in float32)."""
    pytest.importorskip("torch.autograd")
    name, x, w, b, kwargs = _case_inputs(case, dtype)
    x, w, b = x.to(CUDA), w.to(CUDA), b.to(CUDA)
    got = _run(name, x, w, b, kwargs)
    want = _run(name, x.float(), w.float(), b.float(), kwargs, gy_dtype=dtype)
    for g, c in zip(got, want):
        assert g.dtype == dtype and g.device.type == "cuda"
        scale = max(c.abs().max().item(), 1.0)
        torch.testing.assert_close(
            g.float().cpu(), c.cpu(), rtol=tol["rtol"], atol=tol["atol"] * scale
        )


def test_benchmark_mode_gives_the_same_numbers():
    pytest.importorskip("torch.autograd")
    name, x, w, b, kwargs = _case_inputs("conv2d_strided_dilated_groups", torch.float32)
    x, w, b = x.to(CUDA), w.to(CUDA), b.to(CUDA)
    heuristic = _run(name, x, w, b, kwargs)
    before = torch._C._cuda_cudnn_cached_algorithms()
    with cudnn.flags(enabled=True, benchmark=True, allow_tf32=False):
        measured = _run(name, x, w, b, kwargs)
        again = _run(name, x, w, b, kwargs)
    assert torch._C._cuda_cudnn_cached_algorithms() >= before + 3  # three directions remembered
    for m, h, a in zip(measured, heuristic, again):
        _close(m, h.cpu(), rtol=1e-4, atol=1e-4)
        _close(a, m.cpu(), rtol=1e-4, atol=1e-4)


def test_deterministic_mode_repeats_bit_for_bit():
    pytest.importorskip("torch.autograd")
    name, x, w, b, kwargs = _case_inputs("conv2d", torch.float32)
    x, w, b = x.to(CUDA), w.to(CUDA), b.to(CUDA)
    with cudnn.flags(enabled=True, deterministic=True, allow_tf32=False):
        first = _run(name, x, w, b, kwargs)
        second = _run(name, x, w, b, kwargs)
    for f, s in zip(first[:3], second[:3]):  # out, x.grad, w.grad (b.grad is a plain sum)
        assert torch.equal(f.cpu(), s.cpu())


def test_tf32_when_allowed_stays_close():
    x, w = _values((4, 16, 12, 12), 1, torch.float32), _values((8, 16, 3, 3), 2, torch.float32)
    want = torch.conv2d(x, w, padding=1)
    with cudnn.flags(enabled=True, allow_tf32=True):
        got = torch.conv2d(x.to(CUDA), w.to(CUDA), padding=1)
    _close(got, want, rtol=1e-2, atol=2e-2)


def test_cudnn_reports_itself():
    assert cudnn.is_available() is True
    v = cudnn.version()
    assert isinstance(v, int) and 90000 <= v < 100000, v
    assert cudnn.is_acceptable(torch.ones(1, device=CUDA))
    assert not cudnn.is_acceptable(torch.ones(1))


def test_no_bias_and_an_empty_batch():
    x, w = _values((2, 3, 6, 6), 1, torch.float32), _values((5, 3, 3, 3), 2, torch.float32)
    _close(torch.conv2d(x.to(CUDA), w.to(CUDA)), torch.conv2d(x, w), rtol=1e-4, atol=1e-4)
    empty = torch.conv2d(torch.zeros(0, 3, 6, 6, device=CUDA), w.to(CUDA))
    assert tuple(empty.shape) == (0, 5, 4, 4) and empty.device.type == "cuda"


def test_mixed_devices_are_refused():
    x, w = torch.ones(1, 2, 5, 5, device=CUDA), torch.ones(3, 2, 3, 3)
    with pytest.raises(RuntimeError, match="same device"):
        torch.conv2d(x, w)


def test_a_small_cnn_learns():
    nn = pytest.importorskip("torch.nn")
    optim = pytest.importorskip("torch.optim")
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(8, 8, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(8 * 4 * 4, 10),
    ).to(CUDA)
    opt = optim.SGD(model.parameters(), lr=0.5)
    x = _values((16, 3, 8, 8), 1, torch.float32).to(CUDA)
    target = _values((16, 10), 2, torch.float32).to(CUDA)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = ((model(x) - target) ** 2).mean()
        loss.backward(torch.ones_like(loss))
        opt.step()
        losses.append(loss.item())
    assert all(np.isfinite(losses))
    assert losses[-1] < 0.5 * losses[0], losses
