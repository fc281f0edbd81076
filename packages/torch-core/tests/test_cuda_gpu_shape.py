"""flip, roll, tril/triu, repeat_interleave, the bit shifts, complex abs/angle and
unfold/fold on a real GPU (csrc/cuda_shape.cpp): every result is checked against the same
computation on the CPU, never against hard-coded values.

Runs only where ``torch.cuda.is_available()``; elsewhere the whole module is skipped. The
shape kernels move values without arithmetic, so those results must match exactly; complex
abs/angle and fold (which sums) within a tolerance.
"""

import math

import numpy as np
import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402 (after the GPU check: core-only installs lack nn)

CUDA = torch.device("cuda", torch.cuda.current_device())
REAL = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]
COMPLEX = [torch.complex64, torch.complex128]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == torch.bool:
        return torch.from_numpy(rng.random(shape) < 0.5)
    if dtype.is_complex:
        z = rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)
        return torch.from_numpy(z).to(dtype)
    if dtype.is_floating_point:
        return torch.from_numpy(rng.uniform(-3, 3, shape)).to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    return torch.from_numpy(rng.integers(lo, hi + 1, shape)).to(dtype)


def _host(t):
    """A CUDA tensor's values on the CPU (complex ones through their real view)."""
    assert t.device.type == "cuda", t.device
    if t.dtype.is_complex:
        return torch.view_as_complex(torch.view_as_real(t).cpu())
    return t.cpu()


def _same(cuda_result, cpu_result, **tol):
    """`cuda_result` (on the GPU) equals `cpu_result`: exactly unless a tolerance is given."""
    got = _host(cuda_result)
    assert got.dtype == cpu_result.dtype, (got.dtype, cpu_result.dtype)
    assert got.shape == cpu_result.shape, (got.shape, cpu_result.shape)
    if tol:
        torch.testing.assert_close(got, cpu_result, equal_nan=True, **tol)
    elif cpu_result.dtype.is_complex:
        assert torch.equal(torch.view_as_real(got), torch.view_as_real(cpu_result))
    else:
        assert torch.equal(got, cpu_result)


# ---------------------------------------------------------------- flip
@pytest.mark.parametrize("dtype", REAL + COMPLEX)
def test_flip(dtype):
    x = _values((4, 5, 6), dtype)
    g = x.to(CUDA)
    for dims in [(0,), (-1,), (1,), (0, 2), (0, 1, 2), (-3, -2), ()]:
        _same(torch.flip(g, dims), torch.flip(x, dims))
        _same(torch.flip(g.transpose(0, 2), dims), torch.flip(x.transpose(0, 2), dims))
        _same(torch.flip(g[:, ::2, 1:], dims), torch.flip(x[:, ::2, 1:], dims))
    _same(torch.fliplr(g[0]), torch.fliplr(x[0]))
    _same(torch.flipud(g[:, 0]), torch.flipud(x[:, 0]))
    _same(torch.flip(g[1, 2, 3], ()), torch.flip(x[1, 2, 3], ()))  # 0-dim
    e = _values((0, 3), dtype)
    _same(torch.flip(e.to(CUDA), (0, 1)), torch.flip(e, (0, 1)))
    s = _values((1, 7, 1), dtype)
    _same(torch.flip(s.to(CUDA), (0, 1, 2)), torch.flip(s, (0, 1, 2)))


def test_flip_special_floats_and_many_dims():
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1.5], dtype=torch.float64)
    got = _host(x.to(CUDA).flip(0))
    want = x.flip(0)
    assert torch.equal(torch.signbit(got), torch.signbit(want))
    torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)
    y = _values((2,) * 12, torch.float32)  # 12 dims; flip every other one
    dims = tuple(range(0, 12, 2))
    _same(y.to(CUDA).flip(dims), y.flip(dims))
    _same(
        y.to(CUDA).permute(*range(11, -1, -1)).flip(dims), y.permute(*range(11, -1, -1)).flip(dims)
    )


