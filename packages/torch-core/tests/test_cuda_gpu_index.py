"""The CUDA indexing kernels (csrc/cuda_index.cpp) on a real GPU: every op on CUDA against
the same op on the CPU.

Runs only where ``torch.cuda.is_available()``; elsewhere the whole module is skipped. Data
movement (index_select, gather, take, x[i], masks, nonzero, ...) must match exactly;
accumulating ops (index_add, scatter_add, index_put with accumulate) add duplicates in any
order, so floats are compared with a tolerance (or hold small integers, whose sums are exact).
"""

import numpy as np
import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)

CUDA = torch.device("cuda", torch.cuda.current_device())
DTYPES = [torch.float32, torch.float64, torch.int64, torch.bool, torch.float16]
TOL = {
    torch.float64: dict(rtol=1e-12, atol=1e-12),
    torch.float32: dict(rtol=1e-5, atol=1e-5),
    torch.float16: dict(rtol=2e-3, atol=2e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=1.6e-2),
}


def _values(shape, dtype, seed=0, integral=False):
    """A CPU tensor of random values (small integers when `integral`, or for int dtypes)."""
    rng = np.random.default_rng(seed)
    if dtype == torch.bool:
        return torch.from_numpy(rng.random(shape) < 0.5)
    if dtype.is_floating_point and not integral:
        return torch.from_numpy(rng.uniform(-3, 3, shape)).to(dtype)
    return torch.from_numpy(rng.integers(-5, 6, shape)).to(dtype)


def _index(n, shape, seed=1, low=0):
    rng = np.random.default_rng(seed)
    return torch.from_numpy(rng.integers(low, n, shape)).to(torch.int64)


def _to(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to(o, device) for o in obj)
    return obj


def _clone(obj):
    if isinstance(obj, torch.Tensor):
        return obj.clone()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone(o) for o in obj)
    return obj


def _same(got, want, exact=True):
    """`got` (CUDA) matches `want` (CPU): exactly, or within TOL for floats."""
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, exact)
        return
    assert got.device.type == "cuda", got.device
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if exact or not want.dtype.is_floating_point:
        assert torch.equal(got, want) or (
            want.dtype.is_floating_point
            and torch.equal(got.isnan(), want.isnan())
            and torch.equal(got.nan_to_num(), want.nan_to_num())
        ), (got, want)
    else:
        torch.testing.assert_close(got, want, **TOL[want.dtype])


def _compare(fn, *args, exact=True):
    """fn on CPU copies of args against fn on CUDA copies (in-place ops change copies)."""
    want = fn(*_clone(args))
    got = fn(*_to(args, CUDA))
    _same(got, want, exact)


