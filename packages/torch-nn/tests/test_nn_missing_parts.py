"""Fold/Unfold, MaxUnpool, parametrizations, weight/spectral norm, affine_grid/grid_sample,
lazy modules and MultiLabelMarginLoss, checked against numpy oracles and formulas."""

import copy
import itertools
import math
import pickle
import warnings

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck
from torch.nn.utils import parametrizations, parametrize


def _rng(seed=0):
    return np.random.default_rng(seed)


def _t(a, requires_grad=False):
    return torch.tensor(np.asarray(a), requires_grad=requires_grad)


# ================================================================ Fold / Unfold
def _np_im2col(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    ho = (h + 2 * p - d * (k - 1) - 1) // s + 1
    wo = (w + 2 * p - d * (k - 1) - 1) // s + 1
    out = np.zeros((n, c * k * k, ho * wo))
    for ci, ki, kj, oi, oj in itertools.product(range(c), range(k), range(k), range(ho), range(wo)):
        out[:, ci * k * k + ki * k + kj, oi * wo + oj] = xp[:, ci, oi * s + ki * d, oj * s + kj * d]
    return out


@pytest.mark.parametrize("k,d,p,s", [(2, 1, 0, 1), (3, 1, 1, 2), (2, 2, 1, 1)])
def test_unfold_module_matches_im2col(k, d, p, s):
    x = _rng().standard_normal((2, 3, 6, 5))
    out = nn.Unfold(k, dilation=d, padding=p, stride=s)(_t(x))
    np.testing.assert_allclose(out.numpy(), _np_im2col(x, k, d, p, s), rtol=1e-12)


def test_fold_is_adjoint_of_unfold_and_sums_overlaps():
    rng = _rng(1)
    x = rng.standard_normal((2, 3, 5, 6))
    fold, unfold = nn.Fold((5, 6), 3, padding=1), nn.Unfold(3, padding=1)
    cols = unfold(_t(x))
    # fold(unfold(x)) = x * (number of blocks covering each pixel)
    counts = fold(unfold(torch.ones(1, 1, 5, 6, dtype=torch.float64)))
    np.testing.assert_allclose(fold(cols).numpy(), x * counts.numpy(), rtol=1e-12)
    # <unfold(x), y> == <x, fold(y)>
    y = rng.standard_normal(cols.shape)
    lhs = float((cols * _t(y)).sum())
    rhs = float((_t(x) * fold(_t(y))).sum())
    assert lhs == pytest.approx(rhs, rel=1e-10)
    assert fold(cols[0]).shape == (3, 5, 6)  # unbatched


def test_fold_unfold_repr_and_errors():
    assert repr(nn.Unfold(3)) == "Unfold(kernel_size=3, dilation=1, padding=0, stride=1)"
    assert (
        repr(nn.Fold((4, 5), 2))
        == "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"
    )
    with pytest.raises(RuntimeError):
        nn.Unfold(2)(torch.zeros(2, 3))
    with pytest.raises(RuntimeError):
        nn.Fold((3, 3), 2)(torch.zeros(2))


# ================================================================ MaxUnpool
def _np_unpool_oracle(x, k, s):
    """zeros except each window's max, at its place (2-D, no padding)."""
    n, c, h, w = x.shape
    out = np.zeros_like(x)
    for b, ch in itertools.product(range(n), range(c)):
        for i in range(0, h - k + 1, s):
            for j in range(0, w - k + 1, s):
                win = x[b, ch, i : i + k, j : j + k]
                a, bb = np.unravel_index(np.argmax(win), win.shape)
                out[b, ch, i + a, j + bb] = win[a, bb]
    return out


@pytest.mark.parametrize("k,s", [(2, 2), (3, 2), (2, 1)])
def test_maxunpool2d_keeps_maxima_at_their_positions(k, s):
    x = _rng(2).standard_normal((2, 3, 7, 6))
    pooled, idx = nn.MaxPool2d(k, s, return_indices=True)(_t(x))
    out = nn.MaxUnpool2d(k, s)(pooled, idx, output_size=x.shape)
    np.testing.assert_array_equal(out.numpy(), _np_unpool_oracle(x, k, s))


def test_maxunpool1d_3d_and_output_size():
    rng = _rng(3)
    x1 = rng.standard_normal((2, 2, 9))
    p1, i1 = F.max_pool1d(_t(x1), 3, 3, return_indices=True)
    u1 = nn.MaxUnpool1d(3)(p1, i1)
    assert u1.shape == (2, 2, 9)
    expect = np.zeros_like(x1)
    for b, c, j in itertools.product(range(2), range(2), range(3)):
        a = np.argmax(x1[b, c, 3 * j : 3 * j + 3])
        expect[b, c, 3 * j + a] = x1[b, c, 3 * j + a]
    np.testing.assert_array_equal(u1.numpy(), expect)
    x3 = rng.standard_normal((1, 2, 4, 4, 5))
    p3, i3 = F.max_pool3d(_t(x3), 2, return_indices=True)
    u3 = nn.MaxUnpool3d(2)(p3, i3, output_size=[4, 4, 5])
    assert u3.shape == (1, 2, 4, 4, 5)
    np.testing.assert_array_equal(
        F.max_pool3d(u3, 2).numpy(), p3.numpy()
    )  # the maxima survive, nothing larger appears
    assert float((u3 != 0).sum()) == p3.numel()
    with pytest.raises(ValueError):
        nn.MaxUnpool2d(2)(*F.max_pool2d(_t(rng.standard_normal((1, 1, 4, 4))), 2,
                                        return_indices=True), output_size=[9, 9])  # fmt: skip


def test_maxunpool_repr_and_gradient():
    assert (
        repr(nn.MaxUnpool2d(2)) == "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))"
    )
    assert (
        repr(nn.MaxUnpool1d(3, 2, 1)) == "MaxUnpool1d(kernel_size=(3,), stride=(2,), padding=(1,))"
    )
    x = _t(_rng(4).standard_normal((1, 2, 4, 4)))
    pooled, idx = F.max_pool2d(x, 2, return_indices=True)
    p = pooled.detach().requires_grad_(True)
    assert gradcheck(lambda t: F.max_unpool2d(t, idx, 2), (p,))


# ================================================================ parametrize
class _Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(0, 1)


class _Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(0, 1)

    def right_inverse(self, A):
        return A.triu(1)


class _Scale(nn.Module):
    def forward(self, X):
        return X * 2

    def right_inverse(self, Y):
        return Y / 2


def test_register_parametrization_basics():
    m = nn.Linear(3, 3)
    w = m.weight
    out = parametrize.register_parametrization(m, "weight", _Symmetric())
    assert out is m
    assert type(m).__name__ == "ParametrizedLinear"
    assert isinstance(m, nn.Linear)
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    assert parametrize.is_parametrized(m)
    assert parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert m.parametrizations.weight.original is w  # the same Parameter object
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    W = m.weight.detach().numpy()
    wn = w.detach().numpy()
    np.testing.assert_allclose(W, np.triu(wn) + np.triu(wn, 1).T)
    # gradients reach the original
    m(torch.ones(2, 3)).sum().backward()
    assert w.grad is not None and w.grad.shape == (3, 3)
    assert "ParametrizationList" in repr(m) and "_Symmetric()" in repr(m)


def test_parametrization_right_inverse_and_assignment():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", _Skew())
    X = np.array([[0.0, 1, 2], [-1, 0, 3], [-2, -3, 0]], dtype=np.float32)
    m.weight = torch.tensor(X)
    np.testing.assert_allclose(m.weight.detach().numpy(), X)
    np.testing.assert_allclose(m.parametrizations.weight.original.detach().numpy(), np.triu(X, 1))
    # the original was the right inverse of the weight at registration time
    m2 = nn.Linear(2, 2)
    w0 = m2.weight.detach().numpy().copy()
    parametrize.register_parametrization(m2, "weight", _Scale())
    np.testing.assert_allclose(m2.parametrizations.weight.original.detach().numpy(), w0 / 2)
    np.testing.assert_allclose(m2.weight.detach().numpy(), w0, rtol=1e-6)
    # no right_inverse: assignment is an error
    m3 = parametrize.register_parametrization(nn.Linear(3, 3), "weight", _Symmetric())
    with pytest.raises(RuntimeError, match="right_inverse"):
        m3.weight = torch.eye(3)


def test_parametrization_chain_and_sequence_originals():
    m = nn.Linear(2, 2)
    w0 = m.weight.detach().numpy().copy()
    parametrize.register_parametrization(m, "weight", _Scale())
    parametrize.register_parametrization(m, "weight", _Scale())
    assert len(m.parametrizations.weight) == 2
    np.testing.assert_allclose(m.weight.detach().numpy(), w0 * 2, rtol=1e-6)

    class Split(nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, w):
            return w * 0.25, w * 0.75

    m = nn.Linear(2, 3)
    w0 = m.weight.detach().numpy().copy()
    parametrize.register_parametrization(m, "weight", Split())
    keys = list(m.state_dict())
    assert keys == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]
    np.testing.assert_allclose(m.weight.detach().numpy(), w0, rtol=1e-6)
    m.weight = torch.ones(3, 2)
    np.testing.assert_allclose(m.parametrizations.weight.original0.detach().numpy(), 0.25)
    with pytest.raises(ValueError):
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().numpy(), 1.0)


