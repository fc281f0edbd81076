"""Tensor methods written in Python, attached to the compiled ``torch.Tensor`` class.

The hot methods (arithmetic, views, indexing) are bound in C++; the ones here parse richer
argument forms or compose primitives, where a microsecond of Python does not matter. Every
Python module that adds Tensor methods (torch._sorting, torch._index_ops, ...) does so through
:func:`tensor_method`.
"""

import builtins
import math
import sys

from torch import _C, _dtypes
from torch import _functional as F
from torch import _memory_format as _mf
from torch._checks import numpy_dim
from torch._dtypes import iinfo, legacy_type_name, parse_type
from torch._tensor_str import tensor_repr

Tensor = _C.Tensor


def tensor_method(fn, name=None):
    """Puts ``fn`` (a function, property or value) on torch.Tensor as ``name`` (by default
    its own name) and returns it: the one way Python code adds Tensor methods and
    attributes (the C++ bindings add their own). Usable as a decorator."""
    setattr(Tensor, name or fn.__name__, fn)
    return fn


# Autograd state defaults; torch-autograd fills them in.
tensor_method(None, "grad_fn")
tensor_method(
    property(lambda self: self.grad_fn is None, doc="True for tensors no op created."), "is_leaf"
)


def _get_grad(self):
    return self.__dict__.get("grad")


def _set_grad(self, value):
    """``x.grad = g``: g must be None or a tensor of x's shape and dtype, as in PyTorch."""
    if value is not None:
        if not isinstance(value, Tensor):
            cls = builtins.type(value)
            name = (
                cls.__qualname__
                if cls.__module__ == "builtins"
                else f"{cls.__module__}.{cls.__qualname__}"
            )
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got grad of type {name}"
            )
        if value.dtype != self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{value.dtype}' to a tensor with "
                f"dtype '{self.dtype}'. The gradient must match the tensor's dtype"
            )
        if value.shape != self.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                f"the same size"
            )
    self.__dict__["grad"] = value


def _del_grad(self):
    self.__dict__.pop("grad", None)


tensor_method(
    property(
        _get_grad, _set_grad, _del_grad, doc="The gradient accumulated by backward(), or None."
    ),
    "grad",
)
tensor_method(1000, "__array_priority__")  # numpy defers `array + tensor` to Tensor.__radd__
tensor_method("torch", "__module__")


# .T and .mT as compositions of transpose/permute, so that torch-autograd records them.
tensor_method(
    property(
        lambda self: self.permute(*builtins.range(self.dim() - 1, -1, -1)),
        doc="This tensor with its dims in reverse order (a view); the transpose of a matrix.",
    ),
    "T",
)


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D "
            "tensor."
        )
    return self.transpose(-2, -1)


tensor_method(
    property(_mT, doc="The transpose of the last two dims (a view), for (batches of) matrices."),
    "mT",
)


def _H(self):
    if self.dim() > 2 or self.dim() == 1:
        hint = ". For batches of matrices, consider using tensor.mH" if self.dim() > 2 else "."
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor"
            + hint
        )
    return self.t().conj() if self.dim() == 2 else self.conj()


def _mH(self):
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mH is only supported on matrices or batches of matrices. Got {self.dim()}-D "
            "tensor."
        )
    return self.transpose(-2, -1).conj()


tensor_method(property(_H, doc="The conjugate transpose of a matrix (a view for real ones)."), "H")
tensor_method(
    property(_mH, doc="The conjugate transpose of the last two dims, for (batches of) matrices."),
    "mH",
)


# Every tensor is dense; is_cpu, is_cuda and is_meta come from the core.
tensor_method(
    property(lambda self: _dtypes.strided, doc="torch.strided: dense, with strides."), "layout"
)
for _name in (
    "is_xpu", "is_mps", "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn",
    "is_nested", "is_vulkan", "is_xla", "is_ipu", "is_maia", "is_mtia",
):  # fmt: skip
    tensor_method(property(lambda self: False, doc="False: no tensor here is one."), _name)


# Reductions and composites: torch.f(x, ...) is x.f(...).
for _name in F.TENSOR_METHODS:
    tensor_method(getattr(F, _name), _name)