# ---------------------------------------------------------------- reads
@pytest.mark.parametrize("dtype", DTYPES)
def test_index_select(dtype):
    x = _values((5, 6, 7), dtype)
    for dim in (0, 1, 2, -1):
        idx = _index(x.shape[dim], (9,), seed=dim + 5)
        _compare(lambda t, i, d=dim: torch.index_select(t, d, i), x, idx)
    _compare(lambda t, i: t.transpose(0, 2).index_select(1, i), x, _index(6, (4,)))  # strided
    _compare(lambda t, i: t.index_select(0, i), x, torch.zeros(0, dtype=torch.int64))  # empty
    _compare(lambda t, i: t.index_select(0, i), x, _index(5, (3,)).to(torch.int32))
    _compare(lambda t, i: t.index_select(0, i), x[0, 0, 0], torch.tensor(0))  # 0-d


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_and_take(dtype):
    x = _values((4, 5, 6), dtype)
    for dim in (0, 1, 2):
        idx = _index(x.shape[dim], (3, 4, 5), seed=dim)
        _compare(lambda t, i, d=dim: torch.gather(t, d, i), x, idx)

    # a strided input, an expanded (stride 0) index (strided on the GPU: made after the copy)
    def gather_strided(t, i):
        return torch.gather(t.transpose(0, 2), 1, i.expand(6, 3, 4))

    _compare(gather_strided, x, _index(5, (6, 1, 1)))
    _compare(lambda t, i: torch.gather(t, 0, i), x, torch.zeros(0, 5, 6, dtype=torch.int64))
    _compare(lambda t, i: torch.take(t, i), x, _index(120, (7, 3), low=-120))  # negatives wrap
    _compare(lambda t, i: torch.take(t.transpose(1, 2), i), x, _index(120, (50,)))
    _compare(lambda t, i: torch.take_along_dim(t, i, 2), x, _index(6, (4, 5, 2)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_advanced_index_reads(dtype):
    x = _values((6, 5, 4), dtype)
    i, j = _index(6, (3, 2), low=-6), _index(4, (2,), seed=3)
    _compare(lambda t, a: t[a], x, i)
    _compare(lambda t, a, b: t[a, :, b], x, i, j)  # separated advanced dims: result permuted
    _compare(lambda t, a: t[1:, a[:, 0] % 5], x, i)
    _compare(lambda t, a: t.transpose(0, 1)[:, a], x, i)  # a strided subspace
    _compare(lambda t: t[[0, 2, -1]], x)  # a list: indices made on the CPU
    _compare(lambda t: t[torch.tensor([1, -2])], x)  # CPU index tensor, CUDA t
    _compare(lambda t, a: t[a.to(torch.int32)], x, i)
    mask = _values((6,), torch.bool, seed=4)
    _compare(lambda t, m: t[m], x, mask)  # rows of 20 elements
    _compare(lambda t: t[mask], x)  # a CPU mask, CUDA t
    mask2 = _values((6, 5), torch.bool, seed=5)
    _compare(lambda t, m: t[m], x, mask2)
    mask3 = _values((6, 5, 4), torch.bool, seed=6)
    _compare(lambda t, m: t[m], x, mask3)  # single elements
    _compare(lambda t, m: t.transpose(0, 2)[m.transpose(0, 2)], x, mask3)
    _compare(lambda t, m: torch.masked_select(t, m), x, mask2[:, :, None])  # broadcast
    _compare(lambda t, m: t[m], x, torch.zeros(6, dtype=torch.bool))  # nothing selected


def test_long_masks_cross_blocks():
    # enough elements for many blocks of the count/compaction kernels, with uneven density
    x = _values((300_001,), torch.float32, seed=7)
    mask = x > 1.5
    mask[:1000] = True
    _compare(lambda t, m: t[m], x, mask)
    _compare(lambda t: torch.nonzero(t > 0), x)
    _compare(lambda t: torch.count_nonzero(t), x > 2)
    rows = _values((70_000, 3), torch.float64, seed=8)
    _compare(lambda t, m: t[m], rows, rows[:, 0] > 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero(dtype):
    x = _values((3, 4, 5), dtype, seed=2, integral=True)
    _compare(torch.nonzero, x)
    _compare(lambda t: torch.nonzero(t, as_tuple=True), x)
    _compare(lambda t: torch.nonzero(t.transpose(0, 2)), x)
    _compare(torch.argwhere, x[0])
    _compare(torch.nonzero, torch.zeros(4, 0, dtype=dtype))
    _compare(torch.count_nonzero, x)
    if dtype.is_floating_point:
        _compare(torch.nonzero, torch.tensor([0.0, -0.0, float("nan"), 1.0], dtype=dtype))


def test_searchsorted():
    seq = torch.sort(_values((40,), torch.float32)).values
    vals = _values((3, 7), torch.float32, seed=3)
    vals[0, :3] = seq[:3]  # ties
    for right in (False, True):
        _compare(lambda s, v, r=right: torch.searchsorted(s, v, right=r), seq, vals)
    _compare(lambda s, v: torch.searchsorted(s, v, out_int32=True), seq, vals)
    rows = torch.sort(_values((3, 9), torch.float64), dim=1).values
    _compare(
        lambda s, v: torch.searchsorted(s, v, side="right"), rows, _values((3, 4), torch.float64)
    )
    ints = torch.sort(_index(50, (30,))).values
    _compare(torch.bucketize, _index(60, (20,), seed=9), ints)
    _compare(torch.searchsorted, seq[:0], vals)  # empty boundaries


# ---------------------------------------------------------------- writes
@pytest.mark.parametrize("dtype", DTYPES)
def test_index_put_and_setitem(dtype):
    x = _values((6, 5, 4), dtype)
    perm = torch.randperm(6)[:4]  # unique rows: the result is deterministic
    v = _values((4, 5, 4), dtype, seed=3)
    _compare(lambda t, i, w: t.index_put_((i,), w), x, perm, v)
    _compare(lambda t, i, w: t.index_put_((i - 6,), w[:, :1]), x, perm, v)  # broadcast, negative

    def setitem(t, i, w):
        t[i, 1:3] = w
        return t

    _compare(setitem, x, perm, v[:, 1:3])

    def set_columns(t, i, w):  # a strided subspace: t.select(1, 0)
        t[:, i] = w
        return t

    _compare(set_columns, x, torch.randperm(5)[:3], _values((6, 3, 4), dtype, seed=6))

    def set_number(t, i):
        t[i] = 1
        return t

    _compare(set_number, x, perm)

    def set_mask(t, m, w):
        t[m] = w
        return t

    mask = _values((6, 5), torch.bool, seed=4)
    _compare(set_mask, x, mask, _values((int(mask.sum()), 4), dtype, seed=5))
    _compare(lambda t, m: t.masked_fill(m, 0), x, mask[:, :, None])
    _compare(lambda t, m: t.masked_fill_(m, torch.tensor(1).to(dtype)), x, mask[:, :, None])
    _compare(lambda t, m, s: t.masked_scatter_(m, s), x, mask[:, :, None], _values((200,), dtype))
    _compare(lambda t, i, w: t.index_put_((i,), w), x, perm[:0], v[:0])  # empty index


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.int8, torch.bool,
              torch.float16, torch.bfloat16]
)  # fmt: skip
def test_accumulating_writes_with_duplicates(dtype):
    # float16/bfloat16 add through a compare-and-swap loop; small integers keep sums exact
    integral = dtype in (torch.float16, torch.bfloat16)
    exact = not dtype.is_floating_point or integral
    x = _values((7, 5), dtype, integral=integral)
    idx = _index(7, (40,), low=-7)  # many repeats, negative ones too
    src = _values((40, 5), dtype, seed=2, integral=integral)
    _compare(lambda t, i, s: t.index_put_((i,), s, accumulate=True), x, idx, src, exact=exact)
    pos = idx % 7
    _compare(lambda t, i, s: t.index_add_(0, i, s), x, pos, src, exact=exact)
    _compare(lambda t, i, s: t.index_add(1, i, s[:7, :3]), x, pos[:3] % 5, src, exact=exact)
    sidx = _index(7, (40, 5), seed=4)
    _compare(lambda t, i, s: t.scatter_add(0, i, s), x, sidx, src, exact=exact)

    def scatter_add_strided(t, i, s):  # a transposed target: written through a copy
        return t.T.contiguous().T.scatter_add_(1, i, s)

    _compare(scatter_add_strided, x, sidx[:7] % 5, src[:7], exact=exact)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int16])
