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


# The ops beyond the reductions that take axis= for dim= in PyTorch (each checked against
# PyTorch 2.13): the result equals that of the same call spelled with dim=.
XI = torch.tensor([[0, 1], [2, 0], [1, 1]])
IDX = torch.tensor([0, 2])
Y = X[:, :2].clone()
DIM_AND_AXIS_CALLS = {
    "squeeze": (
        lambda: torch.squeeze(X[:1, :, None], dim=0),
        lambda: torch.squeeze(X[:1, :, None], axis=0),
    ),
    "Tensor.squeeze": (lambda: X[:1, :, None].squeeze(0), lambda: X[:1, :, None].squeeze(axis=0)),
    "Tensor.squeeze_": (
        lambda: X[:1, :, None].clone().squeeze_(0),
        lambda: X[:1, :, None].clone().squeeze_(axis=0),
    ),
    "unsqueeze": (lambda: torch.unsqueeze(X, 1), lambda: torch.unsqueeze(X, axis=1)),
    "Tensor.unsqueeze": (lambda: X.unsqueeze(-1), lambda: X.unsqueeze(axis=-1)),
    "Tensor.unsqueeze_": (lambda: X.clone().unsqueeze_(1), lambda: X.clone().unsqueeze_(axis=1)),
    "narrow": (
        lambda: torch.narrow(X, 1, 1, 2),
        lambda: torch.narrow(X, axis=1, start=1, length=2),
    ),
    "Tensor.narrow": (lambda: X.narrow(1, 1, 2), lambda: X.narrow(axis=1, start=1, length=2)),
    "select": (lambda: torch.select(X, 1, 2), lambda: torch.select(X, axis=1, index=2)),
    "Tensor.select": (lambda: X.select(1, 2), lambda: X.select(axis=1, index=2)),
    "chunk": (lambda: torch.chunk(X, 2, 1), lambda: torch.chunk(X, 2, axis=1)),
    "Tensor.chunk": (lambda: X.chunk(2, 1), lambda: X.chunk(2, axis=1)),
    "tensor_split": (lambda: torch.tensor_split(X, 3, 1), lambda: X.tensor_split(3, axis=1)),
    "unbind": (lambda: torch.unbind(X, 1), lambda: torch.unbind(X, axis=1)),
    "Tensor.unbind": (lambda: X.unbind(1), lambda: X.unbind(axis=1)),
    "cat": (lambda: torch.cat([X, X], 1), lambda: torch.cat([X, X], axis=1)),
    "stack": (lambda: torch.stack([X, X], 2), lambda: torch.stack([X, X], axis=2)),
    "unflatten": (
        lambda: torch.unflatten(X, 1, (2, 2)),
        lambda: torch.unflatten(X, axis=1, sizes=(2, 2)),
    ),
    "repeat_interleave": (
        lambda: torch.repeat_interleave(X, 2, 1),
        lambda: X.repeat_interleave(2, axis=1),
    ),
    "select_scatter": (
        lambda: torch.select_scatter(X, X[:, 0] * 0, 1, 2),
        lambda: torch.select_scatter(X, X[:, 0] * 0, axis=1, index=2),
    ),
    "slice_scatter": (
        lambda: torch.slice_scatter(X, Y * 0, 1, 1, 3),
        lambda: torch.slice_scatter(X, Y * 0, axis=1, start=1, end=3),
    ),
    "gather": (lambda: torch.gather(X, 1, XI), lambda: torch.gather(X, axis=1, index=XI)),
    "Tensor.gather": (lambda: X.gather(1, XI), lambda: X.gather(axis=1, index=XI)),
    "take_along_dim": (
        lambda: torch.take_along_dim(X, XI, 1),
        lambda: X.take_along_dim(XI, axis=1),
    ),
    "index_select": (
        lambda: torch.index_select(X, 1, IDX),
        lambda: X.index_select(axis=1, index=IDX),
    ),
    "scatter": (
        lambda: X.scatter(1, XI, -1.0),
        lambda: torch.scatter(X, axis=1, index=XI, value=-1.0),
    ),
    "Tensor.scatter_": (
        lambda: X.clone().scatter_(1, XI, Y),
        lambda: X.clone().scatter_(axis=1, index=XI, src=Y),
    ),
    "scatter_add": (
        lambda: X.scatter_add(1, XI, Y),
        lambda: X.scatter_add(axis=1, index=XI, src=Y),
    ),
    "Tensor.scatter_add_": (
        lambda: X.clone().scatter_add_(0, XI, Y),
        lambda: X.clone().scatter_add_(axis=0, index=XI, src=Y),
    ),
    "scatter_reduce": (
        lambda: torch.scatter_reduce(X, 1, XI, Y, "amax"),
        lambda: torch.scatter_reduce(X, axis=1, index=XI, src=Y, reduce="amax"),
    ),
    "Tensor.scatter_reduce_": (
        lambda: X.clone().scatter_reduce_(1, XI, Y, "prod"),
        lambda: X.clone().scatter_reduce_(axis=1, index=XI, src=Y, reduce="prod"),
    ),
    "index_add": (lambda: X.index_add(1, IDX, Y), lambda: X.index_add(axis=1, index=IDX, source=Y)),
    "Tensor.index_add_": (
        lambda: X.clone().index_add_(1, IDX, Y),
        lambda: X.clone().index_add_(axis=1, index=IDX, source=Y),
    ),
    "index_copy": (
        lambda: torch.index_copy(X, 1, IDX, Y),
        lambda: torch.index_copy(X, axis=1, index=IDX, source=Y),
    ),
    "Tensor.index_copy_": (
        lambda: X.clone().index_copy_(1, IDX, Y),
        lambda: X.clone().index_copy_(axis=1, index=IDX, source=Y),
    ),
    "index_fill": (
        lambda: X.index_fill(1, IDX, -1.0),
        lambda: X.index_fill(axis=1, index=IDX, value=-1.0),
    ),
    "Tensor.index_fill_": (
        lambda: X.clone().index_fill_(1, IDX, -1.0),
        lambda: X.clone().index_fill_(axis=1, index=IDX, value=-1.0),
    ),
    "index_reduce": (
        lambda: torch.index_reduce(X, 1, IDX, Y, "amax"),
        lambda: torch.index_reduce(X, axis=1, index=IDX, source=Y, reduce="amax"),
    ),
    "Tensor.index_reduce_": (
        lambda: X.clone().index_reduce_(1, IDX, Y, "prod"),
        lambda: X.clone().index_reduce_(axis=1, index=IDX, source=Y, reduce="prod"),
    ),
    "diff": (lambda: torch.diff(X, dim=0), lambda: torch.diff(X, axis=0)),
    "Tensor.diff": (lambda: X.diff(2, 0), lambda: X.diff(2, axis=0)),
    "Tensor.cumsum_": (lambda: X.clone().cumsum_(0), lambda: X.clone().cumsum_(axis=0)),
    "Tensor.cumprod_": (lambda: X.clone().cumprod_(1), lambda: X.clone().cumprod_(axis=1)),
    "cross": (lambda: torch.cross(X[:, :3], X[:, 1:], 1), lambda: X[:, :3].cross(X[:, 1:], axis=1)),
    "renorm": (lambda: torch.renorm(X, 2, 0, 5.0), lambda: X.renorm(p=2, axis=0, maxnorm=5.0)),
    "trapezoid": (lambda: torch.trapezoid(X, dim=0), lambda: torch.trapezoid(X, axis=0)),
    "trapz": (lambda: torch.trapz(X, dim=0), lambda: torch.trapz(X, axis=0)),
    "cumulative_trapezoid": (
        lambda: torch.cumulative_trapezoid(X, dim=0),
        lambda: torch.cumulative_trapezoid(X, axis=0),
    ),
    "gradient": (lambda: torch.gradient(X, dim=0), lambda: torch.gradient(X, axis=0)),
    "special.softmax": (
        lambda: torch.special.softmax(X, 0),
        lambda: torch.special.softmax(X, axis=0),
    ),
    "special.log_softmax": (
        lambda: torch.special.log_softmax(X, 0),
        lambda: torch.special.log_softmax(X, axis=0),
    ),
    "special.logsumexp": (
        lambda: torch.special.logsumexp(X, 1, True),
        lambda: torch.special.logsumexp(X, axis=1, keepdims=True),
    ),
    "linalg.vector_norm": (
        lambda: torch.linalg.vector_norm(X, 2, 1, True),
        lambda: torch.linalg.vector_norm(X, axis=1, keepdims=True),
    ),
    "linalg.norm": (lambda: torch.linalg.norm(X, dim=0), lambda: torch.linalg.norm(X, axis=0)),
    "linalg.matrix_norm": (
        lambda: torch.linalg.matrix_norm(X[None], 1, dim=(0, 2), keepdim=True),
        lambda: torch.linalg.matrix_norm(X[None], 1, axis=(0, 2), keepdims=True),
    ),
    "linalg.cross": (
        lambda: torch.linalg.cross(X[:, :3], X[:, 1:], dim=0),
        lambda: torch.linalg.cross(X[:, :3], X[:, 1:], axis=0),
    ),
    "linalg.vecdot": (
        lambda: torch.linalg.vecdot(X, X, dim=0),
        lambda: torch.linalg.vecdot(X, X, axis=0),
    ),
    "fft.fft": (lambda: torch.fft.fft(X, dim=0), lambda: torch.fft.fft(X, axis=0)),
    "fft.rfft": (lambda: torch.fft.rfft(X, dim=0), lambda: torch.fft.rfft(X, axis=0)),
    "fft.ihfft": (lambda: torch.fft.ihfft(X, dim=0), lambda: torch.fft.ihfft(X, axis=0)),
    "fft.fft2": (
        lambda: torch.fft.fft2(X[None], dim=(0, 1)),
        lambda: torch.fft.fft2(X[None], axis=(0, 1)),
    ),
    "fft.irfftn": (lambda: torch.fft.irfftn(X, dim=(0,)), lambda: torch.fft.irfftn(X, axis=(0,))),
    "fft.fftshift": (lambda: torch.fft.fftshift(X, dim=0), lambda: torch.fft.fftshift(X, axis=0)),
    "fft.ifftshift": (
        lambda: torch.fft.ifftshift(X, dim=1),
        lambda: torch.fft.ifftshift(X, axis=1),
    ),
}


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return a.shape == b.shape and torch.equal(a, b)
    return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))