@tensor_method
def clamp_(self, min=None, max=None):
    """In-place :func:`torch.clamp`: limits the values to [min, max] (either may be None); returns
    ``self``. ``clip_`` is the same method."""
    return self.copy_(F.clamp(self, min, max))


tensor_method(clamp_, "clip_")


@tensor_method
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    """In-place :func:`torch.nan_to_num`: replaces NaN with ``nan`` and infinities with
    ``posinf``/``neginf`` (the dtype's extremes when None); returns ``self``."""
    return self.copy_(F.nan_to_num(self, nan, posinf, neginf))


@tensor_method
def apply_(self, callable):
    """Replaces each element x by ``callable(x)`` (a Python number in, one out), in place;
    slow (one Python call per element), as in PyTorch. Returns self."""
    if self.requires_grad:
        raise RuntimeError(
            "Can't call apply_() on a tensor that requires grad (autograd cannot see through "
            "the callable). Use x.detach().apply_(fn) instead."
        )
    kind = bool if self.dtype == _C.bool else float if self.dtype.is_floating_point else int
    values = [kind(callable(v)) for v in self.reshape(-1).tolist()]
    from torch._creation import tensor

    return self.copy_(tensor(values, dtype=self.dtype).reshape(self.shape))


@tensor_method
def clamp_min_(self, min):
    """In-place :func:`torch.clamp_min`; returns ``self``."""
    return self.copy_(F.clamp(self, min, None))


@tensor_method
def clamp_max_(self, max):
    """In-place :func:`torch.clamp_max`; returns ``self``."""
    return self.copy_(F.clamp(self, None, max))


@tensor_method
def lerp_(self, end, weight):
    """In-place :func:`torch.lerp`: ``self + weight * (end - self)``; returns ``self``."""
    return self.copy_(F.lerp(self, end, weight))


@tensor_method
def addcmul(self, tensor1, tensor2, *, value=1):
    """``self + value * tensor1 * tensor2`` (broadcast), a new tensor."""
    return _C.addcmul(self, tensor1, tensor2, value=value)


@tensor_method
def addcmul_(self, tensor1, tensor2, *, value=1):
    """In-place :meth:`addcmul`; returns ``self``."""
    return _C.addcmul(self, tensor1, tensor2, value=value, out=self)


@tensor_method
def addcdiv(self, tensor1, tensor2, *, value=1):
    """``self + value * tensor1 / tensor2`` (broadcast), a new tensor."""
    return _C.addcdiv(self, tensor1, tensor2, value=value)


@tensor_method
def addcdiv_(self, tensor1, tensor2, *, value=1):
    """In-place :meth:`addcdiv`; returns ``self``."""
    return _C.addcdiv(self, tensor1, tensor2, value=value, out=self)


@tensor_method
def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)`` for matrices ``mat1`` (n, m) and ``mat2`` (m, p);
    ``self`` broadcasts to (n, p)."""
    return _C.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


@tensor_method
def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """In-place :meth:`addmm`; ``self`` must have shape (n, p). Returns ``self``."""
    return _C.addmm(self, mat1, mat2, beta=beta, alpha=alpha, out=self)


@tensor_method
def addmv(self, mat, vec, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat @ vec)`` for a matrix ``mat`` (n, m) and a vector
    ``vec`` (m,)."""
    return _C.addmv(self, mat, vec, beta=beta, alpha=alpha)


@tensor_method
def addmv_(self, mat, vec, *, beta=1, alpha=1):
    """In-place :meth:`addmv`; ``self`` must have shape (n,). Returns ``self``."""
    return _C.addmv(self, mat, vec, beta=beta, alpha=alpha, out=self)


@tensor_method
def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """In-place :meth:`baddbmm`; ``self`` must have shape (b, n, p). Returns ``self``."""
    return _C.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha, out=self)


