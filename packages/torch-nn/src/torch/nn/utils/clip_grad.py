"""Gradient clipping: by total norm and by value."""

import math

import torch
from torch._sparse import is_sparse_tensor

Tensor = torch.Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]  # fmt: skip


def _as_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _norm(t, norm_type):
    if is_sparse_tensor(t):  # the norm of a sparse gradient: that of its entries
        t = t.coalesce()._values() if t.is_sparse else t.values()
    t = t.detach()
    if norm_type == math.inf and not t.numel():
        return torch.zeros((), dtype=t.dtype)
    # (one pass over the gradient for the 2-norm, where |g|, |g|^2 and the sum took three)
    return torch.linalg.vector_norm(t, norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of ``tensors`` (as if they were one vector)."""
    tensors = [t for t in _as_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return torch.tensor(0.0)
    norms = torch.stack([_norm(t, norm_type) for t in tensors])
    total = _norm(norms, norm_type)
    if error_if_nonfinite and not bool(torch.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    coef = torch.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):  # fmt: skip
    """Scale the gradients of ``parameters`` in place so that their total ``norm_type``-norm
    (computed as if all were one vector; ``inf`` for the max norm) is at most ``max_norm``.
    Returns the total norm before clipping (a tensor).  ``error_if_nonfinite`` raises when
    that norm is NaN or infinite."""
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated (warns ``FutureWarning``): :func:`clip_grad_norm_`, which it calls."""
    import warnings

    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient of ``parameters`` to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with torch.no_grad():
        for p in _as_list(parameters):
            g = p.grad
            if is_sparse_tensor(g) and g.is_sparse:  # clamp each entry once: coalesce first
                g.coalesce_()._values().clamp_(min=-clip_value, max=clip_value)
            elif g is not None:
                g.clamp_(min=-clip_value, max=clip_value)
