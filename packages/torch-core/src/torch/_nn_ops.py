"""Neural-network kernels other than convolution: pooling, normalisation, softmax, losses,
embedding, dropout, interpolation, padding (the kernels are in csrc/nn_*.cpp).

The functions have ``torch.nn.functional``'s signatures and semantics; torch-nn re-exports
them as ``torch.nn.functional.<name>``. The C++ kernels behind them (``_C._max_pool``,
``_C._softmax``, ...) take float32 or float64 tensors; layer_norm, group_norm and
instance_norm run the batch-norm kernel on a reshaped input, and cross_entropy is
log_softmax followed by nll_loss.
"""

import builtins
import math
import operator
import warnings

from torch import _C
from torch._creation import arange, full, ones, zeros
from torch._functional import _check_tensor
from torch._indexing import searchsorted

Tensor = _C.Tensor

# torch.<name>: these have torch.nn.functional's signatures.  batch_norm, instance_norm and
# embedding are left out: PyTorch's torch.batch_norm/instance_norm/embedding take their
# arguments in another order, so they are reached only through torch.nn.functional.
__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d",
    "softmax", "log_softmax", "softmin", "layer_norm", "group_norm",
    "nll_loss", "cross_entropy", "embedding_bag", "dropout",
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "interpolate", "pad",
]  # fmt: skip


# ---------------------------------------------------------------- argument helpers


def _int(value, op, arg):
    if isinstance(value, builtins.bool):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{op}(): argument '{arg}' must be int, not {type(value).__name__}"
        ) from None


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


def _spatial_input(input, D, op):
    _check_tensor(input, op)
    if input.dim() not in (D + 1, D + 2):
        raise RuntimeError(
            f"{op}(): expected {D + 1}D (unbatched) or {D + 2}D (batched) input, got input of "
            f"shape {tuple(input.shape)}"
        )


# ---------------------------------------------------------------- pooling


