"""Gaps that a corpus of real PyTorch programs found (tutorials and pytorch/examples), each
checked against PyTorch's documented behaviour: NumPy or a formula as the oracle for values,
PyTorch's exception types for errors, PyTorch's printed strings for repr.

Autograd-dependent parts of the same gaps are in torch-autograd's test_corpus_gaps_autograd.py
(this file runs with torch-core alone too).
"""

import math
import pickle

import numpy as np
import pytest

import torch


def _np(t):
    return t.detach().numpy()


# ---------------------------------------------------------------- B3: backend/layout flags
FALSE_FLAGS = ("is_xpu", "is_mps", "is_sparse", "is_meta", "is_quantized")


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.zeros(2),
        lambda: torch.arange(6).reshape(2, 3).t(),
        lambda: torch.tensor(True),
        lambda: torch.ones(0, 3, dtype=torch.float64),
    ],
)
def test_dense_cpu_tensor_flags(make):
    t = make()
    assert t.is_cpu is True
    assert t.is_cuda is False
    for name in FALSE_FLAGS:
        assert getattr(t, name) is False, name
    assert t.layout is torch.strided


def test_layout_objects():
    assert isinstance(torch.strided, torch.layout)
    assert isinstance(torch.sparse_coo, torch.layout)
    assert torch.strided != torch.sparse_coo
    assert repr(torch.strided) == "torch.strided"
    assert str(torch.sparse_coo) == "torch.sparse_coo"


# ---------------------------------------------------------------- B4: default device
@pytest.fixture
def default_device_restored():
    yield
    torch.set_default_device(None)


def test_default_device_is_cpu():
    assert torch.get_default_device() == torch.device("cpu")


@pytest.mark.usefixtures("default_device_restored")
def test_set_default_device_cpu_factories():
    torch.set_default_device("cpu")
    assert torch.get_default_device() == torch.device("cpu")
    made = [
        torch.zeros(2),
        torch.ones(2, 3),
        torch.empty(1),
        torch.rand(2),
        torch.randn(2),
        torch.randint(3, (2,)),
        torch.arange(3),
        torch.linspace(0, 1, 3),
        torch.eye(2),
        torch.full((2,), 1.5),
        torch.tensor([1.0, 2.0]),
    ]
    for t in made:
        assert t.device == torch.device("cpu")
    np.testing.assert_array_equal(_np(torch.ones(2, 3)), np.ones((2, 3), np.float32))
    torch.set_default_device(torch.device("cpu"))
    assert torch.get_default_device() == torch.device("cpu")
    torch.set_default_device(None)
    assert torch.get_default_device() == torch.device("cpu")


@pytest.mark.usefixtures("default_device_restored")
def test_device_as_a_context_manager_sets_the_default_device_for_its_block():
    # `with torch.device("meta"):` (PyTorch 2): factories inside make meta tensors; blocks
    # nest, and leaving one restores the device before it, also when the block raises
    with torch.device("meta") as d:
        assert d == torch.device("meta")
        assert torch.get_default_device() == torch.device("meta")
        assert torch.ones(2, 3).device.type == "meta" and torch.ones(2, 3).shape == (2, 3)
        with torch.device("cpu"):
            assert torch.zeros(1).device.type == "cpu"
        assert torch.randn(4).device.type == "meta"
    assert torch.ones(1).device.type == "cpu"
    torch.set_default_device("meta")
    with pytest.raises(ValueError), torch.device("cpu"):
        assert torch.ones(1).device.type == "cpu"
        raise ValueError
    assert torch.get_default_device() == torch.device("meta")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only behaviour")
