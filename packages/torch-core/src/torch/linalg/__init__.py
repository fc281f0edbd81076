"""torch.linalg: linear algebra through LAPACK (OpenBLAS from scipy-openblas32).

The factorizations are C++ primitives (``torch._C._linalg_*``) that work on batches of
matrices and report LAPACK's per-matrix status codes; this module checks arguments,
broadcasts batches, turns failures into :class:`LinAlgError`, and builds everything else
(det, inv, norms, pinv, rank, ...) from them. Inputs are float32 or float64 of shape
(..., m, n); float16/bfloat16 raise, as in PyTorch (LAPACK has no 16-bit routines).

It also adds the torch.* forms (torch.det, torch.inverse, torch.svd, torch.einsum, ...) and
Tensor methods, see the end of the file.
"""

import math

import torch
from torch import _C
from torch._checks import check_tensor as _check_tensor
from torch._checks import numpy_args as _numpy_args
from torch._checks import numpy_dim as _numpy_dim
from torch._checks import wrap_dim as _wrap_dim
from torch._checks import write_out as _write_out
from torch._checks import write_outs as _write_outs
from torch._functional import result_type, zero_safe_norm

Tensor = _C.Tensor

__all__ = [
    "LinAlgError", "inv", "inv_ex", "det", "slogdet", "solve", "solve_ex", "lstsq", "cholesky",
    "cholesky_ex", "qr", "svd", "svdvals", "eig", "eigvals", "eigh", "eigvalsh", "matrix_norm",
    "vector_norm", "norm", "matrix_rank", "pinv", "matrix_power", "cross", "multi_dot",
    "lu_factor", "solve_triangular", "matmul", "vecdot", "diagonal", "tensorinv", "tensorsolve",
    "matrix_exp",
]  # fmt: skip


class LinAlgError(RuntimeError):
    """A matrix was singular, not positive-definite, or an algorithm did not converge."""


LinAlgError.__module__ = "torch.linalg"


# --- named results -------------------------------------------------------------------------


_slogdet = result_type("linalg_slogdet", ["sign", "logabsdet"])
_slogdet_t = result_type("slogdet", ["sign", "logabsdet"])
_inv_ex = result_type("linalg_inv_ex", ["inverse", "info"])
_solve_ex = result_type("linalg_solve_ex", ["result", "info"])
_cholesky_ex = result_type("linalg_cholesky_ex", ["L", "info"])
_lstsq = result_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_qr = result_type("linalg_qr", ["Q", "R"])
_qr_t = result_type("qr", ["Q", "R"])
_svd = result_type("linalg_svd", ["U", "S", "Vh"])
_svd_t = result_type("svd", ["U", "S", "V"])
_eigh = result_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
_eig_result = result_type("linalg_eig", ["eigenvalues", "eigenvectors"])
_lu_factor = result_type("linalg_lu_factor", ["LU", "pivots"])
result_type("triangular_solve", ["solution", "cloned_coefficient"])


# --- argument checks -----------------------------------------------------------------------


def _matrix(A, op, square=False, complex_ok=False):
    """Check A is a float tensor of matrices; return (A in a LAPACK dtype, the result dtype).
    complex_ok: the op also takes complex matrices."""
    _check_tensor(A, op, "A")
    if A.dim() < 2:
        raise RuntimeError(
            f"{op}: The input tensor A must have at least 2 dimensions, got shape {tuple(A.shape)}"
        )
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if A.is_complex() and complex_ok:
        return A, A.dtype
    if A.is_complex():
        raise NotImplementedError(
            f"{op}: complex matrices are not supported yet (linalg.solve and linalg.inv take "
            f"them); got {A.dtype}"
        )
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point tensor as input. Got {A.dtype}")
    if A.dtype in (torch.float16, torch.bfloat16):
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {A.dtype}")
    return A, A.dtype


def _same_dtype(A, B, op):
    _check_tensor(B, op, "B", 2)
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"{op}: Expected A and B to have the same dtype, but got A.dtype={A.dtype} and "
            f"B.dtype={B.dtype}"
        )