@tensor_method
def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta * self + alpha * bmm(batch1, batch2)`` for batches of matrices (b, n, m) and (b, m,
    p)."""
    return _C.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)


@tensor_method
def where(self, condition, other):
    """``torch.where(condition, self, other)``: ``self`` where ``condition`` is True, ``other``
    elsewhere."""
    return _C.where(condition, self, other)


@tensor_method
def round(self, decimals=0):
    """:func:`torch.round` of this tensor, half to even, to ``decimals`` decimal places."""
    return _C.round(self, decimals=decimals)


@tensor_method
def round_(self, decimals=0):
    """In-place :meth:`round`; returns ``self``."""
    return _C.round(self, decimals=decimals, out=self)


# ---------------------------------------------------------------- random, in place
@tensor_method
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """Fills ``self`` in place with samples from the uniform distribution on
    ``[from_, to)`` (``from`` is accepted as a keyword too), drawn from ``generator`` or the
    default one; returns ``self``."""
    _C._uniform_(self, builtins.float(kwargs.get("from", from_)), builtins.float(to), generator)
    self._bump_version()
    return self


@tensor_method
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fills ``self`` in place with samples from the normal distribution N(``mean``, ``std``²),
    drawn from ``generator`` or the default one; returns ``self``."""
    _C._normal_(self, builtins.float(mean), builtins.float(std), generator)
    self._bump_version()
    return self


@tensor_method
def random_(self, from_=0, to=None, *, generator=None):
    """Fills ``self`` in place with integers drawn uniformly from ``[from_, to)``:
    ``random_(to)`` means [0, to), ``random_()`` the dtype's range (for floats, the integers
    the mantissa holds exactly); returns ``self``."""
    if to is None:
        from_, to = 0, from_ if from_ else _max_random(self.dtype)
    _C._random_(self, from_, to, generator)
    self._bump_version()
    return self


# Distributions by inverse transform of uniform draws u in [0, 1): 1 - u is in (0, 1], so no
# logarithm of 0 (PyTorch documents these four as in-place methods with these parameters).
def _check_float(self, op):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{op} expects a floating-point tensor, got {self.dtype}")


def _uniform_like(self, generator):
    u = _C.empty(tuple(self.shape), self.dtype)
    _C._uniform_(u, 0.0, 1.0, generator)
    return u