def test_flip_large_offsets():
    """A view spanning 2^30 elements and more: the kernel's 64-bit index path."""
    n = (1 << 30) + 64
    big = torch.empty(n, dtype=torch.uint8, device=CUDA)
    vals = _values((2, 8), torch.uint8)
    big[:8] = vals[0].to(CUDA)
    big[1 << 30 : (1 << 30) + 8] = vals[1].to(CUDA)
    v = big.as_strided((2, 8), (1 << 30, 1))
    _same(torch.flip(v, (0, 1)), torch.flip(vals, (0, 1)))
    _same(torch.roll(v, 3, 1), torch.roll(vals, 3, 1))
    _same(torch.tril(v), torch.tril(vals))
    del big, v


# ---------------------------------------------------------------- roll
ROLLS = [
    (1, 0),
    (-1, -1),
    (7, 1),  # more than the size
    (-13, 2),
    ((2, -3), (0, 1)),
    ((1, 1), (0, 0)),  # one dim twice: shifts add up
    ((1, 2, 3), (0, 1, 2)),
    (4, None),  # flattened
    (-5, None),
]


@pytest.mark.parametrize("dtype", REAL + COMPLEX)
def test_roll(dtype):
    x = _values((3, 4, 5), dtype)
    g = x.to(CUDA)
    for shifts, dims in ROLLS:
        _same(torch.roll(g, shifts, dims), torch.roll(x, shifts, dims))
        if dims is None and dtype.is_complex:
            continue  # flattening a view copies it (CUDA has no complex copy kernel yet)
        t, tg = x.transpose(0, 2), g.transpose(0, 2)  # non-contiguous
        _same(torch.roll(tg, shifts, dims), torch.roll(t, shifts, dims))
        _same(torch.roll(g[:, 1:, ::2], shifts, dims), torch.roll(x[:, 1:, ::2], shifts, dims))
    if not dtype.is_complex:  # a net shift of zero is a copy (no complex copy kernel yet)
        _same(torch.roll(g, (2, -2), (1, 1)), torch.roll(x, (2, -2), (1, 1)))
        _same(torch.roll(g, 3, 0), torch.roll(x, 3, 0))
    e = _values((0, 4), dtype)
    _same(torch.roll(e.to(CUDA), 1, 1), torch.roll(e, 1, 1))


# ---------------------------------------------------------------- tril, triu
DIAGONALS = [-100, -3, -1, 0, 1, 2, 5, 100, 2**62, -(2**62)]


@pytest.mark.parametrize("dtype", REAL + COMPLEX)
@pytest.mark.parametrize(
    "shape", [(5, 5), (3, 4, 6), (2, 3, 7, 4), (1, 1), (6, 1), (0, 3), (2, 0, 4)]
)
def test_tril_triu(dtype, shape):
    x = _values(shape, dtype)
    g = x.to(CUDA)
    for k in DIAGONALS:
        for fn in (torch.tril, torch.triu):
            _same(fn(g, k), fn(x, k))
            if len(shape) >= 2 and x.numel():
                _same(fn(g.transpose(-1, -2), k), fn(x.transpose(-1, -2), k))
                _same(fn(g[..., ::2], k), fn(x[..., ::2], k))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.bool, torch.complex128])
def test_tril_triu_in_place_and_out(dtype):
    x = _values((3, 6, 5), dtype)
    for k in (-2, 0, 1, 3):
        for name in ("tril_", "triu_"):
            base_g, base = x.to(CUDA), x.clone()
            getattr(base_g, name)(k)
            getattr(base, name)(k)
            _same(base_g, base)
            # in place on a non-contiguous view: the elements outside it stay as they were
            base_g, base = x.to(CUDA), x.clone()
            getattr(base_g.transpose(1, 2)[:, ::2], name)(k)
            getattr(base.transpose(1, 2)[:, ::2], name)(k)
            _same(base_g, base)
        out_g = torch.empty((3, 6, 5), dtype=dtype, device=CUDA).transpose(0, 1)
        out = torch.empty((3, 6, 5), dtype=dtype).transpose(0, 1)
        _same(
            torch.tril(x.transpose(0, 1).to(CUDA), k, out=out_g),
            torch.tril(x.transpose(0, 1), k, out=out),
        )


