"""Distances between tensors, and the p-norms they are made of."""

import math

import torch
from torch.nn._functional.common import _check_tensor, _opmath


def _sum_sq(x, dim, keepdim):
    return (x * x).sum(dim, keepdim=keepdim)


def _pnorm(x, p, dim, keepdim):
    """||x||_p along dim, differentiable (p = 2 with a zero vector has a NaN gradient; the
    callers keep away from it)."""
    if p == 2:
        return _sum_sq(x, dim, keepdim).sqrt()
    a = torch.abs(x)
    if p == 1:
        return a.sum(dim, keepdim=keepdim)
    if p == math.inf:
        return a.amax(dim, keepdim=keepdim)
    if p == -math.inf:
        return a.amin(dim, keepdim=keepdim)
    if p == 0:
        return (a != 0).to(x.dtype).sum(dim, keepdim=keepdim)
    if p < 0:
        return a.pow(p).sum(dim, keepdim=keepdim).pow(1.0 / p)
    # m * ||x / m||_p with m = max |x|: neither a large p nor large values overflow
    m = a.amax(dim, keepdim=True)
    safe = torch.where((m > 0) & (m < math.inf), m, 1.0)
    r = (a / safe).pow(p).sum(dim, keepdim=True).pow(1.0 / p) * safe
    r = torch.where(m == math.inf, m, r)
    return r if keepdim else r.squeeze(dim)


def _clamped_l2(x, dim, eps):
    """max(||x||_2, eps) along dim (kept): as sqrt(max(sum x^2, eps^2)) where eps^2 is a
    normal number, so that zero vectors get no NaN gradient."""
    if 0 < eps < 1e150:
        return torch.clamp(_sum_sq(x, dim, True), min=eps * eps).sqrt()
    return torch.clamp(_sum_sq(x, dim, True).sqrt(), min=eps)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / (max(||x1||, eps) * max(||x2||, eps)) along dim, after broadcasting x1 and
    x2 to one shape (dim counts in that shape): each input is divided by its clamped norm,
    then the products are summed."""
    op = "cosine_similarity"
    _check_tensor(x1, op, "x1")
    _check_tensor(x2, op, "x2")
    if isinstance(dim, bool):
        raise TypeError(f"{op}(): argument 'dim' must be int, not bool")
    dtype = torch.result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{op}(): expected common dtype to be floating point, yet common dtype is {dtype} "
            f"(x1: {x1.dtype}, x2: {x2.dtype})"
        )
    x1, x2 = torch.broadcast_tensors(x1.to(dtype), x2.to(dtype))
    eps = _opmath(eps, x1, op, "eps")
    if not eps >= 0:  # (NaN too)
        raise RuntimeError(f"{op}(): eps must be non-negative, got: {eps}")
    from torch._functional import wrap_dim

    d = wrap_dim(dim, x1.dim(), op)
    return ((x1 / _clamped_l2(x1, d, eps)) * (x2 / _clamped_l2(x2, d, eps))).sum(d)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dimension."""
    _check_tensor(x1, "pairwise_distance", "x1")
    _check_tensor(x2, "pairwise_distance", "x2")
    dim = -1 if max(x1.dim(), x2.dim()) > 0 else 0
    return _pnorm(x1 - x2 + eps, p, dim, keepdim)


def pdist(input, p=2):
    """Distances between all pairs of rows of a 2-d input (the upper triangle, row by row)."""
    _check_tensor(input, "pdist")
    if input.dtype in (torch.float16, torch.bfloat16):
        raise NotImplementedError(f"pdist(): not implemented for {input.dtype}")
    if not input.is_floating_point():
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype}")
    if not p >= 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    i, j = torch.triu_indices(n, n, 1)
    return _pnorm(input.index_select(0, i) - input.index_select(0, j), p, 1, False)
