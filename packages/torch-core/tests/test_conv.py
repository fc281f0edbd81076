"""Convolutions (torch.conv1d/2d/3d, conv_transpose1d/2d/3d) and unfold/fold against NumPy
references written from the definitions: a convolution sums x[n, c, o * s - p + k * d] *
w[o, c, k] over channels and kernel offsets; its transpose scatters each input element
through the kernel; unfold lists the sliding blocks and fold sums them back."""

import itertools

import numpy as np
import pytest

import torch

try:
    from torch._conv import fold, unfold
except ImportError:  # real PyTorch
    from torch.nn.functional import fold, unfold

CONV = {1: torch.conv1d, 2: torch.conv2d, 3: torch.conv3d}
CONV_T = {1: torch.conv_transpose1d, 2: torch.conv_transpose2d, 3: torch.conv_transpose3d}


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def T(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def tup(v, nd):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd


# ---------------------------------------------------------------- NumPy references


def ref_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    nd = x.ndim - 2
    s, p, d = tup(stride, nd), tup(padding, nd), tup(dilation, nd)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    N, C = x.shape[:2]
    Cout, K = w.shape[0], w.shape[2:]
    out = [(xp.shape[2 + i] - d[i] * (K[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    y = np.zeros((N, Cout, *out), dtype=x.dtype)
    Cg, Og = C // groups, Cout // groups
    for k in itertools.product(*map(range, K)):
        window = tuple(
            slice(k[i] * d[i], k[i] * d[i] + s[i] * (out[i] - 1) + 1, s[i]) for i in range(nd)
        )
        patch = xp[(slice(None), slice(None), *window)]
        for g in range(groups):
            wk = w[(slice(g * Og, (g + 1) * Og), slice(None), *k)]
            y[:, g * Og : (g + 1) * Og] += np.einsum(
                "oc,nc...->no...", wk, patch[:, g * Cg : (g + 1) * Cg]
            )
    if b is not None:
        y += b.reshape((1, Cout) + (1,) * nd)
    return y


def ref_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    nd = x.ndim - 2
    s, p, d, op = tup(stride, nd), tup(padding, nd), tup(dilation, nd), tup(output_padding, nd)
    N, C = x.shape[:2]
    Og, K = w.shape[1], w.shape[2:]
    Cg, L = C // groups, x.shape[2:]
    out = [(L[i] - 1) * s[i] - 2 * p[i] + d[i] * (K[i] - 1) + op[i] + 1 for i in range(nd)]
    buf = np.zeros((N, Og * groups, *[o + 2 * q for o, q in zip(out, p)]), dtype=x.dtype)
    for k in itertools.product(*map(range, K)):
        window = tuple(
            slice(k[i] * d[i], k[i] * d[i] + s[i] * (L[i] - 1) + 1, s[i]) for i in range(nd)
        )
        for g in range(groups):
            wk = w[(slice(g * Cg, (g + 1) * Cg), slice(None), *k)]
            buf[(slice(None), slice(g * Og, (g + 1) * Og), *window)] += np.einsum(
                "co,nc...->no...", wk, x[:, g * Cg : (g + 1) * Cg]
            )
    y = buf[(slice(None), slice(None), *[slice(q, q + o) for q, o in zip(p, out)])]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


def ref_unfold(x, kernel, dilation=1, padding=0, stride=1):
    nd = x.ndim - 2
    K, d, p, s = tup(kernel, nd), tup(dilation, nd), tup(padding, nd), tup(stride, nd)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    out = [(xp.shape[2 + i] - d[i] * (K[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    blocks = []
    for k in itertools.product(*map(range, K)):
        window = tuple(
            slice(k[i] * d[i], k[i] * d[i] + s[i] * (out[i] - 1) + 1, s[i]) for i in range(nd)
        )
        blocks.append(xp[(slice(None), slice(None), *window)].reshape(x.shape[0], x.shape[1], -1))
    return np.stack(blocks, axis=2).reshape(x.shape[0], -1, int(np.prod(out)))


def ref_fold(col, output_size, kernel, dilation=1, padding=0, stride=1):
    nd = len(output_size)
    K, d, p, s = tup(kernel, nd), tup(dilation, nd), tup(padding, nd), tup(stride, nd)
    N, CK, _ = col.shape
    C = CK // int(np.prod(K))
    padded = [o + 2 * q for o, q in zip(output_size, p)]
    out = [(padded[i] - d[i] * (K[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    blocks = col.reshape(N, C, -1, *out)
    y = np.zeros((N, C, *padded), dtype=col.dtype)
    for j, k in enumerate(itertools.product(*map(range, K))):
        window = tuple(
            slice(k[i] * d[i], k[i] * d[i] + s[i] * (out[i] - 1) + 1, s[i]) for i in range(nd)
        )
        y[(slice(None), slice(None), *window)] += blocks[:, :, j]
    return y[(slice(None), slice(None), *[slice(q, q + o) for q, o in zip(p, output_size)])]


def close(ours, ref, dtype=np.float64):
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(ours.numpy(), ref, rtol=tol, atol=tol)


# ---------------------------------------------------------------- forward


# (input shape, weight shape, kwargs)
CONV_CASES = [
    ((2, 3, 9), (4, 3, 3), {}),
    ((2, 3, 9), (4, 3, 3), dict(stride=2, padding=1)),
    ((1, 4, 11), (6, 2, 4), dict(stride=3, padding=2, dilation=2, groups=2)),
    ((3, 2, 7), (5, 2, 1), {}),
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
    ((2, 4, 8, 9), (6, 2, 3, 3), dict(padding=2, dilation=(2, 3), groups=2)),
    ((3, 6, 5, 5), (6, 1, 3, 3), dict(padding=1, groups=6)),  # depthwise
    ((2, 5, 6, 7), (3, 5, 1, 1), {}),  # 1x1: the columns are the input
    ((2, 5, 6, 7), (3, 5, 1, 1), dict(stride=2)),
    ((1, 2, 5, 5), (2, 2, 5, 5), {}),  # kernel as large as the input: one output
    ((2, 2, 4, 4), (3, 2, 3, 3), dict(padding=3)),  # padding wider than the kernel's reach
    ((2, 2, 5, 4, 6), (3, 2, 2, 3, 2), {}),
    (
        (1, 4, 6, 5, 5),
        (4, 2, 3, 3, 3),
        dict(stride=(1, 2, 2), padding=1, dilation=(2, 1, 1), groups=2),
    ),
]


@pytest.mark.parametrize("xs, ws, kw", CONV_CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bias", [False, True])
def test_conv_matches_reference(xs, ws, kw, dtype, bias):
    x, w = rand(*xs, dtype=dtype), rand(*ws, seed=1, dtype=dtype)
    b = rand(ws[0], seed=2, dtype=dtype) if bias else None
    y = CONV[len(xs) - 2](T(x), T(w), None if b is None else T(b), **kw)
    assert y.dtype == (torch.float64 if dtype == np.float64 else torch.float32)
    close(y, ref_conv(x, w, b, **kw), dtype)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_unbatched(nd):
    x, w, b = rand(3, *[6] * nd), rand(4, 3, *[3] * nd, seed=1), rand(4, seed=2)
    y = CONV[nd](T(x), T(w), T(b), padding=1)
    assert tuple(y.shape) == (4, *[6] * nd)
    close(y, ref_conv(x[None], w, b, padding=1)[0])


SAME_WARNING = pytest.mark.filterwarnings("ignore:Using padding='same'")  # real PyTorch's


@SAME_WARNING
@pytest.mark.parametrize(
    "ws, dilation",
    [((4, 3, 3, 3), 1), ((4, 3, 2, 4), 1), ((4, 3, 3, 2), 2), ((4, 3, 4, 5), (1, 3))],
)
def test_conv_padding_same(ws, dilation):
    """'same': total padding d * (k - 1), the smaller half before (even totals split evenly)."""
    x, w = rand(2, 3, 7, 8), rand(*ws, seed=1)
    y = torch.conv2d(T(x), T(w), padding="same", dilation=dilation)
    assert tuple(y.shape) == (2, 4, 7, 8)
    d = tup(dilation, 2)
    total = [d[i] * (ws[2 + i] - 1) for i in range(2)]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(t // 2, t - t // 2) for t in total])
    close(y, ref_conv(xp, w, dilation=dilation))


@SAME_WARNING
def test_conv_padding_valid_and_1d_same():
    x, w = rand(2, 3, 10), rand(4, 3, 4, seed=1)
    close(torch.conv1d(T(x), T(w), padding="valid"), ref_conv(x, w))
    close(
        torch.conv1d(T(x), T(w), padding="same"), ref_conv(np.pad(x, [(0, 0), (0, 0), (1, 2)]), w)
    )


# (input shape, weight shape, kwargs)
CONV_T_CASES = [
    ((2, 3, 5), (3, 4, 3), {}),
    ((2, 3, 5), (3, 2, 3), dict(stride=2, padding=1, output_padding=1)),
    ((1, 4, 6), (4, 3, 2), dict(stride=3, dilation=2, groups=2, output_padding=2)),
    ((2, 3, 4, 5), (3, 2, 3, 3), {}),
    (
        (2, 4, 4, 3),
        (4, 3, 3, 2),
        dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2),
    ),
    ((2, 3, 4, 4), (3, 2, 3, 3), dict(dilation=2, output_padding=1)),  # output_padding < dilation
    ((2, 6, 5, 5), (6, 1, 3, 3), dict(padding=1, groups=6)),
    ((2, 5, 4, 3), (5, 3, 1, 1), {}),  # 1x1: a plain matrix product
    ((1, 2, 3, 4, 3), (2, 3, 2, 3, 2), dict(stride=2, padding=(0, 1, 0))),
]


@pytest.mark.parametrize("xs, ws, kw", CONV_T_CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose_matches_reference(xs, ws, kw, dtype, bias):
    x, w = rand(*xs, dtype=dtype), rand(*ws, seed=1, dtype=dtype)
    groups = kw.get("groups", 1)
    b = rand(ws[1] * groups, seed=2, dtype=dtype) if bias else None
    y = CONV_T[len(xs) - 2](T(x), T(w), None if b is None else T(b), **kw)
    close(y, ref_conv_transpose(x, w, b, **kw), dtype)


def test_conv_transpose_unbatched():
    x, w = rand(3, 4, 5), rand(3, 2, 3, 3, seed=1)
    y = torch.conv_transpose2d(T(x), T(w), stride=2)
    assert tuple(y.shape) == (2, 9, 11)
    close(y, ref_conv_transpose(x[None], w, stride=2)[0])


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(x, w), y> == <x, conv_transpose(y, w)> when output_padding restores x's size."""
    x, w = rand(2, 4, 9, 8), rand(6, 2, 3, 2, seed=1)
    kw = dict(stride=(2, 3), padding=(1, 1), dilation=(1, 2), groups=2)
    y = torch.conv2d(T(x), T(w), **kw)
    g = rand(*y.shape, seed=3)
    back = torch.conv_transpose2d(T(g), T(w), output_padding=(0, 1), **kw)
    assert back.shape == x.shape
    np.testing.assert_allclose((y.numpy() * g).sum(), (x * back.numpy()).sum(), rtol=1e-10)


def test_conv_noncontiguous_inputs():
    x, w = rand(2, 3, 6, 7), rand(4, 3, 3, 3, seed=1)
    xt = T(x.transpose(0, 1, 3, 2).copy()).transpose(2, 3)
    wt = T(w.transpose(1, 0, 2, 3).copy()).transpose(0, 1)
    assert not xt.is_contiguous() and not wt.is_contiguous()
    close(torch.conv2d(xt, wt, padding=1), ref_conv(x, w, padding=1))


# Batch and image sizes that cut the work differently (Note [Blocks] in conv.cpp): several
# small samples per block, one sample per block, large images in runs of lines.
@pytest.mark.parametrize("batch, size", [(1, 12), (3, 12), (8, 6), (16, 3), (1, 64), (3, 64)])
@pytest.mark.parametrize("threads", [1, 2])
def test_conv_blocks_and_threads(batch, size, threads):
    torch.set_num_threads(threads)
    x, w, b = rand(batch, 8, size, size), rand(16, 4, 3, 3, seed=1), rand(16, seed=2)
    close(
        torch.conv2d(T(x), T(w), T(b), padding=1, groups=2), ref_conv(x, w, b, padding=1, groups=2)
    )
    w1 = rand(6, 8, 1, 1, seed=4)
    close(torch.conv2d(T(x), T(w1)), ref_conv(x, w1))
    g = rand(batch, 16, size, size, seed=3)
    kw = dict(padding=1, groups=2)
    close(torch.conv_transpose2d(T(g), T(w), T(b[:8]), **kw), ref_conv_transpose(g, w, b[:8], **kw))
    wt = rand(16, 3, 1, 1, seed=5)
    close(torch.conv_transpose2d(T(g), T(wt)), ref_conv_transpose(g, wt))
    # one or two channels per group: the direct kernels
    wd = rand(8, 1, 3, 3, seed=6)
    kw = dict(padding=1, stride=2, groups=8)
    close(torch.conv2d(T(x), T(wd), T(b[:8]), **kw), ref_conv(x, wd, b[:8], **kw))
    close(
        torch.conv_transpose2d(T(x), T(wd), T(b[:8]), **kw), ref_conv_transpose(x, wd, b[:8], **kw)
    )
    w2 = rand(2, 4, 3, 3, seed=7)
    kw = dict(dilation=2, padding=2, groups=2)
    close(torch.conv2d(T(x), T(w2), **kw), ref_conv(x, w2, **kw))
    close(
        torch.conv_transpose2d(T(x), T(w2.reshape(8, 1, 3, 3)), **kw),
        ref_conv_transpose(x, w2.reshape(8, 1, 3, 3), **kw),
    )


def ref_weight_grad(x, gy, kernel, padding=0, dilation=1, groups=1):
    """d(sum(gy * conv(x, w))) / dw, stride 1."""
    nd = x.ndim - 2
    p, d = tup(padding, nd), tup(dilation, nd)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    Cg, Og = x.shape[1] // groups, gy.shape[1] // groups
    gw = np.zeros((gy.shape[1], Cg, *kernel), dtype=x.dtype)
    for k in itertools.product(*map(range, kernel)):
        window = tuple(slice(k[i] * d[i], k[i] * d[i] + gy.shape[2 + i]) for i in range(nd))
        patch = xp[(slice(None), slice(None), *window)]
        for g in range(groups):
            gy_g = gy[:, g * Og : (g + 1) * Og].reshape(len(x), Og, -1)
            patch_g = patch[:, g * Cg : (g + 1) * Cg].reshape(len(x), Cg, -1)
            gw[(slice(g * Og, (g + 1) * Og), slice(None), *k)] = np.einsum(
                "nop,ncp->oc", gy_g, patch_g
            )
    return gw


# Stride 1 with deep channels: the shifted-GEMM kernels (Note [Shifted GEMMs] in conv.cpp),
# over batches that make one, several and uneven blocks, in 1, 2 and 3 spatial dims.
@pytest.mark.parametrize(
    "batch, spatial, kernel, kw",
    [
        (1, (16, 15), (3, 3), dict(padding=1)),
        (5, (14, 16), (3, 2), dict(padding=(1, 0), groups=2)),
        (3, (24, 20), (3, 3), dict(dilation=2, padding=2)),
        (9, (12,), (5,), dict(padding=2)),
        (2, (10, 10, 8), (2, 2, 2), {}),
    ],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_conv_stride_one_deep_channels(batch, spatial, kernel, kw, threads):
    torch.set_num_threads(threads)
    groups = kw.get("groups", 1)
    x = rand(batch, 32, *spatial)
    w, b = rand(24, 32 // groups, *kernel, seed=1), rand(24, seed=2)
    y = ref_conv(x, w, b, **kw)
    conv = getattr(torch, f"conv{len(kernel)}d")
    close(conv(T(x), T(w), T(b), **kw), y)
    wt = rand(32, 24 // groups, *kernel, seed=4)
    transpose = getattr(torch, f"conv_transpose{len(kernel)}d")
    close(transpose(T(x), T(wt), T(b), **kw), ref_conv_transpose(x, wt, b, **kw))
    gy = rand(*y.shape, seed=3)
    pad, dil = tup(kw.get("padding", 0), len(kernel)), tup(kw.get("dilation", 1), len(kernel))
    gw = torch._C._conv_weight_grad(T(x), T(gy), w.shape, (1,) * len(kernel), pad, dil, groups)
    close(gw, ref_weight_grad(x, gy, kernel, pad, dil, groups))


def test_conv_empty_batch():
    w = torch.ones(4, 3, 3, 3, dtype=torch.float64)
    assert torch.conv2d(torch.ones(0, 3, 5, 5, dtype=torch.float64), w).shape == (0, 4, 3, 3)
    wt = torch.ones(3, 2, 3, 3, dtype=torch.float64)
    assert torch.conv_transpose2d(torch.ones(0, 3, 5, 5, dtype=torch.float64), wt).shape == (
        0,
        2,
        7,
        7,
    )


def test_conv_float32_larger():
    """A shape where the GEMMs are blocked (float32 accumulation order differs from NumPy's)."""
    x, w, b = (
        rand(4, 16, 20, 20, dtype=np.float32),
        rand(32, 16, 3, 3, seed=1, dtype=np.float32),
        rand(32, seed=2, dtype=np.float32),
    )
    y = torch.conv2d(T(x), T(w), T(b), padding=1)
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), padding=1)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- unfold / fold

FOLD_CASES = [
    ((2, 3, 5, 6), 2, {}),
    ((2, 3, 7, 6), (3, 2), dict(stride=2, padding=1)),
    ((1, 2, 8, 9), 3, dict(dilation=(2, 1), padding=(1, 2), stride=(1, 3))),
    ((2, 1, 4, 4), 1, {}),
]


@pytest.mark.parametrize("xs, k, kw", FOLD_CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unfold_matches_reference(xs, k, kw, dtype):
    x = rand(*xs, dtype=dtype)
    close(unfold(T(x), k, **kw), ref_unfold(x, k, **kw), dtype)


@pytest.mark.parametrize("xs, k, kw", FOLD_CASES)
def test_fold_matches_reference(xs, k, kw):
    cols = ref_unfold(np.zeros(xs), k, **kw).shape
    col = rand(*cols)
    close(fold(T(col), xs[2:], k, **kw), ref_fold(col, xs[2:], k, **kw))


def test_unfold_fold_unbatched():
    x = rand(3, 5, 6)
    col = unfold(T(x), 3, padding=1)
    close(col, ref_unfold(x[None], 3, padding=1)[0])
    close(
        fold(col, (5, 6), 3, padding=1),
        ref_fold(ref_unfold(x[None], 3, padding=1), (5, 6), 3, padding=1)[0],
    )


def test_fold_of_ones_counts_overlaps():
    col = torch.ones(1, 4, 9, dtype=torch.float64)
    y = fold(col, (4, 4), 2, stride=1)
    expected = np.array([[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]], dtype=float)
    close(y[0, 0], expected)


def test_conv_equals_unfold_matmul():
    x, w = rand(2, 3, 6, 6), rand(5, 3, 3, 3, seed=1)
    col = unfold(T(x), 3, padding=1)  # (2, 27, 36)
    y = (T(w).reshape(5, 27) @ col).reshape(2, 5, 6, 6)
    close(y, torch.conv2d(T(x), T(w), padding=1).numpy())


# ---------------------------------------------------------------- errors


def raises(exc, match, fn):
    with pytest.raises(exc, match=match):
        fn()


@pytest.mark.ours_only
def test_conv_errors_name_the_op_and_shapes():
    x, w = torch.ones(2, 4, 5, 5), torch.ones(6, 4, 3, 3)
    raises(
        RuntimeError,
        r"conv2d: expected 3D \(unbatched\) or 4D \(batched\) input, "
        r"but got input of size \[4, 5\]",
        lambda: torch.conv2d(torch.ones(4, 5), w),
    )
    raises(
        RuntimeError,
        r"conv1d: expected 2D \(unbatched\) or 3D \(batched\) input, "
        r"but got input of size \[3, 4, 5, 6, 7\]",
        lambda: torch.conv1d(torch.ones(3, 4, 5, 6, 7), torch.ones(2, 4, 3)),
    )
    raises(
        RuntimeError,
        r"conv2d: expected input of size \[2, 3, 5, 5\] to have 4 channels "
        r"\(weight of size \[6, 4, 3, 3\], groups=1\), but got 3",
        lambda: torch.conv2d(torch.ones(2, 3, 5, 5), w),
    )
    raises(
        RuntimeError,
        r"conv2d: groups=4 must divide .* weight of size \[6, 4, 3, 3\]",
        lambda: torch.conv2d(x, w, groups=4),
    )
    raises(
        RuntimeError,
        r"conv2d: expected input of size \[2, 4, 5, 5\] to have 6 channels "
        r"\(weight of size \[6, 2, 3, 3\], groups=3\)",
        lambda: torch.conv2d(x, torch.ones(6, 2, 3, 3), groups=3),
    )
    raises(
        RuntimeError,
        r"conv2d: the padded input size per channel \(2, 2\) is smaller than "
        r"the \(dilated\) kernel size \(3, 3\)",
        lambda: torch.conv2d(torch.ones(2, 4, 2, 2), w),
    )
    raises(
        RuntimeError,
        r"conv2d: invalid padding string 'foo'",
        lambda: torch.conv2d(x, w, padding="foo"),
    )
    raises(
        RuntimeError,
        r"conv2d: padding='same' is not supported for strided",
        lambda: torch.conv2d(x, w, padding="same", stride=2),
    )
    raises(
        RuntimeError,
        r"conv2d: expected bias of size \[6\] .* but got bias of size \[5\]",
        lambda: torch.conv2d(x, w, torch.ones(5)),
    )
    raises(RuntimeError, r"conv2d: stride must be positive", lambda: torch.conv2d(x, w, stride=0))
    raises(
        RuntimeError,
        r"conv2d: padding must be non-negative",
        lambda: torch.conv2d(x, w, padding=-1),
    )
    raises(RuntimeError, r"conv2d: groups must be positive", lambda: torch.conv2d(x, w, groups=0))
    raises(
        RuntimeError,
        r"conv2d: expected stride to be a single integer or a sequence of 2",
        lambda: torch.conv2d(x, w, stride=(1, 1, 1)),
    )
    raises(
        RuntimeError,
        r"conv2d: expected a 4D weight .* weight of size \[6, 4, 3\]",
        lambda: torch.conv2d(x, torch.ones(6, 4, 3)),
    )
    raises(
        RuntimeError,
        r"conv2d: the spatial dims of the input must be non-empty",
        lambda: torch.conv2d(torch.ones(2, 4, 0, 5), w, padding=2),
    )
    raises(
        TypeError,
        r"conv2d: only float32 and float64 are supported, but input has dtype int64",
        lambda: torch.conv2d(x.long(), w.long()),
    )
    raises(
        TypeError,
        r"conv2d: weight \(float64\) and input \(float32\) must have the same dtype",
        lambda: torch.conv2d(x, w.double()),
    )
    raises(TypeError, r"conv2d\(\): argument 'weight' must be Tensor", lambda: torch.conv2d(x, 3))


@pytest.mark.ours_only
def test_conv_transpose_errors():
    x = torch.ones(2, 4, 5, 5)
    raises(
        RuntimeError,
        r"conv_transpose2d: output_padding must be smaller than stride or dilation",
        lambda: torch.conv_transpose2d(x, torch.ones(4, 3, 3, 3), stride=2, output_padding=2),
    )
    raises(
        RuntimeError,
        r"conv_transpose2d: the output size \(-1, -1\) is too small",
        lambda: torch.conv_transpose2d(x, torch.ones(4, 3, 3, 3), padding=4),
    )
    raises(
        RuntimeError,
        r"conv_transpose2d: expected input of size \[2, 4, 5, 5\] to have 3 channels",
        lambda: torch.conv_transpose2d(x, torch.ones(3, 3, 3, 3)),
    )
    raises(
        TypeError,
        r"conv_transpose2d\(\): argument 'padding' must be an int or a tuple of ints, not str",
        lambda: torch.conv_transpose2d(x, torch.ones(4, 3, 3, 3), padding="same"),
    )


@pytest.mark.ours_only
def test_unfold_fold_errors():
    x = torch.ones(2, 4, 5, 5)
    raises(
        RuntimeError,
        r"unfold: expected a 3D \(unbatched\) or 4D \(batched\) input, "
        r"but got input of size \[4, 5\]",
        lambda: unfold(torch.ones(4, 5), 3),
    )
    raises(
        RuntimeError,
        r"unfold: for spatial size \(5, 5\), kernel_size=\(7, 7\).* at least 1",
        lambda: unfold(x, 7),
    )
    raises(
        RuntimeError,
        r"fold: expected input.size\(1\)=35 to be divisible by the product of kernel_size \(3, 3\)",
        lambda: fold(torch.ones(2, 35, 9), (5, 5), 3),
    )
    raises(
        RuntimeError,
        r"fold: .* there are 3 \* 3 = 9 sliding blocks, but input.size\(2\)=8",
        lambda: fold(torch.ones(2, 36, 8), (5, 5), 3),
    )
    raises(
        RuntimeError,
        r"fold: expected a 2D \(unbatched\) or 3D \(batched\) input",
        lambda: fold(torch.ones(2, 36, 9, 1), (5, 5), 3),
    )


# Float32 lines of at most 16 outputs with stride 1 along them take a masked-vector im2col
# (conv.cpp, im2col_short_f32) where the CPU has AVX-512: widths around that limit, padding
# wider than the kernel's reach (lines that read no pixel), dilation, stride 2 across lines,
# 1-pixel images, and 3-d convolutions.
@pytest.mark.parametrize("width", [1, 2, 7, 8, 15, 16, 17])
@pytest.mark.parametrize(
    "k, kw",
    [
        (3, dict(padding=1)),
        (3, dict(padding=3)),
        (2, dict(padding=(0, 2), dilation=(1, 2))),
        (3, dict(stride=(2, 1), padding=1)),
        (1, {}),
    ],
)
def test_conv_float32_short_lines(width, k, kw):
    x = rand(3, 5, 4, width, dtype=np.float32)
    w = rand(6, 5, k, k, seed=1, dtype=np.float32)
    y = torch.conv2d(T(x), T(w), **kw)
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), **kw)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-4)
    cols = unfold(T(x), k, **kw)
    np.testing.assert_allclose(cols.numpy(), ref_unfold(x, k, **kw), rtol=0, atol=0)
    # fold (col2im, also the input gradient's last step): the masked-add twin
    c = rand(*cols.shape, seed=3, dtype=np.float32)
    size = (4, width)
    got = fold(T(c), size, k, **kw)
    want = ref_fold(c.astype(np.float64), size, k, **kw)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


def test_conv3d_float32_short_lines():
    x, w = rand(2, 3, 3, 4, 5, dtype=np.float32), rand(4, 3, 3, 3, 3, seed=1, dtype=np.float32)
    y = torch.conv3d(T(x), T(w), padding=1)
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), padding=1)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-4)
