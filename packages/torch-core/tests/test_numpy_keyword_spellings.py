"""NumPy's keyword spellings that PyTorch's functions take: ``axis=`` for ``dim=`` and
``keepdims=`` for ``keepdim=`` (karpathy's makemore notebooks write
``P.sum(1, keepdims=True)``); giving both spellings is a TypeError. The values are checked
against NumPy's own reductions. Also ``torch.histogram``'s default of 100 bins."""

import numpy as np
import pytest

import torch

rng = np.random.default_rng(0)
A = rng.random((3, 4)) + 0.1
X = torch.tensor(A)


@pytest.mark.parametrize(
    "name, np_fn",
    [
        ("sum", np.sum),
        ("mean", np.mean),
        ("prod", np.prod),
        ("amax", np.amax),
        ("amin", np.amin),
        ("std", lambda a, axis, keepdims: np.std(a, axis=axis, keepdims=keepdims, ddof=1)),
        ("var", lambda a, axis, keepdims: np.var(a, axis=axis, keepdims=keepdims, ddof=1)),
        ("nansum", np.nansum),
        ("nanmean", np.nanmean),
        ("logsumexp", lambda a, axis, keepdims: np.log(np.exp(a).sum(axis, keepdims=keepdims))),
    ],
)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_take_axis_and_keepdims(name, np_fn, axis, keepdims):
    expected = np_fn(A, axis=axis, keepdims=keepdims)
    for got in (
        getattr(X, name)(axis=axis, keepdims=keepdims),
        getattr(torch, name)(X, axis=axis, keepdims=keepdims),
        getattr(X, name)(axis, keepdims=keepdims),
    ):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_the_notebook_line():
    counts = torch.tensor([[1.0, 3.0], [2.0, 2.0]])
    probs = counts / counts.sum(1, keepdims=True)
    assert probs.tolist() == [[0.25, 0.75], [0.5, 0.5]]


@pytest.mark.parametrize("name", ["max", "min", "median", "mode", "kthvalue"])
def test_value_index_reductions(name):
    args = (2,) if name == "kthvalue" else ()
    got = getattr(X, name)(*args, axis=1, keepdims=True)
    want = getattr(X, name)(*args, dim=1, keepdim=True)
    assert torch.equal(got.values, want.values) and torch.equal(got.indices, want.indices)
    assert got.values.shape == (3, 1)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name):
    got = getattr(X, name)(axis=0, keepdims=True)
    np.testing.assert_array_equal(got.numpy(), getattr(np, name)(A, axis=0)[None])


def test_bool_reductions_and_count_nonzero():
    b = X > 0.5
    np.testing.assert_array_equal(b.all(axis=1).numpy(), (A > 0.5).all(axis=1))
    np.testing.assert_array_equal(b.any(axis=0, keepdims=True).numpy(), (A > 0.5).any(0)[None])
    np.testing.assert_array_equal(
        torch.count_nonzero(b, axis=1).numpy(), np.count_nonzero(A > 0.5, axis=1)
    )


def test_scans_sorts_and_softmax_take_axis():
    np.testing.assert_allclose(X.cumsum(axis=1).numpy(), np.cumsum(A, axis=1))
    np.testing.assert_allclose(torch.cumprod(X, axis=0).numpy(), np.cumprod(A, axis=0))
    np.testing.assert_allclose(X.sort(axis=0).values.numpy(), np.sort(A, axis=0))
    np.testing.assert_array_equal(X.argsort(axis=1).numpy(), np.argsort(A, axis=1))
    np.testing.assert_allclose(X.topk(2, axis=0).values.numpy(), -np.sort(-A, axis=0)[:2])
    e = np.exp(A)
    np.testing.assert_allclose(X.softmax(axis=1).numpy(), e / e.sum(1, keepdims=True))
    np.testing.assert_allclose(torch.softmax(X, axis=0).numpy(), e / e.sum(0, keepdims=True))
    np.testing.assert_allclose(
        X.log_softmax(axis=1).numpy(), np.log(e / e.sum(1, keepdims=True)), rtol=1e-12
    )
    np.testing.assert_allclose(
        torch.quantile(X, 0.5, axis=1, keepdims=True).numpy(),
        np.quantile(A, 0.5, axis=1, keepdims=True),
    )
    mn, mx = torch.aminmax(X, axis=1, keepdims=True)
    np.testing.assert_allclose(mn.numpy(), A.min(1, keepdims=True))
    np.testing.assert_allclose(mx.numpy(), A.max(1, keepdims=True))


def test_both_spellings_is_a_type_error():
    with pytest.raises(TypeError, match="axis"):
        X.sum(1, axis=1)
    with pytest.raises(TypeError, match="axis"):
        torch.mean(X, dim=1, axis=0)
    with pytest.raises(TypeError, match="keepdims"):
        X.sum(1, keepdim=True, keepdims=True)


def test_a_required_dim_is_still_required():
    with pytest.raises(TypeError):
        X.cumsum()
    with pytest.raises(TypeError):
        X.softmax()
    with pytest.raises(TypeError):
        torch.logsumexp(X)


def test_flip_refuses_unknown_keywords():
    assert X.flip(dims=(0,)).tolist() == X.flip(0).tolist()
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        X.flip(0, foo=1)


def test_histogram_defaults_to_100_bins():
    t = torch.linspace(0, 1, 1000, dtype=torch.float64)
    hist, edges = torch.histogram(t, density=True)
    np_hist, np_edges = np.histogram(t.numpy(), bins=100, density=True)
    assert hist.shape == (100,) and edges.shape == (101,)
    np.testing.assert_allclose(hist.numpy(), np_hist, rtol=1e-9)
    np.testing.assert_allclose(edges.numpy(), np_edges, rtol=1e-9)
    assert t.histogram().hist.shape == (100,)
