"""Intel's optional libraries (torch-core[mkl]): float32 convolutions through oneDNN and
matrix products through MKL give the numbers of NumPy references written from the
definitions (test_conv.py's), and of this project's own kernels (oneDNN switched off with
torch.backends.mkldnn.flags), over strides, paddings, dilations, groups, output_padding,
biases and 1 to 3 spatial dims. Where the wheels are not installed (a core-only install)
the tests that need them are skipped and the products run on OpenBLAS and our kernels."""

import numpy as np
import pytest
from test_conv import T, rand, ref_conv, ref_conv_transpose, tup

import torch

onednn = pytest.mark.skipif(
    not torch.backends.mkldnn.is_available(), reason="onednn-cpu-gomp is not installed"
)
CONV = {1: torch.conv1d, 2: torch.conv2d, 3: torch.conv3d}
CONV_T = {1: torch.conv_transpose1d, 2: torch.conv_transpose2d, 3: torch.conv_transpose3d}

# (batch, channels in, out, spatial size, kernel, keyword arguments)
CASES = [
    (2, 8, 16, (9, 9), (3, 3), dict(padding=1)),
    (3, 3, 64, (32, 32), (7, 7), dict(stride=2, padding=3)),  # a ResNet stem
    (4, 16, 32, (8, 8), (3, 3), dict(stride=2, padding=1)),
    (2, 64, 64, (1, 1), (3, 3), dict(padding=1)),  # a late ResNet layer: one pixel
    (2, 8, 12, (10, 7), (3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(2, 1))),
    (2, 8, 8, (6, 6), (3, 3), dict(padding=1, groups=8)),  # depthwise
    (2, 12, 18, (7, 7), (3, 3), dict(groups=3)),
    (2, 4, 6, (17,), (5,), dict(stride=3, padding=2)),
    (2, 4, 6, (5, 6, 4), (3, 3, 2), dict(padding=(1, 1, 0))),
    (1, 16, 16, (5, 5), (1, 1), {}),
]


def close(got, want, tol=2e-4):
    got = got.numpy() if isinstance(got, torch.Tensor) else got
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def through_onednn(f):
    """f(), asserting that oneDNN ran its convolution."""
    before = torch._C._onednn_runs()
    out = f()
    assert torch._C._onednn_runs() > before, "the convolution did not run on oneDNN"
    return out


def own(f):
    """f() with oneDNN switched off: this project's kernels."""
    before = torch._C._onednn_runs()
    with torch.backends.mkldnn.flags(enabled=False):
        out = f()
    assert torch._C._onednn_runs() == before, "oneDNN ran while switched off"
    return out


