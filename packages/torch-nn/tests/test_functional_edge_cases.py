"""torch.nn.functional on bad and edge-case arguments (issue 13): each result against a NumPy
formula, each refusal against the exception family and message content PyTorch gives.

The cases come from a side-by-side sweep against PyTorch 2.13 (bad sizes, dims, dtypes,
shapes, scalars); every test here failed before its fix."""

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torch
import torch.nn.functional as F

INT_DTYPES = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]
HALF_DTYPES = [torch.float16, torch.bfloat16]


def N(t):
    return t.detach().to(torch.float64).numpy() if t.is_floating_point() else t.numpy()


def data(*shape, seed=0, dtype=torch.float32):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)


# ---------------------------------------------------------------- 1. cosine_similarity


def np_cosine(a, b, dim, eps=1e-8):
    a, b = np.broadcast_arrays(a, b)
    na = np.maximum(np.sqrt((a * a).sum(dim, keepdims=True)), eps)
    nb = np.maximum(np.sqrt((b * b).sum(dim, keepdims=True)), eps)
    return ((a / na) * (b / nb)).sum(dim)


def test_cosine_similarity_broadcasts_before_taking_norms():
    # the case: the norm of ones(1) is 1, of the broadcast ones(1, 4) row 2
    out = F.cosine_similarity(torch.ones(1, 4), torch.ones(1), dim=-1)
    assert out.shape == (1,) and out.item() == pytest.approx(1.0)
    for sa, sb, dim in [((3, 4), (4,), -1), ((3, 4), (2, 1, 4), -1), ((5, 1, 3), (1, 4, 3), 2)]:
        a, b = data(*sa, seed=1), data(*sb, seed=2)
        out = F.cosine_similarity(a, b, dim=dim)
        np.testing.assert_allclose(N(out), np_cosine(N(a), N(b), dim), rtol=1e-5, atol=1e-6)
        assert np.all(np.abs(N(out)) <= 1 + 1e-6)


def test_cosine_similarity_bad_arguments():
    with pytest.raises(RuntimeError, match="must match|cannot be broadcast"):
        F.cosine_similarity(torch.ones(3, 4), torch.ones(3), dim=-1)
    with pytest.raises(IndexError, match="out of range"):
        F.cosine_similarity(torch.ones(3, 4), torch.ones(3, 4), dim=2)
    ints = torch.ones(3, 4, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="floating point"):
        F.cosine_similarity(ints, ints)
    assert F.cosine_similarity(ints, torch.ones(3, 4)).dtype == torch.float32
    with pytest.raises(RuntimeError, match="non-negative"):
        F.cosine_similarity(torch.ones(3, 4), torch.ones(3, 4), eps=-1.0)


# ---------------------------------------------------------------- 2. avg_pool divisor_override


def np_window_sums(x, k):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // k, k, w // k, k).sum((3, 5))


@pytest.mark.parametrize("divisor", [-1, -2, -3, 1, 5])
def test_avg_pool_divisor_override_negative_and_positive(divisor):
    x = data(2, 3, 4, 6)
    out = F.avg_pool2d(x, 2, divisor_override=divisor)
    np.testing.assert_allclose(N(out), np_window_sums(N(x), 2) / divisor, rtol=1e-6, atol=1e-6)
    x3 = data(1, 2, 2, 4, 4)
    out3 = F.avg_pool3d(x3, 2, divisor_override=divisor)
    ref = N(x3).reshape(1, 2, 1, 2, 2, 2, 2, 2).sum((3, 5, 7)) / divisor
    np.testing.assert_allclose(N(out3), ref, rtol=1e-6, atol=1e-6)


def test_avg_pool_divisor_override_gradient_keeps_the_sign():
    x = data(1, 1, 2, 2, dtype=torch.float64).requires_grad_()
    F.avg_pool2d(x, 2, divisor_override=-4).sum().backward()
    np.testing.assert_allclose(N(x.grad), np.full((1, 1, 2, 2), -0.25))


def test_avg_pool_divisor_override_bad_values():
    x = data(1, 1, 4, 4)
    for f in (F.avg_pool2d, lambda x, k, **kw: F.avg_pool3d(x.unsqueeze(2), (1, k, k), **kw)):
        with pytest.raises(RuntimeError, match="divisor must be not zero"):
            f(x, 2, divisor_override=0)
        with pytest.raises(TypeError, match="must be int, not float"):
            f(x, 2, divisor_override=2.5)
        with pytest.raises(TypeError, match="must be int, not bool"):
            f(x, 2, divisor_override=True)
    with pytest.raises(TypeError):  # avg_pool1d has no override (as PyTorch)
        F.avg_pool1d(torch.ones(1, 1, 4), 2, divisor_override=2)


def test_avg_pool_int64_truncates_toward_zero():
    x = torch.tensor([[[-3, -2, 5, 8, 7, -1]]])
    xs = N(x)[0, 0]
    assert F.avg_pool1d(x, 2).tolist() == [[[int(np.trunc(v)) for v in xs.reshape(3, 2).mean(1)]]]
    # count_include_pad=False divides by the real taps only
    ref = [int(np.trunc(-5 / 2)), int(np.trunc(8 / 4)), int(np.trunc(19 / 4)), int(np.trunc(6 / 2))]
    assert F.avg_pool1d(x, 4, 2, padding=2, count_include_pad=False).tolist() == [[ref]]
    assert F.avg_pool2d(x.reshape(1, 2, 3), 2, divisor_override=-4).tolist() == [[[-2]]]
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        F.avg_pool1d(x.to(torch.int32), 2)


