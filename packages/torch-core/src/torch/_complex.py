"""Complex tensors: real and imaginary views, modulus and argument, conjugation, polar form.

complex64 and complex128 tensors are stored as interleaved (real, imaginary) pairs, as NumPy
and PyTorch store them, so ``view_as_real`` and ``.real``/``.imag`` are views. Unlike PyTorch,
``conj()`` returns a new tensor instead of a lazily conjugated view (there is no conjugate bit),
so ``is_conj()`` is always False; values are the same.
"""

import math

from torch import _C

Tensor = _C.Tensor

__all__ = [
    "angle",
    "complex",
    "conj",
    "conj_physical",
    "imag",
    "is_complex",
    "is_conj",
    "polar",
    "real",
    "resolve_conj",
    "resolve_neg",
    "sgn",
    "view_as_complex",
    "view_as_real",
    "vdot",
]


def _check(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")


def is_complex(input):
    _check(input, "is_complex")
    return input.dtype.is_complex


def is_conj(input):
    _check(input, "is_conj")
    return False


def view_as_real(input):
    """A real view of shape (..., 2) onto a complex tensor's (real, imaginary) pairs."""
    _check(input, "view_as_real")
    return _C._view_as_real(input)


def view_as_complex(input):
    """A complex view onto a real tensor of shape (..., 2) whose last dim has stride 1."""
    _check(input, "view_as_complex")
    return _C._view_as_complex(input)


def real(input):
    _check(input, "real")
    return _C._view_as_real(input)[..., 0] if input.dtype.is_complex else input


def imag(input):
    _check(input, "imag")
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _C._view_as_real(input)[..., 1]


def complex(real, imag, *, out=None):  # noqa: A001  (PyTorch's name)
    """real + 1j * imag, from two float tensors of one dtype (broadcast)."""
    _check(real, "complex")
    _check(imag, "complex")
    r = _C._complex(real, imag)
    return r if out is None else out.copy_(r)


def polar(abs, angle, *, out=None):  # noqa: A002
    """abs * (cos(angle) + 1j * sin(angle))."""
    _check(abs, "polar")
    _check(angle, "polar")
    r = _C._complex(abs * angle.cos(), abs * angle.sin())
    return r if out is None else out.copy_(r)


def angle(input, *, out=None):
    """The argument of each element in radians; for real input 0, or pi where negative."""
    _check(input, "angle")
    if input.dtype.is_complex:
        r = _C._complex_angle(input)
    else:
        x = input if input.dtype.is_floating_point else input.to(_C.get_default_dtype())
        r = (x < 0).to(x.dtype) * math.pi
        r = _C.where(x.isnan(), x, r)
    return r if out is None else out.copy_(r)


def conj_physical(input, *, out=None):
    """The complex conjugate as a new tensor (real tensors are returned as they are)."""
    _check(input, "conj_physical")
    if not input.dtype.is_complex:
        return input if out is None else out.copy_(input)
    parts = _C._view_as_real(input)
    r = _C._complex(parts[..., 0], -parts[..., 1])
    return r if out is None else out.copy_(r)


def conj(input):
    """The complex conjugate (a new tensor here; PyTorch returns a lazy view)."""
    return conj_physical(input)


def resolve_conj(input):
    _check(input, "resolve_conj")
    return input


def resolve_neg(input):
    _check(input, "resolve_neg")
    return input


def sgn(input, *, out=None):
    """z / |z| (0 where z is 0) for complex input; sign(x) for real input."""
    _check(input, "sgn")
    if not input.dtype.is_complex:
        r = input.sign()
    else:
        m = _C._complex_abs(input)
        safe = m.masked_fill(m == 0, 1)
        r = input / safe.to(input.dtype) * (m != 0).to(input.dtype)
    return r if out is None else out.copy_(r)


def vdot(input, other, *, out=None):
    """The dot product of two 1-D tensors, conjugating the first."""
    _check(input, "vdot")
    _check(other, "vdot")
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors"
        )
    r = (conj_physical(input) * other).sum() if input.dtype.is_complex else input.dot(other)
    return r if out is None else out.copy_(r)


def _set_part(index):
    def setter(self, value):
        if not self.dtype.is_complex:
            if index == 1:
                raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
            self.copy_(value)
            return
        _C._view_as_real(self)[..., index].copy_(value)

    return setter


Tensor.real = property(real, _set_part(0), doc="The real part (a view for complex tensors).")
Tensor.imag = property(imag, _set_part(1), doc="The imaginary part (a view).")
for _name in (
    "angle",
    "conj",
    "conj_physical",
    "is_complex",
    "is_conj",
    "resolve_conj",
    "resolve_neg",
    "sgn",
    "vdot",
):
    setattr(Tensor, _name, globals()[_name])
Tensor.conj_physical_ = lambda self: self.copy_(conj_physical(self))
Tensor.sgn_ = lambda self: self.copy_(sgn(self))