def test_triu_of_a_bool_mask():
    n = 7
    got = torch.ones(n, n, dtype=torch.bool).to(CUDA).triu()
    _same(got, torch.ones(n, n, dtype=torch.bool).triu())


# ---------------------------------------------------------------- repeat_interleave
@pytest.mark.parametrize("dtype", REAL + COMPLEX)
def test_repeat_interleave(dtype):
    x = _values((3, 4, 2), dtype)
    g = x.to(CUDA)
    for dim in (0, 1, 2, -1, -3):
        _same(g.repeat_interleave(3, dim=dim), x.repeat_interleave(3, dim=dim))
        n = x.shape[dim]
        reps = torch.tensor([i * 2 % 5 for i in range(n)])  # 0, 2, 4, 1, 3, ...
        _same(g.repeat_interleave(reps.to(CUDA), dim=dim), x.repeat_interleave(reps, dim=dim))
        _same(
            torch.repeat_interleave(g, torch.tensor(2).to(CUDA), dim=dim),
            torch.repeat_interleave(x, 2, dim=dim),
        )
        if not dtype.is_complex:  # a non-contiguous input is copied first
            t, tg = x.transpose(0, 2), g.transpose(0, 2)
            rt = torch.tensor([i * 2 % 5 for i in range(t.shape[dim])])
            _same(tg.repeat_interleave(rt.to(CUDA), dim=dim), t.repeat_interleave(rt, dim=dim))
    _same(g.repeat_interleave(2), x.repeat_interleave(2))  # flattened
    _same(g[1, 2, 0].repeat_interleave(4), x[1, 2, 0].repeat_interleave(4))  # 0-dim
    zeros = torch.zeros(4, dtype=torch.int64)
    _same(g.repeat_interleave(zeros.to(CUDA), dim=1), x.repeat_interleave(zeros, dim=1))  # empty


def test_repeat_interleave_long_rows():
    x = _values((5, 1000), torch.float32)
    reps = torch.tensor([0, 3, 1, 0, 7])
    _same(x.to(CUDA).repeat_interleave(reps.to(CUDA), dim=0), x.repeat_interleave(reps, dim=0))
    y = _values((3000,), torch.int32)
    r = torch.from_numpy(np.random.default_rng(1).integers(0, 4, 3000))
    _same(y.to(CUDA).repeat_interleave(r.to(CUDA)), y.repeat_interleave(r))


# ---------------------------------------------------------------- shifts
@pytest.mark.parametrize("dtype", INTS)
def test_shifts(dtype):
    info = torch.iinfo(dtype)
    bits = info.bits
    vals = torch.tensor([0, 1, -1, 5, -7, 100, -100, info.min, info.max], dtype=torch.int64)
    vals = vals.clamp(info.min, info.max).to(dtype)
    amounts = torch.arange(-2 if info.min < 0 else 0, bits + 3, dtype=torch.int64).to(dtype)
    x, s = torch.meshgrid(vals, amounts, indexing="ij")
    x, s = x.contiguous(), s.contiguous()
    xg, sg = x.to(CUDA), s.to(CUDA)
    for fn in (torch.bitwise_left_shift, torch.bitwise_right_shift):
        _same(fn(xg, sg), fn(x, s))
        _same(fn(xg.t(), sg.t()), fn(x.t(), s.t()))  # non-contiguous
        _same(fn(xg, sg[0]), fn(x, s[0]))  # broadcast
    _same(xg << sg, x << s)
    _same(xg >> sg, x >> s)
    s3 = s.clamp(0, 3)
    for k in (0, 1, 3, bits - 1):
        _same(xg << k, x << k)
        _same(xg >> k, x >> k)
        _same(k << s3.to(CUDA), k << s3)
    yg, y = xg.clone(), x.clone()
    yg <<= 2
    y <<= 2
    _same(yg, y)
    yg >>= sg
    y >>= s
    _same(yg, y)
    e = torch.empty(0, dtype=dtype)
    _same(e.to(CUDA) << 1, e << 1)