# ---------------------------------------------------------------- 3. activations on int and bool


INT_VALUES = [-3, -1, 0, 1, 2, 5, 9, 100]


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8])
def test_hardtanh_and_relu6_keep_integer_dtypes(dtype):
    x = torch.tensor(INT_VALUES, dtype=dtype)
    xs = np.array(INT_VALUES)
    for lo, hi in [(-1.0, 1.0), (-2, 3), (-2.5, 3.5), (-1.9, 1.9)]:
        out = F.hardtanh(x, lo, hi)
        assert out.dtype == dtype
        # integer inputs truncate the limits toward zero
        np.testing.assert_array_equal(N(out), np.clip(xs, math.trunc(lo), math.trunc(hi)))
    out = F.relu6(x)
    assert out.dtype == dtype
    np.testing.assert_array_equal(N(out), np.clip(xs, 0, 6))
    y = x.clone()
    F.hardtanh_(y)
    np.testing.assert_array_equal(N(y), np.clip(xs, -1, 1))


def test_hardtanh_refusals_match_pytorch():
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.hardtanh(torch.ones(3, dtype=torch.bool))
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.relu6(torch.ones(3, dtype=torch.bool))
    u8 = torch.tensor([253, 0, 1, 9], dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="unsigned type with negative limits"):
        F.hardtanh(u8)
    np.testing.assert_array_equal(N(F.relu6(u8)), [6, 0, 1, 6])  # uint8 relu6 is fine
    # -0.5 truncates to 0 for uint8: not a negative limit
    np.testing.assert_array_equal(N(F.hardtanh(u8, -0.5, 1.0)), [1, 0, 1, 1])
    with pytest.raises(RuntimeError, match="without overflow"):
        F.hardtanh(torch.ones(3, dtype=torch.int8), -1000, 1000)
    with pytest.raises(RuntimeError, match="without overflow"):
        F.hardtanh(torch.ones(3, dtype=torch.float16), -1e6, 1e6)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(torch.ones(3), 2.0, 1.0)


FLOAT_ONLY = {
    "leaky_relu": F.leaky_relu, "elu": F.elu, "selu": F.selu, "celu": F.celu,
    "rrelu": F.rrelu, "gelu": F.gelu, "silu": F.silu, "mish": F.mish,
    "hardsigmoid": F.hardsigmoid, "hardswish": F.hardswish, "softplus": F.softplus,
    "logsigmoid": F.logsigmoid, "softshrink": F.softshrink, "hardshrink": F.hardshrink,
    "glu": F.glu, "elu_": F.elu_, "leaky_relu_": F.leaky_relu_, "celu_": F.celu_,
    "selu_": F.selu_, "rrelu_": F.rrelu_,
    "silu(inplace)": lambda x: F.silu(x, inplace=True),
    "hardswish(inplace)": lambda x: F.hardswish(x, inplace=True),
    "prelu": lambda x: F.prelu(x, torch.tensor([1], dtype=x.dtype)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FLOAT_ONLY))
@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.bool])
def test_float_only_activations_refuse_integer_and_bool(name, dtype):
    label = {torch.int64: "Long", torch.uint8: "Byte", torch.bool: "Bool"}[dtype]
    x = torch.tensor([-3, 0, 1, 2, 5, 9]).to(dtype)
    before = x.clone()
    with pytest.raises(NotImplementedError, match=f"not implemented for '{label}'"):
        FLOAT_ONLY[name](x)
    assert torch.equal(x, before)  # the in-place forms wrote nothing


@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.uint8])
def test_threshold_keeps_integer_dtype_and_truncates(dtype):
    xs = np.array([-3, -1, 0, 1, 2, 5, 9, 100])
    x = torch.tensor(xs).to(dtype)
    xs = N(x).astype(np.int64)  # (uint8 wraps -3, -1 as PyTorch does)
    for th, val in [(1, 7), (1.5, 7.5), (-1.5, 7), (-0.5, 7)]:
        if dtype == torch.uint8 and th < 0:
            continue
        out = F.threshold(x, th, val)
        assert out.dtype == dtype
        np.testing.assert_array_equal(N(out), np.where(xs > math.trunc(th), xs, math.trunc(val)))
    with pytest.raises(RuntimeError, match="without overflow"):
        F.threshold(torch.ones(3, dtype=torch.int8), 1, 300)
    with pytest.raises(NotImplementedError, match="'Bool'"):
        F.threshold(torch.ones(3, dtype=torch.bool), 1, 7)
    with pytest.raises(TypeError, match="Number"):
        F.threshold(torch.ones(3), None, 2)


def test_threshold_nan_threshold_keeps_the_input():
    x = torch.tensor([-3.0, 0.0, 2.0, float("nan")])
    out = F.threshold(x, float("nan"), 1.0)
    np.testing.assert_array_equal(N(out), N(x))
    assert math.isnan(F.threshold(x, 0.0, 1.0)[3].item())