@tensor_method
def exponential_(self, lambd=1.0, *, generator=None):
    """Fills with draws of the exponential distribution of rate ``lambd``."""
    _check_float(self, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    u = _uniform_like(self, generator)
    return self.copy_((1 - u).log_().mul_(-1.0 / lambd))


@tensor_method
def geometric_(self, p, *, generator=None):
    """Fills with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _uniform_like(self, generator) if self.dtype.is_floating_point else None
    if u is None:
        u = _C.empty(tuple(self.shape), _C.float64)
        _C._uniform_(u, 0.0, 1.0, generator)
    draws = ((1 - u).log() / math.log1p(-p)).ceil_().clamp_(min=1)
    return self.copy_(draws)


@tensor_method
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fills with draws of the Cauchy distribution: median + sigma tan(pi (u - 1/2))."""
    _check_float(self, "cauchy_")
    u = _uniform_like(self, generator)
    return self.copy_(((u - 0.5) * math.pi).tan_().mul_(sigma).add_(median))


@tensor_method
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fills with exp of draws of the normal distribution N(mean, std^2)."""
    _check_float(self, "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    _C._normal_(self, builtins.float(mean), builtins.float(std), generator)
    self.exp_()
    self._bump_version()
    return self


def _max_random(dtype):
    if dtype.is_floating_point:
        return 2 ** {2: 11, 4: 24, 8: 53}[dtype.itemsize] + (1 if dtype.itemsize == 2 else 0)
    if dtype == _C.bool:
        return 2
    # the core takes an int64 bound: int64 draws stop one short of its max (odds 2^-63)
    return min(iinfo(dtype).max + 1, 2**63 - 1)


@tensor_method
def bernoulli_(self, p=0.5, *, generator=None):
    """Fills ``self`` in place with 0/1 samples that are 1 with probability ``p`` (a number or a
    tensor of probabilities broadcast to ``self``); returns ``self``."""
    _C._bernoulli_(self, p, generator)
    self._bump_version()
    return self


@tensor_method
def bernoulli(self, p=None, *, generator=None):
    """:func:`torch.bernoulli` of this tensor of probabilities (or, with ``p``, a tensor shaped like
    ``self`` of 1s with probability ``p``)."""
    from torch._creation import bernoulli

    return bernoulli(self, p, generator=generator)


@tensor_method
def multinomial(self, num_samples, replacement=False, *, generator=None):
    """:func:`torch.multinomial`: ``num_samples`` indices per row drawn with the row's
    (unnormalised) weights, with or without ``replacement``."""
    return _C.multinomial(self, num_samples, replacement, generator=generator)


# ---------------------------------------------------------------- conversions
_PY_DTYPES = {builtins.float: _C.float64, builtins.int: _C.int64, builtins.bool: _C.bool}


def _parse_to(args, kwargs):
    """``to``'s arguments: (dtype, device, non_blocking, copy); positional bools are
    ``non_blocking`` then ``copy``, as in PyTorch."""
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    flags = [kwargs.get("non_blocking", False), kwargs.get("copy", False)]
    n_flags = 0
    for a in args:
        if isinstance(a, builtins.bool):
            if n_flags == 2:
                raise TypeError(f"to() received an invalid argument: {a!r}")
            flags[n_flags] = a
            n_flags += 1
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, _C.dtype) or a in _PY_DTYPES:
            dtype = a
        elif isinstance(a, (str, _C.device, builtins.int)):
            device = a
        else:
            raise TypeError(f"to() received an invalid argument: {a!r}")
    return dtype, device, builtins.bool(flags[0]), builtins.bool(flags[1])


@tensor_method
def to(self, *args, memory_format=None, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or ``to(other)`` (each may add
    ``non_blocking`` and ``copy``): returns self when nothing changes (unless
    ``copy=True``). A device without an index (``"cuda"``) is the current one of its kind.
    With both a device and a dtype, the cast happens on whichever side copies fewer bytes.
    ``memory_format`` (default ``torch.preserve_format``: a copy keeps dense strides) lays
    out the result; a tensor already in that format is returned as is when nothing else
    changes."""
    dtype, device, non_blocking, copy = _parse_to(args, kwargs)
    if memory_format is None or memory_format is _mf.preserve_format:
        if _C_is_contiguous(self):  # (the copy, if any, is contiguous too)
            return _to(self, dtype, device, non_blocking, copy)
        memory_format = _mf.preserve_format
    return _to_format(self, dtype, device, non_blocking, copy, _mf.check(memory_format, "to"))


def _to_format(self, dtype, device, non_blocking, copy, fmt):
    """``to`` with a memory format; one copy where the device stays."""
    strides = _mf.target_strides(self, fmt)  # raises for a channels-last format at another rank
    dtype = self.dtype if dtype is None else _PY_DTYPES.get(dtype, dtype)
    if device is None or _C.device(device) == self.device:  # one copy here, cast included
        if dtype == self.dtype and not copy:
            if fmt is _mf.preserve_format or _mf.suggest(self) is fmt:
                return self
        return _mf.empty_strided(self.shape, strides, dtype, self.device).copy_(self)
    result = _to(self, dtype, device, non_blocking, copy)
    if result is self:
        if fmt is _mf.preserve_format or _mf.suggest(self) is fmt:
            return self
    elif result.stride() == strides:
        return result
    return _mf.empty_strided(result.shape, strides, result.dtype, result.device).copy_(result)


def _to(self, dtype, device, non_blocking, copy):
    if device is None:
        return self._to_dtype(dtype or self.dtype, copy)
    target = device if isinstance(device, _C.device) else _C.device(device)
    here = self.device
    if target.type == here.type and (target.type == "cpu" or target.index == here.index):
        return self._to_dtype(dtype or self.dtype, copy)
    if target.type == "meta":  # the shape and dtype, without the data
        return _C.empty(self.shape, dtype or self.dtype, "meta")
    if self.is_meta:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    from torch import cuda

    if target.type != "cuda" and here.type != "cuda":
        raise cuda._unavailable(f"move a tensor to {target}")
    if target.type == "cuda":
        cuda._require(f"move a tensor to {target}", target.index)
        if target.index is None:
            target = _C.device("cuda", _C._cuda_current_device())
            if target == here:
                return self._to_dtype(dtype or self.dtype, copy)
    dtype = self.dtype if dtype is None else _PY_DTYPES.get(dtype, dtype)
    if dtype == self.dtype:
        return _move(self, target, non_blocking)
    # cast where it copies less: before the move when it shrinks the data (or, same size,
    # when the source is on the GPU), after it otherwise
    size, new_size = self.dtype.itemsize, dtype.itemsize
    if new_size < size or (new_size == size and here.type == "cuda"):
        return _move(self._to_dtype(dtype, False), target, non_blocking)
    return _move(self, target, non_blocking)._to_dtype(dtype, False)


_device_copy = None  # the autograd Function for device moves, made on first need


def _move(t, device, non_blocking):
    """A copy of `t` on `device` (the core's ``_cuda_to_device``, which has no grad gate),
    differentiable: a tensor that requires grad moves through an autograd Function whose
    backward moves the gradient back."""
    global _device_copy
    if t.requires_grad and _C.is_grad_enabled():
        if _device_copy is None:
            try:
                from torch.autograd import Function
            except ImportError:  # no torch-autograd: no gradients to carry
                return _C._cuda_to_device(t, device, non_blocking)

            class ToCopy(Function):
                @staticmethod
                def forward(ctx, x, device, non_blocking):
                    ctx.source = x.device
                    return _C._cuda_to_device(x, device, non_blocking)

                @staticmethod
                def backward(ctx, grad):
                    return _C._cuda_to_device(grad, ctx.source, False), None, None

            _device_copy = ToCopy
        return _device_copy.apply(t, device, non_blocking)
    return _C._cuda_to_device(t, device, non_blocking)


@tensor_method
def cpu(self, *, memory_format=_mf.preserve_format):
    """This tensor on the CPU: itself if it already is there (in ``memory_format``), else a
    copy."""
    if self.device.type == "cpu" and memory_format is _mf.preserve_format:
        return self
    return self.to("cpu", memory_format=memory_format)


@tensor_method
def cuda(self, device=None, non_blocking=False, *, memory_format=_mf.preserve_format):
    """This tensor on a CUDA device (``device`` an index or a device; the current one when
    None): itself if it already is there, else a copy. Raises where CUDA is not available."""
    if device is None:
        device = _C.device("cuda")
    elif isinstance(device, builtins.int) and not isinstance(device, builtins.bool):
        device = _C.device("cuda", device)
    else:
        device = device if isinstance(device, _C.device) else _C.device(device)
        if device.type != "cuda":
            raise RuntimeError(f"Invalid device, must be a cuda device, not {device}")
    return self.to(device, non_blocking=non_blocking, memory_format=memory_format)


@tensor_method
def get_device(self):
    """The CUDA device index of a CUDA tensor; -1 for a CPU tensor."""
    return -1 if self.device.type == "cpu" else self.device.index


@tensor_method
def is_pinned(self, device=None):
    """Whether the tensor is in page-locked host memory (made by :meth:`pin_memory`, for
    fast and asynchronous copies to a GPU)."""
    if self.device.type != "cpu":
        return False
    cuda = sys.modules.get("torch.cuda")
    if cuda is None or not cuda.is_initialized():  # nothing can have been pinned yet
        return False
    return builtins.bool(_C._cuda_is_pinned(self))


@tensor_method
def pin_memory(self, device=None):
    """A copy of this CPU tensor in page-locked memory (itself if it already is): copies
    from it to a GPU are faster and can be asynchronous (``.to("cuda", non_blocking=True)``).
    Needs CUDA."""
    if self.device.type != "cpu":
        raise RuntimeError(
            f"pin_memory: only CPU tensors can be pinned, but this tensor is on {self.device}"
        )
    from torch import cuda

    cuda._require("pin memory (page-locked memory serves copies to a GPU)")
    if _C._cuda_is_pinned(self):
        return self
    return _C._cuda_pin_memory(self)


def _cast(self, dtype, memory_format):
    """``self.to(dtype, memory_format=memory_format)``, the dtype's own op when it can be."""
    if memory_format is _mf.preserve_format:
        if dtype == self.dtype:
            return self
        if _C_is_contiguous(self):  # (the cast is contiguous too)
            return self._to_dtype(dtype, False)
    return _to_format(self, dtype, None, False, False, _mf.check(memory_format, "to"))


def _caster(name, dtype):
    def cast(self, *, memory_format=_mf.preserve_format):
        return _cast(self, dtype, memory_format)

    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"``self.to({dtype}, memory_format=memory_format)``"
    tensor_method(cast)


for _name, _dt in (
    ("float", _C.float32),
    ("double", _C.float64),
    ("half", _C.float16),
    ("bfloat16", _C.bfloat16),
    ("int", _C.int32),
    ("long", _C.int64),
    ("short", _C.int16),
    ("char", _C.int8),
    ("byte", _C.uint8),
    ("bool", _C.bool),
):
    _caster(_name, _dt)


def _complex_caster(name, real):
    def cast(self, *, memory_format=_mf.preserve_format):
        if real is None:
            raise RuntimeError(
                f"{name}(): torch.complex32 (ComplexHalf) is not supported here; use "
                "self.cfloat() (complex64) instead"
            )
        return _cast(self, real, memory_format)

    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"``self.to({real})``" if real is not None else "complex32: not supported"
    tensor_method(cast)


_complex_caster("cfloat", _C.complex64)
_complex_caster("cdouble", _C.complex128)
_complex_caster("chalf", getattr(_C, "complex32", None))


@tensor_method
def type(self, dtype=None, non_blocking=False, **kwargs):
    """Without arguments, the legacy type name ('torch.FloatTensor'); with a dtype, a legacy
    class or its name, the tensor cast to it."""
    if dtype is None:
        return legacy_type_name(self.dtype)
    return _cast(self, parse_type(dtype), kwargs.get("memory_format", _mf.preserve_format))


@tensor_method
def type_as(self, other):
    """This tensor cast to ``other``'s dtype (itself when the dtypes match)."""
    return _cast(self, other.dtype, _mf.preserve_format)


# ---------------------------------------------------------------- memory formats
_C_is_contiguous = Tensor.is_contiguous
_C_contiguous = Tensor.contiguous
_C_clone = Tensor.clone


@tensor_method
def is_contiguous(self, *, memory_format=_mf.contiguous_format):
    """Whether the elements lie in memory without gaps in the order ``memory_format`` names
    (row-major by default; NHWC for ``torch.channels_last``). Dims of size 1 may have any
    stride."""
    if memory_format is _mf.contiguous_format:
        return _C_is_contiguous(self)
    return _mf.is_contiguous(self, _mf.check(memory_format, "is_contiguous", optional=False))


@tensor_method
def contiguous(self, *, memory_format=_mf.contiguous_format):
    """This tensor if it is contiguous in ``memory_format``, else a copy that is."""
    if memory_format is _mf.contiguous_format:
        return _C_contiguous(self)
    fmt = _mf.check(memory_format, "contiguous", optional=False)
    if _mf.is_contiguous(self, fmt):
        return self
    if fmt is _mf.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _mf.empty_strided(
        self.shape, _mf.target_strides(self, fmt), self.dtype, self.device
    ).copy_(self)


@tensor_method
def clone(self, *, memory_format=_mf.preserve_format):
    """A copy with its own memory. ``memory_format`` lays it out: by default
    (``torch.preserve_format``) a dense tensor keeps its strides and any other is made dense
    with its dims in the same order."""
    if memory_format is None or memory_format is _mf.preserve_format:
        if _C_is_contiguous(self):  # (the copy is contiguous too)
            return _C_clone(self)
        fmt = _mf.preserve_format
    else:
        fmt = _mf.check(memory_format, "clone")
        if fmt is _mf.contiguous_format:
            return _C_clone(self)
    return _mf.empty_strided(
        self.shape, _mf.target_strides(self, fmt), self.dtype, self.device
    ).copy_(self)


@tensor_method
def __array__(self, dtype=None, copy=None):
    a = self.numpy()
    return a if dtype is None else a.astype(dtype, copy=False)


@tensor_method
def __iter__(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in builtins.range(self.shape[0]))


@tensor_method
def __reversed__(self):
    return self.flip(0) if hasattr(self, "flip") else iter(list(self)[::-1])


@tensor_method
def __contains__(self, element):
    if isinstance(element, (Tensor, builtins.int, builtins.float, builtins.bool)):
        return builtins.bool(_C.eq(self, element).any())
    raise RuntimeError(
        f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
    )


@tensor_method
def __format__(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


@tensor_method
def __repr__(self, *, tensor_contents=None):
    return tensor_repr(self)


tensor_method(__repr__, "__str__")


@tensor_method
def requires_grad_(self, requires_grad=True):
    self.requires_grad = requires_grad
    return self


@tensor_method
def detach_(self):
    self.requires_grad = False
    return self


@tensor_method
def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding ``data`` (copied), with ``self``'s dtype and device unless given."""
    from torch._creation import tensor

    device = self.device if device is None else device  # not the default device
    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_filled(name, value):
    def new(self, *size, dtype=None, device=None, requires_grad=False):
        """A tensor of the given size filled with zeros (``new_zeros``) or ones (``new_ones``),
        with ``self``'s dtype and device unless given."""
        from torch._creation import _filled

        device = self.device if device is None else device  # not the default device
        return _filled(size, value, dtype or self.dtype, device, requires_grad, name)

    new.__name__ = name
    tensor_method(new)


_new_filled("new_zeros", 0)
_new_filled("new_ones", 1)


@tensor_method
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of the given size with ``self``'s dtype and device unless
    given."""
    from torch._creation import _empty, _finish, _size

    device = self.device if device is None else device  # not the default device
    return _finish(_empty(_size(size, "new_empty"), dtype or self.dtype, device), requires_grad)


@tensor_method
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor of shape ``size`` filled with ``fill_value``, with ``self``'s dtype and device
    unless given."""
    from torch._creation import full

    device = self.device if device is None else device  # not the default device
    return full(size, fill_value, dtype=dtype or self.dtype, device=device)


@tensor_method
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with the given sizes and strides, with ``self``'s dtype and
    device unless given."""
    from torch._creation import empty_strided

    device = self.device if device is None else device
    return empty_strided(
        size, stride, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad
    )


@tensor_method
def dim_order(self):
    """The dims ordered from the largest stride to the smallest: ``(0, 1, ..., n-1)`` for a
    contiguous tensor."""
    return tuple(sorted(builtins.range(self.dim()), key=lambda d: -self.stride(d)))


@tensor_method
def __deepcopy__(self, memo):
    """A new leaf with a copy of the values, requires_grad and .grad (graph leaves only)."""
    import copy

    from torch._grad_mode import no_grad

    if self.grad_fn is not None:
        raise RuntimeError(
            "Only tensors created explicitly by the user (graph leaves) support deepcopy; "
            "deepcopy x.detach() instead"
        )
    if id(self) in memo:
        return memo[id(self)]
    with no_grad():
        result = self.clone()
    memo[id(self)] = result
    if self.requires_grad:
        result.requires_grad_(True)
    if self.grad is not None:
        result.grad = copy.deepcopy(self.grad, memo)
    return result


@tensor_method
def __reduce_ex__(self, protocol):
    from torch._utils import _reduce_tensor

    return _reduce_tensor(self)


@tensor_method
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make this tensor view `source` (a tensor or a storage) in place; no argument: empty."""
    if source is None:
        return _C._set_storage(self, _C.UntypedStorage(0), 0, (0,), (1,))
    if isinstance(source, Tensor):
        if source.dtype != self.dtype:
            raise RuntimeError(f"set_: source has dtype {source.dtype}, this tensor {self.dtype}")
        if size is None and stride is None and storage_offset == 0:
            _C._set_data(self, source)  # source's own layout
            return self
        source = source.untyped_storage()  # the given layout over source's storage
    if hasattr(source, "untyped"):  # a TypedStorage
        if source.dtype != self.dtype:
            raise RuntimeError(f"set_: storage has dtype {source.dtype}, this tensor {self.dtype}")
        source = source.untyped()
    if size is None:
        size = ((source.nbytes() // self.dtype.itemsize) - storage_offset,)
    if stride is None:
        stride, step = [], 1
        for n in reversed(tuple(size)):
            stride.insert(0, step)
            step *= builtins.max(n, 1)
    return _C._set_storage(self, source, storage_offset, tuple(size), tuple(stride))


# ---------------------------------------------------------------- in-place view ops
def _restride_(self, name, *args):
    """``self.name_(*args)``: self itself becomes ``self.name(*args)`` (the same storage seen
    with the view's sizes, strides and offset). While recording, it takes the view op's
    history: in-place, like any other in-place op, so a leaf that requires grad refuses."""
    from torch._grad_mode import is_grad_enabled

    recording = self.requires_grad and is_grad_enabled()
    if recording and self.grad_fn is None:
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place operation "
            f"({name}_). Use {name}() instead, or modify it under torch.no_grad()."
        )
    view = getattr(self, name)(*args)
    if view is not self:
        _C._set_data(self, view)
        if recording and view.grad_fn is not None:
            self.grad_fn = view.grad_fn
            self.output_nr = getattr(view, "output_nr", 0)
    self._bump_version()  # autograd's saved copies of the old geometry are stale now
    return self


@tensor_method
def unsqueeze_(self, dim=None, *, axis=None):
    """In-place :meth:`unsqueeze`: inserts a dim of size 1 at ``dim`` by changing this tensor's
    sizes and strides; returns ``self``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None:
        dim = numpy_dim("unsqueeze_", dim, axis, required=True)
    return _restride_(self, "unsqueeze", dim)


@tensor_method
def squeeze_(self, dim=None, *, axis=None):
    """In-place :meth:`squeeze`: removes the size-1 dims (or ``dim``, if it has size 1) from this
    tensor's geometry; returns ``self``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("squeeze_", dim, axis, None)
    return _restride_(self, "squeeze") if dim is None else _restride_(self, "squeeze", dim)


@tensor_method
def t_(self):
    """In-place :meth:`t`: transposes this (at most 2-dim) tensor's geometry; returns ``self``."""
    return _restride_(self, "t")


@tensor_method
def transpose_(self, dim0, dim1):
    """In-place :meth:`transpose`: swaps dims ``dim0`` and ``dim1`` of this tensor's geometry;
    returns ``self``. ``swapdims_`` and ``swapaxes_`` are the same method."""
    return _restride_(self, "transpose", dim0, dim1)


tensor_method(transpose_, "swapdims_")
tensor_method(transpose_, "swapaxes_")


@tensor_method
def as_strided_(self, size, stride, storage_offset=None):
    """In-place :meth:`as_strided`: gives this tensor the sizes, strides and storage offset (kept
    when None), over the same storage; returns ``self``."""
    return _restride_(self, "as_strided", size, stride, storage_offset)


@tensor_method
def resize_as_(self, other):
    """Resizes ``self`` in place to ``other``'s shape (see :meth:`resize_`); returns ``self``."""
    return self.resize_(other.shape)


@tensor_method
def resize_as(self, the_template, memory_format=None):
    """Deprecated out-of-place form of :meth:`resize_as_`: ``self`` reshaped to the template's
    shape, which must hold as many elements (warns, as PyTorch does)."""
    import warnings

    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    shape = tuple(the_template.shape)
    if math.prod(shape) != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, shape))} ({math.prod(shape)} elements in "
            f"total), but the given tensor has a size of {'x'.join(map(str, self.shape))} "
            f"({self.numel()} elements). autograd's resize can only change the shape of a given "
            "tensor, while preserving the number of elements. "
        )
    return self.reshape(shape)


@tensor_method
def is_set_to(self, tensor):
    """True when both tensors view the same storage with the same offset, sizes and strides."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
            f"{builtins.type(tensor).__name__}"
        )
    return (
        self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()
        and self.storage_offset() == tensor.storage_offset()
        and self.shape == tensor.shape
        and self.stride() == tensor.stride()
    )


@tensor_method
def storage(self):
    """This tensor's storage as a typed storage of its dtype."""
    from torch.storage import TypedStorage

    return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype)


@tensor_method
def share_memory_(self):
    """Move this tensor's storage into shared memory (a no-op if it is already there). Needs
    torch-multiprocessing (importing it without the package names the package to install)."""
    import torch.multiprocessing as mp

    mp._share_storage(self.untyped_storage())
    return self


@tensor_method
def is_shared(self):
    """True if this tensor's storage is in shared memory (see :meth:`share_memory_`)."""
    import torch.multiprocessing as mp

    return mp._is_shared(self.untyped_storage())
