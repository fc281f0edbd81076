"""Normalisation: batch_norm, group_norm and instance_norm on the C++ batch-norm kernel (the
last two over a reshaped input); layer_norm on its own kernel (rows normalised in one pass)."""

import builtins
import math

from torch import _C
from torch._checks import check_tensor
from torch._nn_args import _HALF_FLOATS, _compute_dtype, _float, _in_dtype, _int

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm"]


def _param(t, op, name):
    return check_tensor(t, op, name, None, optional=True)


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
    """Normalises each channel (dim 1) of ``(N, C, *)`` by its mean and variance: the batch's in
    training (updating the running stats in place with ``momentum`` and the unbiased
    variance), the running stats otherwise; then scales by ``weight`` and adds ``bias``."""
    op = "batch_norm"
    check_tensor(input, op)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        _param(t, op, name)
    _param(weight, op, "weight"), _param(bias, op, "bias")
    if input.dim() < 2:
        raise ValueError(f"{op}(): expected 2D or higher input (N, C, *), got {tuple(input.shape)}")
    n, s = input.shape[0], math.prod(input.shape[2:])
    if training and n * s == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{tuple(input.shape)}"
        )
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"{op}(): running_mean and running_var must be defined in eval mode")
    momentum = _float(momentum, op, "momentum")
    eps = _float(eps, op, "eps")
    if eps < 0:
        raise ValueError(f"{op}(): batch_norm eps must be non-negative, but got {eps}")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.dim() != 1:
            raise RuntimeError(
                f"{op}(): expected {name} to be a 1-D tensor, got shape {tuple(t.shape)}"
            )
    cd = _compute_dtype(input, op)
    weight, bias = _in_dtype(weight, input, cd), _in_dtype(bias, input, cd)
    stats = [_in_dtype(t, input, cd) for t in (running_mean, running_var)]
    out = _C._batch_norm(
        input.to(cd),
        weight,
        bias,
        stats[0],
        stats[1],
        builtins.bool(training),
        momentum,
        eps,
    )[0]
    for t, run in zip((running_mean, running_var), stats):
        if t is not None and run is not t:  # 16-bit running stats: updated in float32
            t.detach().copy_(run.detach())
    return out.to(input.dtype)


def _check_affine_dtype(input, op, *params):
    """Weight and bias have the input's dtype (or float32 for a 16-bit float input)."""
    for name, t in params:
        if _param(t, op, name) is None:
            continue
        if t.dtype != input.dtype and not (input.dtype in _HALF_FLOATS and t.dtype == _C.float32):
            raise RuntimeError(
                f"{op}(): mixed dtype (CPU): expected {name} to have the input's dtype "
                f"{input.dtype}, got {t.dtype}"
            )


def _normalize_rows(x, rows, eps, op):
    """x (any shape, numel = rows * L) with each of its rows of L values normalised."""
    cd = _compute_dtype(x, op)
    length = x.numel() // rows if rows else 0
    x3 = x.reshape(1, rows, length).to(cd)
    out = _C._batch_norm(x3, None, None, None, None, True, 0.0, eps)[0]
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
    check_tensor(input, op)
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
    _check_affine_dtype(input, op, ("weight", weight), ("bias", bias))
    cd = _compute_dtype(input, op)
    weight, bias = _in_dtype(weight, input, cd), _in_dtype(bias, input, cd)
    out = _C._layer_norm(input.to(cd), k, weight, bias, _float(eps, op, "eps"))[0]
    return out.to(input.dtype)


def _channel_affine(y, weight, bias, op, dtype):
    c = y.shape[1]
    view = [c] + [1] * (y.dim() - 2)
    for name, t in (("weight", weight), ("bias", bias)):
        if _param(t, op, name) is not None and (t.dim() != 1 or t.shape[0] != c):
            raise RuntimeError(
                f"{op}(): expected {name} to be a vector of {c} values (one per channel), got "
                f"shape {tuple(t.shape)}"
            )
    out = _affine(
        y,
        None if weight is None else weight.reshape(view),
        None if bias is None else bias.reshape(view),
    )
    return out.to(dtype)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalises each group of C / num_groups channels of each sample ``(N, C, *)``, then
    applies the per-channel ``weight`` and ``bias``."""
    op = "group_norm"
    check_tensor(input, op)
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
    _check_affine_dtype(input, op, ("weight", weight), ("bias", bias))
    y = _normalize_rows(input, n * g, _float(eps, op, "eps"), op)
    return _channel_affine(y, weight, bias, op, input.dtype)


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
    """Normalises each channel of each sample ``(N, C, *)`` over its spatial dims (or by the
    running stats when ``use_input_stats`` is False); running stats, when given, are
    updated with the batch average of the per-instance statistics."""
    op = "instance_norm"
    check_tensor(input, op)
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
    cd = _compute_dtype(input, op)
    _check_affine_dtype(input, op, ("weight", weight), ("bias", bias))
    stats = []
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if _param(t, op, name) is not None and t.numel() != c:
            raise RuntimeError(f"{op}(): {name} should contain {c} elements not {t.numel()}")
        stats.append(None if t is None else t.detach().to(cd).reshape(-1).repeat(n))
    y = _C._batch_norm(
        input.reshape(1, n * c, s).to(cd),
        None,
        None,
        stats[0],
        stats[1],
        True,
        _float(momentum, op, "momentum"),
        _float(eps, op, "eps"),
    )[0].reshape(input.shape)
    for t, rep in zip((running_mean, running_var), stats):
        if t is not None:
            t.detach().copy_(rep.reshape(n, c).mean(0).reshape(t.shape))
    return _channel_affine(y, weight, bias, op, input.dtype)
