"""Tensor creation: from data, filled, ranges, and random sampling."""

import builtins
import math
import operator

from torch import _C
from torch import _memory_format as _mf

__all__ = [
    "poisson",
    "tensor",
    "as_tensor",
    "empty",
    "asarray",
    "zeros",
    "ones",
    "full",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "arange",
    "range",
    "linspace",
    "logspace",
    "eye",
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "normal",
    "bernoulli",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "scalar_tensor",
    "empty_strided",
    "frombuffer",
    "set_default_device",
    "get_default_device",
]

Tensor = _C.Tensor

# The device factories use when they are given none (torch.set_default_device); None: cpu.
_default_device = None


def set_default_device(device):
    """Make ``device`` the one that factory functions (``torch.zeros``, ``torch.tensor``,
    ``torch.randn``, ...) create tensors on when they are not given a ``device``; ``None``
    restores the CPU. A ``cuda`` device is accepted where CUDA cannot be used (as in
    PyTorch on a machine without CUDA), and then the factories raise when they run; an int
    names a CUDA device."""
    global _default_device
    if device is None:
        _default_device = None
        return
    if isinstance(device, builtins.int):
        from torch import cuda

        if not cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        device = _C.device("cuda", device)
    _default_device = _C.device(device)


def get_default_device():
    """The device set by :func:`set_default_device`; ``torch.device('cpu')`` by default. A
    ``cuda`` device without an index is completed with the current CUDA device (and raises
    where CUDA cannot be used)."""
    device = _default_device
    if device is None:
        return _C.device("cpu")
    if device.type not in ("cpu", "meta") and device.index is None:
        from torch import cuda

        if device.type == "cuda":
            return _C.device("cuda", cuda.current_device())
        raise cuda._unavailable(f"report the current {device.type} device")
    return device


# ``with torch.device("meta"):`` sets the factories' default device for the block, as
# set_default_device does; leaving it restores the one before (blocks nest).
_devices_outside = []


def _device_enter(device):
    global _default_device
    _devices_outside.append(_default_device)
    _default_device = _C.device(device)
    return device


def _device_exit(device, *exc_info):
    global _default_device
    _default_device = _devices_outside.pop()


_C.device.__enter__ = _device_enter
_C.device.__exit__ = _device_exit


def _device(device):
    """A factory's ``device`` argument, the default device when it is None."""
    return _default_device if device is None else device


def _finish(t, requires_grad=False, device=None, made=False):
    """``t`` on ``device``, requiring grad if asked. ``made``: t is the factory's own new host
    tensor, which a CUDA device receives without waiting for the GPU (through page-locked
    staging memory, as a fill kernel would be queued) instead of by a blocking copy."""
    if device is not None:
        device = device if isinstance(device, _C.device) else _C.device(device)
        here = t.device
        # cpu:0 is the cpu; "cuda" without an index (the current device) is to()'s to settle
        if device.type != here.type or (device.type != "cpu" and device.index != here.index):
            _check_backend(device)
            if made and device.type == "cuda" and here.type == "cpu":
                t = _C._cuda_upload_staged(t, device)
            else:
                t = t.to(device)
    if requires_grad:
        t.requires_grad = True
    return t


def _check_backend(device):
    """A device this build cannot use raises torch.cuda's clear error ("Torch not compiled
    with CUDA enabled: ..." and what is missing); ``cuda`` initialises CUDA first."""
    if device is not None:
        device = device if isinstance(device, _C.device) else _C.device(device)
        if device.type in ("cpu", "meta"):
            return
        from torch import cuda

        if device.type == "cuda":
            cuda._require(f"create a tensor on {device}", device.index)
            return
        raise cuda._unavailable(f"create a tensor on {device}")


def _empty(size, dtype, device):
    """``_C.empty``, checking the device first."""
    _check_backend(device)
    return _C.empty(size, dtype, device)


def _size(size, op):
    """f(2, 3) and f((2, 3)) alike; the core checks the ints (naming `op` on error)."""
    if len(size) == 1 and not isinstance(size[0], builtins.int):
        return size[0]
    return size


