"""The torch.* and Tensor-method forms of linear algebra (torch.det, x.inverse(), ...),
installed onto the torch module and Tensor class when torch.linalg is imported."""

import torch
from torch import linalg
from torch._checks import numpy_dim as _numpy_dim
from torch._functional import result_type
from torch._tensor import tensor_method
from torch.linalg._einsum import einsum, tensordot


def trace(input):  # noqa: A002
    """The sum of the main diagonal of a 2-D tensor (integers sum in int64)."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return input.diagonal().sum()


def slogdet(A):
    """``(sign, logabsdet)`` of the determinant of (each matrix of) ``A``, as a named tuple:
    :func:`torch.linalg.slogdet`."""
    sign, logabsdet = linalg.slogdet(A)
    return torch.return_types.slogdet(sign, logabsdet)


def cholesky(A, upper=False, *, out=None):
    """The Cholesky factor of the symmetric positive-definite ``A``: lower triangular L with A =
    L L^T, or U = L^T with ``upper`` (:func:`torch.linalg.cholesky`)."""
    return linalg.cholesky(A, upper=upper, out=out)


def cholesky_solve(B, L, upper=False, *, out=None):
    """X with A X = B, given A's Cholesky factor L (or U with upper=True)."""
    A = torch.matmul(L.transpose(-2, -1), L) if upper else torch.matmul(L, L.transpose(-2, -1))
    return linalg.solve(A, B, out=out)


def cholesky_inverse(L, upper=False, *, out=None):
    """The inverse of A given its Cholesky factor ``L`` (A = L L^T, or A = U^T U with ``upper``)."""
    A = torch.matmul(L.transpose(-2, -1), L) if upper else torch.matmul(L, L.transpose(-2, -1))
    return linalg.inv(A, out=out)


def qr(A, some=True, *, out=None):
    """The QR decomposition ``(Q, R)`` of ``A`` as a named tuple: reduced when ``some`` (Q is m x
    k, k = min(m, n)), complete otherwise."""
    Q, R = linalg.qr(A, "reduced" if some else "complete")
    return torch.return_types.qr(Q, R)


def svd(A, some=True, compute_uv=True, *, out=None):
    """U, S, V (not Vh) with A = U diag(S) V^T; zero U and V when compute_uv is False."""
    if not compute_uv:
        S = linalg.svdvals(A)
        m, n = A.shape[-2], A.shape[-1]
        batch = tuple(A.shape[:-2])
        U = torch.zeros(*batch, m, m, dtype=A.dtype)
        V = torch.zeros(*batch, n, n, dtype=A.dtype)
        return torch.return_types.svd(U, S, V)
    U, S, Vh = linalg.svd(A, full_matrices=not some)
    return torch.return_types.svd(U, S, Vh.transpose(-2, -1))


def pinverse(input, rcond=1e-15):  # noqa: A002
    """The Moore-Penrose pseudo-inverse of ``input``, singular values below ``rcond`` times the
    largest treated as 0 (:func:`torch.linalg.pinv`)."""
    return linalg.pinv(input, rtol=rcond)


