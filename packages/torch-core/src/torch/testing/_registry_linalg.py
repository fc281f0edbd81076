"""Op registry entries for linear algebra; joined into ``_op_registry.OPS``.

Inputs are drawn in (-1, 1) and made well conditioned the same way on both sides
(``_wc``: A + n I is diagonally dominant; ``_pd``: A A^T + n I is positive-definite), so
float32 results can be held to a fixed tolerance. Factorizations whose factors are only
defined up to signs (qr, svd, eigh) are checked through what they reconstruct: Q R, U S Vh,
A V - V diag(w).
"""

import numpy as np

import torch
from torch.testing._op_registry import OpInfo, T, f32, f64, fixed, on

LINALG = (f32, f64)
TOL = {f32: (1e-4, 1e-4), f64: (1e-8, 1e-8)}
SQUARE = [on(T((4, 4))), on(T((2, 3, 3, 3))), on(T((0, 3, 3))), on(T((4, 4), "t")), on(T((1, 1)))]
RECT = [on(T((5, 3))), on(T((3, 5))), on(T((2, 4, 3))), on(T((4, 4), "t")), on(T((0, 2, 3)))]


def _eye(a, n):
    if isinstance(a, np.ndarray):
        return np.eye(n)
    return torch.eye(n, dtype=a.dtype, device=a.device)


def _wc(a):
    return a + _eye(a, a.shape[-1]) * a.shape[-1]


def _pd(a):
    return a @ _swap(a) + _eye(a, a.shape[-1]) * a.shape[-1]


def _swap(a):
    return np.swapaxes(a, -1, -2) if isinstance(a, np.ndarray) else a.transpose(-2, -1)


def _tri(a, upper):
    a = _wc(a)
    ones = np.ones(a.shape[-2:])
    mask = np.triu(ones) if upper else np.tril(ones)
    return a * (
        mask if isinstance(a, np.ndarray) else torch.tensor(mask, dtype=a.dtype).to(a.device)
    )


def _sym(a):
    return a + _swap(a)


def _linalg(name, fn, ref, samples, result="same", **kw):
    kw.setdefault("tol", TOL)
    return OpInfo(
        name, "linalg", ref, LINALG, fixed(*samples), fn=fn, result=result, domain=(-1, 1),
        differentiable=name != "linalg.matrix_rank", method=False, inplace=False, out=False, **kw,
    )  # fmt: skip


def _np_qr(a):
    return a


def _np_slogdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return sign, logabs


