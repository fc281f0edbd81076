"""mean, var, std, logsumexp and the 2-norm: one core op each (torch._C._mean, _var, _std,
_logsumexp, _norm2) with their backward kernels, against NumPy written from the
definitions; with torch-autograd installed, their gradients against the same formulas and
gradcheck / gradgradcheck in float64."""

import math

import numpy as np
import pytest

import torch
from torch import _C, _packages

needs_autograd = pytest.mark.skipif(
    not _packages.installed(torch.__path__, "autograd"), reason="needs torch-autograd"
)

SHAPES_DIMS = [  # (shape, dim argument)
    ((1000,), None),
    ((7, 5), 1),
    ((7, 5), 0),  # the reduced dim first: rows made by a permuted copy
    ((3, 4, 5), (0, 2)),
    ((3, 4, 5), [-1, -2]),
    ((2, 1, 6), (1,)),  # a size-1 dim
    ((40000,), 0),  # one row split across threads
    ((3, 50000), 1),  # fewer rows than... (2 threads: rows in parallel)
    ((), None),
]


def np_dims(shape, dim):
    if dim is None or len(shape) == 0:
        return tuple(range(len(shape)))
    return tuple(d % len(shape) for d in ((dim,) if isinstance(dim, int) else dim))


def close(got, want, dtype, tol32=1e-5):
    tol = tol32 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(np.asarray(got.numpy(), np.float64), want, rtol=tol, atol=tol)


def data(shape, dtype, seed=0, offset=0.0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype) + dtype(offset)


def ref_var(x, axes, c, keepdim):
    x = x.astype(np.float64)
    n = math.prod(x.shape[a] for a in axes)
    dev = x - x.mean(axes, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # (no degrees of freedom: nan, inf)
        return (dev * dev).sum(axes, keepdims=keepdim) / max(n - c, 0)


def ref_lse(x, axes, keepdim):
    x = x.astype(np.float64)
    m = x.max(axes, keepdims=True) if x.size else np.zeros([1] * x.ndim)
    m = np.where(np.isinf(m), 0, m)
    r = np.log(np.exp(x - m).sum(axes, keepdims=True)) + m
    return r if keepdim else r.squeeze(axes) if axes else r


@pytest.mark.parametrize("shape, dim", SHAPES_DIMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("keepdim", [False, True])
def test_forward_matches_numpy(shape, dim, dtype, keepdim):
    x = data(shape, dtype)
    axes = np_dims(shape, dim)
    t = torch.tensor(x)
    x64 = x.astype(np.float64)
    close(torch.mean(t, dim, keepdim), x64.mean(axes, keepdims=keepdim), dtype)
    for c in (0, 1):
        v = ref_var(x, axes, c, keepdim)
        close(torch.var(t, dim, keepdim=keepdim, correction=c), v, dtype)
        close(torch.std(t, dim, keepdim=keepdim, correction=c), np.sqrt(v), dtype)
    close(
        torch.logsumexp(t, dim if dim is not None else (), keepdim),
        ref_lse(x, axes, keepdim),
        dtype,
    )
    norm = np.sqrt((x64 * x64).sum(axes, keepdims=keepdim))
    close(torch.norm(t, dim=dim, keepdim=keepdim), norm, dtype)


def test_var_is_accurate_far_from_zero():
    # the mean is rounded to float32; the squared deviations are corrected for it
    x = data((100000,), np.float32, offset=1000.0)
    close(torch.var(torch.tensor(x)), ref_var(x, (0,), 1, False), np.float32, 1e-4)


def test_non_contiguous_inputs():
    x = data((6, 8), np.float64)
    t = torch.tensor(x).t()  # (8, 6), strided
    xt = x.T
    close(torch.var(t, 1), ref_var(xt, (1,), 1, False), np.float64)
    close(torch.logsumexp(t, 0), ref_lse(xt, (0,), False), np.float64)
    s = torch.tensor(x)[:, ::2]
    close(torch.std(s, 0), np.sqrt(ref_var(x[:, ::2], (0,), 1, False)), np.float64)


def test_special_values():
    inf, nan = math.inf, math.nan
    # logsumexp: all -inf gives -inf, +inf gives inf, NaN propagates; empty rows give -inf
    r = torch.logsumexp(torch.tensor([[-inf, -inf], [inf, 1.0], [nan, 1.0]]), 1)
    assert r[0].item() == -inf and r[1].item() == inf and math.isnan(r[2].item())
    assert torch.logsumexp(torch.zeros(0, 3), 0).tolist() == [-inf] * 3
    # var: one value with correction 1, or no values, is NaN; a constant is 0
    assert math.isnan(torch.var(torch.ones(1)).item())
    assert math.isnan(torch.var(torch.zeros(0)).item())
    assert torch.std(torch.full((5,), 3.0)).item() == 0
    assert torch.var(torch.tensor([1.0, 2.0]), correction=3).item() == inf
    assert math.isnan(torch.mean(torch.zeros(0)).item())
    assert torch.var(torch.zeros(0, 3), 1).shape == (0,)


def test_dtypes():
    h = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float16)
    assert torch.var(h).dtype == torch.float16
    assert torch.var(h).item() == pytest.approx(np.var([1, 2, 4], ddof=1), rel=1e-3)
    assert torch.logsumexp(h, 0).dtype == torch.float16
    assert torch.mean(torch.arange(4), dtype=torch.float64).item() == 1.5
    assert torch.logsumexp(torch.arange(3), 0).dtype == torch.get_default_dtype()
    for fn in (torch.var, torch.std):
        with pytest.raises(RuntimeError, match=fn.__name__):
            fn(torch.arange(3))
    with pytest.raises(RuntimeError, match="mean"):
        torch.mean(torch.arange(3))
    with pytest.raises(RuntimeError, match="norm"):
        torch.norm(torch.arange(3))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        torch.var(torch.ones(2, 3), (1, 1))
    with pytest.raises(IndexError):
        torch.logsumexp(torch.ones(2, 3), 2)


def test_meta_tensors_are_shaped():
    x = torch.empty(3, 4, device="meta")
    for fn in (lambda t: torch.var(t, 0), lambda t: torch.logsumexp(t, 1), torch.norm):
        assert fn(x).is_meta


# ---------------------------------------------------------------- backward kernels


@pytest.mark.parametrize("shape, dim", SHAPES_DIMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("keepdim", [False, True])
def test_backward_kernels_match_numpy(shape, dim, dtype, keepdim):
    x = data(shape, dtype, seed=1)
    axes = np_dims(shape, dim)
    t = torch.tensor(x)
    x64 = x.astype(np.float64)
    lse = _C._logsumexp(t, dim, keepdim)
    g = data(tuple(lse.shape), dtype, seed=2)
    gk = np.asarray(g, np.float64).reshape([1 if a in axes else n for a, n in enumerate(shape)])
    want = gk * np.exp(x64 - ref_lse(x, axes, True))
    close(_C._logsumexp_backward(torch.tensor(g), t, lse, dim, keepdim), want, dtype, 1e-4)
    n = math.prod(shape[a] for a in axes)
    dev = x64 - x64.mean(axes, keepdims=True)
    for c in (0, 1):
        if n - c <= 0:
            continue
        v = _C._var(t, dim, c, keepdim)
        close(
            _C._var_backward(torch.tensor(g), t, v, dim, c, keepdim, False),
            2 * gk * dev / (n - c),
            dtype,
            1e-4,
        )
        s = _C._std(t, dim, c, keepdim)
        sk = np.sqrt(ref_var(x, axes, c, True))
        with np.errstate(invalid="ignore", divide="ignore"):  # std 0: gradient 0
            want = np.where(sk == 0, 0.0, gk * dev / (sk * (n - c)))
        close(_C._var_backward(torch.tensor(g), t, s, dim, c, keepdim, True), want, dtype, 1e-4)


# ---------------------------------------------------------------- through autograd

FUNCS = {
    "mean": lambda x, dim, k: torch.mean(x, dim, k),
    "var": lambda x, dim, k: torch.var(x, dim, keepdim=k),
    "var0": lambda x, dim, k: torch.var(x, dim, keepdim=k, correction=0),
    "std": lambda x, dim, k: torch.std(x, dim, keepdim=k),
    "logsumexp": lambda x, dim, k: torch.logsumexp(x, dim if dim is not None else (), k),
    "norm": lambda x, dim, k: torch.norm(x, dim=dim, keepdim=k),
}
SMALL = [((6,), None), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), (0, 2)), ((2, 3, 4), -1)]