def test_remove_parametrizations():
    m = nn.Linear(3, 3)
    w = m.weight
    wn = w.detach().numpy().copy()
    parametrize.register_parametrization(m, "weight", _Symmetric())
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is w  # the same object, holding the parametrized value
    np.testing.assert_allclose(m.weight.detach().numpy(), np.triu(wn) + np.triu(wn, 1).T)
    assert sorted(m.state_dict()) == ["bias", "weight"]
    m = nn.Linear(3, 3)
    wn = m.weight.detach().numpy().copy()
    parametrize.register_parametrization(m, "weight", _Symmetric())
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_allclose(m.weight.detach().numpy(), wn)
    with pytest.raises(ValueError, match="does not have a parametrization"):
        parametrize.remove_parametrizations(m, "weight")


def test_parametrization_errors():
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        parametrize.register_parametrization(nn.Linear(2, 2), "foo", _Symmetric())

    class Row(nn.Module):
        def forward(self, X):
            return X[0]

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    with pytest.raises(ValueError, match="shape"):
        parametrize.register_parametrization(nn.Linear(3, 3), "weight", Row())
    with pytest.raises(ValueError, match="dtype"):
        parametrize.register_parametrization(nn.Linear(3, 3), "weight", ToDouble())
    m = parametrize.register_parametrization(nn.Linear(3, 3), "weight", Row(), unsafe=True)
    assert m.weight.shape == (3,)
    m = parametrize.register_parametrization(nn.Linear(3, 3), "weight", _Symmetric())
    with pytest.raises(RuntimeError, match="state_dict"):
        pickle.dumps(m)


