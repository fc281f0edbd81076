"""Gradients of scans, order statistics and linear algebra: gradcheck and gradgradcheck (float64,
small shapes) of the public functions, which reach the core's primitives (torch._C._sort,
_cumprod, _linalg_svd, ...) whose formulas live in formulas/sort.py and formulas/linalg.py."""

import math

import pytest

import torch
from torch.autograd import gradcheck, gradgradcheck

F64 = torch.float64


def randn(*shape, seed=0):
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def distinct(*shape, seed=0):
    """Values in [-1, 1) at least 1 / numel apart, shuffled (no ties for the order stats)."""
    n = math.prod(shape)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).to(F64)
    return (2 * perm / n - 1).reshape(shape)


def well_conditioned(*shape, seed=0):
    """Random square matrices plus n * I: far from singular."""
    n = shape[-1]
    return randn(*shape, seed=seed) + n * torch.eye(n, dtype=F64)


def check(fn, *inputs):
    inputs = [t.detach().requires_grad_() if isinstance(t, torch.Tensor) else t for t in inputs]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def non_contiguous(t):
    """t's values in a transposed (non-contiguous) layout."""
    out = t.transpose(-2, -1).contiguous().transpose(-2, -1)
    assert not out.is_contiguous()
    return out


# ---------------------------------------------------------------- sorting and selection


@pytest.mark.parametrize("dim, descending", [(-1, False), (0, True)])
def test_sort_values(dim, descending):
    check(lambda x: torch.sort(x, dim, descending).values, distinct(3, 4))


def test_sort_non_contiguous_and_msort():
    check(lambda x: torch.sort(x, 1).values, non_contiguous(distinct(3, 4)))
    check(torch.msort, distinct(4, 2))


def test_argsort_has_no_gradient():
    x = distinct(5).requires_grad_()
    assert not torch.argsort(x).requires_grad
    values, indices = torch.sort(x)
    assert values.requires_grad and not indices.requires_grad


@pytest.mark.parametrize("largest", [True, False])
def test_topk(largest):
    check(lambda x: torch.topk(x, 2, 1, largest).values, distinct(2, 2, 4))


@pytest.mark.parametrize("keepdim", [True, False])
def test_kthvalue(keepdim):
    check(lambda x: torch.kthvalue(x, 2, 0, keepdim).values, distinct(3, 4))


def test_median_all_and_dim():
    check(torch.median, distinct(3, 3))
    check(lambda x: torch.median(x, 1, keepdim=True).values, distinct(2, 2, 5))
    check(lambda x: torch.median(x, 0).values, non_contiguous(distinct(4, 3)))


def test_nanmedian_ignores_nans():
    x = distinct(3, 4)
    x[0, 1] = x[2, 3] = math.nan
    check(torch.nanmedian, x)
    check(lambda x: torch.nanmedian(x, 1).values, x)


def test_median_all_splits_ties_evenly():
    x = torch.tensor([3.0, 1.0, 2.0, 2.0, 5.0], dtype=F64, requires_grad=True)
    torch.median(x).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.5, 0.5, 0.0]


def test_mode():
    # distinct values: the mode is the smallest (an order statistic, smooth in x)
    check(lambda x: torch.mode(x, 1).values, distinct(3, 4))
    x = torch.tensor([[2.0, 1.0, 2.0, 3.0]], dtype=F64, requires_grad=True)
    values, indices = torch.mode(x, 1)
    values.sum().backward()
    expected = torch.zeros(1, 4, dtype=F64)
    expected[0, int(indices[0])] = 1.0
    assert torch.equal(x.grad, expected)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_interpolations(interpolation):
    q = torch.tensor([0.1, 0.5, 0.8], dtype=F64)
    check(lambda x: torch.quantile(x, q, 1, interpolation=interpolation), distinct(2, 6))
    check(lambda x: torch.quantile(x, 0.3, interpolation=interpolation), distinct(3, 3))


def test_quantile_dims():
    check(lambda x: torch.quantile(x, [0.25, 0.9], 0, keepdim=True), distinct(5, 2, 2))
    check(lambda x: torch.quantile(x, 0.4, None, keepdim=True), non_contiguous(distinct(3, 4)))


