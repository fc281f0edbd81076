"""Memory formats: torch.channels_last & co., and the methods and creation functions that
take ``memory_format=`` (checked against the stride formulas and against PyTorch 2.13's
behaviour; the suite also runs under real PyTorch)."""

import copy
import pickle

import numpy as np
import pytest

import torch

CL, CL3 = torch.channels_last, torch.channels_last_3d
CF, PF = torch.contiguous_format, torch.preserve_format


def nhwc(shape):
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)


def ndhwc(shape):
    n, c, d, h, w = shape
    return (d * h * w * c, 1, h * w * c, w * c, c)


def contiguous_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return tuple(strides)


def arange(*shape):
    return torch.arange(float(np.prod(shape))).reshape(shape)


# ---------------------------------------------------------------- the objects
def test_objects():
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        fmt = getattr(torch, name)
        assert isinstance(fmt, torch.memory_format)
        assert repr(fmt) == str(fmt) == f"torch.{name}"
        assert pickle.loads(pickle.dumps(fmt)) is fmt
        assert copy.deepcopy(fmt) is fmt
    assert type(CL) is torch.memory_format
    assert torch.memory_format.__name__ == "memory_format"
    assert torch.memory_format.__module__ == "torch"
    assert CL == CL and CL != CF and len({CL, CL3, CF, PF}) == 4
    with pytest.raises(TypeError, match="cannot create 'torch.memory_format' instances"):
        torch.memory_format()


# ---------------------------------------------------------------- strides
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (10, 3, 32, 32), (1, 3, 2, 2), (4, 2, 3, 1)])
def test_channels_last_strides(shape):
    x = arange(*shape)
    y = x.contiguous(memory_format=CL)
    assert y.shape == x.shape and y.stride() == nhwc(shape)
    assert torch.equal(y, x)
    assert y.is_contiguous(memory_format=CL)
    # the memory holds NHWC order
    flat = y.as_strided((y.numel(),), (1,))
    assert np.array_equal(flat.numpy(), x.numpy().transpose(0, 2, 3, 1).reshape(-1))
    e = torch.empty(shape, memory_format=CL)
    assert e.shape == shape and e.stride() == nhwc(shape)
    assert torch.empty(*shape, memory_format=CF).stride() == contiguous_strides(shape)


def test_channels_last_3d_strides():
    shape = (2, 3, 4, 5, 6)
    x = arange(*shape)
    y = x.contiguous(memory_format=CL3)
    assert y.stride() == ndhwc(shape) == (360, 1, 90, 18, 3)
    assert torch.equal(y, x)
    assert y.is_contiguous(memory_format=CL3) and not y.is_contiguous()
    assert not y.is_contiguous(memory_format=CL)
    assert torch.empty(shape, memory_format=CL3).stride() == ndhwc(shape)
    z = torch.empty(2, 1, 4, 5, 6, memory_format=CL3)
    assert z.stride() == (120, 1, 30, 6, 1)


@pytest.mark.parametrize(
    "shape, strides",
    [
        ((2, 3, 4, 5), (60, 1, 15, 3)),
        ((2, 1, 4, 5), (20, 1, 5, 1)),
        ((2, 3, 1, 1), (3, 1, 3, 3)),
        ((1, 1, 1, 1), (1, 1, 1, 1)),
        ((2, 0, 4, 5), (0, 1, 0, 0)),
        ((0, 3, 4, 5), (60, 1, 15, 3)),
    ],
)
def test_empty_channels_last_edge_shapes(shape, strides):
    x = torch.empty(shape, memory_format=CL)
    assert x.stride() == strides
    assert x.is_contiguous(memory_format=CL)
    assert x.contiguous(memory_format=CL) is x
    z = torch.zeros(shape)  # a copy where the contiguous strides are not NHWC ones
    expected = z.stride() if z.is_contiguous(memory_format=CL) else strides
    assert z.contiguous(memory_format=CL).stride() == expected