@pytest.mark.parametrize("name", DIM_AND_AXIS_CALLS)
def test_axis_is_dim(name):
    with_dim, with_axis = DIM_AND_AXIS_CALLS[name]
    want = with_dim()
    assert _same(with_axis(), want)


def test_the_oracle_sees_an_ignored_axis():
    """Each axis= above names a dim other than the op's default, so an op that dropped axis=
    would give another result: e.g. these differ."""
    assert not _same(X.chunk(2), X.chunk(2, 1))
    assert not _same(X[:1, :, None].squeeze(), X[:1, :, None].squeeze(0))
    assert not _same(torch.fft.fft2(X[None]), torch.fft.fft2(X[None], dim=(0, 1)))


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.squeeze(X[:1, :, None], 0, axis=0),
        lambda: X.unsqueeze(0, axis=0),
        lambda: X.narrow(0, 0, 1, axis=0),
        lambda: X.select(1, 0, axis=1),
        lambda: torch.gather(X, 1, XI, axis=1),
        lambda: X.gather(1, XI, axis=1),
        lambda: torch.index_select(X, 1, IDX, axis=1),
        lambda: X.scatter_add(1, XI, Y, axis=1),
        lambda: X.index_fill_(1, IDX, 0.0, axis=1),
        lambda: torch.chunk(X, 2, 1, axis=1),
        lambda: X.unbind(1, axis=0),
        lambda: torch.cat([X, X], 1, axis=1),
        lambda: torch.stack([X, X], dim=1, axis=1),
        lambda: torch.diff(X, dim=0, axis=0),
        lambda: X.cumsum_(0, axis=0),
        lambda: torch.fft.fft(X, dim=0, axis=0),
        lambda: torch.linalg.vector_norm(X, dim=0, axis=0),
        lambda: torch.special.softmax(X, 1, axis=1),
    ],
)
def test_dim_and_axis_both_given_is_a_type_error(call):
    with pytest.raises(TypeError, match="axis"):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.gather(X, index=XI),
        lambda: X.index_select(index=IDX),
        lambda: torch.select_scatter(X, X[:, 0], index=0),
        lambda: X.clone().cumsum_(),
        lambda: X.clone().unsqueeze_(),
        lambda: torch.unflatten(X, sizes=(2, 2)),
        lambda: torch.special.softmax(X),
        lambda: X.index_add(1, IDX),
    ],
)
def test_a_required_dim_or_argument_is_still_required(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.flip(X, axis=(0,)),
        lambda: torch.roll(X, 1, axis=1),
        lambda: torch.permute(X, axis=(1, 0)),
        lambda: torch.split(X, 2, axis=1),
        lambda: X.split(2, axis=1),
        lambda: torch.norm(X, axis=1),
        lambda: torch.unique(X, axis=0),
    ],
)
def test_ops_pytorch_gives_no_axis_refuse_it(call):
    """flip/roll/permute take ``dims`` and split/norm/unique are Python functions in PyTorch:
    none of them takes ``axis=``."""
    with pytest.raises(TypeError):
        call()