def test_activation_gradients_at_the_kinks():
    """hardtanh, relu6, hardsigmoid, hardswish, softplus and rrelu: PyTorch's one-sided
    derivatives at the limits (not averages of the two sides)."""
    x = torch.tensor([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0], requires_grad=True)
    cases = [
        (F.hardtanh, [0, 0, 1, 0, 0, 0]),
        (F.relu6, [0, 0, 0, 1, 1, 0]),
        (F.hardsigmoid, [0, 1 / 6, 1 / 6, 1 / 6, 0, 0]),
        (F.hardswish, [0, -1 / 3 + 0.5, 0.5, 1 / 3 + 0.5, 1, 1]),
        (
            lambda x: F.softplus(x, 1, 1.0),
            [1 / (1 + math.exp(-v)) for v in (-3, -1, 0, 1)] + [1, 1],
        ),
        (F.rrelu, [(1 / 8 + 1 / 3) / 2] * 3 + [1, 1, 1]),
    ]
    for fn, ref in cases:
        x.grad = None
        fn(x).sum().backward()
        np.testing.assert_allclose(N(x.grad), ref, rtol=1e-6, atol=1e-7)


def test_hardsigmoid_hardswish_values():
    x = torch.tensor([-4.0, -3.0, -1.0, 0.0, 1.0, 2.0, 3.0, 5.0])
    xs = N(x)
    relu6 = np.clip(xs + 3, 0, 6)
    np.testing.assert_allclose(N(F.hardsigmoid(x)), relu6 / 6, rtol=1e-7)
    np.testing.assert_allclose(N(F.hardswish(x)), xs * relu6 / 6, rtol=1e-7)


def test_shrink_and_softplus_edge_scalars():
    x = torch.tensor([-2.0, -0.25, 0.0, 0.25, 2.0])
    np.testing.assert_array_equal(N(F.hardshrink(x, float("nan"))), N(x))  # nothing is |x| <= nan
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        F.softshrink(x, -1.0)
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        F.softshrink(x, float("nan"))
    # a NaN threshold compares false everywhere: the soft formula throughout
    np.testing.assert_allclose(N(F.softplus(x, 1, float("nan"))), np.log1p(np.exp(N(x))), rtol=1e-6)
    with pytest.raises(RuntimeError, match="without overflow"):
        F.leaky_relu(x, 1e300)
    with pytest.raises(OverflowError):
        F.elu(x, 2**70)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        F.rrelu(x, 0.5, 0.1)
    with pytest.raises(RuntimeError, match="finite"):
        F.rrelu(x, float("nan"), 0.3)
    with pytest.raises(TypeError, match="must be str"):
        F.gelu(x, approximate=None)
    with pytest.raises(RuntimeError, match="either none or tanh"):
        F.gelu(x, approximate="foo")


def test_tanhshrink_and_softsign_on_bool():
    b = torch.ones(3, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="Subtraction"):
        F.tanhshrink(b)
    out = F.softsign(torch.tensor([-3, 0, 1]))
    np.testing.assert_allclose(N(out), np.array([-3, 0, 1]) / (1 + np.abs([-3, 0, 1])), rtol=1e-6)