def _first_failure(info):
    """(batch index or None, code) of the first matrix whose LAPACK code is > 0, or None."""
    flat = info.reshape(-1)
    if flat.numel() == 0 or not bool((flat > 0).any()):
        return None
    i = next(k for k, c in enumerate(flat.tolist()) if c > 0)
    return (i if info.dim() > 0 else None), int(flat[i])


def _raise_on(info, op, describe):
    found = _first_failure(info)
    if found is None:
        return
    index, code = found
    where = "" if index is None else f"(Batch element {index}): "
    raise LinAlgError(f"{op}: {where}{describe(code)}")


def _singular(code):
    return (
        f"The diagonal element {code} is zero, the inversion could not be completed "
        "because the input matrix is singular."
    )


def _not_pd(code):
    return (
        f"The factorization could not be completed because the input is not "
        f"positive-definite (the leading minor of order {code} is not positive-definite)."
    )


def _no_convergence(code):
    return (
        f"The algorithm failed to converge because the input matrix is ill-conditioned or "
        f"has too many repeated singular values (error code: {code})."
    )


def _mT(A):  # noqa: N802
    return A.transpose(-2, -1)


def _solve_ex_core(A, B):
    """(X, info) with A X = B.  LAPACK is wrapped for real dtypes only, so a complex system
    is solved as the real one [[Re A, -Im A], [Im A, Re A]] [Re X; Im X] = [Re B; Im B]
    (singular exactly when A is: its determinant is |det A|^2)."""
    if not A.is_complex():
        return _C._linalg_solve_ex(A, B)
    n = A.shape[-1]
    real = torch.cat((torch.cat((A.real, -A.imag), -1), torch.cat((A.imag, A.real), -1)), -2)
    X, info = _C._linalg_solve_ex(real, torch.cat((B.real, B.imag), -2))
    return torch.complex(X.narrow(-2, 0, n), X.narrow(-2, n, n)), info


def _eye_like(A):
    n = A.shape[-1]
    return torch.eye(n, dtype=A.dtype, device=A.device).expand(*A.shape)


def _batch_broadcast(*shapes):
    return tuple(torch.broadcast_shapes(*shapes))


# --- inverse, determinant, solve -----------------------------------------------------------


def inv_ex(A, *, check_errors=False, out=None):
    A, dtype = _matrix(A, "linalg.inv", square=True, complex_ok=True)
    X, info = _solve_ex_core(A, _eye_like(A))
    if check_errors:
        _raise_on(info, "linalg.inv", _singular)
    return _inv_ex(_out(X.to(dtype), out[0] if out is not None else None), info)


def inv(A, *, out=None):
    """The inverse of each square matrix of A; LinAlgError when one is singular."""
    A2, dtype = _matrix(A, "linalg.inv", square=True, complex_ok=True)
    X, info = _solve_ex_core(A2, _eye_like(A2))
    _raise_on(info, "linalg.inv", _singular)
    return _out(X.to(dtype), out)


def _out(result, out, exact_dtype=True):
    """out= as most torch.linalg functions take it in PyTorch: of the result's very dtype
    (eig, eigvals, matrix_rank, pinv, tensorinv and tensorsolve take any castable dtype)."""
    return _write_out(result, out, exact_dtype)


def _out_tuple(result, out, exact_dtype=True):
    """:func:`_out` for a tuple result and an out= tuple of tensors."""
    return _write_outs(result, out, exact_dtype)


def _lu_parts(A, op):
    A, dtype = _matrix(A, op, square=True)
    LU, piv, _ = _C._linalg_lu_factor(A)
    n = A.shape[-1]
    swaps = (piv != torch.arange(1, n + 1, dtype=torch.int32)).sum(-1)
    sign = 1 - 2 * (swaps % 2)
    return LU.diagonal(0, -2, -1), sign.to(A.dtype), dtype


def det(A, *, out=None):
    """The determinant of each square matrix of A (0 for singular ones)."""
    diag, sign, dtype = _lu_parts(A, "linalg.det")
    return _out((diag.prod(-1) * sign).to(dtype), out)