def test_nanquantile_skips_nans():
    x = distinct(2, 6)
    x[0, 0] = x[1, 2] = x[1, 4] = math.nan
    check(lambda x: torch.nanquantile(x, [0.2, 0.7], 1), x)


def test_quantile_weights():
    # 5 values: q = 0.25 is rank 1 exactly; q = 0.6 is rank 2.4 (weights 0.6 and 0.4)
    x = torch.tensor([0.5, 0.1, 0.4, 0.2, 0.3], dtype=F64, requires_grad=True)
    torch.quantile(x, torch.tensor([0.25, 0.6], dtype=F64)).sum().backward()
    expected = [0.0, 0.0, 0.4, 1.0, 0.6]
    assert all(abs(a - b) < 1e-12 for a, b in zip(x.grad.tolist(), expected))


# ---------------------------------------------------------------- scans


@pytest.mark.parametrize("dim", [0, -1])
def test_cumsum(dim):
    check(lambda x: torch.cumsum(x, dim), randn(3, 4))


def test_cumsum_dtype_and_non_contiguous():
    x = randn(3, 4).to(torch.float32).requires_grad_()
    y = torch.cumsum(x, 1, dtype=F64)
    y.sum().backward()
    assert x.grad.dtype == torch.float32
    assert x.grad.tolist() == [[4.0, 3.0, 2.0, 1.0]] * 3
    check(lambda x: x.cumsum(0), non_contiguous(randn(3, 4)))


@pytest.mark.parametrize("dim", [0, 1])
def test_cumprod(dim):
    check(lambda x: torch.cumprod(x, dim), randn(3, 4))


def test_cumprod_with_zeros():
    x = randn(4, 5)
    x[0, 1] = 0.0  # one zero
    x[1, 2] = x[1, 3] = 0.0  # two zeros in a row
    x[2, 0] = x[2, 4] = 0.0  # first and last
    check(lambda x: torch.cumprod(x, 1), x)
    check(lambda x: torch.cumprod(x, 0), non_contiguous(x))


@pytest.mark.parametrize("op", [torch.cummax, torch.cummin])
def test_cummax_cummin(op):
    check(lambda x: op(x, 1).values, distinct(3, 4))
    check(lambda x: op(x, 0).values, non_contiguous(distinct(4, 3)))


def test_logcumsumexp():
    check(lambda x: torch.logcumsumexp(x, 1), randn(3, 4))
    # gradients of both signs take separate paths
    w = randn(3, 4, seed=1)
    check(lambda x: (torch.logcumsumexp(x, 0) * w).sum(), non_contiguous(randn(3, 4)))


def test_logcumsumexp_large_values_and_minus_inf():
    x = torch.tensor([-math.inf, 800.0, 0.0, 801.0], dtype=F64, requires_grad=True)
    torch.logcumsumexp(x, 0).sum().backward()
    # d/dx_k sum_i y_i = sum_{i >= k} softmax_i(x)[k]; 0 for the -inf entry
    e1 = 1.0 / (1.0 + math.exp(1.0))  # weight of 800 among {800, 801}
    expected = [0.0, 1.0 + 1.0 + e1, math.exp(-801.0), 1.0 - e1]
    assert all(abs(a - b) < 1e-9 for a, b in zip(x.grad.tolist(), expected))


# ---------------------------------------------------------------- solves and inverses


def test_solve():
    check(torch.linalg.solve, well_conditioned(3, 3), randn(3, 2, seed=1))
    check(torch.linalg.solve, well_conditioned(3, 3), randn(3, seed=1))  # vector B
    check(lambda A, B: torch.linalg.solve(A, B, left=False), well_conditioned(3, 3), randn(2, 3))


def test_solve_batched_broadcast():
    check(torch.linalg.solve, well_conditioned(2, 3, 3), randn(3, 2, seed=1))


def test_inverse():
    check(torch.linalg.inv, well_conditioned(3, 3))
    check(torch.inverse, well_conditioned(2, 3, 3))
    check(torch.linalg.inv, non_contiguous(well_conditioned(3, 3)))


