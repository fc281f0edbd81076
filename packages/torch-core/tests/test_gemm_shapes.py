"""Matrix products on the shapes that take the special routes of the float products
(csrc/blas.cpp, Note [Aligned product rows]; csrc/cpu_gemm.h, Note [Skinny products]),
checked against NumPy in float64: tall products whose result rows are not 32-byte aligned
(computed into padded rows, then copied), products with fewer than 256 rows or columns (one
panel per thread), with transposed operands, alpha/beta and out= into strided views."""

import numpy as np
import pytest

import torch

# (m, k, n): result rows 650 or 700 floats apart (off 32-byte boundaries) with m >= 256;
# then the skinny ones, split along their long side
ALIGNED_ROWS = [(400, 100, 650), (2600, 70, 650), (300, 128, 700)]
SKINNY = [(20, 650, 2600), (20, 2600, 650), (2600, 650, 20), (100, 300, 1000), (255, 64, 300)]


def _close(got, want, k):
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=1e-4, atol=1e-4 * k**0.5)


@pytest.mark.parametrize("m,k,n", ALIGNED_ROWS + SKINNY)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_mm_against_numpy(m, k, n, dtype):
    g = torch.Generator().manual_seed(m * 7 + n)
    a, b = torch.randn(m, k, generator=g, dtype=dtype), torch.randn(k, n, generator=g, dtype=dtype)
    want = a.double().numpy() @ b.double().numpy()
    _close(torch.mm(a, b), want, k)
    # the same product from transposed storage (BLAS reads them with its trans flags)
    at, bt = a.t().contiguous().t(), b.t().contiguous().t()
    _close(torch.mm(at, bt), want, k)


@pytest.mark.parametrize("m,k,n", ALIGNED_ROWS + SKINNY[:2])
def test_addmm_alpha_beta(m, k, n):
    g = torch.Generator().manual_seed(n)
    a, b, c = (
        torch.randn(m, k, generator=g),
        torch.randn(k, n, generator=g),
        torch.randn(m, n, generator=g),
    )
    want = 0.5 * c.double().numpy() + 2.0 * (a.double().numpy() @ b.double().numpy())
    _close(torch.addmm(c, a, b, beta=0.5, alpha=2.0), want, k)
    bias = torch.randn(n, generator=g)  # a broadcast input, as nn.Linear passes it
    want = bias.double().numpy() + a.double().numpy() @ b.double().numpy()
    _close(torch.addmm(bias, a, b), want, k)


@pytest.mark.parametrize("m,k,n", [(400, 100, 650), (20, 650, 2600)])
def test_out_into_strided_view(m, k, n):
    """out= a column slice of a wider buffer: the columns beside it stay untouched."""
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
    big = torch.full((m, n + 50), 7.0)
    view = big[:, :n]
    torch.mm(a, b, out=view)
    _close(view, a.double().numpy() @ b.double().numpy(), k)
    assert bool((big[:, n:] == 7.0).all())


def test_weight_gradient_shape_of_a_tall_layer():
    """The decoder of a 10k-word language model is the case the padded rows were made for:
    its weight gradient, grad_out^T @ input (vocab x hidden, from transposed storage), here
    3000 x 650, against NumPy."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(300, 650, generator=g)
    go = torch.randn(300, 3000, generator=g)
    _close(torch.mm(go.t(), x), go.double().numpy().T @ x.double().numpy(), 300)
