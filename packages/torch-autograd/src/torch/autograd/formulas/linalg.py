"""Linear algebra: solves, and the factorizations (Cholesky, QR, SVD, eigen, LU, lstsq).

Inputs are batches of matrices (..., m, n); every formula works on the last two dims.
Symmetric-input ops (cholesky, eigh) read one triangle of A but, as in PyTorch, return the
symmetric gradient: the one that keeps a symmetric A symmetric.  Factorizations whose
factors are defined up to signs (QR, SVD, eig) give correct gradients for losses that do
not depend on that choice.
"""

import torch
from torch.autograd.graph import Formula, sum_to


def _mT(x):  # noqa: N802
    return x.transpose(-2, -1)


def _mask(x, lower, k):
    """x where the constant triangle mask is set, 0 elsewhere (differentiable in x)."""
    ones = torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool, device=x.device)
    return torch.where(ones.tril(k) if lower else ones.triu(k), x, 0.0)


def _tril(x, k=0):
    return _mask(x, True, k)


def _triu(x, k=0):
    return _mask(x, False, k)


def _sym(x):
    return (x + _mT(x)) * 0.5


def _diag(v):
    """(..., k) -> (..., k, k) diagonal matrices."""
    return v.unsqueeze(-1) * torch.eye(v.shape[-1], dtype=v.dtype, device=v.device)