def slogdet(A, *, out=None):
    """(sign, log|det|) of each square matrix: sign 0 and -inf for singular ones."""
    diag, sign, dtype = _lu_parts(A, "linalg.slogdet")
    sign = sign * torch.sign(diag).prod(-1)
    logabs = torch.log(torch.abs(diag)).sum(-1)
    return _out_tuple(_slogdet(sign.to(dtype), logabs.to(dtype)), out)


def logdet(A):
    """log(det(A)): nan for a negative determinant, -inf for a singular matrix."""
    diag, sign, dtype = _lu_parts(A, "logdet")
    sign = sign * torch.sign(diag).prod(-1)
    logabs = torch.log(torch.abs(diag)).sum(-1)
    nan = torch.full_like(logabs, math.nan)
    return torch.where(sign < 0, nan, logabs).to(dtype)


def _solve(A, B, left, op):
    A2, dtype = _matrix(A, op, square=True, complex_ok=True)
    _same_dtype(A, B, op)
    B2 = B.to(A2.dtype)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        if B2.dim() < 2:
            raise RuntimeError(f"{op}: with left=False, B must have at least 2 dimensions")
        X, info = _solve(_mT(A2), _mT(B2), True, op)
        return _mT(X), info
    n = A2.shape[-1]
    vector = B2.dim() == 1 or (B2.dim() == A2.dim() - 1 and B2.shape == A2.shape[:-1])
    Bm = B2.unsqueeze(-1) if vector else B2
    if Bm.shape[-2] != n:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation AX = B "
            f"({A2.shape[-2]}x{n} and {Bm.shape[-2]}x{Bm.shape[-1]})"
        )
    batch = _batch_broadcast(A2.shape[:-2], Bm.shape[:-2])
    X, info = _solve_ex_core(A2.expand(*batch, n, n), Bm.expand(*batch, n, Bm.shape[-1]))
    return (X.squeeze(-1) if vector else X).to(dtype), info


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    X, info = _solve(A, B, left, "linalg.solve")
    if check_errors:
        _raise_on(info, "linalg.solve", _singular)
    return _solve_ex(_out(X, out[0] if out is not None else None), info)


def solve(A, B, *, left=True, out=None):
    """X with A X = B (left=True) or X A = B; batch dims broadcast, B may be a vector."""
    X, info = _solve(A, B, left, "linalg.solve")
    _raise_on(info, "linalg.solve", _singular)
    return _out(X, out)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (left=True) or X A = B for triangular A (only its `upper` or lower
    triangle is read; unitriangular: its diagonal is taken as ones). Batch dims broadcast;
    a zero on the diagonal gives inf/nan, not an error."""
    op = "linalg.solve_triangular"
    A2, dtype = _matrix(A, op, square=True)
    _same_dtype(A, B, op)
    if B.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    if not left:  # X A = B  <=>  A^T X^T = B^T, and A^T has the other triangle
        X = solve_triangular(
            _mT(A2), _mT(B), upper=not upper, left=True, unitriangular=unitriangular
        )
        return _out(_mT(X), out)
    n = A2.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation AX = B "
            f"({A2.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    batch = _batch_broadcast(A2.shape[:-2], B.shape[:-2])
    X = _C._linalg_solve_triangular(
        A2.expand(*batch, n, n), B.expand(*batch, n, B.shape[-1]), bool(upper), bool(unitriangular)
    )
    return _out(X.to(dtype), out)


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of A X = B (via gelsd), as (solution, residuals, rank,
    singular_values); which of the last three are filled depends on the driver."""
    op = "linalg.lstsq"
    A2, dtype = _matrix(A, op)
    _same_dtype(A, B, op)
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    if driver is None:
        driver = "gelsy"
    if driver not in drivers:
        raise RuntimeError(f"{op}: parameter `driver` should be one of {drivers}, got {driver!r}")
    vector = B.dim() == A2.dim() - 1
    Bm = B.to(A2.dtype).unsqueeze(-1) if vector else B.to(A2.dtype)
    m, n = A2.shape[-2], A2.shape[-1]
    if Bm.dim() < 2 or Bm.shape[-2] != m:
        raise RuntimeError(
            f"{op}: input.size(-2) should match other.size(-2), got A of shape "
            f"{tuple(A.shape)} and B of shape {tuple(B.shape)}"
        )
    batch = _batch_broadcast(A2.shape[:-2], Bm.shape[:-2])
    if rcond is None:
        rcond = torch.finfo(A2.dtype).eps * max(m, n)
    k = Bm.shape[-1]
    if k == 0:  # LAPACK wants a right-hand side: solve for a zero one, keep none of it
        Bm = torch.zeros(*Bm.shape[:-1], 1, dtype=Bm.dtype)
    X, rest, rank, S, info = _C._linalg_lstsq(
        A2.expand(*batch, m, n), Bm.expand(*batch, m, Bm.shape[-1]), float(rcond)
    )
    X, rest = X[..., :k], rest[..., :k]
    _raise_on(info, op, _no_convergence)
    empty = torch.empty(0, dtype=dtype)
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = (rest * rest).sum(-2).to(dtype)  # (..., k): k = 1 for a vector B
    if vector:
        X = X.squeeze(-1)
    rank = torch.empty(0, dtype=torch.int64) if driver == "gels" else rank
    S = S.to(dtype) if driver in ("gelsd", "gelss") else empty
    return _lstsq(X.to(dtype), residuals, rank, S)