def test_parametrization_cached_buffers_and_copies():
    m = parametrize.register_parametrization(nn.Linear(3, 3), "weight", _Symmetric())
    assert m.weight is not m.weight
    with parametrize.cached():
        a = m.weight
        assert m.weight is a
        with parametrize.cached():
            assert m.weight is a
    assert m.weight is not a
    # deepcopy works and copies the original
    m2 = copy.deepcopy(m)
    assert type(m2).__name__ == "ParametrizedLinear"
    assert m2.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())
    # a parametrized buffer
    b = nn.Module()
    b.register_buffer("buf", _t(_rng(5).standard_normal((3, 3))))
    parametrize.register_parametrization(b, "buf", _Symmetric())
    assert list(b.state_dict()) == ["parametrizations.buf.original"]
    assert np.allclose(b.buf.numpy(), b.buf.numpy().T)
    # state_dict round trip into a module parametrized the same way
    b2 = nn.Module()
    b2.register_buffer("buf", torch.zeros(3, 3, dtype=torch.float64))
    parametrize.register_parametrization(b2, "buf", _Symmetric())
    b2.load_state_dict(b.state_dict())
    np.testing.assert_array_equal(b2.buf.numpy(), b.buf.numpy())
    # transfer: same parametrizations, shared originals
    src = parametrize.register_parametrization(nn.Linear(3, 3), "weight", _Symmetric())
    dst = parametrize.transfer_parametrizations_and_params(src, nn.Linear(3, 3))
    assert parametrize.is_parametrized(dst, "weight")
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original


# ================================================================ weight norm
def _np_weight_norm(g, v, dim):
    if dim is None or dim == -1:
        return g * v / np.sqrt((v**2).sum())
    axes = tuple(i for i in range(v.ndim) if i != dim % v.ndim)
    return g * v / np.sqrt((v**2).sum(axis=axes, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, 3, -2, None])
def test_parametrized_weight_norm_formula(dim):
    rng = _rng(6)
    W = rng.standard_normal((4, 3, 2, 2))
    c = nn.Conv2d(3, 4, 2).double()
    with torch.no_grad():
        c.weight.copy_(_t(W))
    parametrizations.weight_norm(c, dim=dim)
    g = c.parametrizations.weight.original0
    v = c.parametrizations.weight.original1
    expect_g_shape = [1] * 4 if dim is not None else []
    if dim is not None:
        expect_g_shape[dim % 4] = W.shape[dim % 4]
    assert list(g.shape) == expect_g_shape
    np.testing.assert_allclose(c.weight.detach().numpy(), W, rtol=1e-12)  # initially unchanged
    with torch.no_grad():
        g.copy_(_t(rng.uniform(0.5, 2, g.shape)))
        v.copy_(_t(rng.standard_normal(v.shape)))
    np.testing.assert_allclose(
        c.weight.detach().numpy(),
        _np_weight_norm(g.detach().numpy(), v.detach().numpy(), dim),
        rtol=1e-12,
    )
    assert list(c.state_dict()) == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]


def test_parametrized_weight_norm_gradcheck_and_old_keys():
    lin = parametrizations.weight_norm(nn.Linear(3, 2).double())
    g, v = lin.parametrizations.weight.original0, lin.parametrizations.weight.original1
    fn = lin.parametrizations.weight[0]
    assert gradcheck(
        lambda a, b: fn(a, b), (g.detach().requires_grad_(), v.detach().requires_grad_())
    )
    # a state_dict of the hook-based weight_norm loads into the parametrized one
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = nn.utils.weight_norm(nn.Linear(3, 2).double())
    old(torch.ones(1, 3, dtype=torch.float64))
    lin.load_state_dict(old.state_dict())
    np.testing.assert_allclose(lin.weight.detach().numpy(), old.weight.detach().numpy())


