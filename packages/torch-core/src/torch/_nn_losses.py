"""softmax, log_softmax and softmin, and the losses built on them: nll_loss and
cross_entropy (log_softmax followed by nll_loss)."""

import builtins
import math
import warnings

from torch import _C
from torch._checks import check_tensor, dtype_name, numpy_args
from torch._nn_args import _WIDE_FLOATS, _compute_dtype, _float, _in_dtype, _int
from torch._tensor import tensor_method

Tensor = _C.Tensor

__all__ = ["softmax", "log_softmax", "softmin", "nll_loss", "cross_entropy"]


# ---------------------------------------------------------------- softmax


def _softmax_args(name, input, dim, stacklevel, dtype):
    check_tensor(input, name)
    if isinstance(stacklevel, _C.dtype):  # torch.softmax(x, dim, dtype) passes it third
        dtype, stacklevel = stacklevel, 3
    if dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(
            f"{name}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
        )
    if dim is None:
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            f"include dim=X as an argument.",
            UserWarning,
            stacklevel=stacklevel,
        )
        dim = 0 if input.dim() in (0, 1, 3) else 1
    if dtype is not None:
        input = input.to(dtype)
    return input, _int(dim, name, "dim")


def _in_kernel_dtype(kernel, input, dim, op):
    """kernel(input, dim) in the dtype the kernels take: 16-bit floats run in float32 and are
    rounded back (float32 and float64 need no conversion, which costs a call each way)."""
    cd = _compute_dtype(input, op)
    if cd is input.dtype:
        return kernel(input, dim)
    return kernel(input.to(cd), dim).to(input.dtype)


def _softmax_op(op, kernel, input, dim, stacklevel, dtype, axis):
    """softmax or log_softmax (``kernel``) with their arguments checked and converted."""
    if dim.__class__ is int and stacklevel.__class__ is int and dtype is None and axis is None:
        if input.__class__ is Tensor:
            try:  # float32/float64: the kernel as it is (it checks dim)
                return kernel(input, dim)
            except TypeError:
                pass  # another dtype: 16-bit floats run in float32 below, the rest raise there
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args(op, dim, False, axis, None, None)
    if isinstance(stacklevel, _C.dtype):  # torch.softmax(x, dim, dtype) passes it third
        dtype, stacklevel = stacklevel, 3
    # (+1: this function's frame, so that a warning names the caller of softmax)
    input, dim = _softmax_args(op, input, dim, stacklevel + 1, dtype)
    return _in_kernel_dtype(kernel, input, dim, op)


def softmax(input, dim=None, _stacklevel=3, dtype=None, *, axis=None):
    """exp(x) / sum(exp(x)) along ``dim`` (computed as exp(x - max) / sum(exp(x - max)))."""
    return _softmax_op("softmax", _C._softmax, input, dim, _stacklevel, dtype, axis)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None, *, axis=None):
    """x - logsumexp(x) along ``dim``, without overflow."""
    return _softmax_op("log_softmax", _C._log_softmax, input, dim, _stacklevel, dtype, axis)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``."""
    input, dim = _softmax_args("softmin", input, dim, _stacklevel, dtype)
    return _in_kernel_dtype(lambda x, d: _C._softmax(-x, d), input, dim, "softmin")


def _softmax_method(self, dim=None, dtype=None, *, axis=None):
    """``torch.softmax(self, dim, dtype=dtype)``: exponentials normalised to sum to 1
    along ``dim``."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("softmax", dim, False, axis, None, None)
    if dim is None:  # (required, as dim or axis)
        raise TypeError("softmax() missing 1 required positional argument: 'dim'")
    return softmax(self, dim, dtype=dtype)


def _log_softmax_method(self, dim=None, dtype=None, *, axis=None):
    """``torch.log_softmax(self, dim, dtype=dtype)``: the logarithm of :meth:`softmax`, computed
    stably."""
    if axis is not None:  # (NumPy spelling)
        dim, _ = numpy_args("log_softmax", dim, False, axis, None, None)
    if dim is None:  # (required, as dim or axis)
        raise TypeError("log_softmax() missing 1 required positional argument: 'dim'")
    return log_softmax(self, dim, dtype=dtype)