def _shape(size, size_kw, op):
    """The shape of ``f(*size)`` or ``f(size=...)`` (``size`` as a keyword must be a sequence
    of ints; positionally ``f(2, 3)`` and ``f((2, 3))`` alike)."""
    if size_kw is None:
        if not size:
            raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
        return _size(size, op)
    if size:
        raise TypeError(f"{op}() got multiple values for argument 'size'")
    if isinstance(size_kw, Tensor) or not isinstance(size_kw, (tuple, list)):
        raise TypeError(
            f"{op}(): argument 'size' must be tuple of ints, not {type(size_kw).__name__}"
        )
    return size_kw


def _is_ndarray(x):
    return type(x).__module__ == "numpy" and type(x).__name__ == "ndarray"


def _numpy_scalar_array(x):
    """A NumPy scalar (np.float64(2), ...) as a 0-d array, which keeps its dtype; else None."""
    if type(x).__module__ == "numpy" and hasattr(x, "dtype") and hasattr(x, "__array__"):
        return x.__array__()
    return None


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays or tensors).

    The dtype is inferred when not given: bools stay ``torch.bool``, ints become
    ``torch.int64`` and floats the default dtype (``torch.float32``).
    """
    if isinstance(data, Tensor):
        t = data._alias()._to_dtype(dtype or data.dtype, True)
    elif _is_ndarray(data) or _numpy_scalar_array(data) is not None:
        array = data if _is_ndarray(data) else _numpy_scalar_array(data)
        t = _C.from_numpy(array).clone()
        if dtype is not None:
            t = t._to_dtype(dtype, False)
    elif hasattr(data, "__cuda_array_interface__"):  # a CuPy or Numba array on the GPU
        t = _C._from_cuda_array_interface(data).clone()
        if dtype is not None:
            t = t._to_dtype(dtype, False)
    else:
        t = _C._tensor_from_data(data, dtype)
    return _finish(t, requires_grad, _device(device), made=True)


def as_tensor(data, dtype=None, device=None):
    """Like :func:`tensor`, but shares memory with ``data`` when it is already a tensor, a
    NumPy array or a GPU array with ``__cuda_array_interface__`` (CuPy, Numba) of the
    requested dtype and device."""
    if device is None and _default_device is not None and not isinstance(data, Tensor):
        device = _default_device
    if isinstance(data, Tensor):
        return _finish(data if dtype is None else data._to_dtype(dtype, False), False, device)
    if _is_ndarray(data):
        t = _C.from_numpy(data)
        return _finish(t if dtype is None else t._to_dtype(dtype, False), False, device)
    if hasattr(data, "__cuda_array_interface__"):
        t = _C._from_cuda_array_interface(data)
        return _finish(t if dtype is None else t._to_dtype(dtype, False), False, device)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts ``obj`` to a tensor, sharing memory unless ``copy=True`` or a cast is needed."""
    t = tensor(obj, dtype=dtype) if copy else as_tensor(obj, dtype=dtype)
    return _finish(t, requires_grad, device)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the memory of an object with the buffer protocol (bytearray, mmap,
    array.array, ...): ``count`` elements of ``dtype`` (all that fit when -1) from byte
    ``offset`` on. The tensor shares the buffer's memory; a read-only buffer (bytes) warns
    and is copied, since tensors here are always writable."""
    import warnings

    view = memoryview(buffer).cast("B")
    nbytes, size = view.nbytes, dtype.itemsize
    if nbytes == 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if offset < 0 or offset >= nbytes:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({nbytes} bytes) minus 1"
        )
    if count < 0:
        if (nbytes - offset) % size:
            raise ValueError(
                f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be "
                f"a multiple of element size ({size})"
            )
        count = (nbytes - offset) // size
    elif offset + count * size > nbytes:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({nbytes} bytes)"
        )
    view = view[offset : offset + count * size]
    if view.readonly:
        warnings.warn(
            "The given buffer is not writable; frombuffer copied it, so the tensor does not "
            "share its memory (pass a bytearray to share it)",
            UserWarning,
            stacklevel=2,
        )
        view = memoryview(bytearray(view))
    storage = _C.UntypedStorage._from_buffer(view)
    t = _C._tensor_from_storage(storage, dtype, 0, (count,), (1,))
    return _finish(t, requires_grad, None)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-dim tensor holding the number ``s``, in ``dtype`` (the default dtype when None) on
    ``device``."""
    dtype = dtype or _C.get_default_dtype()
    device = _device(device)
    if _on_accelerator(device):
        return _finish(_device_full((), s, dtype, device, "scalar_tensor"), requires_grad)
    t = _C._full((), s, dtype)
    return _finish(t, requires_grad, device)