def test_hook_weight_norm():
    rng = _rng(7)
    lin = nn.Linear(3, 4).double()
    W = lin.weight.detach().numpy().copy()
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(lin)
    assert list(lin.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert lin.weight_g.shape == (4, 1)
    np.testing.assert_allclose(lin.weight_g.detach().numpy(), np.linalg.norm(W, axis=1)[:, None])
    with torch.no_grad():
        lin.weight_g.copy_(_t(rng.uniform(0.5, 2, (4, 1))))
        lin.weight_v.copy_(_t(rng.standard_normal((4, 3))))
    x = rng.standard_normal((2, 3))
    expect_w = _np_weight_norm(lin.weight_g.detach().numpy(), lin.weight_v.detach().numpy(), 0)
    np.testing.assert_allclose(
        lin(_t(x)).detach().numpy(), x @ expect_w.T + lin.bias.detach().numpy(), rtol=1e-12
    )
    lin(_t(x)).sum().backward()
    assert lin.weight_g.grad is not None and lin.weight_v.grad is not None
    with pytest.raises(RuntimeError, match="two weight_norm hooks"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            nn.utils.weight_norm(lin)
    nn.utils.remove_weight_norm(lin)
    assert isinstance(lin.weight, nn.Parameter)
    assert sorted(lin.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(lin.weight.detach().numpy(), expect_w, rtol=1e-12)
    with pytest.raises(ValueError, match="not found"):
        nn.utils.remove_weight_norm(lin)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert nn.utils.weight_norm(nn.Linear(3, 4), dim=None).weight_g.shape == ()


# ================================================================ spectral norm
def _top_singular_value(w, dim=0):
    w = np.moveaxis(w, dim, 0)
    return np.linalg.svd(w.reshape(w.shape[0], -1), compute_uv=False)[0]


def test_hook_spectral_norm_converges_to_unit_spectral_norm():
    m = nn.Linear(6, 5).double()
    with torch.no_grad():
        m.weight.copy_(_t(_rng(8).standard_normal((5, 6)) * 3))
    w_orig = m.weight.detach().numpy().copy()
    nn.utils.spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert m.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    assert m.weight_u.shape == (5,) and m.weight_v.shape == (6,)
    for _ in range(100):
        m(torch.ones(1, 6, dtype=torch.float64))
    assert _top_singular_value(m.weight.detach().numpy()) == pytest.approx(1.0, abs=1e-6)
    sigma = _top_singular_value(w_orig)
    np.testing.assert_allclose(m.weight.detach().numpy(), w_orig / sigma, rtol=1e-6)
    # gradient reaches weight_orig; eval mode leaves u and v alone
    m(torch.ones(1, 6, dtype=torch.float64)).sum().backward()
    assert m.weight_orig.grad is not None
    m.eval()
    u = m.weight_u.clone()
    m(torch.ones(1, 6, dtype=torch.float64))
    np.testing.assert_array_equal(m.weight_u.numpy(), u.numpy())
    # a state_dict round trip keeps the normalised weight
    m2 = nn.utils.spectral_norm(nn.Linear(6, 5).double())
    m2.load_state_dict(m.state_dict())
    m2.eval()
    m2(torch.ones(1, 6, dtype=torch.float64))
    np.testing.assert_allclose(m2.weight.detach().numpy(), m.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="two spectral_norm hooks"):
        nn.utils.spectral_norm(m)
    nn.utils.remove_spectral_norm(m)
    assert isinstance(m.weight, nn.Parameter)
    assert sorted(m.state_dict()) == ["bias", "weight"]
    assert not m._state_dict_hooks and not m._forward_pre_hooks
    with pytest.raises(ValueError, match="not found"):
        nn.utils.remove_spectral_norm(m)


def test_hook_spectral_norm_dims_and_errors():
    ct = nn.utils.spectral_norm(nn.ConvTranspose2d(3, 4, 2))  # rows: dimension 1
    assert ct.weight_u.shape == (4,) and ct.weight_v.shape == (3 * 2 * 2,)
    conv = nn.utils.spectral_norm(nn.Conv2d(3, 4, 2))
    assert conv.weight_u.shape == (4,) and conv.weight_v.shape == (12,)
    with pytest.raises(ValueError, match="n_power_iterations"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


def test_parametrized_spectral_norm():
    m = nn.Conv2d(3, 4, 2).double()
    with torch.no_grad():
        m.weight.copy_(_t(_rng(9).standard_normal((4, 3, 2, 2)) * 5))
    w_orig = m.weight.detach().numpy().copy()
    parametrizations.spectral_norm(m)
    assert list(m.state_dict()) == [
        "bias",
        "parametrizations.weight.original",
        "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
    ]
    for _ in range(50):
        w = m.weight
    assert _top_singular_value(w.detach().numpy()) == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_allclose(w.detach().numpy(), w_orig / _top_singular_value(w_orig), rtol=1e-6)
    m.eval()
    np.testing.assert_array_equal(m.weight.detach().numpy(), m.weight.detach().numpy())
    m.weight.sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    # transposed convolutions take dimension 1 as the rows
    ct = parametrizations.spectral_norm(nn.ConvTranspose1d(3, 5, 2).double())
    assert ct.parametrizations.weight[0]._u.shape == (5,)
    for _ in range(30):
        w = ct.weight
    assert _top_singular_value(w.detach().numpy(), dim=1) == pytest.approx(1.0, abs=1e-6)
    # a 1-D weight is divided by its norm
    b = nn.Module()
    b.weight = nn.Parameter(torch.tensor([3.0, 4.0]))
    parametrizations.spectral_norm(b)
    np.testing.assert_allclose(b.weight.detach().numpy(), [0.6, 0.8], rtol=1e-6)
    with pytest.raises(ValueError, match="n_power_iterations"):
        parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="no parameter or buffer"):
        parametrizations.spectral_norm(nn.Linear(2, 2), name="foo")


# ================================================================ orthogonal
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal_parametrization(shape, omap, triv):
    rng = _rng(10)
    m = nn.Module()
    m.weight = nn.Parameter(_t(rng.standard_normal(shape)))
    parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
    W = m.weight.detach().numpy()
    tall = W if shape[-2] >= shape[-1] else np.swapaxes(W, -1, -2)
    gram = np.swapaxes(tall, -1, -2) @ tall
    np.testing.assert_allclose(
        gram, np.broadcast_to(np.eye(tall.shape[-1]), gram.shape), atol=1e-12
    )
    m.weight.pow(3).sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    # assigning an orthogonal matrix makes it the weight
    q = np.linalg.qr(rng.standard_normal(tall.shape))[0]
    q = q if shape[-2] >= shape[-1] else np.swapaxes(q, -1, -2)
    if triv or omap == "householder":
        m.weight = _t(q.copy())
        np.testing.assert_allclose(m.weight.detach().numpy(), q, atol=1e-12)
    else:
        with pytest.raises(NotImplementedError):
            m.weight = _t(q.copy())


def test_orthogonal_matrix_exp_matches_eigen_oracle():
    # without trivialization, the square map is exp(A), A = tril(X) - tril(X)^T
    X = _rng(11).standard_normal((4, 4))
    m = nn.Module()
    m.weight = nn.Parameter(_t(X))
    parametrizations.orthogonal(m, orthogonal_map="matrix_exp", use_trivialization=False)
    A = np.tril(X) - np.tril(X).T
    lam, V = np.linalg.eig(A)
    expect = (V @ np.diag(np.exp(lam)) @ np.linalg.inv(V)).real
    np.testing.assert_allclose(m.weight.detach().numpy(), expect, atol=1e-12)
    # cayley: (I - A/2)^-1 (I + A/2)
    m = nn.Module()
    m.weight = nn.Parameter(_t(X))
    parametrizations.orthogonal(m, orthogonal_map="cayley", use_trivialization=False)
    eye = np.eye(4)
    np.testing.assert_allclose(
        m.weight.detach().numpy(), np.linalg.solve(eye - A / 2, eye + A / 2), atol=1e-12
    )


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="matrix or batch"):
        parametrizations.orthogonal(nn.Linear(1, 1), name="bias")
    with pytest.raises(ValueError, match="orthogonal_map"):
        parametrizations.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")


# ================================================================ affine_grid
def _np_axis(n, align):
    if align:
        return np.linspace(-1, 1, n) if n > 1 else np.zeros(n)
    return (2 * np.arange(n) + 1) / n - 1


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_formula_2d_and_3d(align):
    rng = _rng(12)
    theta = rng.standard_normal((2, 2, 3))
    grid = F.affine_grid(_t(theta), (2, 5, 3, 4), align_corners=align).numpy()
    assert grid.shape == (2, 3, 4, 2)
    xs, ys = _np_axis(4, align), _np_axis(3, align)
    for n, i, j in itertools.product(range(2), range(3), range(4)):
        np.testing.assert_allclose(grid[n, i, j], theta[n] @ [xs[j], ys[i], 1.0], rtol=1e-12)
    theta3 = rng.standard_normal((1, 3, 4))
    grid3 = F.affine_grid(_t(theta3), (1, 1, 2, 3, 4), align_corners=align).numpy()
    assert grid3.shape == (1, 2, 3, 4, 3)
    zs = _np_axis(2, align)
    ys, xs = _np_axis(3, align), _np_axis(4, align)
    for d, i, j in itertools.product(range(2), range(3), range(4)):
        np.testing.assert_allclose(
            grid3[0, d, i, j], theta3[0] @ [xs[j], ys[i], zs[d], 1.0], rtol=1e-12
        )
    # default align_corners is False
    np.testing.assert_array_equal(
        F.affine_grid(_t(theta), (2, 1, 3, 4)).numpy(),
        F.affine_grid(_t(theta), (2, 1, 3, 4), align_corners=False).numpy(),
    )


@pytest.mark.parametrize("align", [False, True])
def test_identity_affine_grid_reproduces_input(align):
    x = _t(_rng(13).standard_normal((2, 3, 5, 6)))
    theta = torch.tensor([[1.0, 0, 0], [0, 1, 0]], dtype=torch.float64).expand(2, 2, 3)
    grid = F.affine_grid(theta, x.shape, align_corners=align)
    out = F.grid_sample(x, grid, align_corners=align)
    np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-12)
    x5 = _t(_rng(14).standard_normal((1, 2, 3, 4, 5)))
    theta3 = torch.eye(3, 4, dtype=torch.float64).unsqueeze(0)
    out5 = F.grid_sample(x5, F.affine_grid(theta3, x5.shape, align_corners=align),
                         align_corners=align)  # fmt: skip
    np.testing.assert_allclose(out5.numpy(), x5.numpy(), atol=1e-12)


def test_affine_grid_gradcheck_and_errors():
    theta = _t(_rng(15).standard_normal((2, 2, 3)), requires_grad=True)
    assert gradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), (theta,))
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(torch.zeros(1, 2, 3, dtype=torch.int64), (1, 1, 2, 2))
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(torch.zeros(1, 3, 4), (1, 1, 2, 2))
    with pytest.raises(ValueError, match="Nx3x4"):
        F.affine_grid(torch.zeros(1, 2, 3), (1, 1, 2, 2, 2))
    with pytest.raises(NotImplementedError):
        F.affine_grid(torch.zeros(1, 2, 3), (1, 1, 2))
    with pytest.raises(ValueError, match="positive"):
        F.affine_grid(torch.zeros(1, 2, 3), (1, 1, 0, 2))


