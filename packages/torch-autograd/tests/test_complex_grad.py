"""Autograd through complex tensors, checked against central differences of a real loss.

PyTorch's convention: for a complex leaf z = a + ib the gradient is dL/da + i dL/db; a real
leaf gets dL/dx even when complex tensors stand between it and the loss."""

import numpy as np
import pytest

import torch

H = 1e-6


def numeric_grad(loss, x):
    """Central differences of loss (a Python float of a tensor) at x, real or complex."""
    x = x.detach()
    flat = x.reshape(-1)
    out = np.zeros(flat.numel(), dtype=np.complex128 if x.dtype.is_complex else np.float64)
    steps = [1.0, 1j] if x.dtype.is_complex else [1.0]
    for i in range(flat.numel()):
        for step in steps:
            plus, minus = flat.clone(), flat.clone()
            plus[i] += H * step
            minus[i] -= H * step
            d = (loss(plus.reshape(x.shape)) - loss(minus.reshape(x.shape))) / (2 * H)
            out[i] += d * step
    return out.reshape(tuple(x.shape))


def check(fn, x, tol=1e-6):
    leaf = x.detach().clone().requires_grad_()
    fn(leaf).backward()
    expected = numeric_grad(lambda v: fn(v).item(), x)
    np.testing.assert_allclose(leaf.grad.resolve_conj().numpy(), expected, rtol=tol, atol=tol)
    assert leaf.grad.dtype == x.dtype


rng = np.random.default_rng(3)
REAL = torch.from_numpy(rng.standard_normal((3, 8)))
CPLX = torch.from_numpy(rng.standard_normal((3, 8)) + 1j * rng.standard_normal((3, 8)))
W = torch.from_numpy(rng.standard_normal((3, 8)) + 1j * rng.standard_normal((3, 8)))


def sq(z):  # a real loss of a complex tensor that weighs real and imaginary parts differently
    return (z.real**2 * 1.5 + z.imag * 0.5 + z.abs()).sum()


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize(
    "name,fn",
    [
        ("fft", lambda x, n: torch.fft.fft(x, norm=n)),
        ("ifft", lambda x, n: torch.fft.ifft(x, n=10, norm=n)),
        ("rfft", lambda x, n: torch.fft.rfft(x, norm=n)),
        ("rfft_odd", lambda x, n: torch.fft.rfft(x, n=7, norm=n)),
        ("fft2", lambda x, n: torch.fft.fft2(x, norm=n)),
        ("rfftn", lambda x, n: torch.fft.rfftn(x, norm=n)),
        ("ihfft", lambda x, n: torch.fft.ihfft(x, norm=n)),
    ],
)
def test_real_input_transforms(name, fn, norm):
    check(lambda x: sq(fn(x, norm) * W[:, :1]), REAL)


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize(
    "name,fn",
    [
        ("fft", lambda z, n: sq(torch.fft.fft(z, norm=n))),
        ("ifft2", lambda z, n: sq(torch.fft.ifft2(z, norm=n))),
        ("irfft", lambda z, n: (torch.fft.irfft(z, norm=n) ** 2 * 0.7).sum()),
        ("irfft_odd", lambda z, n: (torch.fft.irfft(z, n=9, norm=n).sin()).sum()),
        ("irfftn", lambda z, n: (torch.fft.irfftn(z, norm=n) ** 3).sum()),
        ("hfft", lambda z, n: (torch.fft.hfft(z, norm=n) ** 2).sum()),
    ],
)
def test_complex_input_transforms(name, fn, norm):
    check(lambda z: fn(z, norm), CPLX)


