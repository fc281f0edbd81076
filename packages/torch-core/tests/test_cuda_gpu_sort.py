"""Scans, sorting, order statistics and multinomial on a real GPU (csrc/cuda_sort.cpp):
every result is checked against the same computation on the CPU, never against hard-coded
values.

Runs only where ``torch.cuda.is_available()``; elsewhere the whole module is skipped.
Rows of 1, 7, 1000 and 4096 elements sort in one block's shared memory, 4097 and more in
global memory: both paths are covered.
"""

import math

import numpy as np
import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)

CUDA = torch.device("cuda", torch.cuda.current_device())
TOL = {
    torch.float64: dict(rtol=1e-10, atol=1e-10),
    torch.float32: dict(rtol=1e-4, atol=1e-4),
    torch.float16: dict(rtol=1e-2, atol=1e-2),
    torch.bfloat16: dict(rtol=5e-2, atol=5e-2),
}
SHAPES = [((1,), 0), ((7,), 0), ((3, 1000), 1), ((1000, 3), 0), ((4097,), 0), ((2, 4097, 2), 1)]


def _values(shape, dtype, seed=0, low=-3.0, high=3.0):
    rng = np.random.default_rng(seed)
    if dtype == torch.bool:
        return torch.from_numpy(rng.random(shape) < 0.5)
    if dtype.is_floating_point:
        return torch.from_numpy(rng.uniform(low, high, shape)).to(dtype)
    info = torch.iinfo(dtype)
    return torch.from_numpy(rng.integers(max(info.min, -50), min(info.max, 50) + 1, shape)).to(
        dtype
    )


def _with_ties_and_nan(shape, dtype, seed=0):
    """Few distinct values (many ties); floats also get NaN, +-inf and -0.0."""
    x = torch.from_numpy(np.random.default_rng(seed).integers(-4, 5, shape)).to(dtype)
    if dtype.is_floating_point:
        flat = x.reshape(-1)
        flat[::13] = math.nan
        flat[5::29] = math.inf
        flat[7::31] = -math.inf
        flat[3::37] = -0.0
    return x


def _same(cuda_result, cpu_result, exact=False, **tol):
    """`cuda_result` is on the GPU and equals `cpu_result` (within TOL or `tol` for floats
    unless `exact`; NaN where it has NaN)."""
    assert cuda_result.device.type == "cuda", cuda_result.device
    got = cuda_result.cpu()
    assert got.dtype == cpu_result.dtype and got.shape == cpu_result.shape
    if cpu_result.dtype.is_floating_point and not exact:
        torch.testing.assert_close(got, cpu_result, equal_nan=True, **(tol or TOL[got.dtype]))
    elif cpu_result.dtype.is_floating_point:
        both_nan = got.isnan() & cpu_result.isnan()
        assert bool(((got == cpu_result) | both_nan).all())
    else:
        assert torch.equal(got, cpu_result)


# ---------------------------------------------------------------- scans
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_cumsum_cumprod(dtype, shape, dim):
    x = _values(shape, dtype)
    # float32 sums: the GPU adds in a tree, the CPU in a line; partial sums reach ~100
    tol = dict(rtol=1e-4, atol=1e-3) if dtype == torch.float32 else {}
    _same(torch.cumsum(x.to(CUDA), dim), torch.cumsum(x, dim), **tol)
    small = _values(shape, dtype, low=0.99, high=1.01) if dtype.is_floating_point else x % 2 + 1
    if not dtype.is_floating_point and shape[dim] > 60:  # keep the products in range
        small = torch.ones_like(x)
        small.reshape(-1)[::97] = -1
    _same(torch.cumprod(small.to(CUDA), dim), torch.cumprod(small, dim))


def test_scan_dtypes_and_views():
    x = _values((5, 300), torch.float32)
    tol = dict(rtol=1e-4, atol=1e-3)
    _same(torch.cumsum(x.to(CUDA).t(), 0), torch.cumsum(x.t(), 0), **tol)  # a transposed input
    _same(torch.cumsum(x.to(CUDA), 1, dtype=torch.float64), torch.cumsum(x, 1, dtype=torch.float64))
    for dt in (torch.float16, torch.bfloat16):
        h = _values((4, 200), dt, low=-1, high=1)
        _same(torch.cumsum(h.to(CUDA), 1), torch.cumsum(h.float(), 1).to(dt))
    b = _values((3, 70), torch.bool)
    _same(torch.cumsum(b.to(CUDA), 1), torch.cumsum(b, 1))  # int64, as on the CPU
    _same(torch.cumsum(torch.tensor(2.5, device=CUDA), 0), torch.cumsum(torch.tensor(2.5), 0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.uint8])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_cummax_cummin(dtype, shape, dim):
    x = _with_ties_and_nan(shape, dtype) if dtype != torch.uint8 else _values(shape, dtype)
    for fn in (torch.cummax, torch.cummin):
        got, want = fn(x.to(CUDA), dim), fn(x, dim)
        _same(got.values, want.values, exact=True)
        _same(got.indices, want.indices)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_logcumsumexp(dtype, shape, dim):
    x = _values(shape, dtype, low=-20, high=20)
    x.reshape(-1)[3::50] = -math.inf
    _same(torch.logcumsumexp(x.to(CUDA), dim), torch.logcumsumexp(x, dim))