def _max_pool(D, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    op = f"max_pool{D}d"
    _spatial_input(input, D, op)
    k = _ntuple(kernel_size, D, op, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, D, op, "stride")
    p = _ntuple(padding, D, op, "padding")
    d = _ntuple(dilation, D, op, "dilation")
    out, indices = _C._max_pool(input, k, s, p, d, builtins.bool(ceil_mode))
    return (out, indices) if return_indices else out


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling over (N, C, L) or (C, L); with ``return_indices`` also the position of
    each max within its input row."""
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling over (N, C, H, W) or (C, H, W); indices are flat (h * W + w)."""
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); indices are flat in D*H*W."""
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_pool(D, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor):
    op = f"avg_pool{D}d"
    _spatial_input(input, D, op)
    k = _ntuple(kernel_size, D, op, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, D, op, "stride")
    p = _ntuple(padding, D, op, "padding")
    if divisor is None:
        divisor = 0
    else:
        divisor = _int(divisor, op, "divisor_override")
        if divisor == 0:
            raise RuntimeError(f"{op}(): divisor must be not zero")
    return _C._avg_pool(
        input, k, s, p, builtins.bool(ceil_mode), builtins.bool(count_include_pad), divisor
    )


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling; ``count_include_pad`` counts the zero padding in the divisor."""
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """2-D average pooling; ``divisor_override`` replaces the window size as the divisor."""
    return _avg_pool(
        2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """3-D average pooling (see :func:`avg_pool2d`)."""
    return _avg_pool(
        3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def _output_size(input, D, output_size, op):
    sizes = (
        builtins.list(output_size)
        if isinstance(output_size, (builtins.list, builtins.tuple))
        else [output_size] * D
    )
    if len(sizes) == 1 and D > 1:
        sizes = sizes * D
    if len(sizes) != D:
        raise RuntimeError(f"{op}(): output_size must have {D} values, got {tuple(sizes)}")
    return [
        input.shape[input.dim() - D + i] if v is None else _int(v, op, "output_size")
        for i, v in enumerate(sizes)
    ]


def _adaptive_avg(D, input, output_size):
    op = f"adaptive_avg_pool{D}d"
    _spatial_input(input, D, op)
    return _C._adaptive_avg_pool(input, _output_size(input, D, output_size, op))


def adaptive_avg_pool1d(input, output_size):
    """Average pooling to ``output_size`` positions: window i covers
    [floor(i * L / out), ceil((i + 1) * L / out))."""
    return _adaptive_avg(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling (an entry of ``output_size`` may be None: keep that size)."""
    return _adaptive_avg(2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling."""
    return _adaptive_avg(3, input, output_size)


def _adaptive_max(D, input, output_size, return_indices):
    op = f"adaptive_max_pool{D}d"
    _spatial_input(input, D, op)
    out, indices = _C._adaptive_max_pool(input, _output_size(input, D, output_size, op))
    return (out, indices) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to ``output_size`` positions (windows as in adaptive_avg_pool1d)."""
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D adaptive max pooling."""
    return _adaptive_max(2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling."""
    return _adaptive_max(3, input, output_size, return_indices)


def _max_unpool(D, input, indices, kernel_size, stride, padding, output_size):
    op = f"max_unpool{D}d"
    _spatial_input(input, D, op)
    if not isinstance(indices, Tensor) or indices.shape != input.shape:
        raise RuntimeError(f"{op}(): expected indices of the input's shape {tuple(input.shape)}")
    k = _ntuple(kernel_size, D, op, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _ntuple(stride, D, op, "stride")
    p = _ntuple(padding, D, op, "padding")
    lead = builtins.list(input.shape[: input.dim() - D])
    if output_size is None:
        spatial = [(input.shape[-D + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(D)]
    else:
        spatial = [_int(v, op, "output_size") for v in builtins.list(output_size)[-D:]]
        if len(spatial) != D:
            raise RuntimeError(f"{op}(): output_size must have at least {D} values")
    n = math.prod(spatial)
    flat = input.reshape(lead + [-1]) if input.numel() else input.reshape(lead + [0])
    idx = indices.reshape(flat.shape)
    if idx.numel() and (builtins.bool((idx < 0).any()) or builtins.bool((idx >= n).any())):
        raise RuntimeError(f"{op}(): found an invalid max index (output size {tuple(spatial)})")
    out = zeros(lead + [n], dtype=input.dtype)
    return out.scatter(-1, idx, flat).reshape(lead + spatial)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: each value back at its index, zeros elsewhere."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d."""
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------- softmax


def _softmax_args(name, input, dim, stacklevel, dtype):
    _check_tensor(input, name)
    if isinstance(stacklevel, _C.dtype):  # torch.softmax(x, dim, dtype) passes it third
        dtype, stacklevel = stacklevel, 3
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


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim`` (computed as exp(x - max) / sum(exp(x - max)))."""
    input, dim = _softmax_args("softmax", input, dim, _stacklevel, dtype)
    return _C._softmax(input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along ``dim``, without overflow."""
    input, dim = _softmax_args("log_softmax", input, dim, _stacklevel, dtype)
    return _C._log_softmax(input, dim)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``."""
    input, dim = _softmax_args("softmin", input, dim, _stacklevel, dtype)
    return _C._softmax(-input, dim)


def _softmax_method(self, dim, dtype=None):
    return softmax(self, dim, dtype=dtype)


def _log_softmax_method(self, dim, dtype=None):
    return log_softmax(self, dim, dtype=dtype)


_softmax_method.__name__, _log_softmax_method.__name__ = "softmax", "log_softmax"
Tensor.softmax = _softmax_method
Tensor.log_softmax = _log_softmax_method


# ---------------------------------------------------------------- normalisation


def _param(t, op, name):
    if t is not None and not isinstance(t, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor or None, not {type(t).__name__}")
    return t


def batch_norm(
    input,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
):
    """Normalises each channel (dim 1) of (N, C, *) by its mean and variance: the batch's in
    training (updating the running stats in place with ``momentum`` and the unbiased
    variance), the running stats otherwise; then scales by ``weight`` and adds ``bias``."""
    op = "batch_norm"
    _check_tensor(input, op)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        _param(t, op, name)
    _param(weight, op, "weight"), _param(bias, op, "bias")
    if input.dim() < 2:
        raise ValueError(f"{op}(): expected 2D or higher input (N, C, *), got {tuple(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    s = math.prod(input.shape[2:])
    if training and n * s == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{tuple(input.shape)}"
        )
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"{op}(): running_mean and running_var must be defined in eval mode")
    out = _C._batch_norm(
        input.reshape(n, c, s),
        weight,
        bias,
        running_mean,
        running_var,
        builtins.bool(training),
        builtins.float(momentum),
        builtins.float(eps),
    )[0]
    return out.reshape(input.shape)


def _normalize_rows(x, rows, eps):
    """x (any shape, numel = rows * L) with each of its rows of L values normalised."""
    length = x.numel() // rows if rows else 0
    out = _C._batch_norm(x.reshape(1, rows, length), None, None, None, None, True, 0.0, eps)[0]
    return out.reshape(x.shape)


def _affine(y, weight, bias):
    if weight is not None and bias is not None:
        return _C.addcmul(bias, y, weight)
    if weight is not None:
        return y * weight
    if bias is not None:
        return y + bias
    return y


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalises over the last dims (``normalized_shape``), then applies the elementwise
    ``weight`` and ``bias`` (of that shape)."""
    op = "layer_norm"
    _check_tensor(input, op)
    shape = (
        (_int(normalized_shape, op, "normalized_shape"),)
        if not isinstance(normalized_shape, (builtins.list, builtins.tuple))
        else builtins.tuple(_int(v, op, "normalized_shape") for v in normalized_shape)
    )
    k = len(shape)
    if k == 0 or input.dim() < k or builtins.tuple(input.shape[input.dim() - k :]) != shape:
        raise RuntimeError(
            f"{op}(): expected input with shape [*, {', '.join(map(str, shape))}], but got "
            f"input of size {tuple(input.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if _param(t, op, name) is not None and builtins.tuple(t.shape) != shape:
            raise RuntimeError(f"{op}(): expected {name} of shape {shape}, got {tuple(t.shape)}")
    rows = math.prod(input.shape[: input.dim() - k])
    return _affine(_normalize_rows(input, rows, builtins.float(eps)), weight, bias)


def _channel_affine(y, weight, bias, op):
    c = y.shape[1]
    view = [c] + [1] * (y.dim() - 2)
    for name, t in (("weight", weight), ("bias", bias)):
        if _param(t, op, name) is not None and t.numel() != c:
            raise RuntimeError(
                f"{op}(): expected {name} of {c} values (one per channel), got {tuple(t.shape)}"
            )
    return _affine(
        y,
        None if weight is None else weight.reshape(view),
        None if bias is None else bias.reshape(view),
    )


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalises each group of C / num_groups channels of each sample (N, C, *), then
    applies the per-channel ``weight`` and ``bias``."""
    op = "group_norm"
    _check_tensor(input, op)
    g = _int(num_groups, op, "num_groups")
    if input.dim() < 2:
        raise RuntimeError(
            f"{op}(): expected at least 2D input (N, C, *), got {tuple(input.shape)}"
        )
    n, c = input.shape[0], input.shape[1]
    if g <= 0 or c % g:
        raise RuntimeError(
            f"{op}(): expected the number of channels ({c}) to be divisible by num_groups ({g})"
        )
    y = _normalize_rows(input, n * g, builtins.float(eps))
    return _channel_affine(y, weight, bias, op)


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Normalises each channel of each sample (N, C, *) over its spatial dims (or by the
    running stats when ``use_input_stats`` is False); running stats, when given, are
    updated with the batch average of the per-instance statistics."""
    op = "instance_norm"
    _check_tensor(input, op)
    if input.dim() < 3:
        raise ValueError(f"{op}(): expected 3D or higher input (N, C, *), got {tuple(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    s = math.prod(input.shape[2:])
    if s == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size "
            f"{tuple(input.shape)}"
        )
    stats = []
    for t in (running_mean, running_var):
        stats.append(None if t is None else t.detach().repeat(n))
    y = _C._batch_norm(
        input.reshape(1, n * c, s),
        None,
        None,
        stats[0],
        stats[1],
        True,
        builtins.float(momentum),
        builtins.float(eps),
    )[0].reshape(input.shape)
    for t, rep in zip((running_mean, running_var), stats):
        if t is not None:
            t.detach().copy_(rep.reshape(n, c).mean(0).reshape(t.shape))
    return _channel_affine(y, weight, bias, op)


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
    if not isinstance(target, Tensor):
        raise TypeError(f"{op}(): argument 'target' must be Tensor, not {type(target).__name__}")
    if target.is_floating_point():
        raise RuntimeError(
            f"{op}(): expected target to hold class indices (an integer tensor, int64), got "
            f"{target.dtype}; floating-point targets (class probabilities) are only accepted by "
            f"cross_entropy with a target of the input's shape"
        )
    if target.dtype == _C.bool:
        raise RuntimeError(f"{op}(): expected target to hold class indices (int64), got torch.bool")
    return target if target.dtype == _C.int64 else target.to(_C.int64)


def _nll(input, target, weight, ignore_index, reduction, op):
    """nll_loss on validated arguments (reduction a string)."""
    _check_tensor(input, op)
    target = _class_target(target, op)
    if input.dim() == 0:
        raise ValueError(
            f"{op}(): expected input of 1 or more dims (C or N, C, ...), got a 0-d input"
        )
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
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
    out = _C._nll_loss(x3, t2, weight, code, _int(ignore_index, op, "ignore_index"))[0]
    return out.reshape(out_shape) if code == 0 and out_shape is not None else out


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
    reduction = _reduction(reduction, size_average, reduce, op)
    _check_tensor(input, op)
    if not isinstance(target, Tensor):
        raise TypeError(f"{op}(): argument 'target' must be Tensor, not {type(target).__name__}")
    ls = builtins.float(label_smoothing)
    if not 0.0 <= ls <= 1.0:
        raise ValueError(f"{op}(): label_smoothing must be between 0.0 and 1.0, got {ls}")
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
    if ls == 0:
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


# ---------------------------------------------------------------- embedding


def _renorm_rows_(weight, indices, max_norm, norm_type):
    """Rescales (in place, untracked) the rows of weight referenced by indices whose
    ``norm_type``-norm exceeds ``max_norm`` to that norm."""
    from torch._grad_mode import no_grad

    with no_grad():
        rows = indices.reshape(-1).unique()
        if rows.numel() == 0:
            return
        sel = weight[rows]
        norms = sel.norm(norm_type, 1, keepdim=True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = sel * scale


def _indices(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.is_floating_point() or input.dtype == _C.bool:
        raise RuntimeError(
            f"{op}(): expected input to hold indices (an integer tensor, int64 or int32), got "
            f"{input.dtype}"
        )
    return input if input.dtype == _C.int64 else input.to(_C.int64)


def _padding_idx(padding_idx, num, op):
    if padding_idx is None:
        return -1
    p = _int(padding_idx, op, "padding_idx")
    if not -num <= p < num:
        raise ValueError(f"{op}(): padding_idx must be within num_embeddings ({num}), got {p}")
    return p % num


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """The rows of ``weight`` (num_embeddings, dim) at the indices ``input``: shape
    (*input.shape, dim). The ``padding_idx`` row gets no gradient; ``scale_grad_by_freq``
    divides each row's gradient by how often it occurs in ``input``; ``max_norm`` first
    rescales (in place) the referenced rows whose norm exceeds it."""
    op = "embedding"
    idx = _indices(input, op)
    if not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    if weight.dim() != 2:
        raise RuntimeError(f"{op}(): expected a 2-D weight, got shape {tuple(weight.shape)}")
    if sparse:
        raise NotImplementedError(f"{op}(): sparse gradients are not supported (use sparse=False)")
    pad = _padding_idx(padding_idx, weight.shape[0], op)
    if max_norm is not None:
        _renorm_rows_(weight, idx, builtins.float(max_norm), builtins.float(norm_type))
    return _C._embedding(weight, idx, pad, builtins.bool(scale_grad_by_freq))


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, averages or takes the max of the embeddings of each bag: the rows of a 2-D
    ``input``, or the runs of a 1-D ``input`` that start at ``offsets``. Entries equal to
    ``padding_idx`` are left out; an empty bag gives zeros."""
    op = "embedding_bag"
    idx = _indices(input, op)
    if not isinstance(weight, Tensor) or weight.dim() != 2:
        raise RuntimeError(f"{op}(): expected a 2-D weight tensor")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"{op}(): mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"{op}(): per_sample_weights is only supported for mode='sum' (got mode="
                f"'{mode}'). Please open a feature request on GitHub."
            )
        if per_sample_weights.shape != idx.shape:
            raise ValueError(
                f"{op}(): per_sample_weights of shape {tuple(per_sample_weights.shape)} must "
                f"match input of shape {tuple(idx.shape)}"
            )
    if idx.dim() == 2:
        if offsets is not None:
            raise ValueError(f"{op}(): if input is 2D, then offsets has to be None")
        nbags, length = idx.shape
        bag = arange(nbags).reshape(-1, 1).expand(nbags, length).reshape(-1)
        flat = idx.reshape(-1)
    elif idx.dim() == 1:
        if offsets is None:
            raise ValueError(f"{op}(): offsets has to be a 1D Tensor but got None")
        offsets = _indices(offsets, op)
        if offsets.dim() != 1:
            raise ValueError(f"{op}(): offsets has to be a 1D Tensor")
        starts = offsets[:-1] if include_last_offset else offsets
        nbags = starts.shape[0]
        if nbags and (builtins.int(starts[0]) != 0):
            raise RuntimeError(
                f"{op}(): offsets[0] has to be 0 (the first bag starts at position 0), got "
                f"{builtins.int(starts[0])}"
            )
        flat = idx
        pos = arange(idx.shape[0])
        bag = (searchsorted(starts, pos, right=True) - 1) if nbags else pos
    else:
        raise ValueError(
            f"{op}(): input has to be 1D or 2D Tensor, but got Tensor of dimension {idx.dim()}"
        )
    psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    pad = _padding_idx(padding_idx, weight.shape[0], op)
    if pad >= 0:
        keep = flat != pad
        flat, bag = flat[keep], bag[keep]
        psw = None if psw is None else psw[keep]
    emb = embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq)
    d = weight.shape[1]
    if mode == "max":
        out = zeros(nbags, d, dtype=weight.dtype)
        if flat.numel() == 0:
            return out
        return out.scatter_reduce(
            0, bag.reshape(-1, 1).expand(-1, d), emb, "amax", include_self=False
        )
    if psw is not None:
        emb = emb * psw.reshape(-1, 1)
    out = zeros(nbags, d, dtype=weight.dtype).index_add(0, bag, emb)
    if mode == "mean":
        counts = zeros(nbags, dtype=weight.dtype).index_add(
            0, bag, ones(bag.shape[0], dtype=weight.dtype)
        )
        out = out / counts.clamp(min=1).reshape(-1, 1)
    return out


# ---------------------------------------------------------------- dropout


def _check_p(p, op):
    p = builtins.float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}(): dropout probability has to be between 0 and 1, but got {p}")
    return p


def _apply_mask(input, mask, inplace):
    return input.mul_(mask) if inplace else input * mask


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the others by 1 / (1 - p)
    (identity when not ``training``). Draws from the default generator."""
    op = "dropout"
    _check_tensor(input, op)
    p = _check_p(p, op)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    mask = _C._dropout_mask(builtins.list(input.shape), p, input.dtype, True, None)
    return _apply_mask(input, mask, inplace)


def _feature_dropout(input, p, training, inplace, op, dims):
    """Zeroes whole channels: dims = (unbatched rank, batched rank)."""
    _check_tensor(input, op)
    p = _check_p(p, op)
    nd = input.dim()
    if nd not in dims:
        if op == "dropout1d":
            raise RuntimeError(
                f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that "
                f"dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                f"dimension, a channel dimension, and an optional batch dimension (i.e. 2D or "
                f"3D inputs)."
            )
        warnings.warn(
            f"{op}: Received a {nd}-D input to {op}, which is deprecated and will result in an "
            f"error in a future release. To retain the behavior and silence this warning, "
            f"please use dropout instead. Note that {op} exists to provide channel-wise "
            f"dropout on inputs with {dims[0] - 1} spatial dimensions, a channel dimension, "
            f"and an optional batch dimension (i.e. {dims[0]}D or {dims[1]}D inputs).",
            UserWarning,
            stacklevel=3,
        )
    if op == "dropout2d" and nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
            stacklevel=3,
        )
    if not training or p == 0.0 or input.numel() == 0:
        return input
    batched = nd != dims[0] or (op == "dropout2d" and nd == 3)
    lead = 2 if batched and nd >= 2 else 1
    shape = builtins.list(input.shape[:lead]) + [1] * (nd - lead)
    mask = _C._dropout_mask(shape, p, input.dtype, True, None)
    return _apply_mask(input, mask, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) with probability ``p``, scaling the
    others by 1 / (1 - p)."""
    return _feature_dropout(input, p, training, inplace, "dropout1d", (2, 3))


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) (see :func:`dropout1d`)."""
    return _feature_dropout(input, p, training, inplace, "dropout2d", (3, 4))


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W)."""
    return _feature_dropout(input, p, training, inplace, "dropout3d", (4, 5))


_SELU_ALPHA_PRIME = -1.7580993408473766  # -scale * alpha of SELU: where a dropped unit goes


def _alpha_dropout(input, p, training, inplace, op, feature):
    _check_tensor(input, op)
    p = _check_p(p, op)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    shape = builtins.list(input.shape)
    if feature:
        shape = shape[:2] + [1] * (len(shape) - 2)
    keep = _C._dropout_mask(shape, p, input.dtype, False, None)
    a = ((1 - p) * (1 + p * _SELU_ALPHA_PRIME**2)) ** -0.5
    b = -a * _SELU_ALPHA_PRIME * p
    scale = keep * a
    shift = (1 - keep) * (_SELU_ALPHA_PRIME * a) + b
    if inplace:
        return input.mul_(scale).add_(shift)
    return _C.addcmul(shift, input, scale)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped units take SELU's negative saturation value and
    the result is rescaled to keep zero mean and unit variance."""
    return _alpha_dropout(input, p, training, inplace, "alpha_dropout", False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels."""
    return _alpha_dropout(input, p, training, inplace, "feature_alpha_dropout", True)


# ---------------------------------------------------------------- interpolation and padding

_INTERP = {"nearest": 0, "nearest-exact": 1, "linear": 2, "bilinear": 2, "trilinear": 2}
_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resamples the spatial dims of (N, C, *spatial) to ``size`` (or ``scale_factor`` times
    the input's): 'nearest', 'nearest-exact', 'linear' (3-D input), 'bilinear' (4-D),
    'trilinear' (5-D) or 'area' (adaptive average pooling). ``align_corners`` (linear modes)
    maps the corner pixels' centres onto each other."""
    op = "interpolate"
    _check_tensor(input, op)
    if input.dim() < 3 or input.dim() > 5:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
            f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
            f"(got {mode})"
        )
    D = input.dim() - 2
    if mode in ("bicubic",) or antialias:
        raise NotImplementedError(f"{op}(): mode '{mode}' (antialias={antialias}) is not supported")
    if mode not in _INTERP and mode != "area":
        raise NotImplementedError(
            f"{op}(): unknown mode '{mode}' (expected nearest, nearest-exact, linear, bilinear, "
            f"trilinear or area)"
        )
    if mode in _LINEAR_DIMS and _LINEAR_DIMS[mode] != D:
        need = _LINEAR_DIMS[mode] + 2
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {need}D input")
    if align_corners is not None and mode not in _LINEAR_DIMS:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    align = builtins.bool(align_corners) if align_corners is not None else False
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = builtins.list(input.shape[2:])
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes = (
            builtins.list(size) if isinstance(size, (builtins.list, builtins.tuple)) else [size] * D
        )
        if len(sizes) != D:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {in_sizes} and output size of {sizes}. Please "
                f"provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, "
                f"o2, ...,oK) format."
            )
        out = [_int(v, op, "size") for v in sizes]
        scales = []
    elif scale_factor is not None:
        factors = (
            builtins.list(scale_factor)
            if isinstance(scale_factor, (builtins.list, builtins.tuple))
            else [scale_factor] * D
        )
        if len(factors) != D:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {in_sizes} and scale_factor of {factors}."
            )
        factors = [builtins.float(f) for f in factors]
        out = [math.floor(builtins.float(n) * f) for n, f in zip(in_sizes, factors)]
        scales = [] if recompute_scale_factor else factors
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode == "area":
        return _C._adaptive_avg_pool(input, out)
    if mode.startswith("nearest") and not input.is_floating_point():
        # nearest only copies values: exact through float64 (integers up to 2^53, bool)
        y = _C._interpolate(input.to(_C.float64), out, scales, _INTERP[mode], align)
        return y.to(input.dtype)
    return _C._interpolate(input, out, scales, _INTERP[mode], align)


_PAD_MODES = {"constant": 0, "reflect": 1, "replicate": 2, "circular": 3}


def _pad_other_dtype(input, pads, value):
    """Constant padding of the dtypes the kernel lacks (integers, bool, 16-bit floats): crop,
    then copy into a filled tensor."""
    x = input
    nd = x.dim()
    for i in range(len(pads) // 2):
        d = nd - 1 - i
        lo, hi = pads[2 * i], pads[2 * i + 1]
        start, stop = builtins.max(-lo, 0), x.shape[d] - builtins.max(-hi, 0)
        if stop < start:
            raise RuntimeError(f"pad(): negative padding ({lo}, {hi}) is larger than dim {d}")
        x = x.narrow(d, start, stop - start)
    shape = builtins.list(x.shape)
    index = [builtins.slice(None)] * nd
    for i in range(len(pads) // 2):
        d = nd - 1 - i
        lo, hi = builtins.max(pads[2 * i], 0), builtins.max(pads[2 * i + 1], 0)
        index[d] = builtins.slice(lo, lo + shape[d])
        shape[d] += lo + hi
    out = full(shape, value, dtype=input.dtype)
    out[builtins.tuple(index)] = x
    return out


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad) // 2 dims: ``pad`` = (left, right) of the last dim, then of the
    one before, .... 'constant' (``value``; negative padding crops) pads any dims;
    'reflect' (mirror without repeating the edge), 'replicate' (repeat the edge) and
    'circular' (wrap around) pad the last 1-3 dims of a 2-5-D input."""
    op = "pad"
    _check_tensor(input, op)
    if not isinstance(pad, (builtins.list, builtins.tuple)):
        raise TypeError(f"{op}(): argument 'pad' must be a tuple of ints, not {type(pad).__name__}")
    pads = [_int(v, op, "pad") for v in pad]
    if len(pads) % 2:
        raise ValueError("Padding length must be divisible by 2")
    if len(pads) // 2 > input.dim():
        raise RuntimeError(
            f"{op}(): padding length should be less than or equal to two times the input "
            f"dimension but got padding length {len(pads)} and input of dimension {input.dim()}"
        )
    if mode not in _PAD_MODES:
        raise NotImplementedError(
            f"Unrecognised padding mode {mode} (expected constant, reflect, replicate or circular)"
        )
    if mode != "constant":
        if value is not None and value != 0:
            raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument')
        k = len(pads) // 2
        if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
            raise NotImplementedError(
                f"{op}(): {mode} padding of {k} dims expects a {k + 1}D or {k + 2}D input, got "
                f"{input.dim()}D (only 2D, 3D, 4D, 5D padding with non-constant padding are "
                f"supported)"
            )
    value = 0.0 if value is None else value
    if input.dtype not in (_C.float32, _C.float64):
        if mode == "constant":
            return _pad_other_dtype(input, pads, value)
        # the other modes copy values: exact through float64 (integers up to 2^53, bool)
        wide = _C.float32 if input.is_floating_point() else _C.float64
        return _C._pad(input.to(wide), pads, _PAD_MODES[mode], 0.0).to(input.dtype)
    return _C._pad(input, pads, _PAD_MODES[mode], builtins.float(value))