def _on_accelerator(device):
    """Whether a factory's ``device`` is neither the CPU nor meta (nor None: the CPU)."""
    if device is None:
        return False
    return (device if isinstance(device, _C.device) else _C.device(device)).type not in (
        "cpu",
        "meta",
    )


def _device_full(size, value, dtype, device, op):
    """A tensor filled where it lives (a GPU's fill kernel), not on the host and copied
    over: a copy from pageable host memory waits for the GPU to drain. ``dtype`` None
    follows the value, as ``_C._full`` infers it."""
    dtype = _C._full((), value, dtype, op).dtype  # (checks that the value fits the dtype)
    return _empty(size, dtype, device).fill_(value)


def _filled(size, value, dtype, device, requires_grad, op, out=None, shape=None):
    size = _size(size, op) if shape is None else shape
    if out is not None:
        return out.resize_(size).fill_(value)
    dtype = dtype or _C.get_default_dtype()
    if _on_accelerator(device):
        return _finish(_device_full(size, value, dtype, device, op), requires_grad)
    t = _C._full(size, value, dtype, op)
    return t if device is None and not requires_grad else _finish(t, requires_grad, device)


def empty(
    *args,
    size=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    memory_format=None,
):
    """An uninitialised tensor of the given shape: ``empty(2, 3)``, ``empty((2, 3))`` or
    ``empty(size=(2, 3))``."""
    shape = _shape(args, size, "empty")
    if out is not None:
        return out.resize_(shape)
    t = _empty(shape, dtype or _C.get_default_dtype(), _device(device))
    return _finish(_mf.empty(t, memory_format), requires_grad)


def zeros(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of the given shape filled with zeros."""
    shape = _shape(args, size, "zeros")
    return _filled(None, 0, dtype, _device(device), requires_grad, "zeros", out, shape)


def ones(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of the given shape filled with ones."""
    shape = _shape(args, size, "ones")
    return _filled(None, 1, dtype, _device(device), requires_grad, "ones", out, shape)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of shape ``size`` filled with ``fill_value``; the dtype follows the value
    (bool, int64 or the default float dtype) when not given."""
    if out is not None:
        return out.resize_(_size((size,), "full")).fill_(fill_value)
    size = _size((size,), "full")
    device = _device(device)
    if _on_accelerator(device):
        return _finish(_device_full(size, fill_value, dtype, device, "full"), requires_grad)
    t = _C._full(size, fill_value, dtype)
    return _finish(t, requires_grad, device)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of shape ``size`` with the given ``stride`` (in elements), over a new
    storage just big enough for it. The values are whatever memory held."""
    n = 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride)) if 0 not in size else 0
    base = _empty((n,), dtype or _C.get_default_dtype(), _device(device))
    return _finish(base.as_strided(size, stride, 0), requires_grad)


def _like(input, dtype, device, requires_grad, value=None):
    device = device or input.device
    if value is None:
        return _empty(input.shape, dtype or input.dtype, device)
    if _on_accelerator(device):
        return _device_full(input.shape, value, dtype or input.dtype, device, "full")
    return _finish(_C._full(input.shape, value, dtype or input.dtype), False, device)


def empty_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
):
    """An uninitialised tensor with ``input``'s shape and, unless given, its dtype and device
    (laid out as ``memory_format`` asks; by default as ``input`` is)."""
    t = _like(input, dtype, device, requires_grad)
    return _finish(_mf.like(t, input, memory_format, "empty_like"), requires_grad)


def zeros_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
):
    """A tensor of zeros with ``input``'s shape and, unless given, its dtype and device."""
    t = _like(input, dtype, device, requires_grad, 0)
    return _finish(_mf.like(t, input, memory_format, "zeros_like"), requires_grad)