@pytest.mark.usefixtures("default_device_restored")
def test_set_default_device_cuda_without_cuda():
    # accepted; the factories then raise, and so does asking which CUDA device "cuda" means
    torch.set_default_device("cuda")
    with pytest.raises(AssertionError):
        torch.get_default_device()
    with pytest.raises(AssertionError):
        torch.zeros(2)
    with pytest.raises(AssertionError):
        torch.tensor([1.0])
    assert torch.zeros(2, device="cpu").device == torch.device("cpu")
    torch.set_default_device("cuda:1")
    assert torch.get_default_device() == torch.device("cuda", 1)
    with pytest.raises(AssertionError):
        torch.randn(2)
    torch.set_default_device(None)
    assert torch.get_default_device() == torch.device("cpu")
    assert torch.zeros(2).device == torch.device("cpu")


# ---------------------------------------------------------------- B5: torch.f_ functions
X = np.array([0.1, 0.5, 0.9, 2.0], np.float32)
UNARY = {
    "abs_": np.abs,
    "acos_": np.arccos,
    "arccos_": np.arccos,
    "asin_": np.arcsin,
    "arcsin_": np.arcsin,
    "atan_": np.arctan,
    "arctan_": np.arctan,
    "asinh_": np.arcsinh,
    "arcsinh_": np.arcsinh,
    "acosh_": np.arccosh,
    "arccosh_": np.arccosh,
    "atanh_": np.arctanh,
    "arctanh_": np.arctanh,
    "ceil_": np.ceil,
    "cos_": np.cos,
    "cosh_": np.cosh,
    "erf_": np.vectorize(math.erf),
    "exp2_": np.exp2,
    "exp_": np.exp,
    "expm1_": np.expm1,
    "fix_": np.trunc,
    "floor_": np.floor,
    "frac_": lambda x: x - np.trunc(x),
    "log10_": np.log10,
    "log1p_": np.log1p,
    "log2_": np.log2,
    "log_": np.log,
    "neg_": np.negative,
    "negative_": np.negative,
    "reciprocal_": np.reciprocal,
    "relu_": lambda x: np.maximum(x, 0),
    "round_": np.round,
    "rsqrt_": lambda x: 1 / np.sqrt(x),
    "sigmoid_": lambda x: 1 / (1 + np.exp(-x)),
    "sin_": np.sin,
    "sinh_": np.sinh,
    "sqrt_": np.sqrt,
    "tan_": np.tan,
    "tanh_": np.tanh,
    "trunc_": np.trunc,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_torch_inplace_unary(name):
    unit = ("acos_", "arccos_", "asin_", "arcsin_", "atanh_", "arctanh_")
    x = X * 0.45 if name in unit else X + 1 if name in ("acosh_", "arccosh_") else X.copy()
    x[0] = -x[0] if name in ("abs_", "relu_", "neg_", "negative_", "round_") else x[0]
    t = torch.tensor(x)
    ptr = t.data_ptr()
    out = getattr(torch, name)(t)
    assert out is t and t.data_ptr() == ptr
    expected = UNARY[name](x.astype(np.float64))
    np.testing.assert_allclose(_np(t), expected, rtol=1e-5, atol=1e-6)


def test_torch_inplace_with_arguments():
    x = np.array([-2.0, -0.5, 0.5, 2.0], np.float32)
    for fn, kwargs, oracle in [
        (torch.clamp_, {"min": -1.0, "max": 1.0}, np.clip(x, -1, 1)),
        (torch.clip_, {"min": -1.0, "max": 1.0}, np.clip(x, -1, 1)),
        (torch.clamp_min_, {"min": 0.0}, np.maximum(x, 0)),
        (torch.clamp_max_, {"max": 0.0}, np.minimum(x, 0)),
        (torch.fill_, {"value": 7.0}, np.full(4, 7.0)),
        (torch.zero_, {}, np.zeros(4)),
    ]:
        t = torch.tensor(x)
        assert fn(t, **kwargs) is t
        np.testing.assert_array_equal(_np(t), oracle.astype(np.float32))
    t = torch.tensor(x)
    assert torch.clamp_(t, -1.0, 1.0) is t  # positional min, max
    np.testing.assert_array_equal(_np(t), np.clip(x, -1, 1))

    t = torch.tensor([1.0, np.nan, np.inf, -np.inf])
    torch.nan_to_num_(t, nan=0.0, posinf=9.0, neginf=-9.0)
    np.testing.assert_array_equal(_np(t), [1.0, 0.0, 9.0, -9.0])

    t = torch.zeros(4)
    torch.index_put_(t, (torch.tensor([1, 3]),), torch.tensor([5.0, 6.0]))
    np.testing.assert_array_equal(_np(t), [0.0, 5.0, 0.0, 6.0])

    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = np.array([1.0, 2.0, 3.0], np.float32)
    t = torch.ones(2)
    torch.addmv_(t, torch.tensor(m), torch.tensor(v), beta=2, alpha=3)
    np.testing.assert_allclose(_np(t), 2 * np.ones(2) + 3 * (m @ v))

    t = torch.zeros(3)
    torch.resize_as_(t, torch.zeros(2, 2))
    assert t.shape == (2, 2)
    torch.resize_as_(t, the_template=torch.zeros(4))
    assert t.shape == (4,)

    t = torch.tensor([0.25, 1.75])
    torch.round_(t)
    np.testing.assert_array_equal(_np(t), [0.0, 2.0])

    t = torch.arange(6.0)
    assert torch.as_strided_(t, (2,), (3,)) is t
    np.testing.assert_array_equal(_np(t), [0.0, 3.0])


def test_torch_inplace_names_have_tensor_methods():
    for name in [*UNARY, "clamp_", "fill_", "zero_", "index_put_", "as_strided_", "detach_"]:
        assert callable(getattr(torch, name)), name
        assert callable(getattr(torch.Tensor, name)), name


def test_torch_inplace_needs_a_tensor():
    with pytest.raises(TypeError):
        torch.sin_(1.0)
    with pytest.raises(TypeError):
        torch.zero_([1.0, 2.0])


# ---------------------------------------------------------------- B6: in-place view ops
@pytest.mark.parametrize(
    "inplace, args, view",
    [
        ("unsqueeze_", (0,), lambda a: a[None]),
        ("unsqueeze_", (-1,), lambda a: a[..., None]),
        ("unsqueeze_", (1,), lambda a: a[:, None]),
        ("t_", (), lambda a: a.T),
        ("transpose_", (0, 1), lambda a: a.swapaxes(0, 1)),
        ("swapdims_", (1, 0), lambda a: a.swapaxes(0, 1)),
        ("swapaxes_", (0, -1), lambda a: a.swapaxes(0, 1)),
    ],
)
def test_inplace_view_ops_2d(inplace, args, view):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = torch.tensor(a)
    ptr, version = t.data_ptr(), t._version
    assert getattr(t, inplace)(*args) is t
    expected = view(a)
    assert t.shape == expected.shape
    np.testing.assert_array_equal(_np(t), expected)
    assert t.data_ptr() == ptr  # the same memory, seen differently
    assert t._version > version
    # the strides of the view op itself; NumPy's (in bytes) where the size is not 1
    assert t.stride() == getattr(torch.tensor(a), inplace[:-1])(*args).stride()
    for n, st, np_st in zip(t.shape, t.stride(), expected.strides):
        assert n == 1 or st == np_st // a.itemsize


def test_squeeze_inplace():
    t = torch.zeros(2, 1, 3, 1)
    assert t.squeeze_(1) is t and t.shape == (2, 3, 1)
    t = torch.zeros(2, 1, 3, 1)
    assert t.squeeze_(-1).shape == (2, 1, 3)
    t = torch.zeros(2, 1, 3, 1)
    assert t.squeeze_().shape == (2, 3)
    t = torch.zeros(2, 1, 3, 1)
    assert t.squeeze_(0).shape == (2, 1, 3, 1)  # not of size 1: unchanged
    t = torch.zeros(2, 1, 3, 1)
    assert t.squeeze_((1, 3)).shape == (2, 3)


def test_inplace_view_ops_write_through():
    base = torch.zeros(2, 3)
    row = base[1]
    row.unsqueeze_(0)
    assert row.shape == (1, 3)
    row.fill_(4.0)
    np.testing.assert_array_equal(_np(base), [[0, 0, 0], [4, 4, 4]])
    x = torch.arange(6.0).reshape(2, 3)
    x.t_()
    x[0, 1] = 100.0  # element (1, 0) of the original layout
    np.testing.assert_array_equal(_np(x.t()), [[0, 1, 2], [100, 4, 5]])


def test_as_strided_inplace():
    t = torch.arange(6.0)
    assert t.as_strided_((2, 2), (1, 2), 1) is t
    np.testing.assert_array_equal(_np(t), [[1.0, 3.0], [2.0, 4.0]])
    assert t.stride() == (1, 2) and t.storage_offset() == 1


def test_inplace_view_op_errors():
    with pytest.raises(RuntimeError):
        torch.zeros(2, 3, 4).t_()
    with pytest.raises(IndexError):
        torch.zeros(2, 3).unsqueeze_(3)
    with pytest.raises(IndexError):
        torch.zeros(2, 3).transpose_(0, 2)
    with pytest.raises(IndexError):
        torch.zeros(2, 3).squeeze_(2)
    t = torch.zeros(3)
    assert t.t_().shape == (3,)  # 1-D: unchanged


# ---------------------------------------------------------------- C1: range as an index
def test_range_index_read():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = torch.tensor(a)
    for index in [
        range(3),
        range(0),
        range(0, 3, 2),
        range(-1, -4, -1),
        (range(3), np.array([0, 1, 2])),
        (slice(None), range(1, 3)),
        (range(2), range(2)),
        (range(2), 1),
        (Ellipsis, range(3, 0, -1)),
    ]:
        tindex = (
            tuple(torch.tensor(i) if isinstance(i, np.ndarray) else i for i in index)
            if isinstance(index, tuple)
            else index
        )
        np.testing.assert_array_equal(_np(t[tindex]), a[index], err_msg=str(index))


def test_range_index_write():
    a = np.zeros((3, 4), np.float32)
    t = torch.zeros(3, 4)
    t[range(3), torch.tensor([0, 1, 2])] = 5.0
    a[range(3), [0, 1, 2]] = 5.0
    np.testing.assert_array_equal(_np(t), a)
    t[range(1, 3)] = torch.ones(4)
    a[range(1, 3)] = 1.0
    np.testing.assert_array_equal(_np(t), a)
    t[:, range(2)] += 1
    a[:, range(2)] += 1
    np.testing.assert_array_equal(_np(t), a)


def test_range_index_out_of_bounds():
    with pytest.raises(IndexError):
        torch.zeros(3)[range(4)]


# ---------------------------------------------------------------- C2: randint forms
@pytest.mark.parametrize(
    "call, low, high, shape",
    [
        (lambda: torch.randint(5, (2,)), 0, 5, (2,)),
        (lambda: torch.randint(2, 5, (2, 3)), 2, 5, (2, 3)),
        (lambda: torch.randint(5, size=(7,)), 0, 5, (7,)),
        (lambda: torch.randint(5, size=[2, 3]), 0, 5, (2, 3)),
        (lambda: torch.randint(high=5, size=(4,)), 0, 5, (4,)),
        (lambda: torch.randint(low=2, high=5, size=(4,)), 2, 5, (4,)),
        (lambda: torch.randint(high=5, low=2, size=(4,)), 2, 5, (4,)),
        (lambda: torch.randint(2, high=5, size=(4,)), 2, 5, (4,)),
        (lambda: torch.randint(2, 5, size=(4,)), 2, 5, (4,)),
        (lambda: torch.randint(-3, 0, torch.Size([5])), -3, 0, (5,)),
        (lambda: torch.randint(5, ()), 0, 5, ()),
    ],
)
def test_randint_forms(call, low, high, shape):
    t = call()
    assert t.shape == shape and t.dtype == torch.int64
    values = _np(t)
    assert ((values >= low) & (values < high)).all()


def test_randint_dtype_and_generator():
    g = torch.Generator().manual_seed(3)
    t = torch.randint(low=1, high=4, size=(50,), dtype=torch.int32, generator=g)
    assert t.dtype == torch.int32
    assert set(_np(t).tolist()) <= {1, 2, 3}
    t = torch.randint(10, size=(3,), dtype=torch.float32)
    assert t.dtype == torch.float32
    # randint(high, size) is randint(0, high, size): the same stream, the same values
    a = torch.randint(7, size=(20,), generator=torch.Generator().manual_seed(5))
    b = torch.randint(0, 7, (20,), generator=torch.Generator().manual_seed(5))
    assert torch.equal(a, b)


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.randint(5),
        lambda: torch.randint(size=(2,)),
        lambda: torch.randint(low=2, size=(2,)),
        lambda: torch.randint(5, 3),
        lambda: torch.randint(2, 5),
        lambda: torch.randint(5, size=2),
        lambda: torch.randint(5.5, (3,)),
    ],
)
def test_randint_bad_forms(call):
    with pytest.raises(TypeError):
        call()


