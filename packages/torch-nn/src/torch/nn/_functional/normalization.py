"""normalize, local_response_norm and rms_norm (batch, layer, group and instance norm are core
kernels, found in torch.nn.functional)."""

import torch
from torch.nn._functional.common import _check_tensor, _float_only, _opmath
from torch.nn._functional.distance import _clamped_l2, _pnorm


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along dim."""
    op = "normalize"
    _check_tensor(input, op)
    if not input.is_floating_point():
        raise RuntimeError(
            f"{op}(): linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {input.dtype}"
        )
    eps = _opmath(eps, input, op, "eps")
    p = 2.0 if p is None else p
    if p == 2:
        denom = _clamped_l2(input, dim, eps)
    else:
        denom = torch.clamp(_pnorm(input, p, dim, True), min=eps)
    r = input / denom
    if out is not None:
        return out.copy_(r)
    return r


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels)^beta."""
    from torch._nn_ops import _int

    op = "local_response_norm"
    _float_only(input, op)
    size = _int(size, op, "size")
    alpha = _opmath(alpha, input, op, "alpha")
    beta = _opmath(beta, input, op, "beta")
    k = _opmath(k, input, op, "k")
    if input.dim() < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)"
        )
    c = input.shape[1]
    sq = input * input
    shape = list(sq.shape)
    before, after = size // 2, (size - 1) // 2
    parts = [sq]
    if before:
        parts.insert(0, sq.new_zeros(*shape[:1], before, *shape[2:]))
    if after:
        parts.append(sq.new_zeros(*shape[:1], after, *shape[2:]))
    padded = torch.cat(parts, 1)
    total = padded.narrow(1, 0, c)
    for i in range(1, size):
        total = total + padded.narrow(1, i, c)
    return input / (total * (alpha / size) + k).pow(beta)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input / sqrt(mean(input^2) + eps) * weight``, the mean over the trailing dims that
    ``normalized_shape`` names; ``eps`` defaults to ``torch.finfo(input.dtype).eps``."""
    op = "rms_norm"
    _check_tensor(input, op)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {list(shape)}"
        )
    if input.dim() < k or tuple(input.shape[-k:]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    _float_only(input, op)
    if eps is None:
        eps = torch.finfo(input.dtype).eps
    dims = tuple(range(-k, 0))
    y = input * torch.rsqrt((input * input).mean(dims, keepdim=True) + eps)
    return y * weight if weight is not None else y