def _gaps_inverse(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (equal values off the
    diagonal give inf: the factor's derivative does not exist there)."""
    diff = w.unsqueeze(-2) - w.unsqueeze(-1)
    diagonal = torch.eye(w.shape[-1], dtype=torch.bool, device=w.device)
    return torch.where(diagonal, 0.0, 1.0 / torch.where(diagonal, 1.0, diff))


def _solve_tri(A, B, upper, left=True, unit=False):
    return torch.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)


class _Factorization(Formula):
    """Several outputs: backward gets None (not zeros) for those that got no gradient, so
    unused factors cost nothing and their terms (which may divide by gaps) are skipped."""

    multi_output = True

    def _materialize(self, grads):
        return list(grads)


# ---------------------------------------------------------------- solves


class LinalgSolveExBackward0(_Factorization):
    """X = A^-1 B: gB = A^-T gX, gA = -gB X^T."""

    names = ("_linalg_solve_ex",)

    def save(self, out, A, B):
        self.save_for_backward(A, out[0])
        self.shapes = (tuple(A.shape), tuple(B.shape))
        return A, B

    def backward(self, gX, _info=None):
        A, X = self.saved_tensors
        gB = torch.linalg.solve(_mT(A), gX)
        gA = -torch.matmul(gB, _mT(X)) if self.needs_input_grad[0] else None
        return (
            None if gA is None else sum_to(gA, self.shapes[0]),
            sum_to(gB, self.shapes[1]) if self.needs_input_grad[1] else None,
        )


class LinalgSolveTriangularBackward0(Formula):
    """X = A^-1 B for triangular A (only its triangle, without the diagonal if unit)."""

    names = ("_linalg_solve_triangular",)

    def save(self, out, A, B, upper, unitriangular):
        self.save_for_backward(A, out)
        self.upper, self.unit = upper, unitriangular
        self.shapes = (tuple(A.shape), tuple(B.shape))
        return A, B

    def backward(self, gX):
        A, X = self.saved_tensors
        gB = _solve_tri(_mT(A), gX, not self.upper, unit=self.unit)
        gA = None
        if self.needs_input_grad[0]:
            gA = -torch.matmul(gB, _mT(X))
            k = 1 if self.unit else 0
            gA = sum_to(_triu(gA, k) if self.upper else _tril(gA, -k), self.shapes[0])
        return gA, sum_to(gB, self.shapes[1]) if self.needs_input_grad[1] else None


# ---------------------------------------------------------------- Cholesky


class LinalgCholeskyExBackward0(_Factorization):
    """A = L L^T: dL = L Phi(L^-1 dA L^-T), Phi = lower triangle with half the diagonal,
    so gA = L^-T sym(Phi(L^T gL)) L^-1."""

    names = ("_linalg_cholesky_ex",)

    def save(self, out, A, upper):
        self.save_for_backward(out[0])
        self.upper = upper
        return (A,)

    def backward(self, gL, _info=None):
        (L,) = self.saved_tensors
        if self.upper:  # U = L^T
            L, gL = _mT(L), _mT(gL)
        phi = torch.matmul(_mT(L), gL)
        phi = _tril(phi, -1) + _diag(phi.diagonal(0, -2, -1) * 0.5)
        gA = _solve_tri(_mT(L), _sym(phi), upper=True)  # L^-T sym(Phi)
        return (_solve_tri(L, gA, upper=False, left=False),)  # ... L^-1


# ---------------------------------------------------------------- QR


def _qr_backward_tall(Q, R, gQ, gR):
    """A = Q R with m >= n (R square, invertible): with M = Q^T gQ - gR R^T,
    gA = (gQ - Q copyu(M)) R^-T, copyu(M) = triu(M) + triu(M, 1)^T."""
    M = -torch.matmul(gR, _mT(R))
    if gQ is not None:
        M = M + torch.matmul(_mT(Q), gQ)
    B = -torch.matmul(Q, _triu(M) + _mT(_triu(M, 1)))
    if gQ is not None:
        B = B + gQ
    return _solve_tri(_mT(R), B, upper=False, left=False)


class LinalgQrBackward0(_Factorization):
    names = ("_linalg_qr",)

    def save(self, out, A, mode):
        self.mode = mode
        self.shape = tuple(A.shape)
        self.save_for_backward(*((A,) if mode == "r" else out))
        return (A,)

    def backward(self, gQ, gR):
        m, n = self.shape[-2:]
        if self.mode == "complete" and m > n:
            raise NotImplementedError(
                "linalg_qr backward: not implemented for mode='complete' with more rows than "
                "columns (the extra columns of Q are not determined by A); use mode='reduced'"
            )
        if self.mode == "r":  # Q was not computed: recompute it
            (A,) = self.saved_tensors
            Q, R = torch.linalg.qr(A)
        else:
            Q, R = self.saved_tensors
        if gR is None:
            gR = torch.zeros_like(R)
        if m >= n:
            return (_qr_backward_tall(Q, R, gQ, gR),)
        # wide: A = [X | Y], R = [U | V] with X = Q U (square) and Y = Q V
        U, V = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
        gU, gV = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
        gQ_all = torch.matmul(Q, torch.matmul(V, _mT(gV)))  # Y gV^T
        if gQ is not None:
            gQ_all = gQ_all + gQ
        gX = _qr_backward_tall(Q, U, gQ_all, gU)
        return (torch.cat([gX, torch.matmul(Q, gV)], -1),)


# ---------------------------------------------------------------- SVD


def _svd_backward(U, S, Vh, gU, gS, gVh, shape):
    """A = U diag(S) V^T (reduced, k = min(m, n)); with J = U^T gU, K = V^T gV, F[i, j] =
    1 / (s_j^2 - s_i^2):
    gA = U [diag(gS) + (F o (J - J^T)) S + S (F o (K - K^T))] V^T
         + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)."""
    m, n = shape[-2:]
    k = S.shape[-1]
    if gU is None and gVh is None:
        return torch.matmul(U * gS.unsqueeze(-2), Vh)
    inner = _diag(gS) if gS is not None else torch.zeros_like(_diag(S))
    F = _gaps_inverse(S * S)
    if gU is not None:
        J = torch.matmul(_mT(U), gU)
        inner = inner + (F * (J - _mT(J))) * S.unsqueeze(-2)
    if gVh is not None:
        K = torch.matmul(Vh, _mT(gVh))
        inner = inner + S.unsqueeze(-1) * (F * (K - _mT(K)))
    gA = torch.matmul(torch.matmul(U, inner), Vh)
    if gU is not None and m > k:  # the part of gU outside U's columns
        gU_out = gU - torch.matmul(U, torch.matmul(_mT(U), gU))
        gA = gA + torch.matmul(gU_out / S.unsqueeze(-2), Vh)
    if gVh is not None and n > k:
        gVh_out = gVh - torch.matmul(torch.matmul(gVh, _mT(Vh)), Vh)
        gA = gA + torch.matmul(U, gVh_out / S.unsqueeze(-1))
    return gA


class LinalgSvdBackward0(_Factorization):
    """Outputs (U, S, Vh, info).  With full_matrices the columns of U (rows of Vh) beyond
    min(m, n) are not determined by A; their gradient is ignored."""

    names = ("_linalg_svd",)

    def save(self, out, A, full_matrices, compute_uv):
        self.shape = tuple(A.shape)
        self.compute_uv = compute_uv
        if compute_uv:  # the outputs themselves (not views), so double backward sees them
            self.save_for_backward(out[0], out[1], out[2])
        else:  # svdvals: no vectors were computed
            self.save_for_backward(A)
        return (A,)

    def backward(self, gU, gS, gVh, _info=None):
        if not self.compute_uv:
            (A,) = self.saved_tensors
            U, _, Vh = torch.linalg.svd(A, full_matrices=False)
            return (torch.matmul(U * gS.unsqueeze(-2), Vh),)
        U, S, Vh = self.saved_tensors
        k = S.shape[-1]
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = None if gU is None else gU.narrow(-1, 0, k)
        gVh = None if gVh is None else gVh.narrow(-2, 0, k)
        return (_svd_backward(U, S, Vh, gU, gS, gVh, self.shape),)


# ---------------------------------------------------------------- eigen


class LinalgEighBackward0(_Factorization):
    """A = V diag(w) V^T: gA = V (diag(gw) + sym(F o (V^T gV))) V^T, F[i, j] = 1/(w_j - w_i)."""

    names = ("_linalg_eigh",)

    def save(self, out, A, upper, vectors):
        self.upper, self.vectors = upper, vectors
        self.save_for_backward(*((out[0], out[1]) if vectors else (A,)))
        return (A,)

    def backward(self, gw, gV, _info=None):
        if self.vectors:
            w, V = self.saved_tensors
        else:  # eigvalsh: recompute the vectors
            (A,) = self.saved_tensors
            w, V = torch.linalg.eigh(A, UPLO="U" if self.upper else "L")
        inner = _diag(gw) if gw is not None else torch.zeros_like(_diag(w))
        if gV is not None:
            inner = inner + _sym(_gaps_inverse(w) * torch.matmul(_mT(V), gV))
        return (torch.matmul(torch.matmul(V, inner), _mT(V)),)


class LinalgEigBackward0(_Factorization):
    """A = V diag(w) V^-1 (complex w, V with unit-norm columns): with G = V^H gV,
    gA = V^-H (diag(gw) + conj(F) o (G - V^H V diag(Re diag G))) V^H, F[i, j] = 1/(w_j - w_i);
    the real part for a real A.  The phase of each eigenvector is arbitrary, so a loss that
    depends on it has no gradient (Im diag G should be 0)."""

    names = ("_linalg_eig",)

    def save(self, out, A, vectors):
        self.vectors = vectors
        self.save_for_backward(*((out[0], out[1]) if vectors else (A,)))
        return (A,)

    def backward(self, gw, gV=None, _info=None):
        if self.vectors:
            w, V = self.saved_tensors
        else:  # eigvals: recompute the vectors
            (A,) = self.saved_tensors
            w, V = torch.linalg.eig(A)
        inner = _diag(gw) if gw is not None else torch.zeros_like(_diag(w))
        Vh = _mT(V).conj()
        if gV is not None:
            G = torch.matmul(Vh, gV)
            G = G - torch.matmul(Vh, V) * G.diagonal(0, -2, -1).real.unsqueeze(-2)
            inner = inner + _gaps_inverse(w).conj() * G
        return (torch.linalg.solve(Vh, torch.matmul(inner, Vh)).real,)


# ---------------------------------------------------------------- least squares


def _pinv_full_rank(A):
    """A^+ of a full-rank A through QR: R^-1 Q^T (m >= n), or (A^T)^+^T."""
    if A.shape[-2] < A.shape[-1]:
        return _mT(_pinv_full_rank(_mT(A)))
    Q, R = torch.linalg.qr(A)
    return _solve_tri(R, _mT(Q), upper=True)


class LinalgLstsqBackward0(_Factorization):
    """Outputs (X, residual rows, rank, S, info), X = A^+ B for a full-rank A.  With P = A^+
    and gB = P^T gX:  gA = -gB X^T + (B - A X)(P gB)^T + P^T X (gX - A^T gB)^T (the second
    term is 0 unless m > n, the third unless m < n).

    The residual rows (rows n.. of LAPACK's transformed B) are only defined up to a rotation:
    their gradient is taken as that of their column norms (which is all that residuals uses)."""

    names = ("_linalg_lstsq",)

    def save(self, out, A, B, rcond):
        self.save_for_backward(A, B, out[0], out[1])
        return A, B

    def backward(self, gX, g_rest=None, _rank=None, gS=None, _info=None):
        A, B, X, rest = self.saved_tensors
        m, n = A.shape[-2:]
        gA = gB = None
        if gX is not None:
            P = _pinv_full_rank(A)
            gB = torch.matmul(_mT(P), gX)
            gA = -torch.matmul(gB, _mT(X))
            if m > n:
                residual = B - torch.matmul(A, X)
                gA = gA + torch.matmul(residual, _mT(torch.matmul(P, gB)))
            elif m < n:
                Z = torch.matmul(_mT(P), X)
                gA = gA + torch.matmul(Z, _mT(gX - torch.matmul(_mT(A), gB)))
        if g_rest is not None and rest.shape[-2] > 0:
            # loss(|rest_j|) -> per column c_j = <rest_j, g_j> / |rest_j|^2 on |r_j|^2 / 2,
            # r = B - A X, whose gradient is (r c, -r c X^T) (X minimizes |r_j|)
            norm2 = (rest * rest).sum(-2, keepdim=True)
            fit = norm2 == 0
            c = (rest * g_rest).sum(-2, keepdim=True) / torch.where(fit, 1.0, norm2)
            rc = (B - torch.matmul(A, X)) * torch.where(fit, 0.0, c)
            gB = rc if gB is None else gB + rc
            gA_rest = -torch.matmul(rc, _mT(X))
            gA = gA_rest if gA is None else gA + gA_rest
        if gS is not None:
            U, _, Vh = torch.linalg.svd(A, full_matrices=False)
            gA_S = torch.matmul(U * gS.unsqueeze(-2), Vh)
            gA = gA_S if gA is None else gA + gA_S
        return gA, gB


# ---------------------------------------------------------------- LU


def _permutation(pivots, m, dtype):
    """The matrix Pt with Pt A = the rows of A in LAPACK's pivoted order (A = P L U, Pt = P^T),
    from the 1-based row swaps `pivots` (..., k)."""
    batch = tuple(pivots.shape[:-1])
    perm = torch.arange(m, device=pivots.device).expand(*batch, m).clone()
    swaps = pivots.to(torch.int64) - 1
    for i in range(pivots.shape[-1]):
        j = swaps.narrow(-1, i, 1)
        row_i = perm.narrow(-1, i, 1).clone()
        perm.narrow(-1, i, 1).copy_(perm.gather(-1, j))
        perm.scatter_(-1, j, row_i)
    return (perm.unsqueeze(-1) == torch.arange(m, device=pivots.device)).to(dtype)


def _lu_backward_square(L, U, gL, gU):
    """P^T A = L U (square): gA~ = L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T."""
    phi = _tril(torch.matmul(_mT(L), gL), -1) + _triu(torch.matmul(gU, _mT(U)))
    phi = _solve_tri(_mT(L), phi, upper=True, unit=True)
    return _solve_tri(_mT(U), phi, upper=False, left=False)


class LinalgLuFactorBackward0(_Factorization):
    """Outputs (LU, pivots, info): L (unit lower, m x k) and U (upper, k x n) packed in LU."""

    names = ("_linalg_lu_factor",)

    def save(self, out, A, *args):
        self.save_for_backward(out[0], out[1])
        return (A,)

    def backward(self, gLU, _pivots=None, _info=None):
        LU, pivots = self.saved_tensors
        m, n = LU.shape[-2:]
        k = min(m, n)
        L = _tril(LU.narrow(-1, 0, k), -1) + torch.eye(m, k, dtype=LU.dtype, device=LU.device)
        U = _triu(LU.narrow(-2, 0, k))
        gL, gU = _tril(gLU.narrow(-1, 0, k), -1), _triu(gLU.narrow(-2, 0, k))
        if m == n:
            gA = _lu_backward_square(L, U, gL, gU)
        elif m < n:  # [A1 | A2] = L [U1 | U2]: U2 = L^-1 A2
            U1, U2, gU2 = U.narrow(-1, 0, m), U.narrow(-1, m, n - m), gU.narrow(-1, m, n - m)
            gA2 = _solve_tri(_mT(L), gU2, upper=True, unit=True)  # L^-T gU2
            gL = gL - _tril(torch.matmul(gA2, _mT(U2)), -1)
            gA = torch.cat([_lu_backward_square(L, U1, gL, gU.narrow(-1, 0, m)), gA2], -1)
        else:  # [A1; A2] = [L1; L2] U: L2 = A2 U^-1
            L1, L2, gL2 = L.narrow(-2, 0, n), L.narrow(-2, n, m - n), gL.narrow(-2, n, m - n)
            gA2 = _solve_tri(_mT(U), gL2, upper=False, left=False)  # gL2 U^-T
            gU = gU - _triu(torch.matmul(_mT(L2), gA2))
            gA = torch.cat([_lu_backward_square(L1, U, gL.narrow(-2, 0, n), gU), gA2], -2)
        return (torch.matmul(_mT(_permutation(pivots, m, gA.dtype)), gA),)