@pytest.mark.parametrize(
    "name,fn",
    [
        ("mul", lambda z: sq(z * W)),
        ("mul_number", lambda z: sq(z * (2 - 3j))),
        ("div", lambda z: sq(W / z)),
        ("exp", lambda z: sq(z.exp())),
        ("log", lambda z: sq(z.log())),
        ("sin", lambda z: sq(z.sin())),
        ("sqrt", lambda z: sq(z.sqrt())),
        ("tanh", lambda z: sq(z.tanh())),
        ("abs", lambda z: (z.abs() ** 2 + z.abs()).sum()),
        ("angle", lambda z: (torch.angle(z) * torch.arange(8.0)).sum()),
        ("conj", lambda z: sq(z.conj() * W)),
        ("real_imag", lambda z: (z.real * 3 + z.imag**2).sum()),
        ("view_as_real", lambda z: (torch.view_as_real(z) ** 2 * torch.tensor([1.0, 2.0])).sum()),
        ("matmul", lambda z: sq(z @ W.T)),
        ("matmul_left", lambda z: sq(W.T @ z)),
        ("sum_mean", lambda z: sq(z.sum(0)) + sq(z.mean(1))),
        ("sgn", lambda z: sq(torch.sgn(z) * W)),
    ],
)
def test_complex_leaves(name, fn):
    check(fn, CPLX)


@pytest.mark.parametrize(
    "name,fn",
    [
        ("complex", lambda x: sq(torch.complex(x, x.sin()))),
        ("polar", lambda x: sq(torch.polar(x.abs() + 0.5, x))),
        ("view_as_complex", lambda x: sq(torch.view_as_complex(x.reshape(3, 4, 2)))),
        ("to_complex", lambda x: sq(x.to(torch.complex128) * W)),
        ("mixed_mul", lambda x: sq(x * W)),
        ("mixed_add", lambda x: sq(x + W)),
    ],
)
def test_real_leaves_through_complex(name, fn):
    check(fn, REAL)


def test_stft_loss_trains_a_real_signal():
    x = REAL[0].repeat(4)
    window = torch.hann_window(8, dtype=torch.float64)
    check(lambda s: (torch.stft(s, 8, 2, window=window, return_complex=True).abs() ** 2).sum(), x)


def test_autograd_grad_of_real_input_is_real():
    x = REAL.clone().requires_grad_()
    (g,) = torch.autograd.grad(sq(torch.fft.fft(x)), x)
    assert g.dtype == torch.float64


def test_complex_outputs_need_an_explicit_gradient():
    z = CPLX.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        z.sum().backward()
    z.sum().backward(torch.tensor(1 + 0j, dtype=torch.complex128))
    assert torch.equal(z.grad, torch.ones_like(z))


@pytest.mark.parametrize(
    "name,fn",
    [
        ("mul", lambda z: z.real * W),
        ("rdiv", lambda z: z.real / W),
        ("add", lambda z: W + z.abs()),
    ],
)
def test_real_intermediates_mixed_with_complex(name, fn):
    # a real non-leaf (z.real, z.abs()) meets a complex tensor: its gradient is real again
    check(lambda z: sq(fn(z)), CPLX)


@pytest.mark.skipif(  # PyTorch 2.13 stops on an internal dtype check here
    not torch.__version__.startswith("0.1"), reason="PyTorch raises an internal error"
)
def test_real_intermediate_through_where():
    check(lambda z: sq(torch.where(z.real > 0, W, z.imag)), CPLX)


def test_gradcheck_covers_complex_inputs_and_outputs():
    from torch.autograd import gradcheck, gradgradcheck

    z = CPLX[:2, :3].clone().requires_grad_()
    assert gradcheck(lambda z: torch.fft.fft(z * z.conj() + z), (z,))
    assert gradgradcheck(lambda z: (z * z).exp(), (z,))


def test_gradcheck_rejects_a_wrong_complex_gradient():
    from torch.autograd import Function, gradcheck
    from torch.autograd.gradcheck import GradcheckError

    class Square(Function):  # the gradient of z^2 is g * conj(2z); this one forgets conj
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z

    z = CPLX[:1, :3].clone().requires_grad_()
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(Square.apply, (z,))
    real = REAL[:1, :3].clone().requires_grad_()  # on real numbers the two agree
    assert gradcheck(Square.apply, (real,))
