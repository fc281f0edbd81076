"""Complex tensors: real and imaginary views, modulus and argument, conjugation, polar form.

complex64 and complex128 tensors are stored as interleaved (real, imaginary) pairs, as NumPy
and PyTorch store them, so ``view_as_real`` and ``.real``/``.imag`` are views. Unlike PyTorch,
``conj()`` returns a new tensor instead of a lazily conjugated view (there is no conjugate bit),
so ``is_conj()`` is always False; values are the same.
"""

import math

from torch import _C
from torch._checks import check_tensor, write_out
from torch._tensor import tensor_method

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


def is_complex(input):
    """True if ``input``'s dtype is complex (``complex64`` or ``complex128``)."""
    check_tensor(input, "is_complex")
    return input.dtype.is_complex


def is_conj(input):
    """Always False: this torch has no lazily conjugated views (see :func:`resolve_conj`)."""
    check_tensor(input, "is_conj")
    return False


def view_as_real(input):
    """A real view of shape (..., 2) onto a complex tensor's (real, imaginary) pairs."""
    check_tensor(input, "view_as_real")
    return _C._view_as_real(input)


def view_as_complex(input):
    """A complex view onto a real tensor of shape (..., 2) whose last dim has stride 1."""
    check_tensor(input, "view_as_complex")
    return _C._view_as_complex(input)


def real(input):
    """The real part of ``input``: a real view onto a complex tensor (writes go through), the tensor
    itself for a real one."""
    check_tensor(input, "real")
    return _C._view_as_real(input)[..., 0] if input.dtype.is_complex else input


def imag(input):
    """The imaginary part of a complex ``input``, as a real view that shares its storage. Raises
    RuntimeError for real dtypes."""
    check_tensor(input, "imag")
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _C._view_as_real(input)[..., 1]


def complex(real, imag, *, out=None):  # noqa: A001  (PyTorch's name)
    """real + 1j * imag, from two float tensors of one dtype (broadcast)."""
    check_tensor(real, "complex", "real")
    check_tensor(imag, "complex", "imag", 2)
    r = _C._complex(real, imag)
    return write_out(r, out)


def polar(abs, angle, *, out=None):  # noqa: A002
    """abs * (cos(angle) + 1j * sin(angle))."""
    check_tensor(abs, "polar", "abs")
    check_tensor(angle, "polar", "angle", 2)
    r = _C._complex(abs * angle.cos(), abs * angle.sin())
    return write_out(r, out)


def angle(input, *, out=None):
    """The argument of each element in radians; for real input 0, or pi where negative."""
    check_tensor(input, "angle")
    if input.dtype.is_complex:
        r = _C._complex_angle(input)
    else:
        x = input if input.dtype.is_floating_point else input.to(_C.get_default_dtype())
        r = (x < 0).to(x.dtype) * math.pi
        r = _C.where(x.isnan(), x, r)
    return write_out(r, out)


def conj_physical(input, *, out=None):
    """The complex conjugate as a new tensor (real tensors are returned as they are)."""
    check_tensor(input, "conj_physical")
    if not input.dtype.is_complex:
        return write_out(input, out)
    parts = _C._view_as_real(input)
    r = _C._complex(parts[..., 0], -parts[..., 1])
    return write_out(r, out)


def conj(input):
    """The complex conjugate (a new tensor here; PyTorch returns a lazy view)."""
    return conj_physical(input)


def resolve_conj(input):
    """Returns ``input`` itself: conjugation is never lazy here (:func:`conj` copies), so there is
    no conjugate bit to resolve."""
    check_tensor(input, "resolve_conj")
    return input


def resolve_neg(input):
    """Returns ``input`` itself: negation is never lazy here, so there is no negative bit to
    resolve."""
    check_tensor(input, "resolve_neg")
    return input


def sgn(input, *, out=None):
    """``z / |z|`` (0 where z is 0) for complex input; sign(x) for real input."""
    check_tensor(input, "sgn")
    if not input.dtype.is_complex:
        r = input.sign()
    else:
        m = _C._complex_abs(input)
        safe = m.masked_fill(m == 0, 1)
        r = input / safe.to(input.dtype) * (m != 0).to(input.dtype)
    return write_out(r, out)


def vdot(input, other, *, out=None):
    """The dot product of two 1-D tensors, conjugating the first."""
    check_tensor(input, "vdot")
    check_tensor(other, "vdot", "other", 2)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors"
        )
    r = (conj_physical(input) * other).sum() if input.dtype.is_complex else input.dot(other)
    return write_out(r, out)


def _set_part(index):
    def setter(self, value):
        if not self.dtype.is_complex:
            if index == 1:
                raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
            self.copy_(value)
            return
        _C._view_as_real(self)[..., index].copy_(value)

    return setter


tensor_method(
    property(real, _set_part(0), doc="The real part (a view for complex tensors)."), "real"
)
tensor_method(property(imag, _set_part(1), doc="The imaginary part (a view)."), "imag")
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
    tensor_method(globals()[_name], _name)


@tensor_method
def conj_physical_(self):
    """In-place :func:`conj_physical`: conjugates a complex tensor's values; returns ``self``."""
    return self.copy_(conj_physical(self))


@tensor_method
def sgn_(self):
    """In-place :func:`sgn`; returns ``self``."""
    return self.copy_(sgn(self))
