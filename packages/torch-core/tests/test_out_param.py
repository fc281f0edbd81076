"""``out=`` of the ops written in Python, by PyTorch's rules (this file passes under PyTorch
2.13 too): the result must be castable to out's dtype (torch.linalg's ops mostly want its
very dtype), out takes the result's shape (with a UserWarning when it had other elements),
and out itself is returned. Sums, products and scans accumulate in out's dtype.

Warnings are errors in this suite, so a test that expects none fails on a stray warning."""

import numpy as np
import pytest

import torch

X = torch.tensor([[0.5, 1.7, 2.6], [0.6, 1.2, 3.1]])
RESIZED = "An output with one or more elements was resized since it had shape"

# Ops written in Python over the core, each with a float32 result of X.
OPS = {
    "mean": lambda out: torch.mean(X, 0, out=out),
    "var": lambda out: torch.var(X, 1, out=out),
    "std": lambda out: torch.std(X, 1, out=out),
    "logsumexp": lambda out: torch.logsumexp(X, 0, out=out),
    "nanmean": lambda out: torch.nanmean(X, 1, out=out),
    "amax": lambda out: torch.amax(X, 0, out=out),
    "hypot": lambda out: torch.hypot(X, X, out=out),
    "lgamma": lambda out: torch.lgamma(X, out=out),
    "logaddexp": lambda out: torch.logaddexp(X, X, out=out),
    "special.expit": lambda out: torch.special.expit(X, out=out),
    "special.erfc": lambda out: torch.special.erfc(X, out=out),
    "special.xlogy": lambda out: torch.special.xlogy(X, X, out=out),
    "gather": lambda out: torch.gather(X, 1, torch.tensor([[2], [0]]), out=out),
    "index_select": lambda out: torch.index_select(X, 1, torch.tensor([2, 0]), out=out),
    "linalg.inv": lambda out: torch.linalg.inv(X[:, :2], out=out),
    "linalg.vector_norm": lambda out: torch.linalg.vector_norm(X, out=out),
    "fft.rfft": lambda out: torch.fft.rfft(X, out=out),
}
# Those that PyTorch lets write into any dtype the result can be cast to.
CASTABLE = (
    "mean", "var", "std", "logsumexp", "nanmean", "hypot", "lgamma", "logaddexp",
    "special.expit", "special.erfc", "special.xlogy",
)  # fmt: skip


def _wider(dtype):
    return torch.complex128 if dtype.is_complex else torch.float64


@pytest.mark.parametrize("name", CASTABLE)
def test_a_castable_out_dtype_takes_the_result(name):
    expected = OPS[name](None)
    out = torch.empty(expected.shape, dtype=_wider(expected.dtype))
    assert OPS[name](out) is out
    assert out.dtype == _wider(expected.dtype)
    np.testing.assert_allclose(out.numpy(), expected.double().numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", CASTABLE)
def test_a_float_result_cannot_go_into_an_integer_out(name):
    out = torch.zeros(OPS[name](None).shape, dtype=torch.int64)
    # (PyTorch words this error its own way for a few reductions, which it also half-writes)
    if name in ("mean", "logsumexp", "nanmean"):
        with pytest.raises(RuntimeError):
            OPS[name](out)
        return
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        OPS[name](out)
    assert not out.any()  # nothing was written


@pytest.mark.parametrize("name", ["hypot", "special.expit"])
def test_a_complex_out_takes_a_real_result_but_not_the_reverse(name):
    expected = OPS[name](None)
    out = torch.empty(expected.shape, dtype=torch.complex64)
    assert OPS[name](out) is out
    np.testing.assert_allclose(out.real.numpy(), expected.numpy())
    with pytest.raises(RuntimeError, match="output type Float|expects a complex output tensor"):
        torch.fft.rfft(X, out=torch.empty(2, 2))


@pytest.mark.parametrize("name", ["linalg.inv", "linalg.vector_norm"])
def test_linalg_wants_the_result_dtype_itself(name):
    expected = OPS[name](None)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        OPS[name](torch.empty(expected.shape, dtype=torch.float64))


def test_linalg_ops_that_take_a_castable_out():
    A = X[:, :2]
    eig = torch.empty(2, dtype=torch.complex128)
    assert torch.linalg.eigvals(A, out=eig) is eig
    np.testing.assert_allclose(
        np.sort_complex(eig.numpy()), np.sort_complex(np.linalg.eigvals(A.double().numpy()))
    )
    rank = torch.empty((), dtype=torch.float32)
    assert torch.linalg.matrix_rank(A, out=rank) is rank and rank.item() == 2.0
    with pytest.raises(RuntimeError):  # complex eigenvalues into a real tensor
        torch.linalg.eigvals(A, out=torch.empty(2))


@pytest.mark.parametrize("name", sorted(OPS))
def test_an_out_of_another_shape_is_resized_with_a_warning(name):
    expected = OPS[name](None)
    out = torch.empty(7, dtype=expected.dtype)
    with pytest.warns(UserWarning, match=RESIZED):
        assert OPS[name](out) is out
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(OPS))
def test_an_empty_out_is_resized_silently(name):
    expected = OPS[name](None)
    out = torch.empty(0, dtype=expected.dtype)
    assert OPS[name](out) is out  # a warning would fail the test
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)


def test_an_out_of_the_same_count_but_another_shape_warns_too():
    out = torch.empty(3, 1)
    with pytest.warns(UserWarning, match=r"had shape \[3, 1\].*required output shape \[3\]"):
        torch.mean(X, 0, out=out)
    assert out.shape == (3,)


def test_outs_of_several_results_each_follow_the_rules():
    values, indices = torch.empty(5), torch.empty(0, dtype=torch.int64)
    with pytest.warns(UserWarning, match=RESIZED):  # values only: indices was empty
        r = torch.max(X, 1, out=(values, indices))
    assert r.values is values and r.indices is indices
    assert values.tolist() == pytest.approx([2.6, 3.1]) and indices.tolist() == [2, 2]
    lo, hi = torch.empty(()), torch.empty(())
    assert torch.aminmax(X, out=(lo, hi)) == (lo, hi)
    assert (lo.item(), hi.item()) == pytest.approx((0.5, 3.1))


def test_sums_and_scans_accumulate_in_the_out_dtype():
    # PyTorch casts the input to out's dtype first: 1.7 + 0.6 -> 1 + 0 (not int(2.3) = 2)
    def out():
        return torch.empty(0, dtype=torch.int64)

    assert torch.sum(X, 0, out=out()).tolist() == [0, 2, 5]
    assert torch.prod(X, 1, out=out()).tolist() == [0, 0]
    assert torch.cumsum(X[0], 0, out=out()).tolist() == [0, 1, 3]
    half = torch.empty(0, dtype=torch.float16)
    torch.sum(X, 1, out=half)
    assert half.dtype == torch.float16 and half.tolist() == pytest.approx([4.8, 4.9], abs=1e-2)


def test_in_place_math_methods_refuse_a_result_their_dtype_cannot_hold():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        torch.tensor([1, 2]).hypot_(torch.tensor([1.5, 2.5]))