# --- factorizations --------------------------------------------------------------------------


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    A2, dtype = _matrix(A, "linalg.cholesky", square=True)
    L, info = _C._linalg_cholesky_ex(A2, bool(upper))
    if check_errors:
        _raise_on(info, "linalg.cholesky", _not_pd)
    return _out_tuple(_cholesky_ex(L.to(dtype), info), out)


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L (A = L L^T), or U = L^T with upper=True; LinAlgError when A is
    not positive-definite. Only the lower (upper) triangle of A is read."""
    A2, dtype = _matrix(A, "linalg.cholesky", square=True)
    L, info = _C._linalg_cholesky_ex(A2, bool(upper))
    _raise_on(info, "linalg.cholesky", _not_pd)
    return _out(L.to(dtype), out)


def qr(A, mode="reduced", *, out=None):
    """A = Q R with orthonormal columns in Q and upper-triangular R; mode "reduced"
    (k = min(m, n) columns), "complete" (Q square) or "r" (Q empty)."""
    A2, dtype = _matrix(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
            "(default), 'r', or 'complete'"
        )
    Q, R = _C._linalg_qr(A2, mode)
    return _out_tuple(_qr(Q.to(dtype), R.to(dtype)), out)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """A = U diag(S) Vh, singular values S descending (LAPACK gesdd)."""
    A2, dtype = _matrix(A, "linalg.svd")
    U, S, Vh, info = _C._linalg_svd(A2, bool(full_matrices), True)
    _raise_on(info, "linalg.svd", _no_convergence)
    return _out_tuple(_svd(U.to(dtype), S.to(dtype), Vh.to(dtype)), out)


def svdvals(A, *, driver=None, out=None):
    A2, dtype = _matrix(A, "linalg.svdvals")
    _, S, _, info = _C._linalg_svd(A2, False, False)
    _raise_on(info, "linalg.svdvals", _no_convergence)
    return _out(S.to(dtype), out)


def _uplo(UPLO, op):  # noqa: N803
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO in ("U", "u")


def eigh(A, UPLO="L", *, out=None):  # noqa: N803
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices; only the
    UPLO triangle of A is read."""
    A2, dtype = _matrix(A, "linalg.eigh", square=True)
    w, V, info = _C._linalg_eigh(A2, _uplo(UPLO, "linalg.eigh"), True)
    _raise_on(info, "linalg.eigh", _no_convergence)
    return _out_tuple(_eigh(w.to(dtype), V.to(dtype)), out)


def eigvalsh(A, UPLO="L", *, out=None):  # noqa: N803
    A2, dtype = _matrix(A, "linalg.eigvalsh", square=True)
    w, _, info = _C._linalg_eigh(A2, _uplo(UPLO, "linalg.eigvalsh"), False)
    _raise_on(info, "linalg.eigvalsh", _no_convergence)
    return _out(w.to(dtype), out)