# fmt: off
OPS = [
    _linalg("linalg.inv", lambda a: torch.linalg.inv(_wc(a)), lambda a: np.linalg.inv(_wc(a)),
            SQUARE),
    _linalg("linalg.det", lambda a: torch.linalg.det(_wc(a)), lambda a: np.linalg.det(_wc(a)),
            SQUARE + [on(T((3, 3)))]),
    _linalg("linalg.det_raw", torch.linalg.det, np.linalg.det, [on(T((4, 4))), on(T((2, 3, 3)))]),
    _linalg("linalg.slogdet", lambda a: tuple(torch.linalg.slogdet(a)), _np_slogdet,
            [on(T((4, 4))), on(T((2, 3, 3))), on(T((0, 2, 2)))], result=("same", "same")),
    _linalg("linalg.solve", lambda a, b: torch.linalg.solve(_wc(a), b),
            lambda a, b: np.linalg.solve(_wc(a), b) if b.ndim > 1 else np.linalg.solve(_wc(a), b),
            [on(T((4, 4)), T((4, 2))), on(T((4, 4)), T((4,))), on(T((2, 3, 3)), T((3, 5))),
             on(T((3, 3)), T((2, 3, 1))), on(T((0, 3, 3)), T((0, 3, 2))),
             on(T((16, 16), "t"), T((16, 4)))]),
    _linalg("linalg.solve_right", lambda a, b: torch.linalg.solve(_wc(a), b, left=False),
            lambda a, b: _swap(np.linalg.solve(_swap(_wc(a)), _swap(b))),
            [on(T((4, 4)), T((2, 4))), on(T((2, 3, 3)), T((2, 5, 3)))]),
    _linalg("linalg.solve_triangular",
            lambda a, b, upper: torch.linalg.solve_triangular(_tri(a, upper), b, upper=upper),
            lambda a, b, upper: np.linalg.solve(_tri(a, upper), b),
            [on(T((4, 4)), T((4, 2)), True), on(T((2, 3, 3)), T((3, 5)), False),
             on(T((40, 40), "t"), T((40, 3)), True), on(T((0, 3, 3)), T((0, 3, 2)), False)]),
    _linalg("linalg.lstsq", lambda a, b: torch.linalg.lstsq(a, b).solution,
            lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
            [on(T((6, 3)), T((6, 2))), on(T((4, 4)), T((4, 1)))]),
    _linalg("linalg.cholesky", lambda a: torch.linalg.cholesky(_pd(a)),
            lambda a: np.linalg.cholesky(_pd(a)), SQUARE),
    _linalg("linalg.cholesky_upper", lambda a: torch.linalg.cholesky(_pd(a), upper=True),
            lambda a: _swap(np.linalg.cholesky(_pd(a))), SQUARE),
    _linalg("linalg.qr_reconstruct", lambda a: torch.matmul(*torch.linalg.qr(a)), _np_qr, RECT),
    _linalg("linalg.qr_complete",
            lambda a: torch.matmul(*torch.linalg.qr(a, mode="complete")), _np_qr, RECT),
    _linalg("linalg.svd_reconstruct",
            lambda a: (lambda u, s, vh: torch.matmul(u * s.unsqueeze(-2), vh))(
                *torch.linalg.svd(a, full_matrices=False)), _np_qr, RECT),
    _linalg("linalg.svdvals", torch.linalg.svdvals, lambda a: np.linalg.svd(a, compute_uv=False),
            RECT + [on(T((8, 8)))]),
    _linalg("linalg.eigvalsh", lambda a: torch.linalg.eigvalsh(_sym(a)),
            lambda a: np.linalg.eigvalsh(_sym(a)), SQUARE),
    _linalg("linalg.eigh_reconstruct",
            lambda a: (lambda w, v: torch.matmul(_sym(a), v) - v * w.unsqueeze(-2))(
                *torch.linalg.eigh(_sym(a))), lambda a: np.zeros(a.shape), SQUARE),
    _linalg("linalg.matrix_norm", torch.linalg.matrix_norm,
            lambda a, ord="fro", dim=(-2, -1), keepdim=False: np.linalg.norm(
                a, ord, dim, keepdims=keepdim),
            [on(T((3, 4))), on(T((2, 3, 4)), "nuc"), on(T((3, 4)), float("inf")),
             on(T((3, 4)), float("-inf")), on(T((3, 4)), 1), on(T((3, 4)), -1),
             on(T((3, 4)), 2), on(T((3, 4)), -2), on(T((3, 4, 2)), 1, (0, 2), True),
             on(T((3, 4), "t"), "fro", keepdim=True)]),
    _linalg("linalg.vector_norm", torch.linalg.vector_norm,
            lambda a, ord=2, dim=None, keepdim=False: np.linalg.norm(
                a.reshape(-1) if dim is None else a, ord, dim, keepdims=keepdim),
            [on(T((5,))), on(T((3, 4)), 1, 1), on(T((3, 4)), float("inf"), 0),
             on(T((3, 4)), 3, -1, True), on(T((3, 4)), 0, 1), on(T((3, 4)), float("-inf"), 1)]),
    _linalg("linalg.matrix_rank", torch.linalg.matrix_rank, np.linalg.matrix_rank,
            [on(T((4, 4))), on(T((2, 3, 5)))], result=lambda d: torch.int64),
    _linalg("linalg.pinv", torch.linalg.pinv, np.linalg.pinv,
            [on(T((4, 3))), on(T((3, 5))), on(T((2, 3, 3)))]),
    _linalg("linalg.matrix_power", lambda a, n: torch.linalg.matrix_power(_wc(a), n),
            lambda a, n: np.linalg.matrix_power(_wc(a), n),
            [on(T((3, 3)), 0), on(T((3, 3)), 1), on(T((3, 3)), 5), on(T((2, 3, 3)), -2)]),
    _linalg("linalg.cross", lambda a, b: torch.linalg.cross(a, b),
            lambda a, b: np.cross(a, b), [on(T((3,)), T((3,))), on(T((4, 3)), T((1, 3)))]),
    _linalg("linalg.multi_dot", lambda a, b, c: torch.linalg.multi_dot([a, b, c]),
            lambda a, b, c: np.linalg.multi_dot([a, b, c]),
            [on(T((3, 4)), T((4, 5)), T((5, 2))), on(T((4,)), T((4, 5)), T((5,)))]),
    _linalg("einsum", lambda eq, *ts: torch.einsum(eq, *ts), np.einsum,
            [on("ij,jk->ik", T((3, 4)), T((4, 5))), on("bij,bjk->bik", T((2, 3, 4)), T((2, 4, 5))),
             on("ii->i", T((4, 4))), on("ii", T((4, 4))), on("ij->", T((3, 4))),
             on("...ij,...jk", T((2, 3, 4)), T((4, 2))), on("i,j->ij", T((3,)), T((4,))),
             on("ijk,kj->i", T((2, 3, 4)), T((4, 3))), on("ij,jk,kl->il", T((2, 3)), T((3, 4)),
                                                              T((4, 2))),
             on("bhqd,bhkd->bhqk", T((2, 2, 3, 4)), T((2, 2, 5, 4))), on("ji", T((3, 4), "t")),
             on("iij->j", T((3, 3, 2)))]),
    _linalg("tensordot", lambda a, b, dims: torch.tensordot(a, b, dims),
            lambda a, b, dims: np.tensordot(a, b, dims),
            [on(T((3, 4, 5)), T((4, 5, 2)), 2), on(T((3, 4)), T((4, 3)), ([0, 1], [1, 0])),
             on(T((3, 4)), T((5,)), 0)]),
    _linalg("trace", torch.trace, np.trace, [on(T((3, 4))), on(T((4, 4), "t"))]),
]
# fmt: on