def test_glu_and_prelu_arguments():
    with pytest.raises(IndexError, match="out of range"):
        F.glu(torch.ones(8), 1)
    with pytest.raises(TypeError, match="bool"):
        F.glu(torch.ones(3, 4), True)
    x = data(3, 4)
    np.testing.assert_allclose(
        N(F.glu(x, 0 - 1)), N(x)[:, :2] / (1 + np.exp(-N(x)[:, 2:])), rtol=1e-6
    )
    with pytest.raises(RuntimeError, match="scalar or 1D tensor"):
        F.prelu(torch.ones(3, 4), torch.ones(2, 2))
    with pytest.raises(RuntimeError, match="Type promoting not supported"):
        F.prelu(torch.ones(3, 4), torch.ones(1, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="channel size"):
        F.prelu(torch.ones(4), torch.ones(4))
    assert F.prelu(torch.tensor(-2.0), torch.tensor([0.5])).shape == ()


# ---------------------------------------------------------------- 4. pad


def test_pad_odd_length_and_other_bad_pads():
    x = data(1, 2, 3)
    for pads in [(1,), (1, 2, 3)]:
        with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
            F.pad(x, pads)
    with pytest.raises(RuntimeError, match="less than or equal to two times the input dimension"):
        F.pad(x, (1,) * 8)
    with pytest.raises(TypeError, match="tuple of ints"):
        F.pad(x, 1)
    with pytest.raises(TypeError, match="found element of type float at pos 0"):
        F.pad(x, (1.5, 1))
    with pytest.raises(RuntimeError, match="negative output size"):
        F.pad(x, (-2, -2))
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        F.pad(x, (2**62, 0))


def test_pad_bad_modes_and_values():
    x = data(1, 2, 3)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode bogus"):
        F.pad(x, (1,), mode="bogus")  # the mode is checked before the length
    with pytest.raises(TypeError, match="'mode' must be str"):
        F.pad(x, (1, 1), mode=None)
    with pytest.raises(RuntimeError, match="doesn't take in value argument"):
        F.pad(x, (1, 1), mode="reflect", value=2)
    assert F.pad(x, (1, 1), mode="reflect", value=0).shape == (1, 2, 5)
    with pytest.raises(TypeError, match="'value' must be float"):
        F.pad(x, (1, 1), value="a")
    with pytest.raises(NotImplementedError, match="padding size 6 is not supported for 3D"):
        F.pad(x, (1,) * 6, mode="replicate")


@pytest.mark.parametrize(
    "dtype,value",
    [(torch.uint8, -1), (torch.uint8, 256), (torch.uint8, -0.5), (torch.int8, 128),
     (torch.int8, float("nan")), (torch.int64, float("inf")), (torch.float16, 65520.0),
     (torch.bfloat16, 3.4e38), (torch.float32, 3.5e38)],
)  # fmt: skip
def test_pad_value_that_overflows_the_dtype(dtype, value):
    with pytest.raises(RuntimeError, match="cannot be converted to type .* without overflow"):
        F.pad(torch.ones(2, dtype=dtype), (1, 1), value=value)


def test_pad_value_that_fits():
    out = F.pad(torch.ones(2, dtype=torch.int64), (1, 1), value=2.7)
    assert out.tolist() == [2, 1, 1, 2]  # truncated
    assert (
        F.pad(torch.ones(2, dtype=torch.float16), (1, 1), value=float("inf"))[0].item() == math.inf
    )
    assert F.pad(torch.zeros(2, dtype=torch.bool), (1, 0), value=0.5).tolist() == [
        True,
        False,
        False,
    ]


@pytest.mark.parametrize(
    "mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]
)
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.float16])
def test_pad_non_constant_modes_exact_for_every_dtype(mode, np_mode, dtype):
    base = np.arange(24).reshape(1, 2, 3, 4) % 200
    if dtype == torch.int64:
        base = base + 2**60 + 1  # beyond float64's exact integers
    x = torch.tensor(base).to(dtype)
    out = F.pad(x, (2, 1, 1, 2), mode=mode)
    assert out.dtype == dtype
    ref = np.pad(base, ((0, 0), (0, 0), (1, 2), (2, 1)), mode=np_mode)
    np.testing.assert_array_equal(N(out).astype(np.int64), ref)