@onednn
@pytest.mark.parametrize("n, c, o, spatial, kernel, kw", CASES)
def test_conv_forward_matches_reference(n, c, o, spatial, kernel, kw):
    groups = kw.get("groups", 1)
    x, w, b = rand(n, c, *spatial), rand(o, c // groups, *kernel, seed=1), rand(o, seed=2)
    conv = CONV[len(kernel)]
    xt, wt, bt = (T(a.astype(np.float32)) for a in (x, w, b))
    close(through_onednn(lambda: conv(xt, wt, bt, **kw)), ref_conv(x, w, b, **kw))
    close(through_onednn(lambda: conv(xt, wt, **kw)), ref_conv(x, w, **kw))
    close(conv(xt, wt, bt, **kw), own(lambda: conv(xt, wt, bt, **kw)).numpy())


@onednn
@pytest.mark.parametrize("n, c, o, spatial, kernel, kw", CASES)
def test_conv_transpose_matches_reference(n, c, o, spatial, kernel, kw):
    groups, nd = kw.get("groups", 1), len(kernel)
    x, w, b = rand(n, c, *spatial), rand(c, o // groups, *kernel, seed=3), rand(o, seed=4)
    kw = dict(kw)
    if max(tup(kw.get("stride", 1), nd)) > 1:  # output_padding: a right padding below the left
        kw["output_padding"] = tuple(s - 1 for s in tup(kw["stride"], nd))
    conv_t = CONV_T[nd]
    xt, wt, bt = (T(a.astype(np.float32)) for a in (x, w, b))
    close(through_onednn(lambda: conv_t(xt, wt, bt, **kw)), ref_conv_transpose(x, w, b, **kw))
    close(conv_t(xt, wt, bt, **kw), own(lambda: conv_t(xt, wt, bt, **kw)).numpy())


@onednn
@pytest.mark.parametrize("n, c, o, spatial, kernel, kw", CASES)
def test_conv_weight_grad_matches_own_kernel(n, c, o, spatial, kernel, kw):
    nd, groups = len(kernel), kw.get("groups", 1)
    s, p, d = (tup(kw.get(k, v), nd) for k, v in (("stride", 1), ("padding", 0), ("dilation", 1)))
    x = T(rand(n, c, *spatial).astype(np.float32))
    y_shape = ref_conv(x.numpy(), np.zeros((o, c // groups, *kernel), np.float32), **kw).shape
    gy = T(rand(*y_shape, seed=5).astype(np.float32))
    w_shape = (o, c // groups, *kernel)

    def grad():
        return torch._C._conv_weight_grad(x, gy, w_shape, s, p, d, groups)

    got, want = through_onednn(grad), own(grad)
    assert got.shape == want.shape == w_shape
    close(got, want.numpy())
    if s == (1,) * nd:  # also against the stride-1 NumPy reference
        from test_conv import ref_weight_grad

        close(got, ref_weight_grad(x.numpy().astype(np.float64), gy.numpy(), kernel, p, d, groups))


@onednn
@pytest.mark.parametrize("threads", [1, 2])
def test_onednn_follows_the_thread_count(threads):
    torch.set_num_threads(threads)
    try:
        x, w = rand(4, 16, 12, 12), rand(32, 16, 3, 3, seed=1)
        got = torch.conv2d(T(x.astype(np.float32)), T(w.astype(np.float32)), padding=1)
        close(got, ref_conv(x, w, padding=1))
    finally:
        torch.set_num_threads(2)


@onednn
def test_mkldnn_enabled_is_a_bool_switch():
    assert torch.backends.mkldnn.enabled is True
    with torch.backends.mkldnn.flags(enabled=False):
        assert torch.backends.mkldnn.enabled is False
    assert torch.backends.mkldnn.enabled is True
    with pytest.raises(RuntimeError, match="expects a bool"):
        torch.backends.mkldnn.enabled = 1
    torch.backends.mkldnn.enabled = False
    assert torch.backends.mkldnn.enabled is False
    torch.backends.mkldnn.enabled = True


def test_float64_and_empty_convolutions_never_reach_onednn():
    # float64 runs on our kernels either way; an empty batch gives an empty result
    x, w = rand(2, 3, 5, 5), rand(4, 3, 3, 3, seed=1)
    close(torch.conv2d(T(x), T(w)), ref_conv(x, w), tol=1e-10)
    y = torch.conv2d(torch.zeros(0, 3, 5, 5), torch.zeros(4, 3, 3, 3))
    assert y.shape == (0, 4, 3, 3)


@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (7, 300, 5), (257, 64, 129), (512, 512, 512)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_matrix_products_match_numpy(m, k, n, dtype, layout):
    # on MKL where torch.backends.mkl.is_available(), else on OpenBLAS: the same numbers
    a = rand(k, m, seed=1) if layout[0] == "t" else rand(m, k, seed=1)
    b = rand(n, k, seed=2) if layout[1] == "t" else rand(k, n, seed=2)
    at, bt = T(a.astype(dtype)), T(b.astype(dtype))
    at = at.t() if layout[0] == "t" else at
    bt = bt.t() if layout[1] == "t" else bt
    a = a.T if layout[0] == "t" else a
    b = b.T if layout[1] == "t" else b
    tol = 1e-4 if dtype == np.float32 else 1e-12
    close(at @ bt, a @ b, tol=tol)
    c = rand(m, n, seed=3)
    close(torch.addmm(T(c.astype(dtype)), at, bt, beta=0.5, alpha=2.0), 0.5 * c + 2 * a @ b, tol)
    batch = torch.stack([at, at * 2])
    close(batch @ bt, np.stack([a @ b, 2 * a @ b]), tol=tol)


@onednn
def test_big_batches_run_in_chunks_with_the_same_numbers():
    # 150 samples of 16x64x64 in and out: oneDNN gets them in chunks of 8 samples (4 MB of
    # plain input and output each) and a last one of 6; the weight gradient sums the chunks'.
    x = T(rand(150, 16, 64, 64).astype(np.float32))
    w = T(rand(16, 16, 3, 3, seed=1).astype(np.float32))
    b = T(rand(16, seed=2).astype(np.float32))
    y = through_onednn(lambda: torch.conv2d(x, w, b, padding=1))
    close(y, own(lambda: torch.conv2d(x, w, b, padding=1)).numpy())
    yt = through_onednn(lambda: torch.conv_transpose2d(x, w, b, padding=1))
    close(yt, own(lambda: torch.conv_transpose2d(x, w, b, padding=1)).numpy())
    gy = T(rand(150, 16, 64, 64, seed=3).astype(np.float32))

    def grad():
        return torch._C._conv_weight_grad(x, gy, (16, 16, 3, 3), (1, 1), (1, 1), (1, 1), 1)

    close(through_onednn(grad), own(grad).numpy(), tol=1e-3)