def test_scatter_family(dtype):
    x = _values((6, 5), dtype)
    src = _values((6, 5), dtype, seed=3)
    unique = torch.stack([torch.randperm(6) for _ in range(5)], dim=1)  # a permutation a column
    _compare(lambda t, i, s: t.scatter(0, i, s), x, unique, src)
    _compare(lambda t, i: t.scatter(0, i, 7), x, unique[:3])
    rows = torch.stack([torch.randperm(5)[:3] for _ in range(6)])  # distinct within each row
    _compare(lambda t, i, s: t.scatter_(1, i, s), x, rows, src)
    dup = _index(6, (6, 5), seed=5)
    for reduce in ("sum", "prod", "amax", "amin"):
        exact = not dtype.is_floating_point or reduce in ("amax", "amin")
        for keep in (True, False):

            def scatter_reduce(t, i, s, r=reduce, k=keep):
                return t.scatter_reduce(0, i, s, r, include_self=k)

            _compare(scatter_reduce, x, dup, src, exact=exact)
    _compare(lambda t, i, s: t.index_copy(0, i, s), x, torch.randperm(6)[:4], src[:4])
    _compare(lambda t, i: t.index_fill(1, i, -1), x, torch.tensor([0, 3]))
    _compare(lambda t, i, s: t.put_(i, s), x, torch.randperm(30)[:8] - 15, src[0, :4].repeat(2))


def test_bincount():
    values = _index(10, (200,))
    _compare(torch.bincount, values)
    _compare(lambda v: torch.bincount(v, minlength=15), values)
    weights = _values((200,), torch.float64)
    _compare(lambda v, w: torch.bincount(v, w), values, weights, exact=False)  # sums in any order
    _compare(torch.bincount, values[:0])


def test_backward_of_indexing():
    x = _values((6, 4), torch.float64).requires_grad_()
    idx = torch.tensor([0, 2, 2, 5, -1])

    def grad(t, i):
        t = t.detach().requires_grad_()
        out = (
            t[i] * 2 + torch.gather(t, 1, (i % 4)[:, None].expand(5, 4)) + t.index_select(0, i % 6)
        )
        out.backward(gradient=torch.ones_like(out))
        return t.grad

    _compare(grad, x, idx, exact=False)


# ---------------------------------------------------------------- bad indices
def test_out_of_range_indices_raise_at_the_next_synchronisation():
    x = torch.arange(10.0, device=CUDA)
    for bad in (
        lambda: x.index_select(0, torch.tensor([1, 10], device=CUDA)),
        lambda: torch.gather(x, 0, torch.tensor([-1], device=CUDA)),
        lambda: x[torch.tensor([3, -11], device=CUDA)],
    ):
        with pytest.raises(IndexError):
            bad().cpu()
    with pytest.raises((IndexError, RuntimeError)):  # RuntimeError where the front end checks
        x.clone().index_add_(0, torch.tensor([12], device=CUDA), torch.ones(1, device=CUDA))
        torch.cuda.synchronize()
    y = x.clone()
    with pytest.raises(IndexError):
        y[torch.tensor([2, 10], device=CUDA)] = 5.0
        torch.cuda.synchronize()
    assert y.cpu()[10 - 1] == 9.0  # the bad row was skipped, nothing past the end written
    # the process goes on: no error left over
    assert torch.equal(x[torch.tensor([1, -1], device=CUDA)].cpu(), torch.tensor([1.0, 9.0]))