def test_pad_non_constant_mode_checks():
    x = torch.arange(6.0).reshape(1, 2, 3)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        F.pad(x.bool(), (1, 1), mode="reflect")
    assert F.pad(x.bool(), (1, 1), mode="circular").dtype == torch.bool
    with pytest.raises(RuntimeError, match="reflect padding must be smaller"):
        F.pad(x, (3, 3), mode="reflect")
    with pytest.raises(RuntimeError, match="too small"):
        F.pad(x, (-3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="too small"):
        F.pad(x, (-3, 0), mode="replicate")
    with pytest.raises(RuntimeError, match="wrap"):
        F.pad(x, (4, 4), mode="circular")
    # circular: crops to nothing are fine, crops below nothing are not
    assert F.pad(x, (-3, 0), mode="circular").shape == (1, 2, 0)
    assert F.pad(torch.ones(1, 1, 4), (-2, -2), mode="circular").shape == (1, 1, 0)
    with pytest.raises(RuntimeError, match="negative output size"):
        F.pad(x, (-3, -1), mode="circular")
    # only the batch dim may be empty
    for shape in [(0, 3), (1, 0, 3), (1, 3, 0)]:
        with pytest.raises(RuntimeError, match="non-zero dimensions"):
            F.pad(torch.ones(shape), (1, 1), mode="reflect")
    assert F.pad(torch.ones(0, 2, 3), (1, 1), mode="replicate").shape == (0, 2, 5)


# ---------------------------------------------------------------- 5. pixel_shuffle


@pytest.mark.parametrize(
    "fn,arg", [(F.pixel_shuffle, "upscale_factor"), (F.pixel_unshuffle, "downscale_factor")]
)
def test_pixel_shuffle_bad_factors(fn, arg):
    x = torch.ones(1, 4, 2, 2)
    for r in (0, -1, -(2**62)):
        with pytest.raises(RuntimeError, match=f"expects a positive {arg}, but got {r}"):
            fn(x, r)
    for r in (2.0, True, None, "2"):
        with pytest.raises(TypeError, match=f"'{arg}' must be int"):
            fn(x, r)
    with pytest.raises(ValueError):
        fn(x, 2**63)
    with pytest.raises(TypeError, match="must be Tensor"):
        fn([1.0], 2)
    with pytest.raises(RuntimeError, match=r"at least 3 dimensions.*\(4, 2\)"):
        fn(torch.ones(4, 2), 2)


def test_pixel_shuffle_bad_shapes_name_the_op_and_shape():
    with pytest.raises(ValueError, match=r"\(upscale_factor\)\^2 overflows"):
        F.pixel_shuffle(torch.ones(1, 4, 2, 2), 2**62)
    with pytest.raises(RuntimeError, match=r"pixel_shuffle.*divisible by.*\(1, 3, 2, 2\)"):
        F.pixel_shuffle(torch.ones(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError, match=r"pixel_unshuffle expects height.*size\(-2\)=3"):
        F.pixel_unshuffle(torch.ones(1, 4, 3, 4), 2)
    with pytest.raises(RuntimeError, match=r"pixel_unshuffle expects width.*size\(-1\)=3"):
        F.pixel_unshuffle(torch.ones(1, 4, 4, 3), 2)


def test_pixel_shuffle_values():
    x = np.arange(2 * 8 * 2 * 3).reshape(2, 8, 2, 3)
    r, c = 2, 2
    ref = x.reshape(2, c, r, r, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, c, 4, 6)
    out = F.pixel_shuffle(torch.tensor(x), r)
    np.testing.assert_array_equal(N(out), ref)
    np.testing.assert_array_equal(N(F.pixel_unshuffle(out, r)), x)


# ---------------------------------------------------------------- 6. the sweep


@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_pooling_softmax_norms_run_16_bit_floats(dtype):
    x = data(2, 3, 6, 6)
    xh = x.to(dtype)
    xr = xh.float()  # the rounded input, the same for both
    tol = dict(rtol=2e-2, atol=2e-2)
    for fn in [
        lambda t: F.max_pool2d(t, 2),
        lambda t: F.avg_pool2d(t, 3, 2, 1),
        lambda t: F.adaptive_avg_pool2d(t, 4),
        lambda t: F.adaptive_max_pool2d(t, 4),
        lambda t: F.softmax(t, 1),
        lambda t: F.log_softmax(t, 1),
        lambda t: F.layer_norm(t, (6,)),
        lambda t: F.group_norm(t, 3),
        lambda t: F.batch_norm(t, None, None, training=True),
        lambda t: F.instance_norm(t),
        lambda t: F.interpolate(t, size=(3, 5), mode="bilinear"),
        lambda t: F.pad(t, (1, 2, 2, 1), mode="reflect"),
    ]:
        out = fn(xh)
        assert out.dtype == dtype
        np.testing.assert_allclose(N(out), N(fn(xr)), **tol)
    logits = xh.reshape(-1, 6)
    target = torch.arange(logits.shape[0]) % 6
    loss = F.cross_entropy(logits, target)
    assert loss.dtype == dtype
    assert loss.item() == pytest.approx(F.cross_entropy(logits.float(), target).item(), rel=2e-2)
    assert F.dropout(xh, 0.5).dtype == dtype
    emb = F.embedding(torch.tensor([0, 2]), data(3, 4).to(dtype))
    assert emb.dtype == dtype


def test_max_pool_integers():
    big = 2**60
    x = torch.tensor([[[[big + 1, big + 2], [big + 3, big]]]])
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert out.dtype == torch.int64 and out.item() == big + 3 and idx.item() == 2  # exact
    x3 = torch.arange(8, dtype=torch.int32).reshape(1, 1, 2, 2, 2)
    assert F.max_pool3d(x3, 2).item() == 7
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.max_pool1d(torch.ones(1, 1, 4, dtype=torch.int64), 2)
    assert F.max_pool1d(torch.ones(1, 1, 4, dtype=torch.int64), 2, return_indices=True)[
        0
    ].shape == (1, 1, 2)
    with pytest.raises(NotImplementedError, match="'Bool'"):
        F.max_pool2d(torch.ones(1, 2, 2, dtype=torch.bool), 2)
    for f in (F.adaptive_avg_pool2d, F.adaptive_max_pool2d):
        with pytest.raises(NotImplementedError, match="'Long'"):
            f(torch.ones(1, 2, 2, dtype=torch.int64), 1)


def test_pooling_bad_arguments():
    x = data(2, 3, 6, 6)
    with pytest.raises(RuntimeError, match="non-zero sizes"):
        F.max_pool2d(data(2, 0, 6, 6), 2)
    with pytest.raises(RuntimeError, match="non-zero sizes"):
        F.avg_pool1d(data(2, 3, 0), 2)
    assert F.adaptive_avg_pool2d(data(2, 0, 6, 6), 3).shape == (2, 0, 3, 3)
    assert F.max_pool2d(data(0, 3, 6, 6), 2).shape == (0, 3, 3, 3)
    for bad in (None, 2, "yes"):
        with pytest.raises(TypeError, match="'ceil_mode' must be bool"):
            F.max_pool2d(x, 2, ceil_mode=bad)
        with pytest.raises(TypeError, match="'count_include_pad' must be bool"):
            F.avg_pool2d(x, 2, count_include_pad=bad)
    with pytest.raises(ValueError, match="overflows int64"):
        F.max_pool2d(x, 2**63)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        F.adaptive_avg_pool2d(x, 2**62)
    with pytest.raises(TypeError, match="output_size"):
        F.adaptive_avg_pool2d(x, None)
    with pytest.raises(TypeError, match="output_size"):
        F.adaptive_avg_pool1d(data(2, 3, 6), (None,))
    assert F.adaptive_avg_pool2d(x, (None, 3)).shape == (2, 3, 6, 3)
    pooled, idx = F.max_pool2d(x, 2, return_indices=True)
    with pytest.raises(ValueError, match="non-negative spatial dimensions"):
        F.max_unpool2d(pooled, idx, -1)
    # output_size: 2 or 4 values, each within a stride of the default (6 here)
    assert F.max_unpool2d(pooled, idx, 2, output_size=(2, 3, 7, 7)).shape == (2, 3, 7, 7)
    for bad, msg in [((), "length of '0'"), ("a", "length of '1'"), ((0, 0), "between 4 and 8")]:
        with pytest.raises(ValueError, match=msg):
            F.max_unpool2d(pooled, idx, 2, output_size=bad)


def test_softmax_dtypes():
    with pytest.raises(NotImplementedError, match="'Long'"):
        F.softmax(torch.ones(2, 3, dtype=torch.int64), 1)
    with pytest.raises(NotImplementedError, match="'Long'"):
        F.log_softmax(torch.ones(2, 3), 1, dtype=torch.int64)
    with pytest.raises(TypeError, match="'dtype' must be torch.dtype"):
        F.softmax(torch.ones(2, 3), 1, dtype="a")
    out = F.softmax(torch.ones(2, 3, dtype=torch.int64), 1, dtype=torch.float64)
    np.testing.assert_allclose(N(out), np.full((2, 3), 1 / 3))


def test_norm_dtype_and_argument_checks():
    x = data(3, 4, 5)
    with pytest.raises(RuntimeError, match="mixed dtype"):
        F.layer_norm(x.double(), (5,), torch.ones(5))
    with pytest.raises(RuntimeError, match="mixed dtype"):
        F.group_norm(data(2, 6, 5), 3, torch.ones(6, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="vector of 6 values"):
        F.group_norm(data(2, 6, 5), 3, torch.ones(1, 6))
    with pytest.raises(TypeError, match="'eps' must be float"):
        F.layer_norm(x, (5,), eps="a")
    with pytest.raises(TypeError, match="'weight' must be Tensor"):
        F.group_norm(data(2, 6, 5), 3, weight=1.0)
    with pytest.raises(NotImplementedError, match="'Long'"):
        F.batch_norm(torch.ones(4, 3, dtype=torch.int64), torch.zeros(3), torch.ones(3))
    with pytest.raises(ValueError, match="eps must be non-negative"):
        F.batch_norm(x, torch.zeros(4), torch.ones(4), eps=-1.0)
    with pytest.raises(TypeError, match="'momentum' must be float"):
        F.batch_norm(x, torch.zeros(4), torch.ones(4), momentum=None)
    with pytest.raises(RuntimeError, match="1-D"):
        F.batch_norm(x, torch.zeros(1, 4), torch.ones(4))
    # 16-bit running statistics are updated (through float32)
    rm, rv = torch.zeros(4, dtype=torch.float16), torch.ones(4, dtype=torch.float16)
    xh = x.permute(1, 0, 2).reshape(4, 15).t().contiguous().to(torch.float16)
    F.batch_norm(xh, rm, rv, training=True, momentum=1.0)
    np.testing.assert_allclose(N(rm), N(xh.float()).mean(0), rtol=1e-2, atol=1e-2)


def test_class_targets_and_label_smoothing():
    logits = data(3, 5)
    for dtype in (torch.int32, torch.int16, torch.int8):
        with pytest.raises(RuntimeError, match="Long or Byte"):
            F.nll_loss(logits, torch.tensor([0, 1, 2], dtype=dtype))
    ref = F.cross_entropy(logits, torch.tensor([0, 1, 2]))
    assert F.cross_entropy(
        logits, torch.tensor([0, 1, 2], dtype=torch.uint8)
    ).item() == pytest.approx(ref.item())
    for ls in (1.5, float("nan"), float("inf")):
        with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
            F.cross_entropy(logits, torch.tensor([0, 1, 2]), label_smoothing=ls)
    # (PyTorch smooths only with a positive label_smoothing: a negative one is no smoothing)
    for ls in (-1.0, -math.inf):
        neg = F.cross_entropy(logits, torch.tensor([0, 1, 2]), label_smoothing=ls)
        assert neg.item() == pytest.approx(ref.item())
    with pytest.raises(TypeError, match="'label_smoothing' must be float"):
        F.cross_entropy(logits, torch.tensor([0, 1, 2]), label_smoothing="a")


def test_dropout_arguments():
    x = data(3, 4)
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(RuntimeError, match="between 0 and 1, but got nan"):
        F.dropout(x, float("nan"))
    with pytest.raises(TypeError, match="'p' must be float"):
        F.dropout(x, "a")
    for fn in (F.dropout, F.alpha_dropout, F.feature_alpha_dropout, F.dropout2d):
        with pytest.raises(RuntimeError, match="can't be cast"):
            fn(torch.ones(2, 3, 4, 4, dtype=torch.int64), 0.5, True)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F.dropout2d(torch.ones(5), 0.5)
    out = F.dropout(torch.ones(1000, dtype=torch.bfloat16), 0.5)
    assert out.dtype == torch.bfloat16 and set(N(out).tolist()) <= {0.0, 2.0}


def test_interpolate_arguments():
    x = data(1, 2, 4, 4)
    for sf in (float("nan"), float("inf"), 1e300):
        with pytest.raises(RuntimeError, match="without overflow"):
            F.interpolate(x, scale_factor=sf)
    with pytest.raises(TypeError, match="'scale_factor' must be float"):
        F.interpolate(x, scale_factor="a")
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        F.interpolate(x, size=(2**62, 5))
    with pytest.raises(RuntimeError, match="Non-empty 4D data tensor expected"):
        F.interpolate(data(1, 0, 4, 4), size=3)
    with pytest.raises(NotImplementedError, match="'Long'"):
        F.interpolate(x.to(torch.int64), size=3)
    u8 = torch.tensor(np.arange(32).reshape(1, 2, 4, 4), dtype=torch.uint8)
    near = F.interpolate(u8, size=(8, 8))
    assert near.dtype == torch.uint8
    np.testing.assert_array_equal(
        N(near), np.arange(32).reshape(1, 2, 4, 4).repeat(2, 2).repeat(2, 3)
    )
    lin = F.interpolate(u8, size=(3, 3), mode="bilinear")
    ref = F.interpolate(u8.float(), size=(3, 3), mode="bilinear")
    np.testing.assert_array_equal(N(lin), np.clip(np.round(N(ref)), 0, 255))


def test_embedding_arguments():
    w = data(5, 3)
    idx = torch.tensor([[0, 4], [2, 2]])
    wi = torch.arange(15).reshape(5, 3)
    np.testing.assert_array_equal(N(F.embedding(idx, wi)), N(wi)[N(idx)])
    with pytest.raises(RuntimeError, match="int64 or int32"):
        F.embedding(idx.to(torch.uint8), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(idx, w, padding_idx=5)
    off = torch.tensor([0, 3])
    flat = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2])
    with pytest.raises(RuntimeError, match="offsets\\[-1\\] can not be greater"):
        F.embedding_bag(flat, w, torch.tensor([0, 9]))
    with pytest.raises(RuntimeError, match="non-decreasing"):
        F.embedding_bag(flat, w, torch.tensor([0, 5, 3]))
    with pytest.raises(RuntimeError, match="not in the valid range"):
        F.embedding_bag(flat + 5, w, off)
    with pytest.raises(ValueError, match="2D Tensor"):
        F.embedding_bag(flat, torch.ones(5), off)
    with pytest.raises(RuntimeError, match="floating-point"):
        F.embedding_bag(flat, wi, off)
    mean = F.embedding_bag(flat, w, off)
    np.testing.assert_allclose(N(mean[0]), N(w)[[0, 1, 2]].mean(0), rtol=1e-6)


def test_loss_edge_cases():
    x, t = data(3, 4), torch.rand(3, 4)
    # multilabel_soft_margin_loss: the classes are the input's last dim, after broadcasting
    x1 = data(4, seed=3)
    loss = F.multilabel_soft_margin_loss(x1, t, reduction="none")
    ls = lambda v: -np.log1p(np.exp(-v))  # noqa: E731 (log sigmoid)
    full = -(N(t) * ls(N(x1)) + (1 - N(t)) * ls(-N(x1)))
    np.testing.assert_allclose(N(loss), full.sum(0) / 4, rtol=1e-5)
    # multi_margin_loss: a NaN margin adds nothing, an infinite one is infinite
    y = torch.tensor([1, 2, 0])
    logits = data(3, 5)
    assert N(F.multi_margin_loss(logits, y, margin=float("nan"), reduction="none")).tolist() == [
        0,
        0,
        0,
    ]
    assert np.all(
        np.isinf(N(F.multi_margin_loss(logits, y, margin=float("inf"), reduction="none")))
    )
    with pytest.raises(RuntimeError, match="inconsistent weight size, expected 5"):
        F.multi_margin_loss(logits, y, weight=torch.ones(4))
    for bad in (torch.tensor(1), torch.tensor([[1, 2, 0]]), torch.tensor([1, 2])):
        with pytest.raises(RuntimeError, match="target tensor should be 1-D"):
            F.multi_margin_loss(logits, bad)
    # soft_margin_loss with an unsigned target (negating it first would wrap around)
    tu = torch.tensor([[0, 1, 1, 0]] * 3, dtype=torch.uint8)
    assert F.soft_margin_loss(x, tu).item() == pytest.approx(
        F.soft_margin_loss(x, tu.float()).item()
    )
    with pytest.raises(RuntimeError, match="negative values for beta"):
        F.smooth_l1_loss(x, t, beta=float("nan"))
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        F.huber_loss(x, t, delta=float("nan"))
    with pytest.raises(RuntimeError, match="Found dtype"):
        F.binary_cross_entropy(torch.rand(3, dtype=torch.float64), torch.rand(3))
    with pytest.raises(RuntimeError, match="Integral inputs not supported"):
        F.kl_div(torch.ones(3, dtype=torch.int64), torch.rand(3))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        F.cosine_embedding_loss(x, x, torch.ones(3, 1))
    for fn in (F.triplet_margin_loss, F.triplet_margin_with_distance_loss):
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            fn(x, x, x, margin=0)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_with_distance_loss(data(4), x, x)
    for fn in (F.l1_loss, F.mse_loss, F.binary_cross_entropy, F.kl_div, F.poisson_nll_loss):
        with pytest.raises(TypeError, match="must be Tensor"):
            fn(1.0, t)


def test_attention_edge_cases():
    q, k, v = data(2, 3, 4), data(2, 5, 4, seed=1), data(2, 5, 6, seed=2)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(3, 5, dtype=torch.bool))
    np.testing.assert_array_equal(N(out), np.zeros((2, 3, 6)))  # rows with no key: zeros
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[1] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert not torch.isnan(out).any() and N(out)[:, 1].tolist() == np.zeros((2, 6)).tolist()
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        F.scaled_dot_product_attention(data(4), data(4), data(4))
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q.double(), k, v)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(AssertionError, match="unbatched 2D or batched 3D"):
        F.multi_head_attention_forward(
            data(1, 3, 2, 4), data(5, 2, 4), data(5, 2, 4), 4, 2, data(12, 4), data(12),
            None, None, False, 0.0, data(4, 4), data(4), training=False,
        )  # fmt: skip