def test_randint_empty_range():
    with pytest.raises(RuntimeError):
        torch.randint(3, 3, (2,))


# ---------------------------------------------------------------- C3: size= keyword
@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "rand", "randn"])
def test_factory_size_keyword(name):
    fn = getattr(torch, name)
    assert fn(size=(2, 3)).shape == (2, 3)
    assert fn(size=[4]).shape == (4,)
    assert fn(size=()).shape == ()
    assert fn(size=torch.Size([1, 2])).shape == (1, 2)
    assert fn(size=(2,), dtype=torch.float64).dtype == torch.float64
    with pytest.raises(TypeError):
        fn(size=2)
    with pytest.raises(TypeError):
        fn(2, size=(3,))
    with pytest.raises(TypeError):
        fn()


def test_factory_size_keyword_values():
    np.testing.assert_array_equal(_np(torch.zeros(size=(2, 3))), np.zeros((2, 3)))
    np.testing.assert_array_equal(_np(torch.ones(size=(2,))), np.ones(2))
    g1, g2 = torch.Generator().manual_seed(1), torch.Generator().manual_seed(1)
    assert torch.equal(torch.rand(size=(5,), generator=g1), torch.rand(5, generator=g2))


# ---------------------------------------------------------------- C4: weights_only env vars
class _Payload:
    """Not on the weights_only allow-list."""

    def __init__(self, value):
        self.value = value


