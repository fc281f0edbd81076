"""Discrete Fourier transforms (``torch.fft``), computed by the vendored pocketfft.

Every transform takes PyTorch's arguments: ``n``/``s`` (the signal length per dim; the input
is zero-padded or trimmed to it), ``dim`` and ``norm``:

- ``"backward"`` (default): the forward transform is unscaled, the inverse scaled by 1/n;
- ``"ortho"``: both scaled by 1/sqrt(n);
- ``"forward"``: the forward transform scaled by 1/n, the inverse unscaled.

Real input to a complex transform is promoted to complex; integer input to the default
float dtype first. Results are new tensors; autograd records every transform (the gradient
of a transform is its adjoint: torch-autograd's formulas/complex.py).
"""

import builtins
import math

import torch
from torch import _C
from torch._checks import check_tensor as _check_tensor
from torch._checks import numpy_dim as _numpy_dim
from torch._checks import wrap_dim as _wrap_dim
from torch._checks import write_out as _write_out

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "hfft2",
    "ihfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = ("backward", "ortho", "forward")


def _scale(norm, n, forward, op):
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ValueError(f"{op}: Invalid normalization mode: {norm!r}")
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "forward") == forward else 1.0


def _swap(norm):  # hfft/ihfft are irfft/rfft with the opposite scaling
    return {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


def _float(x, op):
    _check_tensor(x, op)
    if x.dtype.is_complex or x.dtype in (_C.float32, _C.float64):
        return x
    if x.dtype.is_floating_point:  # float16/bfloat16: pocketfft computes in float32
        return x.to(_C.float32)
    return x.to(_C.get_default_dtype())


def _complex(x):
    if x.dtype.is_complex:
        return x
    return _C._complex(x, torch.zeros(1, dtype=x.dtype).expand(x.shape))


def _dims_and_sizes(x, s, dim, op, default_all):
    """(dims, sizes) from PyTorch's s/dim arguments (n/dim for the 1-D forms)."""
    if dim is None:
        if s is None:
            dims = list(range(x.dim())) if default_all else [-2, -1]
        else:
            dims = list(range(x.dim() - len(s), x.dim()))
    else:
        dims = [dim] if isinstance(dim, builtins.int) else list(dim)
    dims = [_wrap_dim(d, x.dim(), op, wrap_scalar=False) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}: dims must be unique")
    if s is None:
        sizes = [None] * len(dims)
    else:
        sizes = [s] if isinstance(s, builtins.int) else list(s)
        if len(sizes) != len(dims):
            raise RuntimeError(
                f"{op}: When given, dim and shape arguments must have the same length"
            )
    return dims, sizes


def _resize(x, dim, n):
    """x trimmed or zero-padded along dim to n elements."""
    size = x.shape[dim]
    if n == size:
        return x
    if n < size:
        return x.narrow(dim, 0, n)
    shape = list(x.shape)
    shape[dim] = n - size
    return torch.cat([x, torch.zeros(shape, dtype=x.dtype)], dim)


def _check_n(n, op):
    if n < 1:
        raise RuntimeError(f"{op}: Invalid number of data points ({n}) specified")


def _signal(x, s, dim, op, default_all):
    """x resized to the signal sizes, the dims, and the signal's element count."""
    dims, sizes = _dims_and_sizes(x, s, dim, op, default_all)
    for d, n in zip(dims, sizes):
        if n is not None:
            _check_n(n, op)
            x = _resize(x, d, n)
    total = math.prod(x.shape[d] for d in dims)
    if total == 0 and dims:
        raise RuntimeError(f"{op}: Invalid number of data points (0) specified")
    return x, dims, max(total, 1)


def _c2c(input, s, dim, norm, forward, op, default_all=True):
    x, dims, total = _signal(_complex(_float(input, op)), s, dim, op, default_all)
    return _C._fft_c2c(x, dims, forward, _scale(norm, total, forward, op))


def _r2c(input, s, dim, norm, forward, op, default_all=True):
    x = _float(input, op)
    if x.dtype.is_complex:
        raise RuntimeError(f"{op} expects a real input tensor, but got {x.dtype}")
    x, dims, total = _signal(x, s, dim, op, default_all)
    return _C._fft_r2c(x.contiguous(), dims, forward, _scale(norm, total, forward, op))


def _c2r(input, s, dim, norm, forward, op, default_all=True):
    x = _complex(_float(input, op))
    dims, sizes = _dims_and_sizes(x, s, dim, op, default_all)
    last = dims[-1]
    out_sizes = []
    for d, n in zip(dims, sizes):
        if d == last:
            n = 2 * (x.shape[d] - 1) if n is None else n
            _check_n(n, op)
            x = _resize(x, d, n // 2 + 1)
        elif n is not None:
            _check_n(n, op)
            x = _resize(x, d, n)
        out_sizes.append(n if d == last else x.shape[d])
    total = math.prod(out_sizes)
    return _C._fft_c2r(x, dims, out_sizes[-1], forward, _scale(norm, total, forward, op))


def fft(input, n=None, dim=-1, norm=None, *, out=None, axis=None):
    """The 1-D discrete Fourier transform."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("fft", dim, axis, -1)
    return _write_out(_c2c(input, n, dim, norm, True, "fft"), out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None, axis=None):
    """The 1-D inverse discrete Fourier transform."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("ifft", dim, axis, -1)
    return _write_out(_c2c(input, n, dim, norm, False, "ifft"), out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None, axis=None):
    """The 1-D transform of real input: the n // 2 + 1 non-negative frequencies."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("rfft", dim, axis, -1)
    return _write_out(_r2c(input, n, dim, norm, True, "rfft"), out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None, axis=None):
    """The inverse of :func:`rfft`: a real signal of length n (default 2 * (m - 1))."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("irfft", dim, axis, -1)
    return _write_out(_c2r(input, n, dim, norm, False, "irfft"), out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None, axis=None):
    """The transform of a Hermitian-symmetric signal given by its first half: real output."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("hfft", dim, axis, -1)
    x = _complex(_float(input, "hfft"))
    return _write_out(_c2r(x.conj(), n, dim, _swap(norm), False, "hfft"), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None, axis=None):
    """The inverse of :func:`hfft`: the first half of the spectrum of a real signal."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("ihfft", dim, axis, -1)
    return _write_out(_r2c(input, n, dim, _swap(norm), True, "ihfft").conj(), out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("fft2", dim, axis, (-2, -1))
    return _write_out(_c2c(input, s, dim, norm, True, "fft2", False), out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("ifft2", dim, axis, (-2, -1))
    return _write_out(_c2c(input, s, dim, norm, False, "ifft2", False), out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("rfft2", dim, axis, (-2, -1))
    return _write_out(_r2c(input, s, dim, norm, True, "rfft2", False), out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("irfft2", dim, axis, (-2, -1))
    return _write_out(_c2r(input, s, dim, norm, False, "irfft2", False), out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("hfft2", dim, axis, (-2, -1))
    x = _complex(_float(input, "hfft2"))
    return _write_out(_c2r(x.conj(), s, dim, _swap(norm), False, "hfft2", False), out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("ihfft2", dim, axis, (-2, -1))
    return _write_out(_r2c(input, s, dim, _swap(norm), True, "ihfft2", False).conj(), out)


def fftn(input, s=None, dim=None, norm=None, *, out=None, axis=None):
    """The n-D transform over ``dim`` (all dims, or the last len(s), by default)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("fftn", dim, axis, None)
    return _write_out(_c2c(input, s, dim, norm, True, "fftn"), out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("ifftn", dim, axis, None)
    return _write_out(_c2c(input, s, dim, norm, False, "ifftn"), out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("rfftn", dim, axis, None)
    return _write_out(_r2c(input, s, dim, norm, True, "rfftn"), out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("irfftn", dim, axis, None)
    return _write_out(_c2r(input, s, dim, norm, False, "irfftn"), out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("hfftn", dim, axis, None)
    x = _complex(_float(input, "hfftn"))
    return _write_out(_c2r(x.conj(), s, dim, _swap(norm), False, "hfftn"), out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("ihfftn", dim, axis, None)
    return _write_out(_r2c(input, s, dim, _swap(norm), True, "ihfftn").conj(), out)


def _freq_dtype(dtype):
    return _C.get_default_dtype() if dtype is None else dtype


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Sample frequencies of an n-point transform: [0, 1, ..., n/2 - 1, -n/2, ..., -1] / (d n)."""
    if n < 0:
        raise RuntimeError(f"fftfreq: n must be non-negative, got {n}")
    k = [i if i < (n + 1) // 2 else i - n for i in range(n)]
    r = torch.tensor(k, dtype=_C.float64).mul_(1.0 / (d * n) if n else 1.0)
    r = r.to(_freq_dtype(dtype))
    return _write_out(r.requires_grad_(requires_grad) if requires_grad else r, out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Sample frequencies of :func:`rfft`: [0, 1, ..., n // 2] / (d n)."""
    if n < 0:
        raise RuntimeError(f"rfftfreq: n must be non-negative, got {n}")
    r = torch.tensor(list(range(n // 2 + 1)), dtype=_C.float64).mul_(1.0 / (d * n) if n else 1.0)
    r = r.to(_freq_dtype(dtype))
    return _write_out(r.requires_grad_(requires_grad) if requires_grad else r, out)


def _shift(input, dim, sign):
    if dim is None:
        dim = tuple(range(input.dim()))
    elif isinstance(dim, builtins.int):
        dim = (dim,)
    shifts = [sign * (input.shape[d] // 2) if sign > 0 else -(input.shape[d] // 2) for d in dim]
    return input.roll(shifts, dim)


def fftshift(input, dim=None, *, axis=None):
    """Moves the zero frequency to the centre (a roll by n // 2 along each dim)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("fftshift", dim, axis, None)
    return _shift(input, dim, 1)


def ifftshift(input, dim=None, *, axis=None):
    """The inverse of :func:`fftshift` (a roll by -(n // 2))."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("ifftshift", dim, axis, None)
    return _shift(input, dim, -1)