def test_linear_distances_one_hot():
    with pytest.raises(RuntimeError, match="same dtype"):
        F.linear(data(3, 4), data(5, 4), data(5, dtype=torch.float64))
    with pytest.raises(TypeError, match="must be Tensor"):
        F.linear(1.0, data(5, 4))
    with pytest.raises(RuntimeError, match="bias size does not match"):
        F.bilinear(data(3, 4), data(3, 2), data(5, 4, 2), data(1, 5))
    x = data(4, 3)
    with pytest.raises(RuntimeError, match="non-negative p"):
        F.pdist(x, -1)
    with pytest.raises(RuntimeError, match="floating-point"):
        F.pdist(x.to(torch.int64))
    # a huge p is the max norm (no overflow to inf ** 0 = 1)
    xs = N(x)
    iu = np.triu_indices(4, 1)
    ref = np.abs(xs[iu[0]] - xs[iu[1]]).max(1)
    np.testing.assert_allclose(N(F.pdist(x, 1e300)), ref, rtol=1e-6)
    np.testing.assert_allclose(N(F.pdist(x, 100.0)), ref, rtol=2e-2)
    # normalize: eps <= 0 leaves the norm unclamped
    xn = data(3, 4)
    ref = N(xn) / np.sqrt((N(xn) ** 2).sum(1, keepdims=True))
    for eps in (0.0, -1.0, -math.inf):
        np.testing.assert_allclose(N(F.normalize(xn, eps=eps)), ref, rtol=1e-6)
    with pytest.raises(RuntimeError, match="floating point"):
        F.normalize(torch.ones(3, 4, dtype=torch.int64))
    with pytest.raises(TypeError, match="'num_classes' must be int"):
        F.one_hot(torch.tensor([0, 1]), 1.5)