def _eig(A, op, vectors):
    A2, _ = _matrix(A, op, square=True)
    w, V, info = _C._linalg_eig(A2, vectors)
    _raise_on(info, op, _no_convergence)
    return w, V


def eig(A, *, out=None):
    """Eigenvalues and eigenvectors (unit-norm columns) of a real square matrix, always as
    complex tensors (complex64 for float32 input, complex128 for float64), as in PyTorch."""
    return _out_tuple(_eig_result(*_eig(A, "linalg.eig", True)), out, exact_dtype=False)


def eigvals(A, *, out=None):
    return _out(_eig(A, "linalg.eigvals", False)[0], out, exact_dtype=False)


def lu_factor(A, *, pivot=True, out=None):
    if not pivot:
        raise NotImplementedError("linalg.lu_factor: pivot=False is not supported on CPU")
    A2, dtype = _matrix(A, "linalg.lu_factor")
    LU, piv, _ = _C._linalg_lu_factor(A2)
    return _out_tuple(_lu_factor(LU.to(dtype), piv), out)


# --- norms -----------------------------------------------------------------------------------


def _norm_dtype(x, dtype, op):
    _check_tensor(x, op, "x")
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {x.dtype}"
        )
    return x


def vector_norm(
    x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None
):  # noqa: A002
    """``sum(|x|^ord)^(1/ord)`` over dim (all dims when None); ord inf/-inf: max/min of ``|x|``,
    ord 0: the number of non-zeros."""
    # NumPy's axis= for dim= (and keepdims= for keepdim=), as in PyTorch
    if axis is not None or keepdims is not None:
        dim, keepdim = _numpy_args("linalg.vector_norm", dim, keepdim, axis, keepdims, None)
    x = _norm_dtype(x, dtype, "linalg.vector_norm")
    if isinstance(dim, int):
        dim = (dim,)
    dims = tuple(range(x.dim())) if dim is None else tuple(dim)
    if x.dim() == 0:
        dims = ()
    if ord == 2 and not x.dtype.is_complex and not (torch.is_grad_enabled() and x.requires_grad):
        r = torch._C._sum_sq(x, dims, keepdim, None).sqrt() if dims else torch.abs(x)
        return _out(r, out)
    a = torch.abs(x)
    if ord == math.inf or ord == -math.inf:
        if x.numel() == 0 and not dims:
            raise RuntimeError(
                "linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                "the operation does not have an identity"
            )
        f = torch.amax if ord > 0 else torch.amin
        r = f(a, dim=dims, keepdim=keepdim) if dims else a.clone()
    elif ord == 0:
        nonzero = torch._functional.keep_graph((a != 0).to(x.dtype), a)
        r = nonzero.sum(dim=dims, keepdim=keepdim) if dims else nonzero
    elif ord == 1:
        r = a.sum(dim=dims, keepdim=keepdim) if dims else a.clone()
    elif ord == 2:
        r = zero_safe_norm(
            a,
            dims,
            keepdim,
            lambda a: torch.sqrt(torch._C._sum_sq(a, dims, keepdim, None) if dims else a * a),
        )
    else:
        p = float(ord)
        r = zero_safe_norm(
            a,
            dims,
            keepdim,
            lambda a: torch.pow(
                torch.pow(a, p).sum(dim=dims, keepdim=keepdim) if dims else a**p, 1 / p
            ),
            p,
        )
    return _out(r, out)