def ones_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
):
    """A tensor of ones with ``input``'s shape and, unless given, its dtype and device."""
    t = _like(input, dtype, device, requires_grad, 1)
    return _finish(_mf.like(t, input, memory_format, "ones_like"), requires_grad)


def full_like(
    input,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
):
    """A tensor with ``input``'s shape filled with ``fill_value``; dtype and device are ``input``'s
    unless given."""
    t = _like(input, dtype, device, requires_grad, fill_value)
    return _finish(_mf.like(t, input, memory_format, "full_like"), requires_grad)


def _number(x, op, arg):
    if isinstance(x, Tensor):
        return x.item()
    if isinstance(x, (builtins.int, builtins.float)):
        return x
    raise TypeError(f"{op}(): argument '{arg}' must be a Number, not {type(x).__name__}")


def arange(
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """Values from ``start`` to ``end`` (exclusive) by ``step``: ``arange(5)`` is 0..4.

    int64 when every bound is an integer, else the default float dtype."""
    if end is None:
        start, end = 0, start
    vals = [_number(v, "arange", n) for v, n in ((start, "start"), (end, "end"), (step, "step"))]
    if dtype is None:
        is_float = builtins.any(isinstance(v, builtins.float) for v in vals)
        dtype = _C.get_default_dtype() if is_float else _C.int64
    t = _C._arange(builtins.float(vals[0]), builtins.float(vals[1]), builtins.float(vals[2]), dtype)
    if out is not None:
        return out.resize_(t.shape).copy_(t)
    return _finish(t, requires_grad, _device(device), made=True)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """Deprecated in PyTorch: like arange but includes ``end``."""
    if end is None:
        start, end = 0, start
    n = math.floor((end - start) / step) + 1
    return linspace(
        start, start + (n - 1) * step, n, dtype=dtype, device=device, requires_grad=requires_grad
    )


def linspace(
    start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
):
    """``steps`` values evenly spaced from ``start`` to ``end``, both included."""
    start, end = _number(start, "linspace", "start"), _number(end, "linspace", "end")
    t = _C._linspace(
        builtins.float(start), builtins.float(end), steps, dtype or _C.get_default_dtype()
    )
    if out is not None:
        return out.resize_(t.shape).copy_(t)
    return _finish(t, requires_grad, _device(device), made=True)


def logspace(
    start,
    end,
    steps,
    base=10.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """``base ** linspace(start, end, steps)``."""
    exps = _C._linspace(builtins.float(start), builtins.float(end), steps, _C.float64)
    t = _C.pow(builtins.float(base), exps)._to_dtype(dtype or _C.get_default_dtype(), False)
    if out is not None:
        return out.resize_(t.shape).copy_(t)
    return _finish(t, requires_grad, _device(device), made=True)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The identity matrix of shape (n, m), m defaulting to n."""
    t = _C._eye(n, n if m is None else m, dtype or _C.get_default_dtype())
    if out is not None:
        return out.resize_(t.shape).copy_(t)
    return _finish(t, requires_grad, _device(device), made=True)


# ---------------------------------------------------------------- random
def _random_tensor(size, dtype, device, op, shape=None):
    dtype = dtype or _C.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError(f"{op}(): expected a floating-point or complex dtype, got {dtype}")
    return _empty(_size(size, op) if shape is None else shape, dtype, _device(device))


def rand(
    *args,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """Uniform samples from [0, 1)."""
    shape = _shape(args, size, "rand")
    t = _random_tensor(None, dtype, device, "rand", shape) if out is None else out.resize_(shape)
    # complex: real and imaginary parts each uniform on [0, 1), as in PyTorch
    _C._uniform_(_C._view_as_real(t) if t.dtype.is_complex else t, 0.0, 1.0, generator)
    return _finish(t, requires_grad)


def randn(
    *args,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """Samples from the standard normal distribution."""
    shape = _shape(args, size, "randn")
    t = _random_tensor(None, dtype, device, "randn", shape) if out is None else out.resize_(shape)
    if t.dtype.is_complex:  # E|z|^2 = 1: each part has variance 1/2, as in PyTorch
        _C._normal_(_C._view_as_real(t), 0.0, math.sqrt(0.5), generator)
    else:
        _C._normal_(t, 0.0, 1.0, generator)
    return _finish(t, requires_grad)


# randint's two forms, as PyTorch parses them: the first whose names bind every argument.
_RANDINT_FORMS = (("high", "size"), ("low", "high", "size"))


def _randint_args(args, named):
    """(low, high, size) from randint's positional arguments and its low=/high=/size=."""
    given = {k: v for k, v in named.items() if v is not None}
    for names in _RANDINT_FORMS:
        if len(args) > len(names):
            continue
        bound = dict(zip(names, args))
        if any(k in bound for k in given):
            continue
        bound.update(given)
        if set(bound) == set(names):
            break
    else:
        got = ", ".join(
            [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in given.items()]
        )
        raise TypeError(
            f"randint() received an invalid combination of arguments - got ({got}), but "
            "expected one of: (int high, tuple of ints size, ...), "
            "(int low, int high, tuple of ints size, ...)"
        )
    for name in ("low", "high"):
        if name in bound:
            try:
                bound[name] = operator.index(bound[name])
            except TypeError:
                raise TypeError(
                    f"randint(): argument '{name}' must be int, not {type(bound[name]).__name__}"
                ) from None
    size = bound["size"]
    if isinstance(size, Tensor) or not isinstance(size, (tuple, list)):
        raise TypeError(
            f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}"
        )
    return bound.get("low", 0), bound["high"], size


def randint(
    *args,
    low=None,
    high=None,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """Integers drawn uniformly from [low, high): ``randint(high, size)`` or
    ``randint(low, high, size)``, each argument positional or by name."""
    low, high, size = _randint_args(args, {"low": low, "high": high, "size": size})
    if out is None:
        t = _empty(_size((size,), "randint"), dtype or _C.int64, _device(device))
    else:
        t = out.resize_(size)
    _C._random_(t, low, high, generator)
    return _finish(t, requires_grad)


def randperm(
    n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False
):
    """A random permutation of 0..n-1."""
    t = _C._randperm(n, dtype or _C.int64, generator)
    return _finish(t, requires_grad, _device(device), made=True)


def rand_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
):
    """Uniform samples from [0, 1) with ``input``'s shape and, unless given, its dtype and
    device (see :func:`rand`)."""
    t = rand(input.shape, dtype=dtype or input.dtype, device=device or input.device)
    return _finish(_mf.like(t, input, memory_format, "rand_like"), requires_grad)


def randn_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
):
    """Standard normal samples with ``input``'s shape and, unless given, its dtype and device
    (see :func:`randn`)."""
    t = randn(input.shape, dtype=dtype or input.dtype, device=device or input.device)
    return _finish(_mf.like(t, input, memory_format, "randn_like"), requires_grad)


