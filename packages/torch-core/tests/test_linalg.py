"""torch.linalg against NumPy: the registry's linalg family (values, or reconstructions for
sign-ambiguous factors), result structures, batches, and the errors for singular,
non-positive-definite and badly shaped inputs."""

import math
import warnings

import numpy as np
import pytest

import torch
from torch.testing._op_registry import cases, to_numpy


@pytest.mark.parametrize("case", cases("linalg"), ids=repr)
def test_matches_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


def _rand(*shape, dtype=torch.float64, seed=0):
    return torch.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype=dtype)


def _close(a, b, tol=1e-9):
    np.testing.assert_allclose(np.real(to_numpy(a)), np.asarray(b), rtol=tol, atol=tol)


def _eye(n):
    return np.eye(n)


# --- reconstructions ---------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 4, 2)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    A = _rand(*shape)
    Q, R = torch.linalg.qr(A, mode=mode)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(R.shape) == shape[:-2] + ((m if mode == "complete" else k), n)
    np.testing.assert_array_equal(np.tril(to_numpy(R), -1), 0)
    if mode == "r":
        assert Q.numel() == 0
        return
    cols = m if mode == "complete" else k
    assert tuple(Q.shape) == shape[:-2] + (m, cols)
    _close(Q.transpose(-2, -1) @ Q, np.broadcast_to(_eye(cols), shape[:-2] + (cols, cols)))
    _close(Q @ R, to_numpy(A))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 4, 2), (0, 3, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(shape, full):
    A = _rand(*shape)
    U, S, Vh = torch.linalg.svd(A, full_matrices=full)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(U.shape) == shape[:-2] + (m, m if full else k)
    assert tuple(Vh.shape) == shape[:-2] + (n if full else k, n)
    assert tuple(S.shape) == shape[:-2] + (k,)
    Uk, Vk = U[..., :k], Vh[..., :k, :]
    _close((Uk * S.unsqueeze(-2)) @ Vk, to_numpy(A))
    _close(S, np.linalg.svd(to_numpy(A), compute_uv=False) if A.numel() else np.zeros(S.shape))
    # the legacy torch.svd returns V, not Vh
    U2, S2, V2 = torch.svd(A)
    _close((U2 * S2.unsqueeze(-2)) @ V2.transpose(-2, -1), to_numpy(A))


def test_svd_float32_large():
    A = _rand(64, 48, dtype=torch.float32)
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    _close((U * S.unsqueeze(-2)) @ Vh, to_numpy(A), 1e-4)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 3), (0, 4, 4)])
def test_eigh(shape, uplo):
    B = _rand(*shape)
    A = B + B.transpose(-2, -1)
    w, V = torch.linalg.eigh(A, UPLO=uplo)
    _close(A @ V, to_numpy(V * w.unsqueeze(-2)))
    _close(w, np.linalg.eigvalsh(to_numpy(A)) if A.numel() else np.zeros(w.shape))
    # only the UPLO triangle is read
    tri = torch.tensor(np.triu(to_numpy(A)) if uplo == "U" else np.tril(to_numpy(A)))
    _close(torch.linalg.eigvalsh(tri, UPLO=uplo), to_numpy(w))


def test_eig_nonsymmetric_real_eigenvalues():
    A = torch.tensor([[1.0, 2.0, 0.5], [0.0, 3.0, -1.0], [0.0, 0.0, -2.0]], dtype=torch.float64)
    w, V = torch.linalg.eig(A)
    w, V = np.real(w.numpy()), np.real(V.numpy())
    np.testing.assert_allclose(to_numpy(A) @ V, V * w, atol=1e-12)
    np.testing.assert_allclose(np.sort(w), [-2.0, 1.0, 3.0], atol=1e-12)


def test_eig_real_eigenvalues():
    B = _rand(4, 4)
    A = B + B.transpose(-2, -1) + 4 * torch.eye(4, dtype=torch.float64)
    w, V = torch.linalg.eig(A)
    w, V = np.real(w.numpy()), np.real(V.numpy())
    np.testing.assert_allclose(to_numpy(A) @ V, V * w, atol=1e-9)
    _close(torch.tensor(np.sort(w)), np.linalg.eigvalsh(to_numpy(A)))
    _close(torch.tensor(np.sort(np.real(torch.linalg.eigvals(A).numpy()))), np.sort(w))