# ---------------------------------------------------------------- crash safety


def _run(code):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )


def test_bad_calls_raise_and_never_crash():
    """Huge sizes, zero-stride expansions and overflowing arguments, in a child process so
    that a crash fails the test instead of the run."""
    r = _run(
        """
        import torch, torch.nn.functional as F
        big = torch.empty(0, 1).expand(0, 2**62)
        x = torch.ones(2, 3, 8)
        calls = [
            lambda: F.pad(x, (2**62, 2**62)),
            lambda: F.pad(x, (2**62, 0), mode="replicate"),
            lambda: F.pad(x.to(torch.int64), (2**61, 0), mode="circular"),
            lambda: F.adaptive_avg_pool1d(x, 2**62),
            lambda: F.adaptive_max_pool1d(x, 2**62),
            lambda: F.interpolate(x, size=2**62),
            lambda: F.interpolate(x, scale_factor=1e300),
            lambda: F.max_pool1d(x, 2, 2**62),
            lambda: F.max_pool1d(x, 2, dilation=2**62),
            lambda: F.avg_pool1d(x, 2**62),
            lambda: F.max_unpool1d(x, torch.zeros(2, 3, 8, dtype=torch.int64), 2**62),
            lambda: F.pixel_shuffle(torch.ones(1, 4, 2, 2), 2**62),
            lambda: F.pixel_unshuffle(torch.ones(1, 4, 0, 0), 2**62),
            lambda: F.embedding(torch.tensor([2**62]), torch.ones(3, 2)),
            lambda: F.embedding_bag(
                torch.tensor([0, 1]), torch.ones(3, 2), torch.tensor([0, 2**62])
            ),
            lambda: F.one_hot(torch.tensor([0]), 2**62),
            lambda: F.nll_loss(torch.ones(2, 3), torch.tensor([0, 2**62])),
            lambda: F.softmax(big, 1),
            lambda: F.layer_norm(big, (2**62,)),
            lambda: F.hardtanh(x.to(torch.int8), -2**70, 2**70),
            lambda: F.threshold(x.to(torch.uint8), 2**64, 1),
        ]
        for i, f in enumerate(calls):
            try:
                f()
            except (RuntimeError, ValueError, TypeError, IndexError, OverflowError) as e:
                pass
        print("survived", len(calls))
        """
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "survived 21" in r.stdout
