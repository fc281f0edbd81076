"""torch.special against scipy.special; nan_to_num against numpy; Tensor.apply_."""

import math

import numpy as np
import pytest
import scipy.special as sp

import torch

X = np.array([-3.0, -1.5, -0.5, -1e-3, 0.0, 1e-3, 0.25, 0.5, 1.0, 2.5, 4.0])
P = np.array([1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99])

UNARY = [
    ("expit", sp.expit, X),
    ("logit", sp.logit, P),
    ("erf", sp.erf, X),
    ("erfc", sp.erfc, X),
    ("erfinv", sp.erfinv, 2 * P - 1),
    ("ndtr", sp.ndtr, X),
    ("log_ndtr", sp.log_ndtr, X),
    ("ndtri", sp.ndtri, P),
    ("entr", sp.entr, np.concatenate([X, [math.nan]])),
    ("sinc", np.sinc, X),
    ("exp2", sp.exp2, X),
    ("expm1", sp.expm1, X),
    ("log1p", sp.log1p, np.abs(X)),
    ("round", np.round, X),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize(("name", "ref", "x"), UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, ref, x, dtype):
    t = torch.tensor(x, dtype=dtype)
    got = getattr(torch.special, name)(t)
    assert got.dtype == dtype
    tol = 1e-12 if dtype == torch.float64 else 2e-6
    # the reference at the inputs as rounded to dtype (erfinv is steep near +-1)
    np.testing.assert_allclose(got.numpy(), ref(t.double().numpy()), rtol=tol * 10, atol=tol)


@pytest.mark.parametrize(("name", "ref"), [("xlogy", sp.xlogy), ("xlog1py", sp.xlog1py)])
def test_binary(name, ref):
    x = np.array([0.0, 0.0, 0.0, 0.0, 1.0, 2.5, -1.0, 3.0])
    y = np.array([0.0, -1.0, math.nan, 2.0, 0.0, 3.0, 0.5, math.inf])
    got = getattr(torch.special, name)(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(got.numpy(), ref(x, y), rtol=1e-12)
    # a number on either side, promoted like an op
    np.testing.assert_allclose(
        getattr(torch.special, name)(2, torch.tensor([3.0])).numpy(), ref(2, [3.0]), rtol=1e-6
    )
    assert getattr(torch.special, name)(torch.tensor([3.0]), 2).dtype == torch.float32


def test_integer_inputs_and_logit_eps():
    assert torch.special.expit(torch.tensor([0, 1])).dtype == torch.float32
    assert torch.special.sinc(torch.tensor([0, 1]))[0].item() == 1.0
    got = torch.special.logit(torch.tensor([0.0, 0.3, 1.0], dtype=torch.float64), eps=0.1)
    np.testing.assert_allclose(got.numpy(), sp.logit(np.clip([0.0, 0.3, 1.0], 0.1, 0.9)))


def test_softmax_family():
    x = np.random.default_rng(0).normal(size=(3, 4))
    t = torch.tensor(x)
    np.testing.assert_allclose(torch.special.softmax(t, 1).numpy(), sp.softmax(x, 1))
    np.testing.assert_allclose(torch.special.log_softmax(t, 0).numpy(), sp.log_softmax(x, 0))
    np.testing.assert_allclose(torch.special.logsumexp(t, 1).numpy(), sp.logsumexp(x, 1))
    assert torch.special.softmax(t.float(), 1, dtype=torch.float64).dtype == torch.float64


def test_top_level_aliases():
    t = torch.tensor([0.0, 0.5])
    for name in ("erfc", "logit", "sinc", "xlogy"):
        assert getattr(torch, name) is getattr(torch.special, name)
    assert torch.special.round(torch.tensor([1.2345]), decimals=2).item() == pytest.approx(1.23)
    assert torch.allclose(torch.xlogy(t, t), torch.tensor([0.0, 0.5 * math.log(0.5)]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_nan_to_num_matches_numpy(dtype):
    x = np.array([math.nan, math.inf, -math.inf, 1.5, -2.0])
    t = torch.tensor(x, dtype=dtype)
    np_dtype = {torch.float16: np.float16, torch.float32: np.float32, torch.float64: np.float64}
    ref = np.nan_to_num(x.astype(np_dtype[dtype]))
    np.testing.assert_array_equal(torch.nan_to_num(t).numpy(), ref)
    got = t.nan_to_num(nan=7.0, posinf=8.0, neginf=-9.0)
    np.testing.assert_array_equal(got.numpy(), [7.0, 8.0, -9.0, 1.5, -2.0])
    assert t.nan_to_num_(neginf=0.0) is t
    np.testing.assert_array_equal(t.numpy(), np.nan_to_num(x.astype(np_dtype[dtype]), neginf=0.0))


def test_nan_to_num_integers_and_out():
    i = torch.tensor([1, 2])
    r = torch.nan_to_num(i)
    assert torch.equal(r, i) and r.data_ptr() != i.data_ptr()
    assert torch.equal(torch.nan_to_num(torch.tensor([True])), torch.tensor([True]))
    out = torch.empty(2)
    torch.nan_to_num(torch.tensor([math.nan, 1.0]), out=out)
    assert out.tolist() == [0.0, 1.0]


def test_apply_():
    t = torch.tensor([1, 2, 3])
    assert t.apply_(lambda v: v * 2.7) is t
    assert t.tolist() == [2, 5, 8] and t.dtype == torch.int64
    f = torch.arange(6.0).reshape(2, 3).t()  # non-contiguous
    f.apply_(lambda v: v * v)
    assert f.tolist() == [[0.0, 9.0], [1.0, 16.0], [4.0, 25.0]]
    b = torch.tensor([True, False])
    assert b.apply_(lambda v: not v).tolist() == [False, True]