def test_eig_complex_eigenvalues_come_back_complex():
    A = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
    w, V = torch.linalg.eig(A)
    assert w.dtype == torch.complex64 and V.dtype == torch.complex64
    np.testing.assert_allclose(A.numpy() @ V.numpy(), V.numpy() * w.numpy(), atol=1e-6)


def test_eig_real_spectrum_is_complex_too():
    w, V = torch.linalg.eig(torch.tensor([[2.0, 1.0], [0.0, 3.0]]))
    assert w.dtype == torch.complex64 and V.dtype == torch.complex64
    assert float(w.imag.abs().max()) == 0.0 and float(V.imag.abs().max()) == 0.0


def test_complex_solve_and_inv_match_numpy():
    rng_ = np.random.default_rng(3)
    A = rng_.standard_normal((2, 4, 4)) + 1j * rng_.standard_normal((2, 4, 4))
    B = rng_.standard_normal((2, 4, 3)) + 1j * rng_.standard_normal((2, 4, 3))
    At, Bt = torch.from_numpy(A), torch.from_numpy(B)
    np.testing.assert_allclose(torch.linalg.solve(At, Bt).numpy(), np.linalg.solve(A, B))
    np.testing.assert_allclose(torch.linalg.inv(At).numpy(), np.linalg.inv(A), atol=1e-12)
    x = torch.linalg.solve(At[0], Bt[0, :, 0])  # a vector right-hand side
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A[0], B[0, :, 0]), atol=1e-12)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(torch.zeros(2, 2, dtype=torch.complex64))


@pytest.mark.ours_only
def test_complex_input_to_real_only_factorizations_says_so():
    with pytest.raises(NotImplementedError, match="linalg.cholesky: complex matrices"):
        torch.linalg.cholesky(torch.eye(2, dtype=torch.complex64))


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (0, 2, 2)])
def test_inv_reconstructs_identity(shape):
    A = _rand(*shape) + 3 * torch.eye(shape[-1], dtype=torch.float64)
    I = np.broadcast_to(_eye(shape[-1]), shape)  # noqa: E741
    _close(A @ torch.linalg.inv(A), I)
    _close(A @ torch.inverse(A), I)
    _close(A.inverse() @ A, I)


def test_cholesky_reconstructs():
    B = _rand(3, 4, 4)
    A = B @ B.transpose(-2, -1) + torch.eye(4, dtype=torch.float64)
    L = torch.linalg.cholesky(A)
    U = torch.linalg.cholesky(A, upper=True)
    _close(L @ L.transpose(-2, -1), to_numpy(A))
    _close(U.transpose(-2, -1) @ U, to_numpy(A))
    np.testing.assert_array_equal(np.triu(to_numpy(L), 1), 0)


# --- solve, lstsq, det -------------------------------------------------------------------


def test_solve_batched_small_systems():
    A = _rand(200, 16, 16, dtype=torch.float32) + 4 * torch.eye(16)
    B = _rand(200, 16, 3, dtype=torch.float32, seed=1)
    X = torch.linalg.solve(A, B)
    _close(A @ X, to_numpy(B), 1e-4)
    _close(X, np.linalg.solve(to_numpy(A).astype(np.float64), to_numpy(B)), 1e-4)


def test_solve_larger_system():
    A = _rand(70, 70) + 10 * torch.eye(70, dtype=torch.float64)
    B = _rand(70, 3, seed=1)
    _close(torch.linalg.solve(A, B), np.linalg.solve(to_numpy(A), to_numpy(B)))


def test_solve_batch_vector_rhs():
    A = _rand(2, 3, 3) + 3 * torch.eye(3, dtype=torch.float64)
    b = _rand(2, 3, seed=1)  # B.shape == A.shape[:-1]: a batch of vectors
    x = torch.linalg.solve(A, b)
    assert tuple(x.shape) == (2, 3)
    _close((A @ x.unsqueeze(-1)).squeeze(-1), to_numpy(b))


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_fields(driver):
    A, B = _rand(2, 6, 3), _rand(2, 6, 2, seed=1)
    r = torch.linalg.lstsq(A, B, driver=driver)
    assert type(r).__name__ == "linalg_lstsq"
    expected = [np.linalg.lstsq(a, b, rcond=None) for a, b in zip(to_numpy(A), to_numpy(B))]
    _close(r.solution, np.stack([e[0] for e in expected]))
    if driver in ("gelsd", "gelss"):
        _close(r.singular_values, np.stack([e[3] for e in expected]))
    else:
        assert r.singular_values.numel() == 0
    if driver == "gels":
        assert r.rank.numel() == 0
    else:
        assert r.rank.tolist() == [3, 3]
    if driver == "gelsy":
        assert r.residuals.numel() == 0
    else:
        _close(r.residuals, np.stack([e[1] for e in expected]))


