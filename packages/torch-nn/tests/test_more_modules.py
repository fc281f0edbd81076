"""Power-average pooling (lp_pool1d/2d/3d, LPPool1d/2d/3d), adaptive_max_pool3d and
AdaptiveMaxPool3d, feature_alpha_dropout and FeatureAlphaDropout, gumbel_softmax: values
against NumPy formulas, gradients with gradcheck, module reprs and errors, and the
statistics of the random ones."""

import itertools
import math
import warnings

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck

rng = np.random.RandomState(0)


def _t(a, requires_grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


# ---------------------------------------------------------------- LP pooling
def np_lp_pool(x, p, kernel, stride, ceil_mode):
    """(sum of x^p over each window)^(1/p) with no padding; a window cut short by ceil_mode
    is averaged over its part inside the input and scaled by the full window size."""
    D = len(kernel)
    spatial = x.shape[-D:]
    sizes = []
    for n, k, s in zip(spatial, kernel, stride):
        out = (math.ceil if ceil_mode else math.floor)((n - k) / s) + 1
        if ceil_mode and (out - 1) * s >= n:  # the last window must start inside the input
            out -= 1
        sizes.append(out)
    out = np.zeros(x.shape[:-D] + tuple(sizes))
    for pos in np.ndindex(*sizes):
        window = tuple(
            slice(i * s, min(i * s + k, n)) for i, s, k, n in zip(pos, stride, kernel, spatial)
        )
        block = x[(Ellipsis, *window)] ** p
        count = np.prod([w.stop - w.start for w in window])
        total = block.reshape(block.shape[: x.ndim - D] + (-1,)).sum(-1) * np.prod(kernel) / count
        out[(Ellipsis, *pos)] = total ** (1.0 / p)
    return out


@pytest.mark.parametrize(
    "D, shape, kernel, stride, ceil_mode",
    [
        (1, (2, 3, 9), (3,), (3,), False),
        (1, (3, 8), (3,), (2,), True),
        (2, (2, 2, 7, 6), (2, 3), (2, 2), False),
        (2, (2, 5, 5), (2, 2), (2, 2), True),
        (3, (1, 2, 5, 4, 6), (2, 2, 3), (1, 2, 3), False),
        (3, (2, 5, 5, 5), (2, 2, 2), (2, 2, 2), True),
    ],
)
@pytest.mark.parametrize("p", [1.0, 2.0, 1.5, 3])
def test_lp_pool_matches_numpy(D, shape, kernel, stride, ceil_mode, p):
    x = rng.rand(*shape) + 0.1
    fn = getattr(F, f"lp_pool{D}d")
    k = kernel[0] if D == 1 else kernel
    s = stride[0] if D == 1 else stride
    got = fn(_t(x), p, k, s, ceil_mode)
    np.testing.assert_allclose(_np(got), np_lp_pool(x, p, kernel, stride, ceil_mode), rtol=1e-10)
    # the module passes the same arguments
    mod = getattr(nn, f"LPPool{D}d")(p, k, s, ceil_mode)
    np.testing.assert_allclose(_np(mod(_t(x))), _np(got), rtol=1e-12)


def test_lp_pool_default_stride_is_the_kernel_size():
    x = rng.rand(2, 3, 6, 6) + 0.1
    got = F.lp_pool2d(_t(x), 2, 3)
    np.testing.assert_allclose(_np(got), np_lp_pool(x, 2, (3, 3), (3, 3), False), rtol=1e-10)
    assert got.shape == (2, 3, 2, 2)
    assert F.lp_pool1d(_t(rng.rand(2, 3, 7)), 2, 3).shape == (2, 3, 2)
    assert F.lp_pool1d(_t(rng.rand(2, 3, 7)), 2, 3, ceil_mode=True).shape == (2, 3, 3)
    assert F.lp_pool3d(_t(rng.rand(3, 4, 4, 4)), 2, 2).shape == (3, 2, 2, 2)


def test_lp_pool_signs_and_infinite_norms():
    # p = 1 sums signed values; an odd p with a negative sum has no real root: NaN
    assert F.lp_pool1d(_t([[[-1.0, -2.0, 3.0]]]), 1, 3).item() == 0.0
    assert F.lp_pool1d(_t([[[-1.0, -2.0, -3.0]]]), 1, 3).item() == -6.0
    assert math.isnan(F.lp_pool1d(_t([[[-1.0, -2.0, 1.0]]]), 3, 3).item())
    # the partial window of ceil_mode: mean over the part inside, times the window size
    got = F.lp_pool1d(_t([[[1.0, 2.0, 3.0, 4.0]]]), 2, 3, 3, ceil_mode=True)
    np.testing.assert_allclose(_np(got), [[[math.sqrt(14.0), math.sqrt(48.0)]]])
    # p = +-inf: the largest / smallest magnitude in each window
    x = rng.randn(2, 3, 6, 4)
    blocks = np.abs(x).reshape(2, 3, 3, 2, 2, 2)
    got = F.lp_pool2d(_t(x), math.inf, 2)
    np.testing.assert_array_equal(_np(got), blocks.max(axis=(3, 5)))
    got = F.lp_pool2d(_t(x), -math.inf, 2)
    np.testing.assert_array_equal(_np(got), blocks.min(axis=(3, 5)))
    assert _np(nn.LPPool1d(math.inf, 2)(_t([[[1.0, -2.0, 3.0, 4.0]]]))).tolist() == [[[2.0, 4.0]]]


@pytest.mark.parametrize("p", [2.0, 1.5, 3.0])
def test_lp_pool_gradcheck(p):
    x1 = _t(rng.rand(2, 2, 7) + 0.5, requires_grad=True)
    assert gradcheck(lambda t: F.lp_pool1d(t, p, 3, 2, True), (x1,))
    x2 = _t(rng.rand(1, 2, 5, 4) + 0.5, requires_grad=True)
    assert gradcheck(lambda t: F.lp_pool2d(t, p, (2, 3), 1), (x2,))
    x3 = _t(rng.rand(1, 1, 3, 4, 5) + 0.5, requires_grad=True)
    assert gradcheck(lambda t: F.lp_pool3d(t, p, 2, ceil_mode=True), (x3,))


def test_lp_pool_modules_repr_and_constants():
    assert (
        repr(nn.LPPool1d(2, 3))
        == "LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    )
    assert (
        repr(nn.LPPool2d(1.5, (2, 3), 1, True))
        == "LPPool2d(norm_type=1.5, kernel_size=(2, 3), stride=1, ceil_mode=True)"
    )
    assert (
        repr(nn.LPPool3d(2, 2))
        == "LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)"
    )
    assert nn.LPPool2d.__constants__ == ["norm_type", "kernel_size", "stride", "ceil_mode"]
    assert {"LPPool1d", "LPPool2d", "LPPool3d"} <= set(nn.modules.__all__)
    # an int norm_type works in the module (it is passed on as a float)
    x = _t(rng.rand(1, 2, 4, 4) + 0.1)
    np.testing.assert_allclose(
        _np(nn.LPPool2d(2, 2)(x)), np_lp_pool(_np(x), 2, (2, 2), (2, 2), False)
    )


def test_lp_pool_errors():
    with pytest.raises(TypeError, match="lp_pool2d"):
        F.lp_pool2d([[1.0, 2.0]], 2, 2)
    with pytest.raises(RuntimeError, match="avg_pool1d"):
        F.lp_pool1d(torch.rand(2, 3, 4, 4), 2, 2)  # 4-D input to the 1-D form
    with pytest.raises(RuntimeError, match="avg_pool3d"):
        F.lp_pool3d(torch.rand(2, 3, 4), 2, 2)
    with pytest.raises(RuntimeError, match="too small"):
        F.lp_pool1d(torch.rand(2, 3, 4), 2, 5)  # a window longer than the input


# ---------------------------------------------------------------- adaptive max pool 3d
def np_adaptive_max(x, out_size):
    """Window i of an adaptive pool covers [floor(i * n / o), ceil((i + 1) * n / o)); the
    index is the flat position of the maximum in the (D, H, W) volume."""
    spatial = x.shape[-3:]
    lead = x.shape[:-3]
    out = np.zeros(lead + tuple(out_size))
    idx = np.zeros(lead + tuple(out_size), dtype=np.int64)
    for pos in np.ndindex(*out_size):
        ranges = [
            range((i * n) // o, -((-(i + 1) * n) // o)) for i, n, o in zip(pos, spatial, out_size)
        ]
        for b in np.ndindex(*lead):
            best, where = -np.inf, -1
            for d, h, w in itertools.product(*ranges):
                v = x[b + (d, h, w)]
                if v > best:
                    best, where = v, (d * spatial[1] + h) * spatial[2] + w
            out[b + pos], idx[b + pos] = best, where
    return out, idx


@pytest.mark.parametrize(
    "shape, output_size, expect",
    [
        ((2, 3, 5, 6, 7), (2, 3, 4), (2, 3, 4)),
        ((2, 4, 4, 5), 3, (3, 3, 3)),
        ((1, 2, 5, 6, 7), (2, None, 3), (2, 6, 3)),
        ((1, 1, 3, 3, 3), (5, 4, 3), (5, 4, 3)),
    ],
)
def test_adaptive_max_pool3d_matches_numpy(shape, output_size, expect):
    x = rng.randn(*shape)
    out, idx = F.adaptive_max_pool3d(_t(x), output_size, return_indices=True)
    want, want_idx = np_adaptive_max(x, expect)
    np.testing.assert_array_equal(_np(out), want)
    assert idx.dtype == torch.int64
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    np.testing.assert_array_equal(_np(F.adaptive_max_pool3d(_t(x), output_size)), want)
    out2, idx2 = F.adaptive_max_pool3d_with_indices(_t(x), output_size)
    assert torch.equal(out2, out) and torch.equal(idx2, idx)
    mod_out, mod_idx = nn.AdaptiveMaxPool3d(output_size, return_indices=True)(_t(x))
    assert torch.equal(mod_out, out) and torch.equal(mod_idx, idx)
    assert torch.equal(nn.AdaptiveMaxPool3d(output_size)(_t(x)), out)


def test_adaptive_max_pool3d_gradcheck():
    x = _t(rng.randn(1, 2, 4, 5, 3), requires_grad=True)
    assert gradcheck(lambda t: F.adaptive_max_pool3d(t, (2, 3, 2)), (x,))
    # the gradient goes to the maxima only
    x = _t(rng.randn(1, 1, 4, 4, 4), requires_grad=True)
    out, idx = F.adaptive_max_pool3d(x, 2, True)
    out.sum().backward()
    grad = np.zeros(64)
    np.add.at(grad, idx.numpy().ravel(), 1.0)
    np.testing.assert_array_equal(_np(x.grad).ravel(), grad)


def test_adaptive_max_pool3d_repr_and_errors():
    assert repr(nn.AdaptiveMaxPool3d((2, None, 3))) == "AdaptiveMaxPool3d(output_size=(2, None, 3))"
    assert repr(nn.AdaptiveMaxPool3d(2, True)) == "AdaptiveMaxPool3d(output_size=2)"
    assert nn.AdaptiveMaxPool3d.__constants__ == ["output_size", "return_indices"]
    assert "AdaptiveMaxPool3d" in nn.modules.__all__
    with pytest.raises(RuntimeError, match=r"adaptive_max_pool3d.*\(2, 3\)"):
        F.adaptive_max_pool3d(torch.randn(2, 3), 2)
    with pytest.raises(RuntimeError, match="adaptive_max_pool3d"):
        nn.AdaptiveMaxPool3d((2, 2))(torch.randn(1, 2, 4, 4, 4))


# ---------------------------------------------------------------- feature alpha dropout
_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _alpha_affine(p):
    """Where alpha dropout sends a kept unit (x * a + b) and a dropped one (alpha' * a + b),
    alpha' = -scale * alpha of SELU, so that zero mean and unit variance are kept."""
    alpha_p = -_SELU_SCALE * _SELU_ALPHA
    a = ((1 - p) * (1 + p * alpha_p**2)) ** -0.5
    b = -a * alpha_p * p
    return a, b, alpha_p * a + b


def test_feature_alpha_dropout_is_the_identity_in_eval():
    x = torch.randn(2, 3, 4)
    assert F.feature_alpha_dropout(x, 0.5) is x  # training=False by default
    assert F.feature_alpha_dropout(x, 0.5, training=False) is x
    m = nn.FeatureAlphaDropout(0.5).eval()
    assert m(x) is x
    assert F.feature_alpha_dropout(x, 0.0, training=True) is x


@pytest.mark.parametrize("shape", [(6, 5, 4, 3), (7, 4), (5, 3, 2, 2, 2)])
def test_feature_alpha_dropout_drops_whole_channels_by_the_formula(shape):
    torch.manual_seed(0)
    p = 0.4
    x = rng.randn(*shape)
    y = _np(F.feature_alpha_dropout(_t(x), p, training=True))
    a, b, dropped = _alpha_affine(p)
    kinds = set()
    for c in np.ndindex(*shape[:2]):  # one mask entry per (N, C) (per element of 2-D input)
        if np.allclose(y[c], dropped, rtol=0, atol=1e-12):
            kinds.add("dropped")
        else:
            np.testing.assert_allclose(y[c], x[c] * a + b, rtol=1e-12, atol=1e-12)
            kinds.add("kept")
    assert kinds == {"dropped", "kept"}


def test_feature_alpha_dropout_keeps_mean_and_variance_per_channel():
    torch.manual_seed(1)
    p = 0.3
    x = torch.randn(4000, 3, 16, dtype=torch.float64)
    y = nn.FeatureAlphaDropout(p)(x)  # a new module trains
    _, _, dropped = _alpha_affine(p)
    channel_dropped = (y - dropped).abs().amax(-1) < 1e-12  # (N, C)
    rate = channel_dropped.double().mean(0)
    np.testing.assert_allclose(rate.numpy(), p, atol=0.03)
    yn = _np(y)
    np.testing.assert_allclose(yn.mean(axis=(0, 2)), 0.0, atol=0.03)
    np.testing.assert_allclose(yn.var(axis=(0, 2)), 1.0, atol=0.05)


def test_feature_alpha_dropout_gradcheck_and_inplace():
    x = _t(rng.randn(3, 4, 5), requires_grad=True)

    def fn(t):
        torch.manual_seed(3)  # the same mask on every call
        return F.feature_alpha_dropout(t, 0.5, training=True)

    assert gradcheck(fn, (x,))
    torch.manual_seed(4)
    want = F.feature_alpha_dropout(_t(_np(x)), 0.5, True)
    y = _t(_np(x))
    torch.manual_seed(4)
    assert torch.equal(F.feature_alpha_dropout(y, 0.5, True, inplace=True), want)
    assert torch.equal(y, want)  # the functional form writes into its input
    # the module keeps ``inplace`` but, as PyTorch's, does not write into its input
    y = _t(_np(x))
    torch.manual_seed(4)
    out = nn.FeatureAlphaDropout(0.5, inplace=True)(y)
    assert torch.equal(out, want) and torch.equal(y, x.detach())
    y = _t(_np(x))
    out = nn.AlphaDropout(0.5, inplace=True)(y)
    assert torch.equal(y, x.detach()) and not torch.equal(out, y)
    # p = 1: every channel at the dropped value's limit, zero
    assert torch.equal(F.feature_alpha_dropout(torch.ones(2, 3), 1.0, True), torch.zeros(2, 3))


def test_feature_alpha_dropout_repr_and_errors():
    assert repr(nn.FeatureAlphaDropout()) == "FeatureAlphaDropout(p=0.5, inplace=False)"
    assert repr(nn.FeatureAlphaDropout(0.2, True)) == "FeatureAlphaDropout(p=0.2, inplace=True)"
    assert nn.FeatureAlphaDropout.__constants__ == ["p", "inplace"]
    assert "FeatureAlphaDropout" in nn.modules.__all__
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        nn.FeatureAlphaDropout(1.5)
    with pytest.raises(ValueError, match="feature_alpha_dropout"):
        F.feature_alpha_dropout(torch.randn(2, 3), -0.1, True)


# ---------------------------------------------------------------- gumbel softmax
def _np_softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("tau, dim", [(1.0, -1), (0.5, 0), (2.0, 1)])
def test_gumbel_softmax_is_softmax_of_logits_plus_gumbel_noise(tau, dim):
    logits = rng.randn(4, 5)
    torch.manual_seed(7)
    e = torch.empty(4, 5, dtype=torch.float64).exponential_().numpy()  # the same draws
    torch.manual_seed(7)
    y = _np(F.gumbel_softmax(_t(logits), tau=tau, dim=dim))
    np.testing.assert_allclose(y, _np_softmax((logits - np.log(e)) / tau, axis=dim), rtol=1e-12)
    np.testing.assert_allclose(y.sum(axis=dim), 1.0, rtol=1e-12)
    assert (y > 0).all()


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient():
    logits = _t(rng.randn(6, 4), requires_grad=True)
    w = _t(rng.randn(6, 4))
    torch.manual_seed(11)
    hard = F.gumbel_softmax(logits, hard=True)
    torch.manual_seed(11)
    soft = F.gumbel_softmax(logits)
    h = _np(hard)
    assert set(np.unique(h)) == {0.0, 1.0}
    np.testing.assert_array_equal(h.sum(-1), 1.0)
    np.testing.assert_array_equal(h.argmax(-1), _np(soft).argmax(-1))
    (g_hard,) = torch.autograd.grad((hard * w).sum(), logits)
    (g_soft,) = torch.autograd.grad((soft * w).sum(), logits)
    np.testing.assert_allclose(_np(g_hard), _np(g_soft), rtol=1e-12, atol=1e-15)
    # along another dim
    torch.manual_seed(12)
    h0 = _np(F.gumbel_softmax(logits, tau=0.3, hard=True, dim=0))
    np.testing.assert_array_equal(h0.sum(0), 1.0)


@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_gradcheck(dim):
    # (hard=True's straight-through gradient is the soft one's by design, not the one-hot's:
    # the test above compares the two)
    logits = _t(rng.randn(3, 4), requires_grad=True)

    def fn(t):
        torch.manual_seed(5)  # the same noise on every call
        return F.gumbel_softmax(t, tau=0.7, dim=dim)

    assert gradcheck(fn, (logits,))


def test_gumbel_softmax_samples_follow_softmax_of_the_logits():
    torch.manual_seed(0)
    logits = np.array([1.0, 0.0, -0.5, 2.0, 0.3])
    draws = 40000
    y = F.gumbel_softmax(_t(logits).expand(draws, 5), tau=0.5, hard=True)
    freq = _np(y).mean(0)
    np.testing.assert_allclose(freq, _np_softmax(logits), atol=0.01)


def test_gumbel_softmax_errors_and_deprecated_eps():
    with pytest.raises(TypeError, match="gumbel_softmax"):
        F.gumbel_softmax([1.0, 2.0])
    with pytest.raises(RuntimeError, match="floating point"):
        F.gumbel_softmax(torch.tensor([1, 2, 3]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.gumbel_softmax(torch.randn(3), eps=1e-5)
        F.gumbel_softmax(torch.randn(3))
    assert [str(w.message) for w in caught] == ["`eps` parameter is deprecated and has no effect."]
    assert caught[0].category is UserWarning and caught[0].filename == __file__
    assert F.gumbel_softmax(torch.randn(3, dtype=torch.float32)).dtype == torch.float32


# ---------------------------------------------------------------- the device
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_results_live_on_the_input_device():
    x = torch.rand(2, 3, 6, 6, 6, device="cuda") + 0.1
    assert F.lp_pool1d(x[:, :, 0, 0], 2, 2).device == x.device
    assert F.lp_pool2d(x[:, :, 0], 2, 2).device == x.device
    assert F.lp_pool3d(x, 1.5, 2).device == x.device
    out, idx = F.adaptive_max_pool3d(x, 2, True)
    assert out.device == x.device and idx.device == x.device
    assert nn.FeatureAlphaDropout(0.5)(x).device == x.device
    for hard in (False, True):
        y = F.gumbel_softmax(x[0, 0], hard=hard)
        assert y.device == x.device
        torch.testing.assert_close(y.sum(-1).cpu(), torch.ones(6, 6))


def test_feature_alpha_dropout_needs_two_dims_even_in_eval():
    for training in (True, False):
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            F.feature_alpha_dropout(torch.randn(5), 0.5, training)
