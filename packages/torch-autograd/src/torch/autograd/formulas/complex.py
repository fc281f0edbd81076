"""Complex tensors, with PyTorch's convention: the gradient of a real loss L with respect to
z = a + ib is dL/da + i dL/db (the conjugate Wirtinger derivative, times 2), so a
holomorphic f passes g * conj(f'(z)) and a real input receives the real part.

The FFT kernels are linear maps y = scale * F x: their gradient is the adjoint, scale * F^H g
(the transform in the other direction); the one-sided forms add the zero padding (r2c) or
the doubling of the bins that stand for two (c2r)."""

import torch
from torch import _C
from torch.autograd.graph import Formula


class ViewAsRealBackward0(Formula):
    names = ("_view_as_real",)
    view = True

    def save(self, out, z):
        return (z,)

    def backward(self, g):
        return (_C._complex(g[..., 0], g[..., 1]),)


class ViewAsComplexBackward0(Formula):
    names = ("_view_as_complex",)
    view = True

    def save(self, out, x):
        return (x,)

    def backward(self, g):
        return (_C._view_as_real(g.contiguous()),)


class ComplexBackward0(Formula):
    names = ("_complex",)

    def save(self, out, real, imag):
        self.shapes = (tuple(real.shape), tuple(imag.shape))
        return real, imag

    def backward(self, g):
        from torch.autograd.graph import sum_to

        parts = _C._view_as_real(g.contiguous())
        return sum_to(parts[..., 0], self.shapes[0]), sum_to(parts[..., 1], self.shapes[1])


def _sgn(z):
    m = _C._complex_abs(z)
    return z / m.masked_fill(m == 0, 1).to(z.dtype) * (m != 0).to(z.dtype)


class ComplexAbsBackward0(Formula):
    names = ("_complex_abs",)

    def save(self, out, z):
        self.save_for_backward(z)
        return (z,)

    def backward(self, g):
        (z,) = self.saved_tensors
        return (g.to(z.dtype) * _sgn(z),)


class ComplexAngleBackward0(Formula):
    names = ("_complex_angle",)

    def save(self, out, z):
        self.save_for_backward(z)
        return (z,)

    def backward(self, g):  # d angle = (-b da + a db) / |z|^2: g * i z / |z|^2
        (z,) = self.saved_tensors
        m2 = _C._complex_abs(z) ** 2
        return (g.to(z.dtype) * 1j * z / m2.masked_fill(m2 == 0, 1).to(z.dtype),)


class FftC2CBackward0(Formula):
    names = ("_fft_c2c",)

    def save(self, out, x, dims, forward, scale):
        self.args = (list(dims), forward, scale)
        return (x,)

    def backward(self, g):
        dims, forward, scale = self.args
        return (_C._fft_c2c(g.contiguous(), dims, not forward, scale),)


class FftR2CBackward0(Formula):
    names = ("_fft_r2c",)

    def save(self, out, x, dims, forward, scale):
        self.args = (list(dims), forward, scale, x.shape[dims[-1]])
        return (x,)

    def backward(self, g):
        dims, forward, scale, n = self.args
        last = dims[-1]
        pad = list(g.shape)
        pad[last] = n - g.shape[last]
        dropped = torch.zeros(pad, dtype=g.dtype, device=g.device)  # the dropped bins: 0
        full = torch.cat([g, dropped], last)
        return (_C._fft_c2c(full, dims, not forward, scale).real,)


class FftC2RBackward0(Formula):
    names = ("_fft_c2r",)

    def save(self, out, x, dims, last_size, forward, scale):
        self.args = (list(dims), last_size, forward, scale)
        return (x,)

    def backward(self, g):
        dims, n, forward, scale = self.args
        gx = _C._fft_r2c(g.contiguous(), dims, not forward, scale)
        doubled = (n - 1) // 2  # bins 1 .. (n - 1) // 2 each stand for two of the full spectrum
        if doubled > 0:
            last = dims[-1]
            twos = torch.ones(gx.shape[last], dtype=gx.real.dtype, device=gx.device)
            twos[1 : 1 + doubled] = 2.0
            shape = [1] * gx.dim()
            shape[last] = gx.shape[last]
            gx = gx * twos.reshape(shape).to(gx.dtype)
        return (gx,)