def randint_like(
    input,
    low=0,
    high=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
):
    """Random integers in [low, high) (``randint_like(input, high)`` means low=0) with ``input``'s
    shape and, unless given, its dtype and device."""
    if high is None:
        low, high = 0, low
    t = randint(low, high, input.shape, dtype=dtype or input.dtype, device=device or input.device)
    return _finish(_mf.like(t, input, memory_format, "randint_like"), requires_grad)


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """Normal samples: numbers with a ``size``, or tensors of means and/or stds (broadcast)."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        from torch._functional import broadcast_shapes

        like = mean if isinstance(mean, Tensor) else std
        shape = broadcast_shapes(*(x.shape for x in (mean, std) if isinstance(x, Tensor)))
        t = _C.empty(shape, like.dtype if like.dtype.is_floating_point else _C.get_default_dtype())
        _C._normal_(t, 0.0, 1.0, generator)
        result = t.mul_(std).add_(mean)
        return result if out is None else out.resize_(result.shape).copy_(result)
    if size is None:
        raise TypeError("normal(): with numbers for mean and std, 'size' is required")
    t = _random_tensor((size,), dtype, device, "normal") if out is None else out
    _C._normal_(t, builtins.float(mean), builtins.float(std), generator)
    return _finish(t, requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities ``input`` (or the number ``p``), same shape and dtype."""
    t = _C.empty(input.shape, input.dtype if input.dtype.is_floating_point else _C.float32)
    _C._bernoulli_(t, input if p is None else p, generator)
    return t if out is None else out.copy_(t)