# ---------------------------------------------------------------- complex abs, angle
@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_abs_angle(dtype):
    z = _values((7, 9), dtype)
    special = [
        0,
        -0.0,
        1j,
        -1j,
        complex(math.inf, 1),
        complex(1, -math.inf),
        complex(math.nan, 2),
        complex(-3, 0),
        complex(-3, -0.0),
        complex(1e30, 1e30),
        complex(1e-30, -1e-30),
    ]
    z = torch.cat([z.reshape(-1), torch.tensor(special).to(dtype)])
    g = z.to(CUDA)
    tol = dict(rtol=1e-6, atol=0) if dtype == torch.complex64 else dict(rtol=1e-14, atol=0)
    _same(g.abs(), z.abs(), **tol)
    _same(torch.abs(g), torch.abs(z), **tol)
    _same(g.angle(), z.angle(), **tol)
    e = torch.empty(0, 3, dtype=dtype)
    _same(e.to(CUDA).abs(), e.abs())


# ---------------------------------------------------------------- unfold, fold
FOLD_TOL = {
    torch.float64: dict(rtol=1e-12, atol=1e-12),
    torch.float32: dict(rtol=1e-5, atol=1e-5),
    torch.float16: dict(rtol=1e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=1e-2, atol=1e-2),
}
GEOMETRIES = [
    dict(kernel_size=(2, 3)),
    dict(kernel_size=3, padding=1),
    dict(kernel_size=(2, 3), dilation=(1, 2), padding=(0, 1), stride=(1, 2)),
    dict(kernel_size=2, stride=3),  # gaps between the blocks
    dict(kernel_size=1),
    dict(kernel_size=(3, 2), dilation=2, padding=2, stride=(2, 1)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("geom", GEOMETRIES)
def test_unfold_fold(dtype, geom):
    x = _values((2, 3, 7, 8), torch.float64)
    ref = torch.float64 if dtype == torch.float64 else torch.float32  # the CPU has no 16-bit fold
    cols = F.unfold(x.to(ref), **geom)
    _same(F.unfold(x.to(dtype).to(CUDA), **geom), F.unfold(x.to(dtype).to(ref), **geom).to(dtype))
    _same(
        F.unfold(x.to(dtype).to(CUDA).transpose(2, 3), **geom),
        F.unfold(x.to(dtype).to(ref).transpose(2, 3), **geom).to(dtype),
    )
    c = _values(tuple(cols.shape), torch.float64).to(dtype)
    got = F.fold(c.to(CUDA), (7, 8), **geom)
    want = F.fold(c.to(ref), (7, 8), **geom)
    if dtype in (torch.float16, torch.bfloat16):  # summed in float32, rounded once
        _same(got, want.to(dtype), **FOLD_TOL[dtype])
    else:
        _same(got, want, **FOLD_TOL[dtype])
    _same(
        F.unfold(x[0].to(dtype).to(CUDA), **geom),
        F.unfold(x[0].to(dtype).to(ref), **geom).to(dtype),
    )
    _same(
        F.fold(c[0].to(CUDA), (7, 8), **geom),
        F.fold(c[0].to(ref), (7, 8), **geom).to(dtype),
        **FOLD_TOL[dtype],
    )


@pytest.mark.parametrize("geom", GEOMETRIES[:4])
def test_unfold_fold_backward(geom):
    x = _values((2, 3, 7, 8), torch.float64)
    g = x.to(CUDA).detach().requires_grad_()
    c = x.clone().requires_grad_()
    out_g, out = F.unfold(g, **geom), F.unfold(c, **geom)
    w = _values(tuple(out.shape), torch.float64, seed=1)
    out_g.backward(w.to(CUDA))
    out.backward(w)
    _same(g.grad, c.grad, rtol=1e-12, atol=1e-12)
    y = w.to(CUDA).requires_grad_()
    yc = w.clone().requires_grad_()
    f_g, f = F.fold(y, (7, 8), **geom), F.fold(yc, (7, 8), **geom)
    v = _values(tuple(f.shape), torch.float64, seed=2)
    f_g.backward(v.to(CUDA))
    f.backward(v)
    _same(y.grad, yc.grad)


@pytest.mark.ours_only  # the core's 1-D and 3-D im2col/col2im (F.unfold takes 4-D only)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_im2col_col2im_1d_3d(dtype):
    im2col, col2im = torch._C._im2col, torch._C._col2im
    x = _values((2, 3, 9), dtype)
    args = ((3,), (2,), (1,), (2,))  # kernel, dilation, padding, stride
    cols = im2col(x, *args)
    _same(im2col(x.to(CUDA), *args), cols)
    _same(col2im(cols.to(CUDA), (9,), *args), col2im(cols, (9,), *args), **FOLD_TOL[dtype])
    v = _values((1, 2, 5, 6, 7), dtype)
    args = ((2, 3, 2), (1, 1, 2), (1, 0, 1), (2, 1, 1))
    cols = im2col(v, *args)
    _same(im2col(v.to(CUDA), *args), cols)
    _same(
        col2im(cols.to(CUDA), (5, 6, 7), *args), col2im(cols, (5, 6, 7), *args), **FOLD_TOL[dtype]
    )


def test_unfold_fold_empty_batch():
    x, c = torch.empty(0, 3, 7, 8), torch.empty(0, 12, 42)
    _same(F.unfold(x.to(CUDA), kernel_size=2), F.unfold(x, kernel_size=2))
    _same(F.fold(c.to(CUDA), (7, 8), kernel_size=2), F.fold(c, (7, 8), kernel_size=2))


# ---------------------------------------------------------------- backward passes that flip
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_prod_and_cumprod_backward_with_zeros(dtype):
    x = _values((4, 6), dtype)
    x[0, 2] = 0
    x[1, 0] = 0
    x[1, 4] = 0
    x[3] = 0
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-10)
    for dim in (0, 1, -1):
        g = x.to(CUDA).detach().requires_grad_()
        c = x.clone().requires_grad_()
        w = _values((4, 6), dtype, seed=3)
        torch.cumprod(g, dim).backward(w.to(CUDA))
        torch.cumprod(c, dim).backward(w)
        _same(g.grad, c.grad, **tol)
        g.grad = None
        c.grad = None
        torch.prod(g, dim).backward(w.sum(dim).to(CUDA))
        torch.prod(c, dim).backward(w.sum(dim))
        _same(g.grad, c.grad, **tol)
        g.grad = None
        c.grad = None
        torch.cumsum(g, dim).backward(w.to(CUDA))
        torch.cumsum(c, dim).backward(w)
        _same(g.grad, c.grad, **tol)
    g = x.to(CUDA).detach().requires_grad_()
    c = x.clone().requires_grad_()
    torch.prod(g).backward()
    torch.prod(c).backward()
    _same(g.grad, c.grad, **tol)
    # create_graph: the quadratic form (eye, triu of a bool mask) and its own derivative
    g = x.to(CUDA).detach().requires_grad_()
    c = x.clone().requires_grad_()
    (gg,) = torch.autograd.grad(torch.cumprod(g, 1).sum(), g, create_graph=True)
    (gc,) = torch.autograd.grad(torch.cumprod(c, 1).sum(), c, create_graph=True)
    _same(gg.detach(), gc.detach(), **tol)
    (hg,) = torch.autograd.grad(gg.sum(), g)
    (hc,) = torch.autograd.grad(gc.sum(), c)
    _same(hg, hc, **tol)