def _two_dims(A, dim, op):
    if len(dim) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {tuple(dim)}")
    d0, d1 = (d % A.dim() if -A.dim() <= d < A.dim() else None for d in dim)
    if d0 is None or d1 is None:
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of "
            f"[{-A.dim()}, {A.dim() - 1}], but got {tuple(dim)})"
        )
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _max_or_min(t, dim, largest, keepdim=True):
    """amax/amin over dim; over an empty dim the max is 0 (norms are >= 0), the min has no
    value (IndexError, as in PyTorch)."""
    if t.shape[dim] == 0:
        if not largest:
            raise IndexError(
                f"linalg.matrix_norm: the minimum over dim {dim} of size 0 has no value "
                f"(input of shape {tuple(t.shape)})"
            )
        shape = list(t.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        return torch.zeros(shape, dtype=t.dtype)
    return (torch.amax if largest else torch.amin)(t, dim=dim, keepdim=keepdim)


def matrix_norm(
    A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None
):  # noqa: A002
    """Matrix norms over the two dims `dim`: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    # NumPy's axis= for dim= (and keepdims= for keepdim=), as in PyTorch
    if axis is not None or keepdims is not None:
        dim, keepdim = _numpy_args("linalg.matrix_norm", dim, keepdim, axis, keepdims, (-2, -1))
    op = "linalg.matrix_norm"
    A = _norm_dtype(A, dtype, op)
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    d0, d1 = _two_dims(A, dim, op)
    if ord == "fro":
        r = zero_safe_norm(
            torch.abs(A),
            (d0, d1),
            keepdim,
            lambda a: torch.sqrt((a * a).sum(dim=(d0, d1), keepdim=keepdim)),
        )
    elif ord in (math.inf, -math.inf, 1, -1):
        rows, cols = (d0, d1) if abs(ord) == 1 else (d1, d0)  # sum over rows, then max/min
        r = _max_or_min(torch.abs(A).sum(dim=rows, keepdim=True), cols, ord > 0)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    elif ord in ("nuc", 2, -2):
        rest = [d for d in range(A.dim()) if d not in (d0, d1)]
        S = svdvals(A.permute(*rest, d0, d1))
        r = S.sum(-1) if ord == "nuc" else _max_or_min(S, -1, ord == 2, keepdim=False)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
    else:
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    return _out(r, out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):  # noqa: A002
    """matrix_norm when ord is a string or dim has 2 entries (or A is 2-D with ord given),
    vector_norm otherwise (of the flattened tensor when both are None)."""
    # NumPy's axis= for dim= (and keepdims= for keepdim=), as in PyTorch
    if axis is not None or keepdims is not None:
        dim, keepdim = _numpy_args("linalg.norm", dim, keepdim, axis, keepdims, None)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if A.dim() == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    raise RuntimeError(
        f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
        f"Got {A.dim()}D."
    )


# --- rank, pseudo-inverse, powers ------------------------------------------------------------


def _tolerance(A, S, atol, rtol, op):
    """max(atol, rtol * largest singular value), PyTorch's rule for the defaults."""
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        no_atol = atol is None or (not isinstance(atol, Tensor) and atol == 0)
        rtol = torch.finfo(A.dtype).eps * max(m, n) if no_atol else 0.0
    atol = 0.0 if atol is None else atol
    smax = S.amax(-1, keepdim=True) if S.shape[-1] > 0 else torch.zeros(*S.shape[:-1], 1)
    atol = atol.unsqueeze(-1) if isinstance(atol, Tensor) else atol
    rtol = rtol.unsqueeze(-1) if isinstance(rtol, Tensor) else rtol
    return torch.maximum(torch.as_tensor(atol, dtype=S.dtype), rtol * smax)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values above max(atol, rtol * the largest one)."""
    op = "linalg.matrix_rank"
    if tol is not None:
        atol, rtol = tol, 0.0
    A2, _ = _matrix(A, op, square=hermitian)
    S = torch.abs(eigvalsh(A2)) if hermitian else svdvals(A2)
    return _out((S > _tolerance(A2, S, atol, rtol, op)).sum(-1), out, exact_dtype=False)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse, through the SVD (eigh when hermitian=True);
    singular values at or below the tolerance (see matrix_rank) count as zero."""
    op = "linalg.pinv"
    A2, dtype = _matrix(A, op, square=hermitian)
    if hermitian:
        w, V = eigh(A2)
        keep = torch.abs(w) > _tolerance(A2, torch.abs(w), atol, rtol, op)
        winv = torch.where(keep, 1.0 / torch.where(keep, w, torch.ones_like(w)), 0.0)
        r = torch.matmul(V * winv.unsqueeze(-2), _mT(V))
    else:
        U, S, Vh = svd(A2, full_matrices=False)
        keep = S > _tolerance(A2, S, atol, rtol, op)
        sinv = torch.where(keep, 1.0 / torch.where(keep, S, torch.ones_like(S)), 0.0)
        r = torch.matmul(_mT(Vh) * sinv.unsqueeze(-2), _mT(U))
    return _out(r.to(dtype), out, exact_dtype=False)


def matrix_power(A, n, *, out=None):
    """A @ A @ ... (n times) by repeated squaring; n = 0 gives identities, n < 0 powers of
    the inverse."""
    op = "linalg.matrix_power"
    _check_tensor(A, op, "A")
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, got shape {tuple(A.shape)}"
        )
    if not isinstance(n, int):
        raise TypeError(f"{op}: n must be an int, got {type(n).__name__}")
    if n == 0:
        return _out(torch._functional.keep_graph(_eye_like(A).clone(), A), out)
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else torch.matmul(result, base)
        n >>= 1
        if n:
            base = torch.matmul(base, base)
    return _out(result.clone() if result is A else result, out)


