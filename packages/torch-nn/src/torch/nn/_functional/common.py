"""Argument checks and conversions that the functional parts share, and the core
kernels as torch.nn.functional finds them."""

import math

import torch
from torch._nn_ops import _FLOAT_MAX, _number, _require_float, _scalar_to
from torch.nn import functional as F

Tensor = torch.Tensor


def _kernel(name):
    """A core kernel by name (``F.<name>``: looked up in torch-core when first used)."""
    return getattr(F, name)


def _check_tensor(x, op, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def _inplace(input, result):
    """Write result into input (the in-place forms): recorded by autograd as a copy."""
    return input.copy_(result)


def _operand(input, inplace):
    """What an activation computes from: ``input``, or a copy of it for an in-place form
    that autograd records. Gradient formulas keep their input (leaky_relu's sign, silu's x),
    which the write into ``input`` would overwrite; PyTorch copies the original input of
    such in-place ops too."""
    if inplace and input.requires_grad and torch.is_grad_enabled():
        return input.clone()
    return input


def _tensors(op, **tensors):
    """TypeError for each of the named arguments that is not a tensor (None is allowed for
    the optional ones: pass only required ones, or check None before)."""
    for name, t in tensors.items():
        _check_tensor(t, op, name)


def _float_only(input, op):
    """The activations whose kernels exist for floating-point dtypes only (as in PyTorch):
    NotImplementedError for an integer or bool input."""
    _require_float(input, op)


def _scalar(value, dtype, op, arg):
    """A Number argument as an element of dtype (RuntimeError where it overflows it)."""
    return _scalar_to(value, dtype, op, arg)


def _opmath(value, input, op, arg):
    """A Number argument of a floating-point activation as the float it is applied in:
    TypeError for a non-number, OverflowError for an int beyond int64, RuntimeError for a
    value that float32 (float64 for a float64 input) cannot hold (PyTorch's checks)."""
    v = _number(value, op, arg)
    if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
        raise OverflowError(f"{op}(): argument '{arg}' ({v}): int too big to convert")
    v = float(v)
    big = _FLOAT_MAX[torch.float32]
    if input.dtype != torch.float64 and math.isfinite(v) and abs(v) > big:
        raise RuntimeError(
            f"{op}(): {arg} {v} cannot be converted to type float without overflow (largest "
            f"finite float32: {big})"
        )
    return v