_softmax_method.__name__, _log_softmax_method.__name__ = "softmax", "log_softmax"
tensor_method(_softmax_method)
tensor_method(_log_softmax_method)


# ---------------------------------------------------------------- losses

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _reduction(reduction, size_average, reduce, op):
    if size_average is not None or reduce is not None:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use reduction='"
            f"{_legacy_reduction(size_average, reduce)}' instead.",
            UserWarning,
            stacklevel=3,
        )
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _class_target(target, op):
    check_tensor(target, op, "target", 2)
    if target.is_floating_point():
        raise RuntimeError(
            f"{op}(): expected target to hold class indices (an integer tensor, int64), got "
            f"{target.dtype}; floating-point targets (class probabilities) are only accepted by "
            f"cross_entropy with a target of the input's shape"
        )
    if target.dtype not in (_C.int64, _C.uint8):
        raise RuntimeError(
            f"{op}(): expected target dtype to be Long or Byte (int64 or uint8 class indices), "
            f"but got {dtype_name(target.dtype)} ({target.dtype})"
        )
    return target if target.dtype == _C.int64 else target.to(_C.int64)


def _nll(input, target, weight, ignore_index, reduction, op):
    """nll_loss on validated arguments (reduction a string)."""
    check_tensor(input, op)
    target = _class_target(target, op)
    if input.dim() == 0:
        raise ValueError(
            f"{op}(): expected input of 1 or more dims (C or N, C, ...), got a 0-d input"
        )
    check_tensor(weight, op, "weight", None, optional=True)
    nd = input.dim()
    out_shape = None
    if nd == 2 and target.dim() == 1 and target.shape[0] == input.shape[0]:
        x3, t2 = input, target  # the common case, which the kernel takes as it is
    elif nd == 1:
        if target.dim() != 0:
            raise ValueError(
                f"{op}(): expected a 0-d target for a 1-D input of shape {tuple(input.shape)}, "
                f"got target of shape {tuple(target.shape)}"
            )
        x3, t2, out_shape = input.reshape(1, input.shape[0]), target.reshape(1), ()
    else:
        shape = builtins.tuple(input.shape)
        n, c = shape[0], shape[1]
        if target.dim() == 0 or target.shape[0] != n:
            raise ValueError(
                f"{op}(): expected input batch_size ({n}) to match target batch_size "
                f"({target.shape[0] if target.dim() else 'a 0-d target'}); input shape {shape}, "
                f"target shape {tuple(target.shape)}"
            )
        if builtins.tuple(target.shape) != shape[:1] + shape[2:]:
            raise RuntimeError(
                f"{op}(): expected target of shape {shape[:1] + shape[2:]} for input of shape "
                f"{shape}, got target of shape {tuple(target.shape)}"
            )
        s = math.prod(shape[2:])
        x3, t2, out_shape = input.reshape(n, c, s), target.reshape(n, s), shape[:1] + shape[2:]
    c = x3.shape[1]
    if weight is not None and (weight.dim() != 1 or weight.shape[0] != c):
        raise RuntimeError(
            f"{op}(): expected weight to be a 1-D tensor of {c} values (one per class), got "
            f"shape {tuple(weight.shape)}"
        )
    code = _REDUCTIONS[reduction]
    cd = _compute_dtype(input, op)
    if cd != input.dtype:  # 16-bit floats: run in float32, round the loss back
        x3 = x3.to(cd)
        weight = _in_dtype(weight, input, cd)
    out = _C._nll_loss_value(x3, t2, weight, code, _int(ignore_index, op, "ignore_index"))
    if out.dtype is not input.dtype:
        out = out.to(input.dtype)
    return out.reshape(out_shape) if code == 0 and out_shape is not None else out


def _fast_code(weight, size_average, reduce, ignore_index, reduction):
    """The kernel's reduction code for the plain arguments of nll_loss and cross_entropy
    (no weight, no legacy flags, an int ignore_index), else None: those take the checks of
    :func:`_nll` on every call."""
    if weight is None and size_average is None and reduce is None:
        if ignore_index.__class__ is int and reduction.__class__ is str:
            return _REDUCTIONS.get(reduction)
    return None