@pytest.fixture
def checkpoint(tmp_path, monkeypatch):
    monkeypatch.delenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", raising=False)
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", raising=False)
    path = tmp_path / "obj.pt"
    torch.save({"payload": _Payload(3), "w": torch.ones(2)}, path)
    return path


def test_load_default_refuses_objects(checkpoint):
    with pytest.raises(pickle.UnpicklingError):
        torch.load(checkpoint)


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "y", "yes"])
def test_force_no_weights_only_load(checkpoint, monkeypatch, value):
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", value)
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        obj = torch.load(checkpoint)
    assert obj["payload"].value == 3
    np.testing.assert_array_equal(_np(obj["w"]), [1.0, 1.0])
    # an explicit weights_only=True still loads safely
    with pytest.raises(pickle.UnpicklingError):
        torch.load(checkpoint, weights_only=True)


def test_force_no_weights_only_off_values(checkpoint, monkeypatch):
    for value in ["0", "false", "no", ""]:
        monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", value)
        with pytest.raises(pickle.UnpicklingError):
            torch.load(checkpoint)


def test_force_weights_only_load(checkpoint, monkeypatch):
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError):
        torch.load(checkpoint, weights_only=False)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError):
        torch.load(checkpoint)


# ---------------------------------------------------------------- C5: assigning .grad
@pytest.mark.parametrize("value", [0.0, 1, [1.0, 2.0, 3.0], np.zeros(3, np.float32), "g"])
def test_grad_must_be_a_tensor(value):
    t = torch.zeros(3)
    with pytest.raises(TypeError):
        t.grad = value
    assert t.grad is None


