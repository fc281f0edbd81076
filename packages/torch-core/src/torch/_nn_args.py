"""The argument parsing shared by the neural-network kernels (torch._nn_ops): ints, floats
and bools as PyTorch takes them, kernel dtypes, output sizes and fill values."""

import builtins
import math
import operator

from torch import _C
from torch._checks import check_tensor, dtype_name

Tensor = _C.Tensor


def _int(value, op, arg):
    if isinstance(value, builtins.bool):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{op}(): argument '{arg}' must be int, not {type(value).__name__}"
        ) from None
    if not -(2**63) <= v < 2**63:
        raise ValueError(f"{op}(): argument '{arg}' is {v}, which overflows int64")
    return v


def _float(value, op, arg):
    """A float argument: a real number (TypeError for strings, None, tensors, ...)."""
    if isinstance(value, (builtins.int, builtins.float)) or (
        hasattr(value, "__float__") and not isinstance(value, (Tensor, str, bytes, complex))
    ):
        return builtins.float(value)
    raise TypeError(f"{op}(): argument '{arg}' must be float, not {type(value).__name__}")


def _bool(value, op, arg):
    """A bool argument: bool (or NumPy's bool_), TypeError for anything else (as PyTorch)."""
    if isinstance(value, builtins.bool) or type(value).__name__ == "bool_":
        return builtins.bool(value)
    raise TypeError(f"{op}(): argument '{arg}' must be bool, not {type(value).__name__}")


_WIDE_FLOATS = (_C.float32, _C.float64)
_HALF_FLOATS = (_C.float16, _C.bfloat16)


def _compute_dtype(input, op):
    """The dtype the float32/float64 kernels run ``input`` in: its own, float32 for the 16-bit
    floats (the caller rounds the result back), NotImplementedError for integer and bool
    inputs (PyTorch's CPU kernels are floating-point only too)."""
    if input.dtype in _WIDE_FLOATS:
        return input.dtype
    if input.dtype in _HALF_FLOATS:
        return _C.float32
    raise NotImplementedError(
        f"{op}(): not implemented for '{dtype_name(input.dtype)}' ({input.dtype}); expected "
        f"a floating-point input"
    )


def _check_out_size(shape, dtype, op):
    """RuntimeError where a result of ``shape`` could not exist (its byte size overflows
    int64), before any kernel allocates it."""
    n = math.prod(shape) if shape else 1
    if (
        builtins.any(v < 0 for v in shape)
        or n * _C.empty(0, dtype=dtype).element_size() > 2**63 - 1
    ):
        raise RuntimeError(
            f"{op}(): Storage size calculation overflowed with sizes={builtins.list(shape)}"
        )


def _ntuple(value, n, op, arg):
    """An int or a sequence of n ints, as a list of n ints."""
    if isinstance(value, (builtins.list, builtins.tuple)):
        if len(value) == 1:
            return [_int(value[0], op, arg)] * n
        if len(value) != n:
            raise RuntimeError(
                f"{op}(): {arg} must be a single int or a tuple of {n} ints, got {tuple(value)}"
            )
        return [_int(v, op, arg) for v in value]
    return [_int(value, op, arg)] * n


_INT_RANGES = {
    _C.uint8: (0, 2**8 - 1), _C.int8: (-(2**7), 2**7 - 1), _C.int16: (-(2**15), 2**15 - 1),
    _C.int32: (-(2**31), 2**31 - 1), _C.int64: (-(2**63), 2**63 - 1),
}  # fmt: skip
_FLOAT_MAX = {
    _C.float16: 65504.0,
    _C.bfloat16: 3.3895313892515355e38,
    _C.float32: 3.4028234663852886e38,
}


def _require_float(input, op):
    """TypeError for a non-tensor, NotImplementedError for an integer or bool tensor (the
    kernels of ``op`` exist for floating-point dtypes only, as in PyTorch)."""
    check_tensor(input, op)
    if not input.is_floating_point():
        raise NotImplementedError(
            f"{op}(): not implemented for '{dtype_name(input.dtype)}' ({input.dtype}); "
            f"expected a floating-point input"
        )


def _number(value, op, arg):
    """A Number argument (bool, int, float or a one-element tensor) as a Python scalar."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise TypeError(
                f"{op}(): argument '{arg}' must be Number, not a Tensor of shape "
                f"{tuple(value.shape)}"
            )
        return value.item()
    if isinstance(value, (builtins.bool, builtins.int, builtins.float)):
        return value
    if hasattr(value, "__index__"):
        return operator.index(value)
    if hasattr(value, "__float__") and not isinstance(value, (str, bytes, complex)):
        return builtins.float(value)
    raise TypeError(f"{op}(): argument '{arg}' must be Number, not {type(value).__name__}")


def _scalar_to(value, dtype, op, arg="value"):
    """The Python number ``value`` as an element of ``dtype`` holds it (int for integer
    dtypes, truncated toward zero; bool; float), or RuntimeError where it does not fit:
    NaN, infinities and out-of-range values for integers, finite values beyond the largest
    finite one for 16- and 32-bit floats (PyTorch's overflow check)."""
    value = _number(value, op, arg)
    if isinstance(value, builtins.int) and not -(2**63) <= value < 2**64:
        raise OverflowError(f"{op}(): argument '{arg}' ({value}): int too big to convert")
    if dtype == _C.bool:
        return builtins.bool(value)
    rng = _INT_RANGES.get(dtype)
    if rng is not None:
        ok = (math.isfinite(value) if isinstance(value, builtins.float) else True) and rng[
            0
        ] <= value <= rng[1]
        if not ok:
            raise RuntimeError(
                f"{op}(): {arg} {value} cannot be converted to type {dtype} without overflow "
                f"(its range is [{rng[0]}, {rng[1]}])"
            )
        return builtins.int(value)
    v = builtins.float(value)
    big = _FLOAT_MAX.get(dtype)
    if big is not None and math.isfinite(v) and builtins.abs(v) > big:
        raise RuntimeError(
            f"{op}(): {arg} {value} cannot be converted to type {dtype} without overflow (its "
            f"largest finite value is {big})"
        )
    return v


def _spatial_input(input, D, op, empty_channels=False):
    check_tensor(input, op)
    if input.dim() not in (D + 1, D + 2):
        raise RuntimeError(
            f"{op}(): expected {D + 1}D (unbatched) or {D + 2}D (batched) input, got input of "
            f"shape {tuple(input.shape)}"
        )
    first = 1 if input.dim() == D + 2 else 0  # only the batch dim may be empty
    if empty_channels:  # (adaptive average pooling allows no channels too)
        first = input.dim() - D
    if builtins.any(n == 0 for n in input.shape[first:]):
        raise RuntimeError(
            f"{op}(): expected {D + 1}D or {D + 2}D (batch mode) tensor with optional 0 dim "
            f"batch size for input, and non-zero sizes for the other dims, but got: "
            f"{builtins.list(input.shape)}"
        )


def _in_dtype(t, input, cd):
    """A parameter of a 16-bit float input's normalisation, in the float32 that the kernel
    runs (others are left for the kernel's dtype check)."""
    if t is None or cd == input.dtype or t.dtype != input.dtype:
        return t
    return t.to(cd)
