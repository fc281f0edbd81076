"""torch.fft, the window functions and stft/istft against NumPy (and SciPy's windows)."""

import numpy as np
import pytest

import torch

rng = np.random.default_rng(1)
NORMS = [None, "backward", "ortho", "forward"]
T = torch.from_numpy


def real(*shape):
    return rng.standard_normal(shape)


def cplx(*shape):
    return real(*shape) + 1j * real(*shape)


def close(t, expected, tol=1e-10):
    np.testing.assert_allclose(t.numpy(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("norm", NORMS)
def test_one_dimensional(norm):
    x, z = real(4, 6), cplx(4, 6)
    close(torch.fft.fft(T(z), norm=norm), np.fft.fft(z, norm=norm))
    close(torch.fft.fft(T(x), norm=norm), np.fft.fft(x, norm=norm))
    close(torch.fft.ifft(T(z), n=9, dim=0, norm=norm), np.fft.ifft(z, n=9, axis=0, norm=norm))
    close(torch.fft.fft(T(z), n=3, norm=norm), np.fft.fft(z, n=3, norm=norm))
    close(torch.fft.rfft(T(x), n=7, norm=norm), np.fft.rfft(x, n=7, norm=norm))
    close(torch.fft.irfft(T(z), norm=norm), np.fft.irfft(z, norm=norm))
    close(torch.fft.irfft(T(z), n=5, dim=0, norm=norm), np.fft.irfft(z, n=5, axis=0, norm=norm))
    close(torch.fft.hfft(T(z), norm=norm), np.fft.hfft(z, norm=norm))
    close(torch.fft.ihfft(T(x), norm=norm), np.fft.ihfft(x, norm=norm))


@pytest.mark.parametrize("norm", NORMS)
def test_multi_dimensional(norm):
    x, z = real(3, 4, 6), cplx(3, 4, 6)
    close(torch.fft.fft2(T(z), norm=norm), np.fft.fft2(z, norm=norm))
    close(torch.fft.ifft2(T(z), s=(5, 2), norm=norm), np.fft.ifft2(z, s=(5, 2), norm=norm))
    close(torch.fft.fftn(T(z), norm=norm), np.fft.fftn(z, norm=norm))
    close(torch.fft.ifftn(T(z), dim=(0, 2), norm=norm), np.fft.ifftn(z, axes=(0, 2), norm=norm))
    close(torch.fft.rfft2(T(x), norm=norm), np.fft.rfft2(x, norm=norm))
    close(torch.fft.rfftn(T(x), norm=norm), np.fft.rfftn(x, norm=norm))
    close(torch.fft.irfft2(T(z), norm=norm), np.fft.irfft2(z, norm=norm))
    close(
        torch.fft.irfftn(T(z), s=(4, 8), dim=(1, 2), norm=norm),
        np.fft.irfftn(z, s=(4, 8), axes=(1, 2), norm=norm),
    )
    # hfftn: the transform of a Hermitian signal = n * irfftn of its conjugate
    n = 4 * 10
    expected = np.fft.irfftn(z.conj(), axes=(1, 2)) * (n if norm in (None, "backward") else 1)
    if norm == "ortho":
        expected = np.fft.irfftn(z.conj(), axes=(1, 2), norm="ortho")
    close(torch.fft.hfftn(T(z), dim=(1, 2), norm=norm), expected, 1e-9)
    r = torch.fft.ihfftn(T(x), dim=(1, 2), norm=norm)
    close(torch.fft.hfftn(r, s=(4, 6), dim=(1, 2), norm=norm), x, 1e-9)


def test_dtypes_and_noncontiguous_input():
    x = torch.randn(8, 6)
    assert torch.fft.fft(x).dtype == torch.complex64
    assert torch.fft.rfft(x.double()).dtype == torch.complex128
    assert torch.fft.irfft(torch.fft.rfft(x)).dtype == torch.float32
    assert torch.fft.fft(torch.arange(4)).dtype == torch.complex64
    xt = x.t()  # strided input
    close(torch.fft.fft(xt.double()), np.fft.fft(xt.double().numpy()))
    close(torch.fft.rfft(xt.double(), dim=0), np.fft.rfft(xt.double().numpy(), axis=0))


def test_helpers():
    close(torch.fft.fftfreq(7, 0.5, dtype=torch.float64), np.fft.fftfreq(7, 0.5), 0)
    close(torch.fft.fftfreq(8, dtype=torch.float64), np.fft.fftfreq(8), 0)
    close(torch.fft.rfftfreq(9, 2.0, dtype=torch.float64), np.fft.rfftfreq(9, 2.0), 0)
    x = real(5, 4)
    close(torch.fft.fftshift(T(x)), np.fft.fftshift(x), 0)
    close(torch.fft.ifftshift(T(x), dim=0), np.fft.ifftshift(x, axes=0), 0)


def test_errors():
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        torch.fft.fft(torch.ones(4), n=0)
    with pytest.raises(ValueError, match="normalization"):
        torch.fft.fft(torch.ones(4), norm="bogus")
    with pytest.raises(RuntimeError, match="real input"):
        torch.fft.rfft(torch.ones(4, dtype=torch.complex64))
    with pytest.raises(IndexError):
        torch.fft.fft(torch.ones(4), dim=3)
    with pytest.raises(TypeError):
        torch.fft.fft([1.0, 2.0])


def test_windows_against_scipy():
    signal = pytest.importorskip("scipy.signal")
    for fn, name in [
        (torch.hann_window, "hann"),
        (torch.hamming_window, "hamming"),
        (torch.blackman_window, "blackman"),
        (torch.bartlett_window, "bartlett"),
    ]:
        for periodic in (True, False):
            w = fn(11, periodic=periodic, dtype=torch.float64)
            close(w, signal.get_window(name, 11, fftbins=periodic), 1e-12)
    close(torch.kaiser_window(9, False, beta=5.0, dtype=torch.float64), np.kaiser(9, 5.0), 1e-12)
    assert torch.hann_window(1).tolist() == [1.0] and torch.hann_window(0).numel() == 0
    assert torch.hann_window(4).dtype == torch.float32


def numpy_stft(x, n_fft, hop, window):
    pad = n_fft // 2
    xp = np.pad(x, (pad, pad), mode="reflect")
    frames = [xp[i : i + n_fft] * window for i in range(0, len(xp) - n_fft + 1, hop)]
    return np.fft.rfft(np.array(frames), axis=-1).T


def test_stft_matches_framing_and_istft_inverts():
    x = real(2, 200)
    w = np.hanning(33)[:32]  # any window; here a periodic-ish Hann
    S = torch.stft(T(x), 32, 8, window=T(w), return_complex=True)
    assert S.shape == (2, 17, 26)
    for b in range(2):
        close(S[b], numpy_stft(x[b], 32, 8, w), 1e-9)
    hann = torch.hann_window(32, dtype=torch.float64)
    S = torch.stft(T(x), 32, 8, window=hann, return_complex=True)
    y = torch.istft(S, 32, 8, window=hann, length=200)
    close(y, x, 1e-9)
    Sr = torch.stft(T(x[0]), 32, 8, window=hann, return_complex=False)
    assert Sr.shape == (17, 26, 2)
    with pytest.raises(RuntimeError, match="return_complex"):
        torch.stft(T(x), 32)
