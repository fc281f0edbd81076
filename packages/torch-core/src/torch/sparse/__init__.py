"""``torch.sparse``: functions on sparse tensors (COO and CSR; see :mod:`torch._sparse`)."""

import builtins
import contextlib

import torch
from torch import _C
from torch._sparse import (
    SparseCOOTensor,
    SparseCSRTensor,
    _coo,
    _dense_mm_sparse,
    _mm,
    _sparse_sum,
    _SparseTensor,
)

__all__ = [
    "addmm",
    "check_sparse_tensor_invariants",
    "log_softmax",
    "mm",
    "softmax",
    "spdiags",
    "sum",
]


def sum(input, dim=None, dtype=None):  # noqa: A001  (PyTorch's name)
    """Sums a sparse tensor: everything (a dense 0-d tensor), or over ``dim`` (a dense tensor
    when every sparse dim is summed, else a coalesced sparse tensor)."""
    if not isinstance(input, _SparseTensor):
        return input.sum() if dim is None else input.sum(dim)
    if isinstance(input, SparseCSRTensor):
        input = input.to_sparse_coo()
    if dim is None:
        out = input._v.sum()
        return out if dtype is None else out.to(dtype)
    return _sparse_sum(input, dim, dtype)


def mm(mat1, mat2, reduce="sum"):
    """``mat1 @ mat2`` with a sparse ``mat1``: dense for a dense ``mat2``, sparse for a sparse
    one. The gradient of a sparse ``mat1`` is sparse, with ``mat1``'s indices."""
    if reduce != "sum":
        raise NotImplementedError(f"torch.sparse.mm: reduce={reduce!r} is not supported")
    if isinstance(mat1, _SparseTensor):
        return _mm(mat1, mat2, "torch.sparse.mm")
    if isinstance(mat2, _SparseTensor):
        return _dense_mm_sparse(mat1, mat2, "torch.sparse.mm")
    return torch.mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` with a sparse ``mat1`` and dense ``mat``."""
    return torch.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def _groups(s, dim):
    """For a coalesced COO tensor, each entry's group along ``dim``: the entries that
    share every other sparse index (softmax normalises within a group)."""
    nsp = s.sparse_dim()
    others = [d for d in builtins.range(nsp) if d != dim]
    lin = s._linear(others)
    uniq, inv = torch.unique(lin, return_inverse=True)
    return inv, uniq.shape[0]


def _softmax(input, dim, dtype, log):
    op = "torch.sparse.log_softmax" if log else "torch.sparse.softmax"
    if not isinstance(input, SparseCOOTensor):
        raise RuntimeError(f"{op}: expected a sparse COO tensor, got layout {input.layout}")
    s = input.coalesce()
    if dtype is not None:
        s = s.to(dtype)
    d = dim % s.dim()
    nsp = s.sparse_dim()
    v = s._v
    if d >= nsp:  # a dense dim: an ordinary softmax of each value
        fn = torch.log_softmax if log else torch.softmax
        return s._with_values(fn(v, d - nsp + 1))
    group, n = _groups(s, d)
    shape = (n,) + tuple(v.shape[1:])
    index = group.reshape((-1,) + (1,) * (v.dim() - 1)).expand(v.shape)
    with torch.no_grad():
        top = torch.full(shape, float("-inf"), dtype=v.dtype).scatter_reduce(
            0, index, v.detach(), "amax", include_self=True
        )
    shifted = v - top.index_select(0, group)
    e = shifted.exp()
    total = torch.zeros(shape, dtype=v.dtype).index_put((group,), e, accumulate=True)
    if log:
        return s._with_values(shifted - total.log().index_select(0, group))
    return s._with_values(e / total.index_select(0, group))


def softmax(input, dim, *, dtype=None):
    """Softmax over ``dim`` of the *specified* entries (unspecified ones count as -inf, so
    they stay zero): a sparse tensor with the input's (coalesced) indices."""
    return _softmax(input, dim, dtype, False)


def log_softmax(input, dim, *, dtype=None):
    """Log of :func:`softmax` at the specified entries."""
    return _softmax(input, dim, dtype, True)


def spdiags(diagonals, offsets, shape, layout=None):
    """A sparse matrix of ``shape`` with ``diagonals[k]`` on the diagonal ``offsets[k]``:
    element ``diagonals[k, j]`` goes to row ``j - offsets[k]``, column ``j`` (as SciPy's
    ``spdiags``); entries outside the matrix are dropped."""
    if diagonals.dim() != 2:
        raise RuntimeError(
            f"spdiags: expected a 2-D diagonals tensor, got {tuple(diagonals.shape)}"
        )
    offsets = offsets if isinstance(offsets, torch.Tensor) else torch.tensor(offsets)
    if offsets.dim() != 1 or offsets.shape[0] != diagonals.shape[0]:
        raise RuntimeError(
            f"spdiags: expected one offset per diagonal ({diagonals.shape[0]}), got offsets of "
            f"shape {tuple(offsets.shape)}"
        )
    if len(set(offsets.tolist())) != offsets.shape[0]:
        raise RuntimeError("spdiags: offsets must be unique")
    rows, cols = (builtins.int(n) for n in shape)
    idx_r, idx_c, vals = [], [], []
    for k, off in enumerate(offsets.tolist()):
        lo, hi = builtins.max(0, off), builtins.min(cols, rows + off, diagonals.shape[1])
        if hi <= lo:
            continue
        j = torch.arange(lo, hi)
        idx_r.append(j - off)
        idx_c.append(j)
        vals.append(diagonals[k, lo:hi])
    if vals:
        indices = torch.stack([torch.cat(idx_r), torch.cat(idx_c)])
        values = torch.cat(vals)
    else:
        indices = torch.zeros(2, 0, dtype=_C.int64)
        values = torch.zeros(0, dtype=diagonals.dtype)
    out = _coo(indices, values, (rows, cols)).coalesce()
    if layout is torch.sparse_csr:
        return out.to_sparse_csr()
    if layout not in (None, torch.sparse_coo):
        raise RuntimeError(f"spdiags: layout {layout} is not supported")
    return out


class check_sparse_tensor_invariants(contextlib.ContextDecorator):  # noqa: N801
    """Accepted for compatibility: every sparse constructor here always checks its
    invariants (indices in range, matching shapes), so this switch changes nothing."""

    @staticmethod
    def is_enabled():
        return True

    @staticmethod
    def enable():
        pass

    @staticmethod
    def disable():
        pass

    def __init__(self, enable=True):
        self.enable_ = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