@pytest.mark.parametrize("upper, left, unit", [(True, True, False), (False, False, True)])
def test_solve_triangular(upper, left, unit):
    # all of A varies: the triangle that is not read must get zero gradient
    def fn(A, B):
        return torch.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)

    B = randn(3, 2, seed=1) if left else randn(2, 3, seed=1)
    check(fn, well_conditioned(3, 3), B)


def test_solve_triangular_batched():
    fn = lambda A, B: torch.linalg.solve_triangular(A, B, upper=False)  # noqa: E731
    check(fn, well_conditioned(2, 3, 3), non_contiguous(randn(3, 2, seed=1)))


def test_det_slogdet_logdet():
    A = well_conditioned(3, 3)
    check(torch.linalg.det, A)
    check(torch.det, -A)  # negative determinant
    check(lambda A: torch.linalg.slogdet(A).logabsdet, -A)
    check(torch.logdet, well_conditioned(2, 3, 3))


def test_lu_factor():
    check(lambda A: torch.linalg.lu_factor(A).LU, randn(3, 3))
    check(lambda A: torch.linalg.lu_factor(A).LU, randn(2, 4, 3))  # tall, batched
    check(lambda A: torch.linalg.lu_factor(A).LU, non_contiguous(randn(3, 4)))  # wide


# ---------------------------------------------------------------- factorizations


def spd(X):
    """A symmetric positive-definite function of X (these ops read one triangle only)."""
    return torch.matmul(X, X.transpose(-2, -1)) + torch.eye(X.shape[-1], dtype=F64)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(upper):
    check(lambda X: torch.linalg.cholesky(spd(X), upper=upper), randn(3, 3))


def test_cholesky_batched_gradient_is_symmetric():
    check(lambda X: torch.cholesky(spd(X)), non_contiguous(randn(2, 3, 3)))
    A = spd(randn(3, 3)).requires_grad_()
    torch.linalg.cholesky(A).sum().backward()
    assert torch.allclose(A.grad, A.grad.t())


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 3, 2)])
def test_qr(shape):
    check(lambda A: torch.linalg.qr(A), randn(*shape))


def test_qr_modes():
    check(lambda A: torch.linalg.qr(A, "r").R, randn(4, 3))
    check(lambda A: torch.linalg.qr(A, "complete"), non_contiguous(randn(3, 4)))
    A = randn(4, 3).requires_grad_()
    Q, _ = torch.linalg.qr(A, "complete")
    with pytest.raises(NotImplementedError, match="mode='complete'"):
        Q.sum().backward()


def svd_invariants(A, full_matrices=False):
    """Functions of the SVD that do not depend on the signs of the singular vectors."""
    U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
    weights = torch.arange(1, k + 1, dtype=F64)
    pairs = torch.matmul(U * weights, Vh)  # sum_i w_i u_i v_i^T
    return S, pairs, torch.matmul(U, U.transpose(-2, -1)), torch.abs(Vh)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (2, 4), (2, 3, 2)])
def test_svd(shape):
    check(svd_invariants, randn(*shape))


def test_svd_full_matrices_and_torch_svd():
    check(lambda A: svd_invariants(A, full_matrices=True), randn(4, 2))
    check(lambda A: svd_invariants(A, full_matrices=True), non_contiguous(randn(3, 2)))

    def legacy(A):
        U, S, V = torch.svd(A)
        return torch.matmul(U * S, V.transpose(-2, -1))

    check(legacy, randn(3, 2))


def test_svdvals_and_matrix_norms():
    check(torch.linalg.svdvals, randn(2, 3, 4))
    check(lambda A: torch.linalg.matrix_norm(A, "nuc"), randn(3, 4))
    check(lambda A: torch.linalg.matrix_norm(A, 2), randn(4, 3))
    check(lambda A: torch.linalg.matrix_norm(A, -2), non_contiguous(randn(3, 3)))
    check(lambda A: torch.linalg.norm(A, 2), randn(3, 3))