def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
):
    """The negative log-likelihood loss: -weight[t] * input[n, t] per sample (input holds
    log-probabilities, (N, C), (N, C, d1, ...) or (C,); target the class indices); 'mean'
    divides by the summed weights of the targets that are not ``ignore_index``."""
    code = _fast_code(weight, size_average, reduce, ignore_index, reduction)
    if code is not None:
        try:  # the kernel checks the rest (float input, int64 target of the right shape)
            return _C._nll_loss_value(input, target, None, code, ignore_index)
        except (RuntimeError, TypeError, ValueError, IndexError, OverflowError):
            pass  # the path below converts what it can, or raises saying what is wrong
    reduction = _reduction(reduction, size_average, reduce, "nll_loss")
    return _nll(input, target, weight, ignore_index, reduction, "nll_loss")


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """log_softmax over the class dim followed by nll_loss (class-index targets), or
    -sum(target * log_softmax) per sample (class-probability targets of the input's shape);
    ``label_smoothing`` mixes the targets with the uniform distribution."""
    op = "cross_entropy"
    code = _fast_code(weight, size_average, reduce, ignore_index, reduction)
    if (
        code is not None
        and not label_smoothing
        and input.__class__ is Tensor
        and target.__class__ is Tensor
        and input.dim() == 2
        and input.dtype in _WIDE_FLOATS
        and target.dtype is _C.int64
    ):  # class indices of (N, C) scores: the two kernels, the checks of the path below
        try:  # only where they fail (the kernel checks target's shape and values)
            return _C._nll_loss_value(_C._log_softmax(input, 1), target, None, code, ignore_index)
        except (RuntimeError, TypeError, ValueError, IndexError, OverflowError):
            pass
    reduction = _reduction(reduction, size_average, reduce, op)
    check_tensor(input, op)
    check_tensor(target, op, "target", 2)
    ls = _float(label_smoothing, op, "label_smoothing")
    if not ls <= 1.0:  # (PyTorch lets negative values through; NaN and > 1 fail)
        raise RuntimeError(f"{op}(): label_smoothing must be between 0.0 and 1.0. Got: {ls}")
    if input.dim() == 0:
        raise ValueError(
            f"{op}(): expected input of 1 or more dims (C or N, C, ...), got a 0-d input"
        )
    cdim = 0 if input.dim() == 1 else 1
    c = input.shape[cdim]
    logp = log_softmax(input, cdim)
    wview = None
    if weight is not None:
        if not isinstance(weight, Tensor) or weight.dim() != 1 or weight.shape[0] != c:
            raise RuntimeError(f"{op}(): expected weight to be a 1-D tensor of {c} values")
        wview = weight.reshape([c] + [1] * (input.dim() - cdim - 1))
    if target.is_floating_point():
        if target.shape != input.shape:
            raise RuntimeError(
                f"{op}(): expected a floating-point target (class probabilities) of the input's "
                f"shape {tuple(input.shape)}, got {tuple(target.shape)} ({target.dtype}); class "
                f"index targets must be an integer tensor"
            )
        if ls > 0:
            target = target * (1 - ls) + ls / c
        prod = logp * target if wview is None else logp * target * wview
        loss = -prod.sum(cdim)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return loss.sum()
        return loss.sum() / (input.numel() // c if c else 0)
    loss = _nll(logp, target, weight, ignore_index, reduction, op)
    if not ls > 0:  # (PyTorch smooths only with a positive label_smoothing)
        return loss
    target = _class_target(target, op)
    smooth = -(logp.sum(cdim) if wview is None else (logp * wview).sum(cdim))
    ignored = target == ignore_index
    smooth = _C.where(ignored, 0.0, smooth)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        kept = _C.logical_not(ignored)
        if weight is None:
            smooth = smooth.sum() / kept.sum()
        else:
            safe = _C.where(ignored, 0, target)
            smooth = smooth.sum() / _C.where(kept, weight[safe], 0.0).sum()
    return (1 - ls) * loss + smooth * (ls / c)