# ================================================================ grid_sample
def _np_unnormalize(g, n, align):
    return (g + 1) / 2 * (n - 1) if align else ((g + 1) * n - 1) / 2


def _np_fold_into(p, lo, hi):
    """Reflect p off lo and hi until it lies between them."""
    if hi <= lo:
        return 0.0
    while p < lo or p > hi:
        p = 2 * lo - p if p < lo else 2 * hi - p
    return p


def _np_pad_coord(p, n, padding, align):
    if padding == "reflection":
        p = _np_fold_into(p, 0, n - 1) if align else _np_fold_into(p, -0.5, n - 0.5)
    if padding in ("border", "reflection"):
        p = min(max(p, 0), n - 1)
    return p


def _np_cubic(s, a=-0.75):
    """Keys' cubic convolution kernel."""
    s = abs(s)
    if s <= 1:
        return (a + 2) * s**3 - (a + 3) * s**2 + 1
    if s < 2:
        return a * s**3 - 5 * a * s**2 + 8 * a * s - 4 * a
    return 0.0


def _np_grid_sample_2d(x, grid, mode, padding, align):
    N, C, H, W = x.shape
    _, Ho, Wo, _ = grid.shape
    out = np.zeros((N, C, Ho, Wo))

    def value(n, yy, xx):
        if padding != "zeros" and mode == "bicubic":
            xx = int(round(_np_pad_coord(float(xx), W, padding, align)))
            yy = int(round(_np_pad_coord(float(yy), H, padding, align)))
        if 0 <= yy < H and 0 <= xx < W:
            return x[n, :, yy, xx]
        return np.zeros(C)

    for n, i, j in itertools.product(range(N), range(Ho), range(Wo)):
        px = _np_unnormalize(grid[n, i, j, 0], W, align)
        py = _np_unnormalize(grid[n, i, j, 1], H, align)
        if mode == "bicubic":  # Keys' cubic convolution on 4 x 4 taps
            x0, y0 = math.floor(px), math.floor(py)
            for yy in range(y0 - 1, y0 + 3):
                for xx in range(x0 - 1, x0 + 3):
                    out[n, :, i, j] += _np_cubic(py - yy) * _np_cubic(px - xx) * value(n, yy, xx)
            continue
        px = _np_pad_coord(px, W, padding, align)
        py = _np_pad_coord(py, H, padding, align)
        if mode == "nearest":
            out[n, :, i, j] = value(n, int(np.rint(py)), int(np.rint(px)))
            continue
        x0, y0 = math.floor(px), math.floor(py)
        for yy, wy in ((y0, 1 - (py - y0)), (y0 + 1, py - y0)):
            for xx, wx in ((x0, 1 - (px - x0)), (x0 + 1, px - x0)):
                out[n, :, i, j] += wy * wx * value(n, yy, xx)
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_2d_matches_numpy(mode, padding, align):
    rng = _rng(16)
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.6, 1.6, (2, 3, 4, 2))
    out = F.grid_sample(_t(x), _t(grid), mode=mode, padding_mode=padding, align_corners=align)
    np.testing.assert_allclose(
        out.numpy(), _np_grid_sample_2d(x, grid, mode, padding, align), atol=1e-12
    )