# ---------------------------------------------------------------- sort, argsort
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int64, torch.int16, torch.float16, torch.bool]
)
@pytest.mark.parametrize("shape,dim", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable(dtype, shape, dim, descending):
    x = _with_ties_and_nan(shape, dtype) if dtype != torch.bool else _values(shape, dtype)
    got = torch.sort(x.to(CUDA), dim=dim, descending=descending, stable=True)
    want = torch.sort(x, dim=dim, descending=descending, stable=True)
    _same(got.values, want.values, exact=True)
    _same(got.indices, want.indices)  # equal keys keep their order; NaN the largest
    _same(torch.argsort(x.to(CUDA), dim=dim, descending=descending, stable=True), want.indices)


def test_sort_long_row_and_views():
    x = _values((100_000,), torch.float32, seed=3)
    got = torch.sort(x.to(CUDA))
    want = torch.sort(x, stable=True)
    _same(got.values, want.values, exact=True)
    _same(got.indices, want.indices)
    y = _with_ties_and_nan((6, 50), torch.float64)
    got = torch.sort(y.to(CUDA).t(), dim=0, descending=True)
    want = torch.sort(y.t(), dim=0, descending=True, stable=True)
    _same(got.values, want.values, exact=True)
    _same(got.indices, want.indices)


# ---------------------------------------------------------------- topk, kthvalue, median, mode
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.float16])
@pytest.mark.parametrize("shape,dim", SHAPES)
@pytest.mark.parametrize("largest", [True, False])
def test_topk(dtype, shape, dim, largest):
    x = _with_ties_and_nan(shape, dtype)
    for k in sorted({1, max(1, shape[dim] // 3), shape[dim]}):
        got = torch.topk(x.to(CUDA), k, dim=dim, largest=largest, sorted=True)
        want = torch.topk(x, k, dim=dim, largest=largest, sorted=True)
        _same(got.values, want.values, exact=True)
        _same(got.indices, want.indices)  # ties: the lower index first, on both
    assert torch.topk(x.to(CUDA), 0, dim=dim).values.shape[dim] == 0


def test_topk_sampling_shape():
    logits = _values((4, 50_257), torch.float32, seed=5, low=-10, high=10)
    got = torch.topk(logits.to(CUDA), 50, dim=-1)
    want = torch.topk(logits, 50, dim=-1)
    _same(got.values, want.values, exact=True)
    _same(got.indices, want.indices)


def _check_picks(x, dim, got, want, keepdim):
    """Values equal the CPU's; the indices point at elements of those values."""
    _same(got.values, want.values, exact=True)
    idx = got.indices.cpu()
    picked = torch.gather(x, dim, idx if keepdim else idx.unsqueeze(dim))
    picked = picked if keepdim else picked.squeeze(dim)
    assert bool(((picked == want.values) | (picked.isnan() & want.values.isnan())).all())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_kthvalue_median(dtype, shape, dim):
    x = _with_ties_and_nan(shape, dtype)
    n = shape[dim]
    for k in sorted({1, (n + 1) // 2, n}):
        for keepdim in (False, True):
            got = torch.kthvalue(x.to(CUDA), k, dim=dim, keepdim=keepdim)
            _check_picks(x, dim, got, torch.kthvalue(x, k, dim=dim, keepdim=keepdim), keepdim)
    _check_picks(x, dim, torch.median(x.to(CUDA), dim=dim), torch.median(x, dim=dim), False)
    got, want = torch.nanmedian(x.to(CUDA), dim=dim), torch.nanmedian(x, dim=dim)
    _check_picks(x, dim, got, want, False)
    if dtype.is_floating_point:  # NaN rows: the index of the first NaN, as on the CPU
        _same(torch.median(x.to(CUDA), dim=dim).indices, torch.median(x, dim=dim).indices)
    _same(torch.median(x.to(CUDA)), torch.median(x), exact=True)
    all_nan = torch.full((3, 5), math.nan, dtype=torch.float32)
    _same(torch.nanmedian(all_nan.to(CUDA), dim=1).indices, torch.nanmedian(all_nan, dim=1).indices)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int8])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_mode(dtype, shape, dim):
    x = _with_ties_and_nan(shape, dtype)
    got, want = torch.mode(x.to(CUDA), dim=dim), torch.mode(x, dim=dim)
    _same(got.values, want.values, exact=True)
    _same(got.indices, want.indices)  # the last position of the smallest most frequent value


# ---------------------------------------------------------------- multinomial
def test_multinomial_with_replacement_statistics():
    w = torch.tensor([[1.0, 0.0, 3.0, 6.0, 0.0, 10.0], [5.0, 5.0, 0.0, 0.0, 0.0, 10.0]])
    torch.cuda.manual_seed(1234)
    n = 200_000
    s = torch.multinomial(w.to(CUDA), n, replacement=True)
    assert s.device.type == "cuda" and s.dtype == torch.int64 and s.shape == (2, n)
    s = s.cpu()
    for r in range(2):
        freq = torch.bincount(s[r], minlength=6).double() / n
        p = w[r].double() / w[r].sum()
        assert bool((freq[p == 0] == 0).all())  # never a zero weight
        assert torch.allclose(freq, p, atol=4 * math.sqrt(0.25 / n))
    torch.cuda.manual_seed(1234)
    assert torch.equal(torch.multinomial(w.to(CUDA), n, replacement=True).cpu(), s)
    one = torch.multinomial(w[0].to(CUDA), 10, replacement=True)
    assert one.shape == (10,)


def test_multinomial_without_replacement():
    w = torch.tensor([1.0, 2.0, 0.0, 3.0, 4.0])
    torch.cuda.manual_seed(7)
    reps = 20_000
    draws = torch.multinomial(w.to(CUDA).expand(reps, 5).contiguous(), 4, replacement=False).cpu()
    for row in draws[:200]:
        assert len(set(row.tolist())) == 4 and 2 not in row.tolist()
    first = torch.bincount(draws[:, 0], minlength=5).double() / reps
    assert torch.allclose(first, w.double() / 10, atol=0.02)
    # the second draw: P(j) = sum over a != j of P(a first) * w_j / (10 - w_a)
    p2 = [sum(w[a] / 10 * w[j] / (10 - w[a]) for a in range(5) if a != j) for j in range(5)]
    second = torch.bincount(draws[:, 1], minlength=5).double() / reps
    assert torch.allclose(second, torch.tensor(p2, dtype=torch.float64), atol=0.02)
    torch.cuda.manual_seed(7)
    again = torch.multinomial(w.to(CUDA).expand(reps, 5).contiguous(), 4, replacement=False)
    assert torch.equal(again.cpu(), draws)
    big = torch.multinomial(torch.ones(5000, device=CUDA), 5000)  # a permutation
    assert torch.equal(big.sort().values.cpu(), torch.arange(5000))


def test_multinomial_errors():
    with pytest.raises(RuntimeError, match="inf, nan or an element < 0"):
        torch.multinomial(torch.tensor([1.0, -1.0], device=CUDA), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        torch.multinomial(torch.zeros(3, device=CUDA), 1, replacement=True)
    with pytest.raises(RuntimeError, match="fewer non-zero probabilities"):
        torch.multinomial(torch.tensor([1.0, 0.0, 1.0], device=CUDA), 3)
    assert torch.multinomial(torch.tensor([0.0, 1.0], device=CUDA), 1).item() == 1


def test_nucleus_sampling_pipeline():
    """top-p sampling as text generation does it, all on the GPU."""
    logits = _values((2, 1000), torch.float32, seed=9, low=-5, high=5).to(CUDA)
    probs = torch.softmax(logits, dim=-1)
    sorted_p, order = torch.sort(probs, descending=True, dim=-1)
    keep = torch.cumsum(sorted_p, dim=-1) - sorted_p < 0.9
    sorted_p = sorted_p.masked_fill(~keep, 0.0)
    torch.cuda.manual_seed(3)
    pick = torch.multinomial(sorted_p, 1)
    token = torch.gather(order, -1, pick)
    assert token.shape == (2, 1) and bool((token >= 0).all()) and bool((token < 1000).all())
    assert bool(keep.cpu().gather(1, pick.cpu()).all())