# --- products --------------------------------------------------------------------------------


def cross(input, other, *, dim=-1, out=None, axis=None):  # noqa: A002
    """The cross product of 3-vectors along dim (batch dims broadcast)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("linalg.cross", dim, axis, -1)
    op = "linalg.cross"
    if input.dim() != other.dim():
        raise RuntimeError(
            f"{op}: inputs must have the same number of dimensions, got shapes "
            f"{tuple(input.shape)} and {tuple(other.shape)}"
        )
    shape = tuple(torch.broadcast_shapes(input.shape, other.shape))
    d = _wrap_dim(dim, len(shape), op)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"{op}: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
            f"{other.shape[d]}"
        )
    dtype = torch.promote_types(input.dtype, other.dtype)
    a, b = input.to(dtype).expand(*shape), other.to(dtype).expand(*shape)
    r = torch.empty(shape, dtype=dtype)
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        r.narrow(d, i, 1).copy_(
            a.narrow(d, j, 1) * b.narrow(d, k, 1) - a.narrow(d, k, 1) * b.narrow(d, j, 1)
        )
    return _out(r, out)


def multi_dot(tensors, *, out=None):
    """A chain of matrix products; the first and last may be vectors."""
    op = "linalg.multi_dot"
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"{op}: expected at least 2 tensors but got {len(tensors)}")
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = [tensors[0].unsqueeze(0) if first_vec else tensors[0]]
    mats += tensors[1:-1] + [tensors[-1].unsqueeze(-1) if last_vec else tensors[-1]]
    for i, t in enumerate(mats):
        if t.dim() != 2:
            raise RuntimeError(
                f"{op}: tensor {i} must be 2D (or 1D for the first and last) but got "
                f"{tensors[i].dim()}D"
            )
    r = mats[0]
    for t in mats[1:]:
        r = torch.mm(r, t)
    if first_vec:
        r = r.squeeze(0)
    if last_vec:
        r = r.squeeze(-1)
    return _out(r, out)


def matmul(input, other, *, out=None):  # noqa: A002
    return torch.matmul(input, other, out=out)


def vecdot(x, y, *, dim=-1, out=None, axis=None):
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = _numpy_dim("linalg.vecdot", dim, axis, -1)
    return _out((x * y).sum(dim), out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


def matrix_exp(A):
    """The matrix exponential (torch.matrix_exp, defined in torch._math_ops)."""
    from torch._math_ops import matrix_exp as _matrix_exp

    return _matrix_exp(A)


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A seen as a matrix from its first `ind` dims to the rest."""
    rows = math.prod(A.shape[:ind])
    inverse = inv(A.reshape(rows, -1))
    return _out(inverse.reshape(*A.shape[ind:], *A.shape[:ind]), out, exact_dtype=False)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.dim()) == B."""
    if dims is not None:
        rest = [d % A.dim() for d in dims]
        A = A.permute(*[d for d in range(A.dim()) if d not in rest], *rest)
    xshape = A.shape[B.dim() :]
    X = solve(A.reshape(B.numel(), -1), B.reshape(-1))
    return _out(X.reshape(*xshape), out, exact_dtype=False)


from torch.linalg._torch_forms import install as _install  # noqa: E402

_install()