@needs_autograd
@pytest.mark.parametrize("name", list(FUNCS))
@pytest.mark.parametrize("shape, dim", SMALL)
@pytest.mark.parametrize("keepdim", [False, True])
def test_gradcheck_and_gradgradcheck(name, shape, dim, keepdim):
    x = torch.tensor(data(shape, np.float64, seed=3), requires_grad=True)
    fn = lambda x: FUNCS[name](x, dim, keepdim)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (x,))
    assert torch.autograd.gradgradcheck(fn, (x,))


@needs_autograd
def test_gradients_match_numpy_and_have_one_node():
    x = data((5, 7), np.float64, seed=4)
    t = torch.tensor(x, requires_grad=True)
    dev = x - x.mean(1, keepdims=True)
    std = np.sqrt((dev * dev).sum(1, keepdims=True) / 6)
    cases = [
        (torch.var(t, 1), 2 * dev / 6, "VarBackward0"),
        (torch.std(t, 1), dev / (std * 6), "StdBackward0"),
        (torch.logsumexp(t, 1), np.exp(x - ref_lse(x, (1,), True)), "LogsumexpBackward0"),
        (
            torch.norm(t, dim=1),
            x / np.sqrt((x * x).sum(1, keepdims=True)),
            "LinalgVectorNormBackward0",
        ),
        (torch.mean(t, 1), np.full(x.shape, 1 / 7), "MeanBackward0"),
    ]
    for out, want, node in cases:
        assert type(out.grad_fn).__name__ == node
        assert out.grad_fn.next_functions[0][0].name() == "AccumulateGrad"  # nothing between
        (g,) = torch.autograd.grad(out.sum(), t)
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-12, atol=1e-12)


@needs_autograd
def test_zero_slices_get_zero_gradient():
    x = torch.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    torch.norm(x, dim=1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], pytest.approx([0.6, 0.8])]
    c = torch.full((4,), 2.0, requires_grad=True)
    torch.std(c).backward()
    assert c.grad.tolist() == [0.0] * 4
    z = torch.zeros(3, requires_grad=True)
    torch.norm(z).backward()
    assert z.grad.tolist() == [0.0] * 3


@needs_autograd
def test_float32_gradients_keep_dtype_and_mean_dtype_argument():
    x = torch.randn(4, 3, requires_grad=True)
    torch.mean(x, dtype=torch.float64).backward()
    assert x.grad.dtype == torch.float32
    np.testing.assert_allclose(x.grad.numpy(), np.full((4, 3), 1 / 12), rtol=1e-6)
    h = torch.randn(8, dtype=torch.float16, requires_grad=True)
    torch.var(h).backward()
    assert h.grad.dtype == torch.float16