@pytest.mark.parametrize("shape", [(2, 1, 4, 5), (1, 3, 1, 1), (1, 1, 1, 1)])
def test_contiguous_channels_last_when_channels_or_space_is_one(shape):
    x = torch.zeros(shape)  # NCHW and NHWC at once: nothing to copy
    assert x.contiguous(memory_format=CL) is x
    assert x.is_contiguous(memory_format=CL) and x.is_contiguous()


def test_is_contiguous():
    x = arange(2, 3, 4, 5)
    assert x.is_contiguous() and x.is_contiguous(memory_format=CF)
    assert not x.is_contiguous(memory_format=CL)
    y = x.contiguous(memory_format=CL)
    assert not y.is_contiguous() and y.is_contiguous(memory_format=CL)
    # size-1 dims: both formats at once (the tutorial's special case)
    special = torch.empty(4, 1, 4, 4)
    assert special.is_contiguous(memory_format=CL) and special.is_contiguous(memory_format=CF)
    assert torch.empty(2, 3, 1, 1).is_contiguous(memory_format=CL)
    # another rank is never channels-last contiguous; preserve_format means plain contiguity
    assert not torch.empty(2, 3, 4).is_contiguous(memory_format=CL)
    assert not x.is_contiguous(memory_format=CL3)
    assert x.is_contiguous(memory_format=PF) and not y.is_contiguous(memory_format=PF)
    # a strided slice of a channels-last tensor is neither
    assert not y[:, :, ::2].is_contiguous(memory_format=CL)
    # no elements, yet contiguous strides are not NHWC ones
    assert not torch.zeros(2, 0, 4, 5).is_contiguous(memory_format=CL)


RANK_MAKERS = [
    lambda x, fmt: torch.empty(x.shape, memory_format=fmt),
    lambda x, fmt: x.contiguous(memory_format=fmt),
    lambda x, fmt: x.to(memory_format=fmt),
    lambda x, fmt: x.clone(memory_format=fmt),
    lambda x, fmt: x.float(memory_format=fmt),
    lambda x, fmt: x.cpu(memory_format=fmt),
    lambda x, fmt: torch.zeros_like(x, memory_format=fmt),
    lambda x, fmt: torch.empty_like(x, memory_format=fmt),
]


@pytest.mark.parametrize("make", RANK_MAKERS)
@pytest.mark.parametrize(
    "shape, fmt, msg",
    [
        ((2, 3, 4), CL, "required rank 4 tensor to use channels_last format"),
        ((2, 3, 4, 5, 6), CL, "required rank 4 tensor to use channels_last format"),
        ((2, 3, 4, 5), CL3, "required rank 5 tensor to use channels_last_3d format"),
    ],
)
def test_rank_errors(make, shape, fmt, msg):
    with pytest.raises(RuntimeError, match=msg):
        make(torch.zeros(shape), fmt)


def test_argument_errors():
    x = torch.zeros(2, 3, 4, 5)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        torch.empty(2, 3, 4, 5, memory_format=PF)
    for fn in (x.contiguous, x.is_contiguous):
        with pytest.raises(TypeError, match="must be torch.memory_format, not str"):
            fn(memory_format="channels_last")
        with pytest.raises(TypeError, match="must be torch.memory_format, not NoneType"):
            fn(memory_format=None)
        with pytest.raises(TypeError):
            fn(CL)  # keyword-only
    with pytest.raises(TypeError):
        x.to(memory_format="channels_last")
    with pytest.raises(TypeError):
        x.clone(CL)
    with pytest.raises(TypeError):
        x.float(CL)


# ---------------------------------------------------------------- contiguous / clone / to
def test_contiguous():
    x = arange(2, 3, 4, 5)
    y = x.contiguous(memory_format=CL)
    assert y.contiguous(memory_format=CL) is y  # already in the format: no copy
    assert x.contiguous(memory_format=CF) is x
    z = y.contiguous()
    assert z.stride() == (60, 20, 5, 1) and torch.equal(z, x)
    # preserve_format: only a contiguous tensor passes
    assert x.contiguous(memory_format=PF) is x
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        y.contiguous(memory_format=PF)
    # from a non-contiguous view
    t = x.transpose(2, 3)
    u = t.contiguous(memory_format=CL)
    assert u.stride() == nhwc(t.shape) and torch.equal(u, t)