def test_grid_sample_default_align_corners_is_false():
    rng = _rng(17)
    x, grid = _t(rng.standard_normal((1, 1, 3, 3))), _t(rng.uniform(-1, 1, (1, 2, 2, 2)))
    np.testing.assert_array_equal(
        F.grid_sample(x, grid).numpy(), F.grid_sample(x, grid, align_corners=False).numpy()
    )


def _np_trilinear(x, grid, align):
    N, C, D, H, W = x.shape
    out = np.zeros((N, C, *grid.shape[1:4]))
    for n, a, b, c in itertools.product(range(N), *map(range, grid.shape[1:4])):
        p = [_np_unnormalize(grid[n, a, b, c, 2 - k], s, align) for k, s in enumerate((D, H, W))]
        lo = [math.floor(v) for v in p]
        for corner in itertools.product((0, 1), repeat=3):
            idx = [lo[k] + corner[k] for k in range(3)]
            w = np.prod([(p[k] - lo[k]) if corner[k] else 1 - (p[k] - lo[k]) for k in range(3)])
            if all(0 <= idx[k] < s for k, s in enumerate((D, H, W))):
                out[n, :, a, b, c] += w * x[n, :, idx[0], idx[1], idx[2]]
    return out


@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_3d_trilinear_and_nearest(align):
    rng = _rng(18)
    x = rng.standard_normal((2, 2, 3, 4, 5))
    grid = rng.uniform(-1.3, 1.3, (2, 2, 3, 2, 3))
    out = F.grid_sample(_t(x), _t(grid), align_corners=align)
    assert out.shape == (2, 2, 2, 3, 2)
    np.testing.assert_allclose(out.numpy(), _np_trilinear(x, grid, align), atol=1e-12)
    # nearest: the value at the rounded position (zero outside)
    near = F.grid_sample(_t(x), _t(grid), mode="nearest", align_corners=align).numpy()
    for n, a, b, c in itertools.product(range(2), range(2), range(3), range(2)):
        idx = [
            int(np.rint(_np_unnormalize(grid[n, a, b, c, 2 - k], s, align)))
            for k, s in enumerate((3, 4, 5))
        ]
        inside = all(0 <= idx[k] < s for k, s in enumerate((3, 4, 5)))
        expect = x[n, :, idx[0], idx[1], idx[2]] if inside else np.zeros(2)
        np.testing.assert_array_equal(near[n, :, a, b, c], expect)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_gradcheck_2d(mode, padding):
    rng = _rng(19)
    x = _t(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    grid = _t(rng.uniform(-1.2, 1.2, (1, 2, 3, 2)), requires_grad=True)
    for align in (False, True):
        fn = lambda a, b, ac=align: F.grid_sample(a, b, mode, padding, ac)  # noqa: E731
        assert gradcheck(fn, (x, grid))


def test_grid_sample_gradcheck_3d_and_nearest_grid_grad():
    rng = _rng(20)
    x = _t(rng.standard_normal((1, 2, 2, 3, 3)), requires_grad=True)
    grid = _t(rng.uniform(-1.2, 1.2, (1, 2, 2, 1, 3)), requires_grad=True)
    for padding in ("zeros", "border", "reflection"):
        fn = lambda a, b, pm=padding: F.grid_sample(a, b, padding_mode=pm)  # noqa: E731
        assert gradcheck(fn, (x, grid))
    x2 = _t(rng.standard_normal((1, 1, 3, 3)), requires_grad=True)
    g2 = _t(rng.uniform(-1, 1, (1, 2, 2, 2)), requires_grad=True)
    F.grid_sample(x2, g2, mode="nearest").sum().backward()
    np.testing.assert_array_equal(g2.grad.numpy(), np.zeros((1, 2, 2, 2)))
    # each output took one input value: the input gradient counts them
    assert float(x2.grad.sum()) == 4.0


def test_grid_sample_errors():
    x, g = torch.zeros(1, 1, 2, 3), torch.zeros(1, 1, 1, 2)
    with pytest.raises(ValueError, match="mode"):
        F.grid_sample(x, g, mode="area")
    with pytest.raises(ValueError, match="padding_mode"):
        F.grid_sample(x, g, padding_mode="circular")
    with pytest.raises(RuntimeError, match="same dtype"):
        F.grid_sample(x, g.double())
    with pytest.raises(RuntimeError, match="batch size"):
        F.grid_sample(x, torch.zeros(2, 1, 1, 2))
    with pytest.raises(RuntimeError, match="last dimension"):
        F.grid_sample(x, torch.zeros(1, 1, 1, 3))
    with pytest.raises(RuntimeError, match="4D or 5D"):
        F.grid_sample(torch.zeros(1, 1, 2), torch.zeros(1, 1, 1))
    with pytest.raises(RuntimeError, match="non-empty spatial"):
        F.grid_sample(torch.zeros(1, 1, 0, 3), g)
    with pytest.raises(RuntimeError, match="bicubic"):
        F.grid_sample(torch.zeros(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 1, 3), mode="bicubic")
    assert F.grid_sample(torch.zeros(0, 1, 2, 3), torch.zeros(0, 1, 1, 2)).shape == (0, 1, 1, 1)


# ================================================================ lazy modules
def test_uninitialized_parameter_and_buffer():
    p = nn.UninitializedParameter()
    assert nn.parameter.is_lazy(p) and isinstance(p, nn.Parameter) and p.requires_grad
    assert repr(p) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="shape"):
        p.shape  # noqa: B018
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and not nn.parameter.is_lazy(p)
    b = nn.UninitializedBuffer(dtype=torch.float64)
    assert not b.requires_grad and nn.parameter.is_lazy(b)
    b.materialize(4)
    assert type(b) is torch.Tensor and b.shape == (4,) and b.dtype == torch.float64
    assert not nn.parameter.is_lazy(nn.Parameter(torch.zeros(1)))
    q = copy.deepcopy(nn.UninitializedParameter(requires_grad=False))
    assert nn.parameter.is_lazy(q) and not q.requires_grad


