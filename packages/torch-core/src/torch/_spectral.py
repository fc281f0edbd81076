"""Window functions and the short-time Fourier transform (``torch.stft``/``torch.istft``).

Windows follow PyTorch's definitions: a periodic window of length N is the first N values
of the symmetric window of length N + 1 (the form spectral analysis wants).
"""

import math

import torch
from torch import _C

__all__ = [
    "bartlett_window",
    "blackman_window",
    "hamming_window",
    "hann_window",
    "kaiser_window",
    "istft",
    "stft",
]


def _window(name, window_length, periodic, dtype, requires_grad, values):
    """values(n, N) -> list of floats for the symmetric window of length N (N >= 2)."""
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got {window_length}")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length <= 1:
        r = torch.ones(window_length, dtype=dtype)
    else:
        size = window_length + 1 if periodic else window_length
        w = values(torch.arange(size, dtype=torch.float64), size)
        r = w[:window_length].to(dtype)
    return r.requires_grad_() if requires_grad else r


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):  # fmt: skip
    """0.5 - 0.5 cos(2 pi n / (N - 1))."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   lambda n, N: 0.5 - 0.5 * (2 * math.pi * n / (N - 1)).cos())  # fmt: skip


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False):  # fmt: skip
    """alpha - beta cos(2 pi n / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   lambda n, N: alpha - beta * (2 * math.pi * n / (N - 1)).cos())  # fmt: skip


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):  # fmt: skip
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""

    def values(n, N):
        t = 2 * math.pi * n / (N - 1)
        return 0.42 - 0.5 * t.cos() + 0.08 * (2 * t).cos()

    return _window("blackman_window", window_length, periodic, dtype, requires_grad, values)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):  # fmt: skip
    """``1 - |2 n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   lambda n, N: 1 - (2 * n / (N - 1) - 1).abs())  # fmt: skip


def _i0(x):
    """The modified Bessel function I0 by its power series (float64; converges for all x)."""
    term, total = torch.ones_like(x), torch.ones_like(x)
    for k in range(1, 500):
        term = term * (x / (2 * k)) ** 2
        total = total + term
        if bool((term <= total * 1e-17).all()):
            break
    return total


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False):  # fmt: skip
    """I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)."""

    def values(n, N):
        r = (1 - (2 * n / (N - 1) - 1) ** 2).clamp(min=0).sqrt()
        return _i0(beta * r) / _i0(torch.tensor(float(beta), dtype=torch.float64))

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, values)


def _frame_window(window, win_length, n_fft, dtype, op):
    """The window (ones when None) centred in n_fft points."""
    if window is None:
        window = torch.ones(win_length, dtype=dtype)
    if window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(
            f"{op}: expected a 1D window tensor of size equal to win_length={win_length}, "
            f"but got window with size {tuple(window.shape)}"
        )
    left = (n_fft - win_length) // 2
    if left or win_length != n_fft:
        window = torch.cat(
            [
                torch.zeros(left, dtype=window.dtype),
                window,
                torch.zeros(n_fft - win_length - left, dtype=window.dtype),
            ]
        )
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):  # fmt: skip
    """Fourier transforms of overlapping windowed frames: (B?, n_fft // 2 + 1 or n_fft,
    n_frames), complex (or (..., 2) real with ``return_complex=False``)."""
    if return_complex is None:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release."
        )
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if n_fft <= 0 or hop_length <= 0 or not 0 < win_length <= n_fft:
        raise RuntimeError(
            f"stft: expected 0 < n_fft, 0 < hop_length and 0 < win_length <= n_fft, got "
            f"n_fft={n_fft}, hop_length={hop_length}, win_length={win_length}"
        )
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if not (x.dtype.is_complex or x.dtype.is_floating_point):
        x = x.to(_C.get_default_dtype())
    if center:
        pad = n_fft // 2
        x = torch._nn_ops.pad(x.unsqueeze(1), (pad, pad), mode=pad_mode).squeeze(1)
    if x.shape[-1] < n_fft:
        raise RuntimeError(
            f"stft: expected 0 < n_fft <= {x.shape[-1]} (the padded input length), got {n_fft}"
        )
    frames = x.unfold(-1, n_fft, hop_length)  # (B, n_frames, n_fft)
    w = _frame_window(window, win_length, n_fft, frames.dtype, "stft")
    frames = frames * w.to(frames.dtype if not frames.dtype.is_complex else w.dtype)
    if onesided is None:
        onesided = not (x.dtype.is_complex or (window is not None and window.dtype.is_complex))
    norm = "ortho" if normalized else "backward"
    if onesided and not frames.dtype.is_complex:
        spec = torch.fft.rfft(frames, dim=-1, norm=norm)
    else:
        spec = torch.fft.fft(frames, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    return spec if return_complex else torch.view_as_real(spec.contiguous())


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):  # fmt: skip
    """The inverse of :func:`stft`: inverse transforms of the frames, windowed, overlap-added
    and divided by the summed squared window."""
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    spec = input.unsqueeze(0) if input.dim() == 2 else input
    if spec.dim() != 3:
        raise RuntimeError(f"istft: expected a 2D or 3D complex tensor, got {input.dim()}D")
    n_freq = spec.shape[-2]
    onesided = n_freq != n_fft if onesided is None else onesided
    if onesided and n_freq != n_fft // 2 + 1:
        raise RuntimeError(
            f"istft: expected the frequency dimension to be n_fft // 2 + 1 = {n_fft // 2 + 1} "
            f"for a onesided input, got {n_freq}"
        )
    norm = "ortho" if normalized else "backward"
    frames_spec = spec.transpose(-1, -2)  # (B, n_frames, n_freq)
    if onesided:
        frames = torch.fft.irfft(frames_spec, n=n_fft, dim=-1, norm=norm)
    else:
        frames = torch.fft.ifft(frames_spec, n=n_fft, dim=-1, norm=norm)
        if not return_complex:
            frames = frames.real
    real_dtype = frames.real.dtype if frames.dtype.is_complex else frames.dtype
    w = _frame_window(window, win_length, n_fft, real_dtype, "istft").to(real_dtype)
    frames = frames * w
    B, n_frames = frames.shape[0], frames.shape[1]
    total = n_fft + hop_length * (n_frames - 1)
    positions = (
        torch.arange(n_frames).unsqueeze(1) * hop_length + torch.arange(n_fft).unsqueeze(0)
    ).reshape(-1)
    y = torch.zeros(B, total, dtype=frames.dtype)
    y.index_add_(1, positions, frames.reshape(B, -1))
    envelope = torch.zeros(total, dtype=real_dtype)
    envelope.index_add_(0, positions, (w * w).repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    y, envelope = y[:, start:end], envelope[start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError("istft: window overlap add min: the window envelope is zero somewhere")
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = torch.cat([y, torch.zeros(B, length - y.shape[-1], dtype=y.dtype)], -1)
    return y.squeeze(0) if input.dim() == 2 else y