def test_lstsq_underdetermined_min_norm():
    A, B = _rand(3, 5), _rand(3, 2, seed=1)
    X = torch.linalg.lstsq(A, B, driver="gelsd").solution
    _close(X, np.linalg.lstsq(to_numpy(A), to_numpy(B), rcond=None)[0])


def test_det_slogdet_singular():
    A = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
    assert torch.linalg.det(A).item() == 0
    sign, logabs = torch.linalg.slogdet(A)
    assert sign.item() == 0 and logabs.item() == -math.inf
    assert torch.det(A).item() == 0 and A.det().item() == 0
    P = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    assert torch.linalg.det(P).item() == -1.0
    s = torch.slogdet(P)
    assert type(s).__name__ == "slogdet" and s.sign.item() == -1.0
    assert math.isnan(torch.logdet(P).item())


# --- norms, rank, pinv -------------------------------------------------------------------


def test_norm_dispatch():
    A = _rand(3, 4)
    _close(torch.linalg.norm(A), np.linalg.norm(to_numpy(A)))
    _close(torch.linalg.norm(A, 2), np.linalg.norm(to_numpy(A), 2))
    _close(torch.linalg.norm(A, "nuc"), np.linalg.norm(to_numpy(A), "nuc"))
    _close(torch.linalg.norm(A, dim=1), np.linalg.norm(to_numpy(A), axis=1))
    _close(torch.linalg.norm(A[0], 3), np.linalg.norm(to_numpy(A[0]), 3))


def test_matrix_rank_tolerances():
    A = torch.tensor(np.diag([1.0, 1e-3, 1e-9, 0.0]))
    assert torch.linalg.matrix_rank(A).item() == 3
    assert torch.linalg.matrix_rank(A, atol=1e-4).item() == 2
    assert torch.linalg.matrix_rank(A, rtol=1e-2).item() == 1
    assert torch.linalg.matrix_rank(A, hermitian=True).item() == 3


def test_pinv_hermitian():
    B = _rand(4, 2)
    A = B @ B.transpose(-2, -1)  # rank 2, symmetric
    _close(torch.linalg.pinv(A, hermitian=True), np.linalg.pinv(to_numpy(A)), 1e-7)


def test_matrix_power_and_cross_aliases():
    A = _rand(3, 3) + 3 * torch.eye(3, dtype=torch.float64)
    _close(A.matrix_power(3), np.linalg.matrix_power(to_numpy(A), 3))
    a, b = _rand(2, 3), _rand(2, 3, seed=1)
    _close(torch.cross(a, b, dim=1), np.cross(to_numpy(a), to_numpy(b)))


def test_trace_of_integers_is_int64():
    t = torch.arange(9, dtype=torch.int32).reshape(3, 3)
    assert torch.trace(t).item() == 12 and torch.trace(t).dtype == torch.int64


# --- einsum and tensordot ----------------------------------------------------------------


def test_einsum_forms():
    a, b = _rand(2, 3), _rand(3, 4, seed=1)
    expected = to_numpy(a) @ to_numpy(b)
    _close(torch.einsum("ij,jk->ik", a, b), expected)
    _close(torch.einsum("ij,jk->ik", [a, b]), expected)
    _close(torch.einsum(" ij , jk -> ik ", a, b), expected)
    _close(torch.einsum("ij,jk", a, b), expected)
    _close(torch.einsum("ii", _rand(3, 3)), np.trace(to_numpy(_rand(3, 3))))
    x = _rand(2, 1, 3)
    y = _rand(4, 3, seed=2)
    _close(
        torch.einsum("...i,...i->...", x, y), np.einsum("...i,...i->...", to_numpy(x), to_numpy(y))
    )
    _close(torch.einsum("i,i", _rand(0), _rand(0)), 0.0)


def test_tensordot_forms():
    a, b = _rand(3, 4, 5), _rand(5, 4, 2, seed=1)
    _close(torch.tensordot(a, b, dims=([1, 2], [1, 0])),
           np.tensordot(to_numpy(a), to_numpy(b), ([1, 2], [1, 0])))  # fmt: skip


# --- errors --------------------------------------------------------------------------------


def test_linalg_error_is_runtime_error():
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)