def test_norms_without_svd():
    A = randn(3, 4)
    check(torch.linalg.norm, A)
    check(lambda A: torch.linalg.matrix_norm(A, 1), A)
    check(lambda A: torch.linalg.matrix_norm(A, -math.inf), A)
    check(lambda A: torch.linalg.norm(A, dim=(0, 1)), non_contiguous(A))


def eigh_invariants(X):
    w, V = torch.linalg.eigh(X + X.transpose(-2, -1))
    weights = torch.arange(1, w.shape[-1] + 1, dtype=F64)
    return w, torch.matmul(V * weights, V.transpose(-2, -1)), V * V


def test_eigh():
    check(eigh_invariants, randn(3, 3))
    check(eigh_invariants, non_contiguous(randn(2, 3, 3)))
    check(lambda X: torch.linalg.eigh(X + X.transpose(-2, -1), UPLO="U").eigenvalues, randn(3, 3))


def test_eigvalsh():
    check(lambda X: torch.linalg.eigvalsh(X + X.transpose(-2, -1)), randn(2, 3, 3))


def test_eigvalsh_gradient_with_repeated_eigenvalues():
    A = torch.eye(3, dtype=F64).requires_grad_()
    torch.linalg.eigvalsh(A).sum().backward()  # d trace / dA = I, despite the tie
    assert torch.allclose(A.grad, torch.eye(3, dtype=F64))


def real_spectrum(seed):
    """Non-symmetric matrices with real, well-separated eigenvalues 1, 2, 4."""
    S = well_conditioned(3, 3, seed=seed)
    return torch.matmul(S * torch.tensor([1.0, 2.0, 4.0], dtype=F64), torch.linalg.inv(S))


def _eig_invariants(A):
    w, V = torch.linalg.eig(A)
    weights = torch.arange(1, A.shape[-1] + 1, dtype=F64)
    # V diag(c) V^-1 and |V| do not depend on each column's phase (which is arbitrary)
    return w, torch.matmul(V * weights, torch.linalg.inv(V)), V.abs()


def test_eig():
    check(_eig_invariants, real_spectrum(0))
    check(torch.linalg.eigvals, non_contiguous(real_spectrum(1)))


def test_eig_complex_spectrum():
    # a rotation by 0.7 rad scaled by 2, beside an eigenvalue 3: eigenvalues 2e^(+-0.7i), 3
    c, s = 2 * math.cos(0.7), 2 * math.sin(0.7)
    core = torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 3.0]], dtype=F64)
    S = well_conditioned(3, 3, seed=2)
    A = torch.matmul(torch.matmul(S, core), torch.linalg.inv(S))
    w = torch.linalg.eigvals(A)
    assert w.dtype == torch.complex128 and abs(float(w.imag.abs().max()) - s) < 1e-9
    check(_eig_invariants, A)
    check(lambda A: torch.linalg.eigvals(A).abs(), A)


@pytest.mark.parametrize("shape_a, shape_b", [((4, 2), (4, 2)), ((3, 3), (3,)), ((2, 4), (2, 3))])
def test_lstsq_solution(shape_a, shape_b):
    check(lambda A, B: torch.linalg.lstsq(A, B).solution, randn(*shape_a), randn(*shape_b, seed=1))


def test_lstsq_batched_residuals_and_singular_values():
    def fn(A, B):
        r = torch.linalg.lstsq(A, B, driver="gelsd")
        return r.solution, r.residuals, r.singular_values

    check(fn, randn(2, 4, 2), non_contiguous(randn(1, 4, 3, seed=1)))


def test_pinv():
    check(torch.linalg.pinv, randn(3, 2))
    check(torch.linalg.pinv, randn(2, 2, 4))
    check(lambda X: torch.linalg.pinv(spd(X), hermitian=True), randn(3, 3))


def test_matrix_power_and_multi_dot():
    A = randn(3, 3) * 0.5
    check(lambda A: torch.linalg.matrix_power(A, 3), A)
    check(lambda A: torch.linalg.matrix_power(A, -2), well_conditioned(2, 3, 3))
    v, B, C, w = randn(3, seed=1), randn(3, 2, seed=2), randn(2, 4, seed=3), randn(4, seed=4)
    check(lambda *ts: torch.linalg.multi_dot(ts), v, B, C, w)
