"""layer_norm's own kernels (torch._C._layer_norm and its backward) against NumPy written
from the definition: each row of the last k dims normalised by its mean and biased variance,
times weight plus bias; the gradients of sum(g * y)."""

import numpy as np
import pytest

import torch

CASES = [  # (input shape, normalised dims k)
    ((7, 5), 1),
    ((4, 3, 192), 1),  # a transformer's rows
    ((2, 3, 4), 2),
    ((300, 17), 1),  # rows split across threads unevenly
    ((5,), 1),
    ((64, 1), 1),
]


def ref(x, k, w, b, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    m = x.mean(axes, keepdims=True)
    rstd = 1 / np.sqrt(((x - m) ** 2).mean(axes, keepdims=True) + eps)
    y = (x - m) * rstd
    y = y * w if w is not None else y
    return (y + b if b is not None else y), m.ravel(), rstd.ravel()


def ref_grads(g, x, k, w, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    lead = tuple(range(x.ndim - k))
    m = x.mean(axes, keepdims=True)
    rstd = 1 / np.sqrt(((x - m) ** 2).mean(axes, keepdims=True) + eps)
    xhat = (x - m) * rstd
    gh = g * w if w is not None else g
    gx = rstd * (gh - gh.mean(axes, keepdims=True) - xhat * (gh * xhat).mean(axes, keepdims=True))
    return gx, (g * xhat).sum(lead), g.sum(lead)


def close(got, want, dtype):
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape, k", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@pytest.mark.parametrize("threads", [1, 2])
def test_layer_norm_forward_and_backward_match_numpy(shape, k, dtype, affine, threads):
    torch.set_num_threads(threads)
    try:
        rng = np.random.default_rng(0)
        x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
        tail = shape[len(shape) - k :]
        w = rng.standard_normal(tail).astype(dtype) if affine in ("both", "weight") else None
        b = rng.standard_normal(tail).astype(dtype) if affine in ("both", "bias") else None
        T = lambda a: None if a is None else torch.from_numpy(a)  # noqa: E731
        y, mean, rstd = torch._C._layer_norm(T(x), k, T(w), T(b), 1e-5)
        ry, rm, rr = ref(x.astype(np.float64), k, w, b, 1e-5)
        close(y, ry, dtype), close(mean, rm, dtype), close(rstd, rr, dtype)
        assert y.shape == shape and mean.shape == rstd.shape == (int(np.prod(shape[:-k])),)
        g = rng.standard_normal(shape).astype(dtype)
        gx, gw, gb = torch._C._layer_norm_backward(T(g), T(x), k, T(w), mean, rstd)
        rgx, rgw, rgb = ref_grads(g.astype(np.float64), x.astype(np.float64), k, w, 1e-5)
        close(gx, rgx, dtype), close(gw, rgw, dtype), close(gb, rgb, dtype)
        assert gw.shape == gb.shape == tail
    finally:
        torch.set_num_threads(2)


def test_layer_norm_of_constant_rows_is_zero_and_nan_propagates():
    y = torch._C._layer_norm(torch.full((3, 8), 2.5), 1, None, None, 1e-5)[0]
    assert torch.equal(y, torch.zeros(3, 8))
    x = torch.randn(2, 4)
    x[1, 2] = float("nan")
    y = torch._C._layer_norm(x, 1, None, None, 1e-5)[0]
    assert not torch.isnan(y[0]).any() and torch.isnan(y[1]).all()


def test_layer_norm_errors_name_the_op_and_shapes():
    with pytest.raises(
        RuntimeError, match=r"layer_norm\(\): expected weight to be a float32 tensor of 4 values"
    ):
        torch._C._layer_norm(torch.randn(2, 4), 1, torch.randn(3), None, 1e-5)
    with pytest.raises(RuntimeError, match=r"layer_norm\(\): cannot normalise the last 3 dims"):
        torch._C._layer_norm(torch.randn(2, 4), 3, None, None, 1e-5)
    with pytest.raises(TypeError, match="layer_norm"):
        torch._C._layer_norm(torch.ones(2, 4, dtype=torch.int64), 1, None, None, 1e-5)
    with pytest.raises(RuntimeError, match=r"layer_norm_backward\(\): expected grad and input"):
        x = torch.randn(2, 4)
        _, m, r = torch._C._layer_norm(x, 1, None, None, 1e-5)
        torch._C._layer_norm_backward(torch.randn(2, 5), x, 1, None, m, r)