@pytest.mark.parametrize("n", [3, 40])  # the small-system path and LAPACK's
def test_singular_errors(n):
    A = torch.eye(n)
    A[1, 1] = 0.0
    for fn in (torch.linalg.inv, lambda a: torch.linalg.solve(a, torch.ones(n))):
        with pytest.raises(torch.linalg.LinAlgError, match="singular"):
            fn(A)
    A = torch.zeros(3, 3)
    inverse, info = torch.linalg.inv_ex(A)
    assert info.item() > 0


@pytest.mark.ours_only
def test_singular_error_messages():
    A = torch.eye(3).expand(4, 3, 3).clone()
    A[2, 1, 1] = 0.0
    with pytest.raises(
        torch.linalg.LinAlgError, match=r"linalg.inv: \(Batch element 2\).*singular"
    ):
        torch.linalg.inv(A)
    with pytest.raises(torch.linalg.LinAlgError, match=r"diagonal element 2 is zero"):
        torch.linalg.inv(A[2])


def test_not_positive_definite():
    A = torch.tensor([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(torch.linalg.LinAlgError, match="positive-definite"):
        torch.linalg.cholesky(A)
    L, info = torch.linalg.cholesky_ex(A)
    assert info.item() == 2


@pytest.mark.parametrize(
    "fn", [torch.linalg.inv, torch.linalg.det, torch.linalg.cholesky, torch.linalg.eigh]
)
def test_non_square(fn):
    with pytest.raises(RuntimeError, match="square"):
        fn(torch.ones(2, 3))


def test_wrong_dtype_and_dims():
    with pytest.raises(RuntimeError):
        torch.linalg.inv(torch.ones(2, 2, dtype=torch.int64))
    with pytest.raises(RuntimeError):
        torch.linalg.inv(torch.ones(3))
    with pytest.raises(RuntimeError):
        torch.linalg.solve(torch.eye(3), torch.ones(4, 2))


@pytest.mark.parametrize(
    "args",
    [
        ("ij,jk->ik", (2, 3)),
        ("ij->ij", (2, 3), (2, 3)),
        ("i1->i", (2, 3)),
        ("ijk->i", (2, 3)),
        ("ij->k", (2, 3)),
        ("ij,jk->ik", (2, 3), (4, 5)),
    ],  # fmt: skip
)
def test_einsum_errors(args):
    eq, *shapes = args
    with pytest.raises(RuntimeError, match="einsum"):
        torch.einsum(eq, *[torch.ones(*s) for s in shapes])


def test_out_arguments():
    A = _rand(3, 3) + 3 * torch.eye(3, dtype=torch.float64)
    out = torch.empty(3, 3, dtype=torch.float64)
    assert torch.linalg.inv(A, out=out) is out
    _close(A @ out, _eye(3))
    Q, R = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.float64)
    result = torch.linalg.qr(A, out=(Q, R))
    assert result.Q is Q and result.R is R
    _close(Q @ R, to_numpy(A))
    w = torch.empty(3, dtype=torch.float64)
    assert torch.linalg.eigvalsh(A + A.transpose(0, 1), out=w) is w


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, 1, -1, math.inf])
def test_matrix_norm_of_empty_matrices(ord):
    r = torch.linalg.matrix_norm(torch.zeros(2, 0, 3), ord)
    assert tuple(r.shape) == (2,) and r.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("ord", [-2, -math.inf])
def test_matrix_norm_min_of_empty_raises(ord):
    with pytest.raises(IndexError):
        torch.linalg.matrix_norm(torch.zeros(2, 0, 3), ord)


def test_solve_triangular_forms():
    L = torch.tensor(np.tril(np.random.default_rng(0).uniform(1, 2, (3, 3))))
    B = _rand(2, 3, seed=1)
    X = torch.linalg.solve_triangular(L, B, upper=False, left=False)  # X L = B
    _close(X @ L, to_numpy(B))
    b = _rand(3, 2, seed=2)
    with warnings.catch_warnings():  # PyTorch warns that the legacy form is deprecated
        warnings.simplefilter("ignore")
        X, A = torch.triangular_solve(b, L.transpose(0, 1), upper=True)
        _close(L.transpose(0, 1) @ X, to_numpy(b))
        X, _ = torch.triangular_solve(b, L, upper=False, transpose=True)
        _close(L.transpose(0, 1) @ X, to_numpy(b))
    X = torch.linalg.solve_triangular(L, b, upper=False, unitriangular=True)
    unit = np.tril(to_numpy(L), -1) + np.eye(3)
    _close(X, np.linalg.solve(unit, to_numpy(b)))