def cross(input, other, dim=None, *, out=None, axis=None):  # noqa: A002
    """linalg.cross; with dim None, the first dim of size 3."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("cross", dim, axis, None)
    if dim is None:
        shape = torch.broadcast_shapes(input.shape, other.shape)
        dim = next((d for d, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError(f"cross: no dimension of size 3 in input of shape {tuple(shape)}")
    return linalg.cross(input, other, dim=dim, out=out)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """The legacy form: (solution of op(A) X = b, a copy of A), op(A) = A^T with transpose."""
    coeff = A.transpose(-2, -1) if transpose else A
    X = linalg.solve_triangular(coeff, b, upper=upper != transpose, unitriangular=unitriangular)
    return torch.return_types.triangular_solve(X, A.clone())


def chain_matmul(*matrices, out=None):
    """The product of the given 2-D tensors, in the order that costs least
    (:func:`torch.linalg.multi_dot`)."""
    return linalg.multi_dot(matrices, out=out)


_lu_unpack = result_type("lu_unpack", ["P", "L", "U"])


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):  # noqa: N803
    """``(P, L, U)`` with A = P L U from :func:`torch.linalg.lu_factor`'s ``(LU, pivots)``: L
    unit lower triangular (m x k), U upper triangular (k x n), k = min(m, n), P the m x m
    permutation that the 1-based row swaps in ``pivots`` make. A part not asked for
    (``unpack_data``, ``unpack_pivots``) comes back empty."""
    if not isinstance(LU_pivots, torch.Tensor) or LU_pivots.dtype != torch.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    if LU_data.dim() < 2:
        raise RuntimeError(
            f"torch.lu_unpack: expected LU_data to have at least 2 dimensions, got {LU_data.dim()}"
        )
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    if tuple(LU_pivots.shape) != (*LU_data.shape[:-2], k):
        raise RuntimeError(
            f"torch.lu_unpack: LU_pivots of shape {list(LU_pivots.shape)} do not match "
            f"LU_data of shape {list(LU_data.shape)}: expected {[*LU_data.shape[:-2], k]}"
        )
    empty = LU_data.new_empty(0)
    L = U = P = empty
    if unpack_data:
        eye = torch.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        L = LU_data[..., :, :k].tril(-1) + eye
        U = LU_data[..., :k, :].triu()
    if unpack_pivots:
        batch = tuple(LU_data.shape[:-2])
        rows = []
        for piv in LU_pivots.reshape(-1, k).tolist():
            perm = list(range(m))
            for i, p in enumerate(piv):  # row i was swapped with row p - 1, in order
                perm[i], perm[p - 1] = perm[p - 1], perm[i]
            rows.append(perm)
        perm = torch.tensor(rows, dtype=torch.int64, device=LU_data.device)
        perm = perm.reshape(*batch, 1, m)
        P = torch.zeros(*batch, m, m, dtype=LU_data.dtype, device=LU_data.device)
        P = P.scatter(-2, perm, 1)  # P[..., perm[j], j] = 1: A = P (L U)
    result = _lu_unpack(P, L, U)
    if out is not None:
        for o, r in zip(out, result, strict=True):
            o.resize_(r.shape).copy_(r)
        return _lu_unpack(*out)
    return result


def _removed(name, advice):
    """A torch.<name> / Tensor.<name> that PyTorch removed in 1.9: calling it raises
    RuntimeError (as in PyTorch), pointing at its torch.linalg replacement."""

    def removed(*args, **kwargs):
        raise RuntimeError(f"torch.{name} was removed in version 1.9: use {advice}")

    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = f"Removed from PyTorch (since 1.9): raises, naming {advice}"
    return removed


matrix_rank = _removed(
    "matrix_rank",
    "`torch.linalg.matrix_rank` (where 'symmetric' is called 'hermitian').",
)


_REMOVED = {
    name: _removed(name, advice)
    for name, advice in {
        "solve": "`torch.linalg.solve(A, B)` (the arguments swapped; no LU factors returned: "
        "see `torch.linalg.lu_factor`).",
        "lstsq": "`torch.linalg.lstsq(A, B)` (the arguments swapped; no QR factors returned).",
        "symeig": "`torch.linalg.eigvalsh(A, UPLO=...)` or `torch.linalg.eigh(A, UPLO=...)` "
        "(the lower triangle is read by default).",
        "eig": "`torch.linalg.eigvals(A)` or `torch.linalg.eig(A)` (complex results).",
    }.items()
}

_TORCH = {
    **_REMOVED,
    "einsum": einsum, "tensordot": tensordot, "trace": trace, "det": linalg.det,
    "logdet": linalg.logdet, "slogdet": slogdet, "inverse": linalg.inv, "cholesky": cholesky,
    "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse, "qr": qr,
    "svd": svd, "pinverse": pinverse, "matrix_power": linalg.matrix_power, "cross": cross,
    "chain_matmul": chain_matmul, "triangular_solve": triangular_solve,
    "lu_unpack": lu_unpack, "matrix_rank": matrix_rank,
}  # fmt: skip
_METHODS = {
    **_REMOVED,
    "det": linalg.det, "logdet": linalg.logdet, "slogdet": slogdet, "inverse": linalg.inv,
    "cholesky": cholesky, "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse, "qr": qr, "svd": svd, "pinverse": pinverse,
    "matrix_power": linalg.matrix_power, "cross": cross, "trace": trace,
    "triangular_solve": triangular_solve,
}  # fmt: skip


def install():
    for name, fn in _TORCH.items():
        setattr(torch, name, fn)
    for name, fn in _METHODS.items():
        tensor_method(fn, name)