def test_lazy_linear_infers_in_features_and_trains():
    rng = _rng(21)
    m = nn.LazyLinear(4).double()
    assert repr(m) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert nn.parameter.is_lazy(m.weight) and m.has_uninitialized_params()
    weight = m.weight
    x = rng.standard_normal((5, 3))
    y = m(_t(x))
    assert type(m) is nn.Linear and m.in_features == 3
    assert m.weight is weight and m.weight.shape == (4, 3) and m.weight.dtype == torch.float64
    bound = 1 / math.sqrt(3)  # Linear's initialisation
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    np.testing.assert_allclose(
        y.detach().numpy(), x @ m.weight.detach().numpy().T + m.bias.detach().numpy()
    )
    assert not m._forward_pre_hooks  # the initialisation hook is gone
    # an optimizer built after the first forward trains it: d(sum y)/dW = 1 x^T
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    w0, b0 = m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()
    m(_t(x)).sum().backward()
    opt.step()
    np.testing.assert_allclose(m.weight.detach().numpy(), w0 - 0.1 * np.tile(x.sum(0), (4, 1)))
    np.testing.assert_allclose(m.bias.detach().numpy(), b0 - 0.1 * 5)


def test_lazy_state_dict_and_errors():
    m = nn.LazyLinear(3)
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias"] and nn.parameter.is_lazy(sd["weight"])
    src = nn.Linear(5, 3)
    m.load_state_dict(src.state_dict())  # materialises to the loaded shapes
    assert m.weight.shape == (3, 5)
    np.testing.assert_array_equal(m.weight.detach().numpy(), src.weight.detach().numpy())
    m(torch.ones(2, 5))
    assert type(m) is nn.Linear
    no_bias = nn.LazyLinear(2, bias=False)
    no_bias(torch.ones(1, 7))
    assert no_bias.bias is None and no_bias.weight.shape == (2, 7)
    with pytest.raises(ValueError, match="uninitialized"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            nn.utils.weight_norm(nn.LazyLinear(2))
    with pytest.raises(ValueError, match="uninitialized"):
        nn.utils.spectral_norm(nn.LazyLinear(2))


def test_lazy_convolutions_and_norms():
    c = nn.LazyConv2d(4, 3, padding=1)
    assert repr(c) == "LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    y = c(torch.ones(2, 3, 5, 5))
    assert type(c) is nn.Conv2d and c.in_channels == 3 and c.weight.shape == (4, 3, 3, 3)
    assert y.shape == (2, 4, 5, 5)
    c1 = nn.LazyConv1d(2, 3)
    c1(torch.ones(6, 8))  # unbatched
    assert c1.weight.shape == (2, 6, 3)
    c3 = nn.LazyConv3d(2, 1, groups=2, bias=False)
    c3(torch.ones(1, 4, 2, 2, 2))
    assert c3.weight.shape == (2, 2, 1, 1, 1) and c3.bias is None
    t = nn.LazyConvTranspose2d(5, 2)
    t(torch.ones(1, 3, 4, 4))
    assert type(t) is nn.ConvTranspose2d and t.weight.shape == (3, 5, 2, 2)
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(torch.ones(1, 3, 5, 5))
    with pytest.raises(RuntimeError, match="Expected 3D"):
        nn.LazyConv2d(4, 3)(torch.ones(5, 5))
    bn = nn.LazyBatchNorm1d()
    bn(torch.randn(4, 3))
    assert type(bn) is nn.BatchNorm1d and bn.num_features == 3
    assert bn.running_mean.shape == (3,) and type(bn.running_mean) is torch.Tensor
    assert int(bn.num_batches_tracked) == 1
    inorm = nn.LazyInstanceNorm2d()
    inorm(torch.randn(2, 4, 3, 3))
    assert type(inorm) is nn.InstanceNorm2d and inorm.weight.shape == (4,)


# ================================================================ margin losses
def _np_multilabel_margin(x, y):
    n, c = x.shape
    out = np.zeros(n)
    for s in range(n):
        targets = []
        for t in y[s]:
            if t == -1:
                break
            targets.append(t)
        for j in targets:
            for i in range(c):
                if i not in targets:
                    out[s] += max(0.0, 1 - (x[s, j] - x[s, i]))
        out[s] /= c
    return out


def test_multilabel_margin_loss_matches_formula():
    rng = _rng(22)
    x = rng.standard_normal((6, 5))
    y = np.array(
        [[3, 0, -1, 1, 2], [4, 4, -1, 0, 0], [-1, 2, 3, 4, 0], [0, 1, 2, 3, 4], [1, -1, -1, -1, -1],
         [2, 0, 1, -1, 3]]
    )  # fmt: skip
    expect = _np_multilabel_margin(x, y)
    for reduction, ref in (("none", expect), ("mean", expect.mean()), ("sum", expect.sum())):
        out = F.multilabel_margin_loss(_t(x), _t(y), reduction=reduction)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
        mod = nn.MultiLabelMarginLoss(reduction=reduction)(_t(x), _t(y))
        np.testing.assert_allclose(mod.numpy(), ref, rtol=1e-12)
    one = F.multilabel_margin_loss(_t(x[0]), _t(y[0]), reduction="none")
    assert one.shape == () and float(one) == pytest.approx(expect[0])
    xt = _t(x, requires_grad=True)
    assert gradcheck(lambda a: F.multilabel_margin_loss(a, _t(y)), (xt,))


def test_multilabel_margin_loss_errors():
    x = torch.zeros(2, 4)
    with pytest.raises(RuntimeError, match="Long"):
        F.multilabel_margin_loss(x, torch.zeros(2, 4, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        F.multilabel_margin_loss(x, torch.zeros(2, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="out of range"):
        F.multilabel_margin_loss(x, torch.tensor([[4, -1, 0, 0], [0, 0, 0, 0]]))
    with pytest.raises(RuntimeError, match="out of range"):
        F.multilabel_margin_loss(x, torch.tensor([[0, -1, -2, 0], [0, 0, 0, 0]]))
    with pytest.raises(RuntimeError, match="non-empty vector or matrix"):
        F.multilabel_margin_loss(torch.zeros(2, 2, 2), torch.zeros(2, 2, 2, dtype=torch.int64))
    with pytest.raises(ValueError, match="reduction"):
        F.multilabel_margin_loss(x, torch.zeros(2, 4, dtype=torch.int64), reduction="bad")


def test_multilabel_soft_margin_and_multi_margin_losses_exist():
    rng = _rng(23)
    x = rng.standard_normal((3, 4))
    y = rng.integers(0, 2, (3, 4)).astype(np.float64)
    sig = 1 / (1 + np.exp(-x))
    expect = -(y * np.log(sig) + (1 - y) * np.log(1 - sig)).mean(1).mean()
    out = nn.MultiLabelSoftMarginLoss()(_t(x), _t(y))
    assert float(out) == pytest.approx(expect, rel=1e-10)
    t = np.array([1, 0, 3])
    margins = np.maximum(0, 1 - x[np.arange(3), t][:, None] + x)
    margins[np.arange(3), t] = 0
    out = nn.MultiMarginLoss()(_t(x), _t(t))
    assert float(out) == pytest.approx((margins.sum(1) / 4).mean(), rel=1e-10)


def test_new_names_are_exported():
    names = (
        "Fold Unfold MaxUnpool1d MaxUnpool2d MaxUnpool3d LazyLinear LazyConv1d LazyConv2d "
        "LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d LazyBatchNorm1d "
        "LazyBatchNorm2d LazyBatchNorm3d LazyInstanceNorm1d LazyInstanceNorm2d LazyInstanceNorm3d "
        "UninitializedParameter UninitializedBuffer MultiLabelMarginLoss"
    )
    for name in names.split():
        assert hasattr(nn, name), name
    for name in ("weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm",
                 "parametrize", "parametrizations"):  # fmt: skip
        assert name in nn.utils.__all__ and hasattr(nn.utils, name)
