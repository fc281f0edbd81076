"""Mixed precision on a real GPU: ``torch.autocast("cuda")`` and ``torch.amp.GradScaler``.

Results are checked against the float32 computation (or the float32 inputs rounded to the
autocast dtype), never against hard-coded values. Skipped where CUDA is not available
(test_cuda_cpu.py and the amp tests cover that case).
"""

import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)
pytest.importorskip("torch.nn")  # (the models; a core-only install has no torch.nn)
pytest.importorskip("torch.optim")

CUDA = torch.device("cuda", torch.cuda.current_device())


def _pair(seed, n=64, k=48, m=32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, k, generator=g), torch.randn(k, m, generator=g)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_autocast_runs_matrix_products_in_the_lower_dtype(dtype):
    a, b = _pair(0)
    with torch.autocast("cuda", dtype=dtype):
        out = a.to(CUDA) @ b.to(CUDA)
        assert torch.is_autocast_enabled("cuda")
    assert out.dtype == dtype and out.device == CUDA
    assert not torch.is_autocast_enabled("cuda")
    # the product of the rounded inputs, in float32
    want = a.to(dtype).float() @ b.to(dtype).float()
    tol = 2e-2 if dtype == torch.bfloat16 else 2e-3
    torch.testing.assert_close(out.float().cpu(), want, rtol=tol, atol=tol * 8)


def test_autocast_leaves_other_devices_and_disabled_regions_alone():
    a, b = _pair(1)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        assert (a @ b).dtype == torch.float32  # CPU tensors: CUDA autocast does not touch them
        with torch.autocast("cuda", enabled=False):
            assert (a.to(CUDA) @ b.to(CUDA)).dtype == torch.float32
        assert (a.to(CUDA) @ b.to(CUDA)).dtype == torch.bfloat16
        assert (a.to(CUDA).double() @ b.to(CUDA).double()).dtype == torch.float64


def test_deprecated_cuda_amp_autocast_is_float16():
    a, b = _pair(2)
    with pytest.warns(FutureWarning), torch.cuda.amp.autocast():
        out = torch.mm(a.to(CUDA), b.to(CUDA))
    assert out.dtype == torch.float16


def test_autocast_gradients_of_float32_weights_are_float32():
    torch.manual_seed(0)
    layer = torch.nn.Linear(16, 8).to(CUDA)
    x = torch.randn(4, 16, device=CUDA)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = layer(x)
    assert y.dtype == torch.bfloat16
    y.float().sum().backward()
    assert layer.weight.grad.dtype == torch.float32
    assert layer.weight.grad.device == CUDA
    # d(sum(x @ W^T + b))/dW = column sums of x, for each output row (inputs rounded to bf16)
    want = x.to(torch.bfloat16).float().sum(0).expand(8, 16)
    torch.testing.assert_close(layer.weight.grad, want, rtol=2e-2, atol=2e-2)


def test_grad_scaler_training_loop_decreases_the_loss():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)
    ).to(CUDA)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cuda")
    x = torch.randn(256, 32, device=CUDA)
    target = x[:, :1] * 2 - x[:, 1:2]
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x).float(), target)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert scaler.get_scale() == 2.0**16  # every step finite: never backed off
    assert losses[-1] < 0.5 * losses[0], losses


def test_grad_scaler_skips_a_step_with_an_infinite_gradient_and_backs_off():
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 1).to(CUDA)
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda", init_scale=1024.0)
    before = layer.weight.detach().clone()
    loss = layer(torch.randn(8, 4, device=CUDA)).sum()
    scaler.scale(loss).backward()
    layer.bias.grad.fill_(float("inf"))
    assert scaler.step(opt) is None  # skipped
    scaler.update()
    assert torch.equal(layer.weight.detach(), before)
    assert scaler.get_scale() == 512.0
    # a clean step after it runs, with the gradients unscaled
    opt.zero_grad()
    x = torch.randn(8, 4, device=CUDA)
    scaler.scale(layer(x).sum()).backward()
    scaler.unscale_(opt)
    torch.testing.assert_close(layer.weight.grad, x.sum(0, keepdim=True))
    scaler.step(opt)
    scaler.update()
    torch.testing.assert_close(layer.weight.detach(), before - 0.1 * x.sum(0, keepdim=True))
