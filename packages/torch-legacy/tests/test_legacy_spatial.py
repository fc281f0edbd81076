"""torch.legacy.nn Spatial/Temporal/Volumetric modules: forward against NumPy loops,
backward (gradInput, gradWeight, gradBias) against finite differences in float64."""

import itertools
import math

import numpy as np
import pytest
from legacy_spatial_jacobian import module_grads

import torch
from torch.legacy import nn

rng = np.random.default_rng(11)


def T(a):
    return torch.from_numpy(np.array(a, dtype=np.float64))


def randn(*shape):
    return rng.standard_normal(shape)


# ------------------------------------------------------------------ NumPy oracles
def np_conv(x, w, b, stride, pad, dil):
    """Direct N-D convolution: x (N, C, *S), w (O, C, *K)."""
    D = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    k = w.shape[2:]
    out_size = [(xp.shape[2 + i] - dil[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(D)]
    out = np.zeros((x.shape[0], w.shape[0], *out_size))
    for pos in itertools.product(*map(range, out_size)):
        window = tuple(
            slice(pos[i] * stride[i], pos[i] * stride[i] + dil[i] * (k[i] - 1) + 1, dil[i])
            for i in range(D)
        )
        patch = xp[(slice(None), slice(None)) + window]  # (N, C, *K)
        out[(slice(None), slice(None)) + pos] = np.tensordot(
            patch, w, axes=(list(range(1, D + 2)), list(range(1, D + 2)))
        )
    if b is not None:
        out += b.reshape((1, -1) + (1,) * D)
    return out


def np_full_conv(x, w, b, stride, pad, adj):
    """Transposed 2-D convolution by scattering: x (N, C, H, W), w (C, O, kH, kW)."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    full = np.zeros(
        (n, w.shape[1], (h - 1) * stride[0] + kh + adj[0], (wd - 1) * stride[1] + kw + adj[1])
    )
    for i, j in itertools.product(range(h), range(wd)):
        full[:, :, i * stride[0] : i * stride[0] + kh, j * stride[1] : j * stride[1] + kw] += (
            np.tensordot(x[:, :, i, j], w, axes=(1, 0))
        )
    oh = (h - 1) * stride[0] - 2 * pad[0] + kh + adj[0]
    ow = (wd - 1) * stride[1] - 2 * pad[1] + kw + adj[1]
    out = full[:, :, pad[0] : pad[0] + oh, pad[1] : pad[1] + ow]
    return out + b.reshape(1, -1, 1, 1)


def np_pool(x, kernel, stride, pad, ceil_mode, reduce, count_include_pad=True):
    """N-D max ("max") or average ("avg") pooling of x (N, C, *S) with Lua's output size."""
    D = x.ndim - 2
    size = x.shape[2:]
    out_size = []
    for n, k, s, p in zip(size, kernel, stride, pad):
        o = (math.ceil if ceil_mode else math.floor)((n + 2 * p - k) / s) + 1
        if ceil_mode and (o - 1) * s >= n + p:
            o -= 1
        out_size.append(o)
    out = np.zeros(x.shape[:2] + tuple(out_size))
    for pos in itertools.product(*map(range, out_size)):
        lo = [pos[i] * stride[i] - pad[i] for i in range(D)]
        hi_pad = [min(lo[i] + kernel[i], size[i] + pad[i]) for i in range(D)]
        window = tuple(slice(max(lo[i], 0), min(lo[i] + kernel[i], size[i])) for i in range(D))
        patch = x[(slice(None), slice(None)) + window].reshape(x.shape[0], x.shape[1], -1)
        if reduce == "max":
            value = patch.max(-1)
        else:
            count = (
                math.prod(hi_pad[i] - lo[i] for i in range(D))
                if count_include_pad
                else patch.shape[-1]
            )
            value = patch.sum(-1) / count
        out[(slice(None), slice(None)) + pos] = value
    return out


def np_adaptive_max(x, h, w):
    H, W = x.shape[2:]
    out = np.zeros(x.shape[:2] + (h, w))
    for i, j in itertools.product(range(h), range(w)):
        rows = slice(i * H // h, -(-(i + 1) * H // h))
        cols = slice(j * W // w, -(-(j + 1) * W // w))
        out[:, :, i, j] = x[:, :, rows, cols].max(axis=(2, 3))
    return out


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def double(module):
    return module.double()


def set_params(module, seed=0):
    """Fresh float64 parameters from a fixed seed (so oracles can read them back)."""
    r = np.random.default_rng(seed)
    for p in (module.parameters() or ([], []))[0]:
        p.copy_(T(r.standard_normal(tuple(p.shape))))
    return module


# ------------------------------------------------------------------ cases
# (id, module factory, input, NumPy oracle of (module, input array))
CASES = [
    (
        "SpatialConvolution",
        lambda: nn.SpatialConvolution(2, 3, 3, 2, 2, 1, 1, 0),
        randn(2, 2, 4, 5),
        lambda m, x: np_conv(x, m.weight.numpy(), m.bias.numpy(), (1, 2), (0, 1), (1, 1)),
    ),
    (
        "SpatialConvolution-3d",
        lambda: nn.SpatialConvolution(2, 2, 2, 2),
        randn(2, 3, 3),
        lambda m, x: np_conv(x[None], m.weight.numpy(), m.bias.numpy(), (1, 1), (0, 0), (1, 1))[0],
    ),
    (
        "SpatialConvolution-noBias",
        lambda: nn.SpatialConvolution(1, 2, 2, 2, 1, 1, 1).noBias(),
        randn(1, 1, 3, 3),
        lambda m, x: np_conv(x, m.weight.numpy(), None, (1, 1), (1, 1), (1, 1)),
    ),
    (
        "SpatialDilatedConvolution",
        lambda: nn.SpatialDilatedConvolution(2, 2, 2, 2, 1, 1, 1, 0, 2, 1),
        randn(1, 2, 4, 4),
        lambda m, x: np_conv(x, m.weight.numpy(), m.bias.numpy(), (1, 1), (0, 1), (1, 2)),
    ),
    (
        "SpatialFullConvolution",
        lambda: nn.SpatialFullConvolution(2, 3, 3, 2, 2, 2, 1, 0, 1, 0),
        randn(2, 2, 3, 2),
        lambda m, x: np_full_conv(x, m.weight.numpy(), m.bias.numpy(), (2, 2), (0, 1), (0, 1)),
    ),
    (
        "SpatialFullConvolution-3d",
        lambda: nn.SpatialFullConvolution(2, 1, 2, 2),
        randn(2, 2, 3),
        lambda m, x: np_full_conv(
            x[None], m.weight.numpy(), m.bias.numpy(), (1, 1), (0, 0), (0, 0)
        )[0],
    ),
    (
        "VolumetricConvolution",
        lambda: nn.VolumetricConvolution(2, 2, 2, 2, 1, 1, 2, 1, 1, 0, 0),
        randn(1, 2, 3, 3, 4),
        lambda m, x: np_conv(x, m.weight.numpy(), m.bias.numpy(), (1, 1, 2), (1, 0, 0), (1, 1, 1)),
    ),
    (
        "TemporalConvolution",
        lambda: nn.TemporalConvolution(3, 2, 2, 2),
        randn(2, 5, 3),
        lambda m, x: np.stack(
            [
                np.stack(
                    [
                        m.weight.numpy() @ x[n, t * 2 : t * 2 + 2].reshape(-1) + m.bias.numpy()
                        for t in range(2)
                    ]
                )
                for n in range(2)
            ]
        ),
    ),
    (
        "TemporalConvolution-2d",
        lambda: nn.TemporalConvolution(2, 3, 3),
        randn(4, 2),
        lambda m, x: np.stack(
            [m.weight.numpy() @ x[t : t + 3].reshape(-1) + m.bias.numpy() for t in range(2)]
        ),
    ),
    (
        "SpatialMaxPooling",
        lambda: nn.SpatialMaxPooling(2, 2, 2, 1, 1, 0),
        randn(2, 2, 4, 5),
        lambda m, x: np_pool(x, (2, 2), (1, 2), (0, 1), False, "max"),
    ),
    (
        "SpatialMaxPooling-ceil",
        lambda: nn.SpatialMaxPooling(3, 2, 2, 2).ceil(),
        randn(2, 5, 6),
        lambda m, x: np_pool(x[None], (2, 3), (2, 2), (0, 0), True, "max")[0],
    ),
    (
        "SpatialAveragePooling",
        lambda: nn.SpatialAveragePooling(2, 3, 1, 2, 1, 1),
        randn(2, 2, 5, 4),
        lambda m, x: np_pool(x, (3, 2), (2, 1), (1, 1), False, "avg"),
    ),
    (
        "SpatialAveragePooling-ceil-exclude",
        lambda: nn.SpatialAveragePooling(2, 2, 2, 2, 1, 1).ceil().setCountExcludePad(),
        randn(1, 2, 4, 5),
        lambda m, x: np_pool(x, (2, 2), (2, 2), (1, 1), True, "avg", False),
    ),
    (
        "VolumetricMaxPooling",
        lambda: nn.VolumetricMaxPooling(2, 2, 1, 1, 2, 1),
        randn(1, 2, 3, 3, 4),
        lambda m, x: np_pool(x, (2, 1, 2), (1, 1, 2), (0, 0, 0), False, "max"),
    ),
    (
        "VolumetricAveragePooling",
        lambda: nn.VolumetricAveragePooling(2, 2, 2, 1),
        randn(2, 3, 3, 4),
        lambda m, x: np_pool(x[None], (2, 2, 2), (1, 2, 2), (0, 0, 0), False, "avg")[0],
    ),
    (
        "SpatialAdaptiveMaxPooling",
        lambda: nn.SpatialAdaptiveMaxPooling(2, 3),
        randn(2, 2, 5, 5),
        lambda m, x: np_adaptive_max(x, 3, 2),
    ),
    (
        "TemporalMaxPooling",
        lambda: nn.TemporalMaxPooling(2, 1),
        randn(2, 4, 3),
        lambda m, x: np_pool(x.transpose(0, 2, 1), (2,), (1,), (0,), False, "max").transpose(
            0, 2, 1
        ),
    ),
    (
        "TemporalMaxPooling-2d",
        lambda: nn.TemporalMaxPooling(2),
        randn(5, 3),
        lambda m, x: np.stack([x[0:2].max(0), x[2:4].max(0)]),
    ),
    (
        "SpatialZeroPadding",
        lambda: nn.SpatialZeroPadding(1, 2, 0, 1),
        randn(2, 2, 3, 3),
        lambda m, x: np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)]),
    ),
    (
        "SpatialZeroPadding-crop",
        lambda: nn.SpatialZeroPadding(-1, 1, 1, -1),
        randn(2, 3, 4),
        lambda m, x: np.pad(x, [(0, 0), (1, 0), (0, 1)])[:, :-1, 1:],
    ),
    (
        "SpatialReflectionPadding",
        lambda: nn.SpatialReflectionPadding(2, 1, 1, 2),
        randn(1, 2, 3, 4),
        lambda m, x: np.pad(x, [(0, 0), (0, 0), (1, 2), (2, 1)], mode="reflect"),
    ),
    (
        "SpatialReplicationPadding",
        lambda: nn.SpatialReplicationPadding(1),
        randn(2, 3, 2),
        lambda m, x: np.pad(x, [(0, 0), (1, 1), (1, 1)], mode="edge"),
    ),
    (
        "SpatialUpSamplingNearest",
        lambda: nn.SpatialUpSamplingNearest(2),
        randn(2, 2, 2, 3),
        lambda m, x: x.repeat(2, axis=2).repeat(2, axis=3),
    ),
    (
        "SpatialUpSamplingNearest-3d",
        lambda: nn.SpatialUpSamplingNearest(3),
        randn(1, 2, 2),
        lambda m, x: x.repeat(3, axis=1).repeat(3, axis=2),
    ),
    (
        "SpatialSoftMax",
        lambda: nn.SpatialSoftMax(),
        randn(2, 3, 2, 2),
        lambda m, x: np_softmax(x, 1),
    ),
    (
        "SpatialSoftMax-3d",
        lambda: nn.SpatialSoftMax(),
        randn(3, 2, 2),
        lambda m, x: np_softmax(x, 0),
    ),
]


def np_batch_norm(x, weight, bias, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axes), x.var(axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return y * weight.reshape(shape) + bias.reshape(shape), mean, x.var(axes, ddof=1)


CASES += [
    (
        "SpatialBatchNormalization",
        lambda: nn.SpatialBatchNormalization(3, 1e-3),
        randn(2, 3, 2, 2),
        lambda m, x: np_batch_norm(x, m.weight.numpy(), m.bias.numpy(), 1e-3)[0],
    ),
    (
        "VolumetricBatchNormalization",
        lambda: nn.VolumetricBatchNormalization(2),
        randn(2, 2, 2, 1, 2),
        lambda m, x: np_batch_norm(x, m.weight.numpy(), m.bias.numpy(), 1e-5)[0],
    ),
    (
        "SpatialBatchNormalization-noaffine",
        lambda: nn.SpatialBatchNormalization(2, 1e-5, 0.1, False),
        randn(3, 2, 1, 2),
        lambda m, x: np_batch_norm(x, np.ones(2), np.zeros(2), 1e-5)[0],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy(case):
    _, make, x, oracle = case
    module = set_params(make().double())
    out = module.forward(T(x))
    expected = oracle(module, x)
    assert tuple(out.shape) == expected.shape
    assert out.dtype == torch.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_backward_matches_finite_differences(case):
    _, make, x, _ = case
    module = set_params(make().double())
    pairs = module_grads(module, T(x))
    assert len(pairs) == 1 + len((module.parameters() or ([], []))[0])
    for analytic, numeric in pairs:
        np.testing.assert_allclose(analytic.numpy(), numeric.numpy(), rtol=1e-6, atol=1e-8)


def test_unbatched_input_matches_the_batched_result():
    for module, x in [
        (nn.SpatialConvolution(2, 2, 2, 2, 1, 1, 1), randn(2, 3, 3)),
        (nn.SpatialMaxPooling(2, 2).ceil(), randn(2, 3, 3)),
        (nn.VolumetricConvolution(1, 2, 2, 1, 1), randn(1, 3, 2, 2)),
        (nn.TemporalConvolution(2, 2, 2), randn(3, 2)),
    ]:
        module = set_params(module.double())
        single = module.forward(T(x)).clone()
        batched = module.forward(T(x[None]))
        np.testing.assert_allclose(single.numpy(), batched[0].numpy(), rtol=1e-12)
        g = T(randn(*single.shape))
        module.forward(T(x))
        grad_single = module.backward(T(x), g).clone()
        module.forward(T(x[None]))
        grad_batched = module.backward(T(x[None]), g.unsqueeze(0))
        np.testing.assert_allclose(grad_single.numpy(), grad_batched[0].numpy(), rtol=1e-12)


def test_acc_grad_parameters_adds_scaled_gradients():
    m = set_params(nn.SpatialConvolution(1, 2, 2, 2).double())
    x, g = T(randn(2, 1, 3, 3)), T(randn(2, 2, 2, 2))
    m.zeroGradParameters()
    m.forward(x)
    m.backward(x, g)
    once = m.gradWeight.clone(), m.gradBias.clone()
    m.backward(x, g, 0.5)
    np.testing.assert_allclose(m.gradWeight.numpy(), 1.5 * once[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(m.gradBias.numpy(), 1.5 * once[1].numpy(), rtol=1e-12)
    np.testing.assert_allclose(m.gradBias.numpy(), 1.5 * g.sum([0, 2, 3]).numpy(), rtol=1e-12)


def test_batch_norm_running_statistics_and_evaluation():
    m = set_params(nn.SpatialBatchNormalization(2, 1e-5, 0.3).double())
    m.running_mean.copy_(T([0.5, -1.0]))
    m.running_var.copy_(T([2.0, 0.5]))
    x = randn(3, 2, 2, 2)
    _, mean, unbiased = np_batch_norm(x, np.ones(2), np.zeros(2), 1e-5)
    m.forward(T(x))
    np.testing.assert_allclose(m.running_mean.numpy(), 0.7 * np.array([0.5, -1.0]) + 0.3 * mean)
    np.testing.assert_allclose(m.running_var.numpy(), 0.7 * np.array([2.0, 0.5]) + 0.3 * unbiased)
    m.evaluate()
    rm, rv = m.running_mean.numpy().copy(), m.running_var.numpy().copy()
    shape = (1, 2, 1, 1)
    expected = (x - rm.reshape(shape)) / np.sqrt(rv.reshape(shape) + 1e-5)
    expected = expected * m.weight.numpy().reshape(shape) + m.bias.numpy().reshape(shape)
    np.testing.assert_allclose(m.forward(T(x)).numpy(), expected, rtol=1e-10)
    for analytic, numeric in module_grads(m, T(x)):
        np.testing.assert_allclose(analytic.numpy(), numeric.numpy(), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(m.running_mean.numpy(), rm)  # evaluation leaves them


def test_spatial_dropout_zeroes_whole_planes_without_rescaling():
    torch.manual_seed(3)
    m = nn.SpatialDropout(0.5).double()
    x = T(rng.uniform(1, 2, (4, 6, 3, 3)))
    out = m.forward(x)
    kept = (out != 0).reshape(4, 6, 9)
    assert bool((kept.all(2) | ~kept.any(2)).all())  # each plane all kept or all dropped
    assert 0 < int(kept.all(2).sum()) < 24
    np.testing.assert_array_equal(
        out.numpy()[kept.reshape(out.shape).numpy()], x.numpy()[kept.reshape(out.shape).numpy()]
    )
    g = T(randn(4, 6, 3, 3))
    np.testing.assert_array_equal(m.backward(x, g).numpy(), (g * kept.reshape(out.shape)).numpy())
    m.evaluate()
    np.testing.assert_allclose(m.forward(x).numpy(), 0.5 * x.numpy())
    np.testing.assert_allclose(m.backward(x, g).numpy(), 0.5 * g.numpy())
    assert tuple(nn.SpatialDropout(0.2).forward(torch.ones(3, 2, 2)).shape) == (3, 2, 2)


def test_modules_chain_in_sequential_and_train_in_float32():
    model = nn.Sequential()
    model.add(nn.SpatialConvolution(1, 2, 3, 3, 1, 1, 1))
    model.add(nn.SpatialBatchNormalization(2))
    model.add(nn.SpatialMaxPooling(2, 2))
    model.add(nn.SpatialUpSamplingNearest(2))
    model.add(nn.SpatialZeroPadding(1, 0, 0, 1))
    model.add(nn.SpatialSoftMax())
    set_params(model.double())
    x = T(randn(2, 1, 4, 4))
    for analytic, numeric in module_grads(model, x):
        np.testing.assert_allclose(analytic.numpy(), numeric.numpy(), rtol=1e-5, atol=1e-7)
    # a float32 (default) model learns to push plane 0 up: the loss falls
    net = nn.Sequential().add(nn.SpatialConvolution(1, 2, 2, 2)).add(nn.SpatialSoftMax())
    crit = nn.MSECriterion()
    x32, target = torch.ones(1, 1, 3, 3), torch.zeros(1, 2, 2, 2)
    target[:, 0] = 1
    losses = []
    for _ in range(20):
        net.zeroGradParameters()
        losses.append(crit.forward(net.forward(x32), target))
        net.backward(x32, crit.backward(net.output, target))
        net.updateParameters(0.5)
    assert net.output.dtype == torch.float32
    assert losses[-1] < 0.5 * losses[0]


def test_fields_only_module_works_like_a_loaded_one():
    """load_lua builds modules with cls.__new__ + Lua's fields; an old .t7 file stores a
    SpatialConvolution weight as (nOutputPlane, nInputPlane * kH * kW)."""
    src = set_params(nn.SpatialConvolution(2, 3, 2, 2, 1, 1, 1).double())
    fields = dict(src.__dict__)
    fields["weight"] = src.weight.reshape(3, 8).clone()
    fields["gradWeight"] = torch.zeros(3, 8, dtype=torch.float64)
    loaded = nn.SpatialConvolution.__new__(nn.SpatialConvolution)
    loaded.__dict__.update(fields)
    x = T(randn(1, 2, 3, 3))
    np.testing.assert_allclose(loaded.forward(x).numpy(), src.forward(x).numpy(), rtol=1e-12)
    g = T(randn(1, 3, 4, 4))
    loaded.backward(x, g)
    src.zeroGradParameters()
    src.backward(x, g)
    np.testing.assert_allclose(loaded.gradWeight.numpy(), src.gradWeight.reshape(3, 8).numpy())


def test_constructor_defaults_and_repr_follow_lua():
    conv = nn.SpatialConvolution(3, 16, 5, 5, 1, 1, 2)
    assert (conv.padW, conv.padH) == (2, 2)
    assert tuple(conv.weight.shape) == (16, 3, 5, 5) and conv.weight.dtype == torch.float32
    bound = 1 / math.sqrt(3 * 25)
    assert float(conv.weight.abs().max()) <= bound and float(conv.bias.abs().max()) <= bound
    assert repr(conv) == "nn.SpatialConvolution(3 -> 16, 5x5, 1,1, 2,2)"
    assert repr(nn.SpatialConvolution(3, 16, 3, 3).noBias()) == (
        "nn.SpatialConvolution(3 -> 16, 3x3) without bias"
    )
    pool = nn.SpatialMaxPooling(3, 2)
    assert (pool.dW, pool.dH, pool.ceil_mode) == (3, 2, False)
    assert repr(pool) == "nn.SpatialMaxPooling(3x2, 3,2)"
    assert (nn.SpatialAveragePooling(2, 2).dW, nn.SpatialAveragePooling(2, 2).dH) == (1, 1)
    vol = nn.VolumetricConvolution(1, 1, 3, 3, 3, 1, 1, 1, 1)
    assert (vol.padT, vol.padW, vol.padH) == (1, 1, 1)
    pad = nn.SpatialReflectionPadding(2)
    assert (pad.pad_l, pad.pad_r, pad.pad_t, pad.pad_b) == (2, 2, 2, 2)
    bn = nn.SpatialBatchNormalization(4)
    assert bn.train and float(bn.running_var.sum()) == 4 and float(bn.bias.abs().sum()) == 0
    assert 0 <= float(bn.weight.min()) and float(bn.weight.max()) <= 1
    assert nn.SpatialBatchNormalization(4, affine=False).parameters() is None


@pytest.mark.parametrize(
    "module, input, words",
    [
        (
            nn.SpatialConvolution(2, 3, 2, 2),
            torch.zeros(2, 3, 4, 4),
            ["SpatialConvolution", "(2, 3, 4, 4)", "expected 2"],
        ),
        (
            nn.SpatialConvolution(2, 3, 2, 2),
            torch.zeros(4, 4),
            ["SpatialConvolution", "3D or 4D", "(4, 4)"],
        ),
        (nn.SpatialConvolution(1, 1, 5, 5), torch.zeros(1, 3, 3), ["SpatialConvolution", "kernel"]),
        (
            nn.SpatialConvolution(1, 1, 2, 2),
            torch.zeros(1, 3, 3, dtype=torch.float64),
            ["float64", ".double()"],
        ),
        (
            nn.SpatialFullConvolution(2, 1, 2, 2),
            torch.zeros(1, 3, 3, 3),
            ["SpatialFullConvolution", "expected 2"],
        ),
        (
            nn.VolumetricConvolution(1, 1, 2, 2, 2),
            torch.zeros(1, 2, 2),
            ["VolumetricConvolution", "4D or 5D"],
        ),
        (
            nn.TemporalConvolution(3, 2, 2),
            torch.zeros(4, 2),
            ["TemporalConvolution", "(4, 2)", "inputFrameSize 3"],
        ),
        (nn.TemporalConvolution(2, 2, 5), torch.zeros(4, 2), ["TemporalConvolution", "kW = 5"]),
        (nn.TemporalMaxPooling(3), torch.zeros(2, 2), ["TemporalMaxPooling", "(2, 2)"]),
        (nn.SpatialMaxPooling(2, 2), torch.zeros(2, 2), ["SpatialMaxPooling", "(2, 2)"]),
        (nn.SpatialMaxPooling(4, 4), torch.zeros(1, 3, 3), ["SpatialMaxPooling", "kernel"]),
        (
            nn.SpatialMaxPooling(2, 2, 1, 1, 2, 2),
            torch.zeros(1, 3, 3),
            ["SpatialMaxPooling", "padding"],
        ),
        (nn.SpatialAveragePooling(4, 1), torch.zeros(1, 3, 3), ["SpatialAveragePooling", "(3, 3)"]),
        (
            nn.VolumetricMaxPooling(2, 2, 2),
            torch.zeros(1, 2, 2),
            ["VolumetricMaxPooling", "4D or 5D"],
        ),
        (
            nn.SpatialAdaptiveMaxPooling(4, 4),
            torch.zeros(1, 3, 3),
            ["SpatialAdaptiveMaxPooling", "(1, 3, 3)"],
        ),
        (
            nn.SpatialBatchNormalization(3),
            torch.zeros(2, 3, 2),
            ["SpatialBatchNormalization", "4D"],
        ),
        (
            nn.SpatialBatchNormalization(3),
            torch.zeros(2, 2, 2, 2),
            ["SpatialBatchNormalization", "expected 3"],
        ),
        (nn.SpatialBatchNormalization(3), torch.zeros(1, 3, 1, 1), ["more than one value"]),
        (
            nn.VolumetricBatchNormalization(3),
            torch.zeros(2, 3, 2, 2),
            ["VolumetricBatchNormalization", "5D"],
        ),
        (nn.SpatialDropout(), torch.zeros(2, 2), ["SpatialDropout", "(2, 2)"]),
        (
            nn.SpatialReflectionPadding(3),
            torch.zeros(1, 3, 3),
            ["SpatialReflectionPadding", "(1, 3, 3)"],
        ),
        (nn.SpatialZeroPadding(-2), torch.zeros(1, 3, 3), ["SpatialZeroPadding", "empty"]),
        (nn.SpatialUpSamplingNearest(2), torch.zeros(3), ["SpatialUpSamplingNearest", "(3,)"]),
        (nn.SpatialSoftMax(), torch.zeros(3, 3), ["SpatialSoftMax", "(3, 3)"]),
        (nn.SpatialSoftMax(), [torch.zeros(3, 3, 3)], ["SpatialSoftMax", "list"]),
    ],
)
def test_bad_input_raises_naming_the_module_and_shapes(module, input, words):
    with pytest.raises((RuntimeError, TypeError)) as info:
        module.forward(input)
    for word in words:
        assert word in str(info.value)


def test_bad_grad_output_and_arguments_raise():
    m = nn.SpatialMaxPooling(2, 2)
    x = torch.zeros(1, 4, 4)
    m.forward(x)
    with pytest.raises(RuntimeError, match=r"gradOutput of size \(1, 3, 2\).*\(1, 2, 2\)"):
        m.backward(x, torch.zeros(1, 3, 2))
    with pytest.raises(ValueError, match="SpatialFullConvolution"):
        nn.SpatialFullConvolution(1, 1, 3, 3, 1, 1, 0, 0, 1, 0)
    with pytest.raises(ValueError, match="SpatialDropout"):
        nn.SpatialDropout(1.5)
    with pytest.raises(ValueError, match="SpatialUpSamplingNearest"):
        nn.SpatialUpSamplingNearest(1.5)


def _from_fields(cls, fields):
    """What load_lua builds: cls.__new__ and the fields read from the file."""
    module = cls.__new__(cls)
    module.__dict__.update(fields)
    return module


def test_fields_of_older_lua_files_are_read():
    src = set_params(nn.SpatialConvolution(1, 2, 3, 3, 1, 1, 1).double())
    fields = {k: v for k, v in src.__dict__.items() if k not in ("padW", "padH")}
    old = _from_fields(nn.SpatialConvolution, dict(fields, padding=1))
    x = T(randn(1, 1, 4, 4))
    np.testing.assert_allclose(old.forward(x).numpy(), src.forward(x).numpy(), rtol=1e-12)
    assert (old.padW, old.padH) == (1, 1)
    pool = _from_fields(nn.SpatialMaxPooling, {"kW": 2, "kH": 2, "dW": 2, "dH": 2})
    np.testing.assert_allclose(
        pool.forward(x).numpy(), np_pool(x.numpy(), (2, 2), (2, 2), (0, 0), False, "max")
    )
    avg = _from_fields(
        nn.VolumetricAveragePooling, {"kT": 1, "kW": 2, "kH": 2, "dT": 1, "dW": 2, "dH": 2}
    )
    x5 = randn(1, 2, 2, 4, 4)
    np.testing.assert_allclose(
        avg.forward(T(x5)).numpy(), np_pool(x5, (1, 2, 2), (1, 2, 2), (0, 0, 0), False, "avg")
    )
    full = nn.SpatialFullConvolution(1, 1, 2, 2).double()
    fields = {k: v for k, v in full.__dict__.items() if not k.startswith(("adj", "pad"))}
    old_full = _from_fields(nn.SpatialFullConvolution, fields)
    assert repr(old_full) == "nn.SpatialFullConvolution(1 -> 1, 2x2)"
    np.testing.assert_allclose(old_full.forward(x).numpy(), full.forward(x).numpy())


def test_criteria_read_from_lua_fields():
    x, t = T(np.log(rng.dirichlet(np.ones(3), 2))), torch.tensor([2, 0])
    nll = _from_fields(nn.ClassNLLCriterion, {"weights": None, "sizeAverage": True})
    assert nll.forward(x, t) == pytest.approx(-(x[0, 2] + x[1, 0]).item() / 2)
    soft = _from_fields(nn.MultiLabelSoftMarginCriterion, {"nll": nn.BCECriterion(), "lsm": None})
    y = T([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    assert soft.forward(x, y) == pytest.approx(nn.MultiLabelSoftMarginCriterion().forward(x, y))


def test_clear_state_and_type_conversion():
    model = nn.Sequential()
    model.add(nn.SpatialConvolution(1, 2, 2, 2))
    model.add(nn.SpatialBatchNormalization(2))
    model.add(nn.SpatialDropout(0.3))
    model.add(nn.SpatialMaxPooling(2, 2))
    model.forward(torch.ones(2, 1, 5, 5))
    pool = model.get(3)
    assert pool.indices.dtype == torch.int64
    model.double()
    assert pool.indices.dtype == torch.int64  # index tensors keep their type
    assert model.get(0).weight.dtype == torch.float64
    assert model.get(1).running_var.dtype == torch.float64
    assert model.forward(T(randn(2, 1, 5, 5))).dtype == torch.float64
    model.clearState()
    assert pool.indices is None and model.get(2).noise is None
    assert model.get(1).save_mean is None and model.get(3).output.numel() == 0


def test_spatial_convolution_mm_matches_spatial_convolution():
    torch.manual_seed(0)
    mm, conv = (
        nn.SpatialConvolutionMM(3, 4, 3, 2, 1, 1, 1),
        nn.SpatialConvolution(3, 4, 3, 2, 1, 1, 1),
    )
    assert mm.weight.shape == (4, 3 * 2 * 3) and mm.gradWeight.shape == (4, 18)
    conv.weight.copy_(mm.weight.reshape(4, 3, 2, 3))
    conv.bias.copy_(mm.bias)
    x = torch.rand(2, 3, 5, 6)
    assert torch.allclose(mm.forward(x), conv.forward(x))
    g = torch.rand(mm.output.shape)
    assert torch.allclose(mm.backward(x, g), conv.backward(x, g))
    assert torch.allclose(mm.gradWeight, conv.gradWeight.reshape(4, 18))
    assert torch.allclose(mm.gradBias, conv.gradBias)