@pytest.mark.parametrize(
    "grad",
    [
        torch.zeros(2),
        torch.zeros(()),
        torch.zeros(1, 3),
        torch.zeros(3, dtype=torch.float64),
        torch.zeros(3, dtype=torch.int64),
    ],
)
def test_grad_must_match_shape_and_dtype(grad):
    t = torch.zeros(3)
    with pytest.raises(RuntimeError):
        t.grad = grad
    assert t.grad is None


def test_grad_assignment_accepted():
    t = torch.zeros(2, 2)
    g = torch.ones(2, 2).t()  # any strides
    t.grad = g
    assert t.grad is g
    t.grad = None
    assert t.grad is None
    t.grad = torch.ones(2, 2)
    del t.grad
    assert t.grad is None
    i = torch.zeros(3, dtype=torch.int64)
    i.grad = torch.ones(3, dtype=torch.int64)
    np.testing.assert_array_equal(_np(i.grad), [1, 1, 1])


# ---------------------------------------------------------------- D3: repr suffix wrapping
# PyTorch 2.x's strings: a suffix moves to its own line, indented under the values, when the
# last line would get too long for the 80-column line width.
REPRS = [
    (
        lambda: torch.arange(10, dtype=torch.float64).reshape(2, 5) * 13.75,
        "tensor([[  0.0000,  13.7500,  27.5000,  41.2500,  55.0000],\n"
        "        [ 68.7500,  82.5000,  96.2500, 110.0000, 123.7500]],\n"
        "       dtype=torch.float64)",
    ),
    (
        lambda: torch.arange(5, dtype=torch.float64).reshape(1, 5) * 30.875,
        "tensor([[  0.0000,  30.8750,  61.7500,  92.6250, 123.5000]],\n       dtype=torch.float64)",
    ),
    (
        lambda: torch.arange(8, dtype=torch.float64) * 0.125 + 1,
        "tensor([1.0000, 1.1250, 1.2500, 1.3750, 1.5000, 1.6250, 1.7500, 1.8750],\n"
        "       dtype=torch.float64)",
    ),
    (
        lambda: torch.arange(5, dtype=torch.float64) + 1,
        "tensor([1., 2., 3., 4., 5.], dtype=torch.float64)",
    ),
    (
        lambda: torch.arange(26, dtype=torch.int32).reshape(2, 13) * 37,
        "tensor([[  0,  37,  74, 111, 148, 185, 222, 259, 296, 333, 370, 407, 444],\n"
        "        [481, 518, 555, 592, 629, 666, 703, 740, 777, 814, 851, 888, 925]],\n"
        "       dtype=torch.int32)",
    ),
    (
        lambda: torch.arange(20, dtype=torch.int16) * 1000,
        "tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n"
        "        10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000],\n"
        "       dtype=torch.int16)",
    ),
    # the boundary: 80 columns with the suffix moves it down, 79 does not
    (
        lambda: torch.full((9,), -100, dtype=torch.int8),
        "tensor([-100, -100, -100, -100, -100, -100, -100, -100, -100],\n       dtype=torch.int8)",
    ),
    (
        lambda: torch.full((13,), 10, dtype=torch.int32),
        "tensor([10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10], dtype=torch.int32)",
    ),
    (
        lambda: torch.full((2, 9), -100, dtype=torch.int8),
        "tensor([[-100, -100, -100, -100, -100, -100, -100, -100, -100],\n"
        "        [-100, -100, -100, -100, -100, -100, -100, -100, -100]],\n"
        "       dtype=torch.int8)",
    ),
]