def _uniform(shape, generator):
    u = _C.empty(tuple(shape), _C.float64)
    _C._uniform_(u, 0.0, 1.0, generator)
    return u


def _lgamma(x):
    """log Gamma(x) for x >= 1 (float64): Stirling's series at x + 6, shifted back down."""
    z = x + 6
    series = (z - 0.5) * z.log() - z + 0.5 * math.log(2 * math.pi)
    series = series + 1 / (12 * z) - 1 / (360 * z**3) + 1 / (1260 * z**5)
    return series - (x * (x + 1) * (x + 2) * (x + 3) * (x + 4) * (x + 5)).log()


def _poisson_small(lam, generator):
    """Knuth: the count of uniforms whose running product stays above exp(-lam)."""
    limit = (-lam).exp()
    product = ones_like(lam)
    count = zeros_like(lam)
    active = lam > 0
    while bool(active.any()):
        product = _C.where(active, product * _uniform(lam.shape, generator), product)
        active = active & (product > limit)
        count = count + active.to(count.dtype)
    return count


def _poisson_large(lam, generator):
    """Hormann's transformed rejection (PTRS, 1993) for rates >= 10, all elements at once."""
    slam, loglam = lam.sqrt(), lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    out = zeros_like(lam)
    todo = ones_like(lam).to(_C.bool)
    while bool(todo.any()):
        u = _uniform(lam.shape, generator) - 0.5
        v = _uniform(lam.shape, generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + lam + 0.43).floor()
        quick = (us >= 0.07) & (v <= vr)
        bad = (k < 0) | ((us < 0.013) & (v > us))
        kk = k.clamp(min=0)
        lhs = v.log() + inv_alpha.log() - (a / (us * us) + b).log()
        accept = quick | (~bad & (lhs <= -lam + kk * loglam - _lgamma(kk + 1)))
        take = todo & accept
        out = _C.where(take, k, out)
        todo = todo & ~take
    return out


def poisson(input, generator=None):
    """Draws of the Poisson distribution with each element of ``input`` as its rate."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"poisson: expected a floating-point tensor of rates, got {input.dtype}")
    lam = input.detach().to(_C.float64)
    if bool(((lam < 0) | lam.isnan()).any()):
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    small = lam < 10
    out = _poisson_small(_C.where(small, lam, 0.0), generator)
    if bool((~small).any()):
        out = _C.where(small, out, _poisson_large(_C.where(small, 10.0, lam), generator))
    return out.to(input.dtype)


def manual_seed(seed):
    """Seeds the default generator and every GPU's (those seeds wait until CUDA starts);
    returns the CPU's generator."""
    import torch.cuda

    torch.cuda.manual_seed_all(builtins.int(seed))
    return _C.manual_seed(builtins.int(seed))


def seed():
    """Seeds the default generator from the OS; returns the seed."""
    return _C.default_generator.seed()


def initial_seed():
    """The seed the default generator was last seeded with (an int)."""
    return _C.default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor (for set_rng_state)."""
    return _C.default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default generator from ``new_state``, a uint8 tensor returned by
    :func:`get_rng_state`."""
    _C.default_generator.set_state(new_state)


# Generator states are uint8 tensors, as in PyTorch (the core speaks bytes).
_state_bytes, _set_state_bytes = _C.Generator.get_state, _C.Generator.set_state


def _generator_get_state(self):
    """The generator's state as a uint8 tensor."""
    return tensor(list(_state_bytes(self)), dtype=_C.uint8)


def _generator_set_state(self, new_state):
    """Restores a state from :meth:`get_state` (a uint8 tensor); returns the generator."""
    if isinstance(new_state, _C.Tensor):
        if new_state.dtype != _C.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got {new_state.dtype}")
        new_state = bytes(new_state.tolist())
    _set_state_bytes(self, new_state)
    return self


_C.Generator.get_state = _generator_get_state
_C.Generator.set_state = _generator_set_state
