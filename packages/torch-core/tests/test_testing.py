"""torch.testing.assert_close: PyTorch's defaults and failures. Under real
PyTorch the same tests also run against our module, loaded from its file."""

import importlib.util
import math
import pathlib

import pytest

import torch
import torch.testing

IMPLEMENTATIONS = {"torch.testing": torch.testing.assert_close}
_ours = pathlib.Path(__file__).resolve().parents[1] / "src" / "torch" / "testing" / "__init__.py"
if not torch.__version__.startswith("0.1"):
    _spec = importlib.util.spec_from_file_location("_our_torch_testing", _ours)
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
    IMPLEMENTATIONS["ours-from-file"] = _module.assert_close


@pytest.fixture(params=list(IMPLEMENTATIONS))
def assert_close(request):
    return IMPLEMENTATIONS[request.param]


@pytest.mark.parametrize(
    "dtype, rel_ok, rel_bad",
    [
        (torch.float32, 5e-7, 1e-4),
        (torch.float64, 5e-8, 1e-5),
        (torch.float16, 4e-4, 1e-2),
        (torch.bfloat16, 8e-3, 5e-2),
    ],
    ids=["f32", "f64", "f16", "bf16"],
)
def test_default_tolerances_depend_on_dtype(assert_close, dtype, rel_ok, rel_bad):
    expected = torch.tensor([1.0, 100.0, -3.0], dtype=torch.float64)
    assert_close((expected * (1 + rel_ok)).to(dtype), expected.to(dtype))
    with pytest.raises(AssertionError):
        assert_close((expected * (1 + rel_bad)).to(dtype), expected.to(dtype))


def test_integers_and_bools_must_be_equal(assert_close):
    assert_close(torch.tensor([1, 2]), torch.tensor([1, 2]))
    with pytest.raises(AssertionError):
        assert_close(torch.tensor([1, 2]), torch.tensor([1, 3]))
    with pytest.raises(AssertionError):
        assert_close(torch.tensor([True]), torch.tensor([False]))


def test_shape_and_dtype_must_match(assert_close):
    with pytest.raises(AssertionError):
        assert_close(torch.zeros(2, 3), torch.zeros(3, 2))
    with pytest.raises(AssertionError):
        assert_close(torch.zeros(2), torch.zeros(2, dtype=torch.float64))
    assert_close(torch.zeros(2), torch.zeros(2, dtype=torch.float64), check_dtype=False)


def test_explicit_tolerances(assert_close):
    assert_close(torch.tensor([1.0]), torch.tensor([1.1]), rtol=0.0, atol=0.2)
    with pytest.raises(AssertionError):
        assert_close(torch.tensor([1.0]), torch.tensor([1.1]), rtol=0.0, atol=0.05)
    with pytest.raises(ValueError):
        assert_close(torch.tensor([1.0]), torch.tensor([1.0]), rtol=0.1)


def test_nan_and_infinities(assert_close):
    nan = torch.tensor([math.nan, 1.0])
    with pytest.raises(AssertionError):
        assert_close(nan, nan.clone())
    assert_close(nan, nan.clone(), equal_nan=True)
    inf = torch.tensor([math.inf, -math.inf])
    assert_close(inf, inf.clone())
    with pytest.raises(AssertionError):
        assert_close(inf, -inf)


def test_python_numbers_and_sequences(assert_close):
    assert_close(1.0, 1.0 + 1e-9)
    assert_close(3, 3)
    with pytest.raises(AssertionError):
        assert_close(1.0, 1.1)
    with pytest.raises(AssertionError):
        assert_close(1, 1.0)  # int64 against float64
    assert_close([torch.ones(2), 2.0], [torch.ones(2), 2.0])
    with pytest.raises(AssertionError):
        assert_close([torch.ones(2), 2.0], [torch.ones(2), 3.0])


def test_non_contiguous_and_empty(assert_close):
    a = torch.arange(6.0).reshape(2, 3)
    assert_close(a.t(), a.t().contiguous())
    assert_close(torch.zeros(0, 3), torch.ones(0, 3))
    with pytest.raises(AssertionError):
        assert_close(a.t(), a.t().contiguous() + 1)