@pytest.mark.parametrize("make, expected", REPRS)
def test_repr_suffix_wrapping(make, expected):
    assert repr(make()) == expected
    assert str(make()) == expected


# ---------------------------------------- amax/amin of an empty tensor over all dims
# PyTorch 2.13 raises RuntimeError (as max()/min() do) when no dim is given; a given dim of
# size 0 is an IndexError, and a reduction over a non-empty dim of an empty tensor is empty.
@pytest.mark.parametrize("name", ["amax", "amin", "max", "min"])
def test_full_extreme_of_an_empty_tensor_raises_runtime_error(name):
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        getattr(torch, name)(torch.empty(0, 3))


def test_amax_amin_over_all_dims_match_numpy():
    v = np.array([[1.5, -2.0, 7.25], [0.5, 9.0, -3.0]], dtype=np.float32)
    t = torch.tensor(v)
    assert torch.amax(t).item() == v.max() and torch.amin(t).item() == v.min()
    assert torch.amax(t, keepdim=True).shape == (1, 1)
    np.testing.assert_array_equal(torch.amin(t, dim=(), keepdim=True).numpy(), v.min(keepdims=True))
    assert torch.amax(torch.tensor(4.0)).item() == 4.0 and torch.amax(torch.tensor(4.0)).dim() == 0
    assert torch.amax(torch.tensor([[1, 5], [7, 2]])).item() == 7
    assert torch.amax(torch.empty(0, 3), 1).shape == (0,)
    with pytest.raises(IndexError):
        torch.amax(torch.empty(0, 3), 0)