def test_clone():
    x = arange(2, 3, 4, 5)
    y = x.contiguous(memory_format=CL)
    # preserve_format (the default) keeps dense strides, any permutation of them
    assert y.clone().stride() == (60, 1, 15, 3)
    assert y.clone(memory_format=PF).stride() == (60, 1, 15, 3)
    t = x.transpose(2, 3)
    assert t.clone().stride() == (60, 20, 1, 5)
    assert torch.randn(3, 4).t().clone().stride() == (1, 4)
    assert x.permute(3, 1, 0, 2).clone().stride() == (1, 20, 60, 5)
    # a non-dense tensor becomes dense with its dims in the same order
    assert y[:, :, ::2].clone().stride() == (30, 1, 15, 3)
    assert x[:, :, ::2].clone().stride() == (30, 10, 5, 1)
    assert t[..., ::2].clone().stride() == (30, 10, 1, 5)
    assert torch.zeros(4, 6).t()[::2].clone().stride() == (1, 3)
    assert x.permute(3, 1, 0, 2)[::2].clone().stride() == (1, 12, 36, 3)
    # broadcast (zero strides): contiguous
    assert torch.zeros(1, 3, 1, 1).expand(2, 3, 4, 5).clone().stride() == (60, 20, 5, 1)
    # explicit formats
    assert t.clone(memory_format=CL).stride() == (60, 1, 12, 3)
    assert y.clone(memory_format=CF).stride() == (60, 20, 5, 1)
    for v in (y, t, y[:, :, ::2], x.permute(3, 1, 0, 2)[::2]):
        for fmt in (PF, CF):
            c = v.clone(memory_format=fmt)
            assert torch.equal(c, v) and c.data_ptr() != v.data_ptr()
    c = y.clone()
    c.fill_(0)
    assert y.sum() == x.sum()  # a copy


def test_to():
    x = arange(2, 3, 4, 5)
    y = x.to(memory_format=CL)
    assert y.stride() == (60, 1, 15, 3) and torch.equal(y, x)
    # returns self when the tensor already looks like the format and nothing else changes
    assert y.to(memory_format=CL) is y
    assert x.to(memory_format=CF) is x
    assert y.to(memory_format=PF) is y and y.to(memory_format=None) is y
    assert y.to(torch.float32) is y
    back = y.to(memory_format=CF)
    assert back.stride() == (60, 20, 5, 1) and torch.equal(back, x)
    # with a cast or copy=True
    d = x.to(torch.float64, memory_format=CL)
    assert d.dtype == torch.float64 and d.stride() == (60, 1, 15, 3)
    assert torch.equal(d, x.double())
    c = y.to(torch.float32, copy=True)
    assert c.stride() == (60, 1, 15, 3) and c.data_ptr() != y.data_ptr()
    i = x.to(torch.zeros(1, dtype=torch.int32), memory_format=CL)
    assert i.dtype == torch.int32 and i.stride() == (60, 1, 15, 3)
    assert x.to("cpu", torch.float64, memory_format=CL).stride() == (60, 1, 15, 3)
    # preserve_format keeps the layout of a cast
    assert y.to(torch.float64).stride() == (60, 1, 15, 3)
    assert x.transpose(2, 3).to(torch.float64).stride() == (60, 20, 1, 5)
    assert y[:, :, ::2].to(torch.float64).stride() == (30, 1, 15, 3)
    # a 3-D tensor: preserve and contiguous are fine
    assert torch.zeros(2, 3, 4).to(memory_format=PF).shape == (2, 3, 4)
    assert torch.zeros(2, 3, 4).to(memory_format=CF).shape == (2, 3, 4)


def test_tutorial_lines():
    """The core lines of PyTorch's channels-last tutorial, with the strides it prints."""
    N, C, H, W = 10, 3, 32, 32
    x = torch.empty(N, C, H, W)
    assert x.stride() == (3072, 1024, 32, 1)
    x = x.to(memory_format=torch.channels_last)
    assert x.shape == (10, 3, 32, 32)
    assert x.stride() == (3072, 1, 96, 3)
    x = x.to(memory_format=torch.contiguous_format)
    assert x.stride() == (3072, 1024, 32, 1)
    x = x.contiguous(memory_format=torch.channels_last)
    assert x.stride() == (3072, 1, 96, 3)
    assert x.is_contiguous(memory_format=torch.channels_last)
    x = torch.empty(N, C, H, W, memory_format=torch.channels_last)
    assert x.stride() == (3072, 1, 96, 3)
    # the format propagates through clone and the *_like functions
    assert x.clone().stride() == (3072, 1, 96, 3)
    assert torch.empty_like(x).is_contiguous(memory_format=torch.channels_last)
    # the alternative way: permute and back
    y = torch.randn(N, C, H, W).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert y.is_contiguous(memory_format=torch.channels_last)
    assert y.stride() == (3072, 1, 96, 3)


@pytest.mark.parametrize(
    "name, dtype",
    [
        ("float", torch.float32),
        ("double", torch.float64),
        ("half", torch.float16),
        ("bfloat16", torch.bfloat16),
        ("int", torch.int32),
        ("long", torch.int64),
        ("short", torch.int16),
        ("char", torch.int8),
        ("byte", torch.uint8),
        ("bool", torch.bool),
    ],
)
def test_casts(name, dtype):
    x = arange(2, 3, 4, 5)
    y = getattr(x, name)(memory_format=CL)
    assert y.dtype == dtype and y.stride() == (60, 1, 15, 3)
    assert torch.equal(y, x.to(dtype))
    z = getattr(y, name)()  # preserve_format
    assert z.stride() == (60, 1, 15, 3)
    t = x.transpose(2, 3)
    assert getattr(t, name)().stride() == (60, 20, 1, 5)
    assert getattr(y, name)(memory_format=CF).stride() == (60, 20, 5, 1)


def test_type_and_cpu():
    x = arange(2, 3, 4, 5)
    y = x.type(torch.float64, memory_format=CL)
    assert y.dtype == torch.float64 and y.stride() == (60, 1, 15, 3)
    assert x.type("torch.DoubleTensor", memory_format=CL).stride() == (60, 1, 15, 3)
    assert y.type(torch.float32).stride() == (60, 1, 15, 3)
    assert y.type_as(x).stride() == (60, 1, 15, 3)
    assert x.cpu() is x
    c = x.cpu(memory_format=CL)
    assert c.stride() == (60, 1, 15, 3) and torch.equal(c, x)
    assert c.cpu() is c


# ---------------------------------------------------------------- *_like
LIKES = {
    "empty_like": lambda x, **k: torch.empty_like(x, **k),
    "zeros_like": lambda x, **k: torch.zeros_like(x, **k),
    "ones_like": lambda x, **k: torch.ones_like(x, **k),
    "full_like": lambda x, **k: torch.full_like(x, 7.0, **k),
    "rand_like": lambda x, **k: torch.rand_like(x, **k),
    "randn_like": lambda x, **k: torch.randn_like(x, **k),
    "randint_like": lambda x, **k: torch.randint_like(x, 10, **k),
}