# ---------------------------------------- torch.solve / lstsq / symeig / eig: removed in 1.9
# The 2023 parametrizations tutorial still calls torch.solve; PyTorch 2.13 keeps these names
# (torch.* and Tensor methods) and raises RuntimeError from them, naming torch.linalg.
@pytest.mark.parametrize(
    "name, replacement",
    [
        ("solve", "torch.linalg.solve"),
        ("lstsq", "torch.linalg.lstsq"),
        ("symeig", "torch.linalg.eigvalsh"),
        ("eig", "torch.linalg.eig"),
    ],
)
def test_removed_linalg_functions_raise_runtime_error(name, replacement):
    a = torch.eye(2)
    for fn in (getattr(torch, name), getattr(a, name)):
        with pytest.raises(RuntimeError, match="removed in version 1.9") as e:
            fn(a)
        assert replacement in str(e.value) and f"torch.{name}" in str(e.value)


def test_linalg_solve_still_solves():
    a = np.array([[3.0, 1.0], [1.0, 2.0]])
    b = np.array([[9.0], [8.0]])
    x = torch.linalg.solve(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b))


def test_generator_pickles_and_deepcopies_with_its_state():
    # (makemore pickles its model's config with a Generator; PyTorch's round-trips)
    import copy
    import pickle

    g = torch.Generator().manual_seed(5)
    torch.rand(3, generator=g)  # (a state past the seed)
    for clone in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert isinstance(clone, torch.Generator) and clone.initial_seed() == 5
        assert torch.equal(clone.get_state(), g.get_state())
    a, b = torch.rand(4, generator=g), torch.rand(4, generator=pickle.loads(pickle.dumps(g)))
    assert not torch.equal(a, b)  # (g moved on; the clone was taken after)
    h = copy.deepcopy(g)
    assert torch.equal(torch.rand(4, generator=g), torch.rand(4, generator=h))
    with pytest.raises(RuntimeError, match="invalid state"):
        torch.Generator.__new__(torch.Generator).__setstate__((b"not a state",))