@pytest.mark.parametrize("name", sorted(LIKES))
def test_like_functions(name):
    make = LIKES[name]
    x = arange(2, 3, 4, 5)
    y = x.contiguous(memory_format=CL)
    assert make(y).stride() == (60, 1, 15, 3)  # preserve_format by default
    assert make(y, memory_format=PF).stride() == (60, 1, 15, 3)
    assert make(y, memory_format=CF).stride() == (60, 20, 5, 1)
    assert make(x, memory_format=CL).stride() == (60, 1, 15, 3)
    assert make(x).stride() == (60, 20, 5, 1)
    assert make(x.transpose(2, 3)).stride() == (60, 20, 1, 5)
    assert make(y[:, :, ::2]).stride() == (30, 1, 15, 3)
    assert make(torch.zeros(1, 3, 1, 1).expand(2, 3, 4, 5)).stride() == (60, 20, 5, 1)
    r = make(y, dtype=torch.float64)
    assert r.dtype == torch.float64 and r.stride() == (60, 1, 15, 3)
    assert make(torch.zeros(2, 3, 4, 5, 6), memory_format=CL3).stride() == (360, 1, 90, 18, 3)
    with pytest.raises(TypeError, match="memory_format"):
        make(x, memory_format="channels_last")


def test_like_values():
    y = torch.empty(2, 3, 4, 5, memory_format=CL)
    assert torch.equal(torch.zeros_like(y), torch.zeros(2, 3, 4, 5))
    assert torch.equal(torch.ones_like(y), torch.ones(2, 3, 4, 5))
    assert torch.equal(torch.full_like(y, 7.0), torch.full((2, 3, 4, 5), 7.0))
    r = torch.rand_like(y)
    assert r.stride() == (60, 1, 15, 3) and bool(((r >= 0) & (r < 1)).all())
    k = torch.randint_like(y, 3, 5)
    assert bool(((k >= 3) & (k < 5)).all())


def test_like_requires_grad():
    pytest.importorskip("torch.autograd")  # (a core-only install has no autograd)
    y = torch.empty(2, 3, 4, 5, memory_format=CL)
    z = torch.zeros_like(y, requires_grad=True)
    assert z.requires_grad and z.stride() == y.stride()


# ---------------------------------------------------------------- values through ops
def test_ops_on_channels_last_values():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 6)
    y = x.contiguous(memory_format=CL)
    for f in (
        lambda a: a + 1,
        lambda a: a * a.flip(0),
        lambda a: a.sum((2, 3)),
        lambda a: a.mean(1),
        lambda a: a.exp(),
        lambda a: a.reshape(2, -1),
        lambda a: a.flatten(1),
        lambda a: torch.cat([a, a], 1),
        lambda a: a[:, 1:, ::2],
        lambda a: a.permute(0, 2, 3, 1),
        lambda a: a @ torch.ones(6, 2),
        lambda a: a.max(1).values,
        lambda a: torch.softmax(a, 1),
    ):
        assert torch.allclose(f(y), f(x), atol=1e-6)
    assert np.array_equal(y.numpy(), x.numpy())
    assert y.tolist() == x.tolist()
    assert torch.equal(torch.from_numpy(y.numpy()), x)


def test_autograd_through_formats():
    pytest.importorskip("torch.autograd")
    x = torch.randn(2, 3, 4, 5, dtype=torch.float64, requires_grad=True)
    g = torch.arange(120.0, dtype=torch.float64).reshape(2, 3, 4, 5)
    for convert in (
        lambda a: a.contiguous(memory_format=CL),
        lambda a: a.to(memory_format=CL),
        lambda a: a.clone(memory_format=CL),
        lambda a: a.transpose(1, 3).clone().transpose(1, 3),
        lambda a: a.float(memory_format=CL).double(),
    ):
        x.grad = None
        (convert(x) * g).sum().backward()
        assert torch.equal(x.grad, g)
        assert x.grad.stride() == (60, 20, 5, 1)  # the leaf's own strides
    assert torch.autograd.gradcheck(lambda a: a.contiguous(memory_format=CL).sin(), (x,))


def test_channels_last_leaf_grad_strides():
    pytest.importorskip("torch.autograd")
    w = torch.randn(4, 3, 3, 3).contiguous(memory_format=CL).requires_grad_()
    g = torch.randn(4, 3, 3, 3)
    (w * g).sum().backward()
    assert torch.allclose(w.grad, g) and w.grad.stride() == (27, 1, 9, 3)
    (w * g).sum().backward()  # accumulated in place
    assert torch.allclose(w.grad, 2 * g) and w.grad.stride() == (27, 1, 9, 3)
