"""torch.* functions and Tensor methods composed in Python over the core's ops (predicates,
scatter-into-view ops, put/index_reduce, nextafter, vander, lu_unpack, frombuffer,
set_printoptions, ...): values against NumPy or a formula, gradients with gradcheck (autograd
imported inside the tests), and the errors PyTorch raises."""

import math
import warnings

import numpy as np
import pytest

import torch

RNG = np.random.default_rng(7)


def _np(t):
    return t.detach().numpy()


def _gradcheck(fn, *inputs):
    from torch.autograd import gradcheck

    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-5)


def _leaf(*shape):
    # gradients need torch-autograd: a core-only install checks the values and stops here
    pytest.importorskip("torch.autograd")
    return torch.tensor(RNG.standard_normal(shape), dtype=torch.float64, requires_grad=True)


# ---------------------------------------------------------------- predicates
def test_isposinf_isneginf_isreal():
    a = np.array([1.0, math.inf, -math.inf, math.nan, 0.0])
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor(a, dtype=dtype)
        np.testing.assert_array_equal(_np(torch.isposinf(x)), np.isposinf(a))
        np.testing.assert_array_equal(_np(x.isneginf()), np.isneginf(a))
        out = torch.empty(5, dtype=torch.bool)
        assert torch.isposinf(x, out=out) is out
    assert not torch.isposinf(torch.tensor([1, 2])).any()
    c = np.array([1 + 0j, 1 + 1j, 0 - 2j])
    np.testing.assert_array_equal(_np(torch.isreal(torch.tensor(c))), np.isreal(c))
    assert torch.isreal(torch.arange(3)).all() and torch.isreal(torch.arange(3)).dtype == torch.bool
    with pytest.raises(RuntimeError, match="isposinf does not support complex"):
        torch.isposinf(torch.tensor([1 + 1j]))


def test_is_nonzero_is_signed_is_same_size():
    assert torch.is_nonzero(torch.tensor([[1.5]])) and not torch.tensor(0).is_nonzero()
    assert torch.is_nonzero(torch.tensor(math.nan))
    with pytest.raises(RuntimeError, match="more than one value"):
        torch.tensor([1, 2]).is_nonzero()
    with pytest.raises(RuntimeError, match="no values"):
        torch.is_nonzero(torch.tensor([]))
    signed = {torch.uint8: False, torch.bool: False, torch.int8: True, torch.float32: True}
    for dtype, want in signed.items():
        assert torch.is_signed(torch.zeros(1, dtype=dtype)) is want
    x = torch.zeros(2, 3)
    assert x.is_same_size(torch.ones(2, 3)) and not torch.is_same_size(x, x.t())
    with pytest.raises(TypeError):
        torch.is_same_size(x, 3)


# ---------------------------------------------------------------- elementwise
def test_nextafter_matches_numpy():
    a = np.array([1.0, -1.0, 0.0, 0.0, 2.5, math.inf, math.nan, 3.0])
    b = np.array([2.0, -2.0, 1.0, -1.0, -8.0, 0.0, 1.0, 3.0])
    for dtype, npt in ((torch.float32, np.float32), (torch.float64, np.float64)):
        got = torch.nextafter(torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype))
        want = np.nextafter(a.astype(npt), b.astype(npt))
        np.testing.assert_array_equal(_np(got), want)
        x = torch.tensor(a, dtype=dtype)
        assert x.nextafter_(torch.tensor(b, dtype=dtype)) is x
        np.testing.assert_array_equal(_np(x), want)
    mixed = torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0], dtype=torch.float64))
    assert mixed.dtype == torch.float64
    with pytest.raises(NotImplementedError, match="nextafter"):
        torch.nextafter(torch.tensor([1, 2]), torch.tensor([3, 4]))


def test_inplace_aliases_and_namespace_inplace_forms():
    x = torch.tensor([4.0, 9.0])
    assert x.subtract_(torch.tensor([1.0, 1.0]), alpha=2) is x and x.tolist() == [2.0, 7.0]
    assert x.divide_(2, rounding_mode="floor").tolist() == [1.0, 3.0]
    assert x.true_divide_(2).tolist() == [0.5, 1.5]
    assert x.square_().tolist() == [0.25, 2.25]
    a = np.array([0.5, 1.25, 2.0])
    cases = {
        "square_": (lambda t: torch.square_(t), a * a),
        "sinc_": (lambda t: torch.sinc_(t), np.sinc(a)),
        "deg2rad_": (lambda t: torch.deg2rad_(t), np.deg2rad(a)),
        "rad2deg_": (lambda t: torch.rad2deg_(t), np.rad2deg(a)),
        "i0_": (lambda t: torch.i0_(t), np.i0(a)),
        "logit_": (lambda t: torch.logit_(t / 4), np.log((a / 4) / (1 - a / 4))),
        "xlogy_": (lambda t: torch.xlogy_(t, torch.tensor(a)), a * np.log(a)),
        "ldexp_": (lambda t: torch.ldexp_(t, torch.tensor([1.0, 2.0, 3.0])), a * [2, 4, 8]),
    }
    for name, (fn, want) in cases.items():
        t = torch.tensor(a, dtype=torch.float64)
        got = fn(t)
        np.testing.assert_allclose(_np(got), want, rtol=1e-12, err_msg=name)
    g = torch.tensor([12, 18])
    assert torch.gcd_(g, torch.tensor([8, 27])) is g and g.tolist() == [4, 9]
    assert torch.lcm_(g, torch.tensor([6, 6])).tolist() == [12, 18]
    e = torch.tensor([0.5])
    assert torch.erfc_(e) is e and math.isclose(e.item(), math.erfc(0.5), rel_tol=1e-6)


def test_vander():
    x = np.array([1.0, 2.0, -3.0, 0.5])
    for n, inc in ((None, False), (3, True), (6, False), (1, True)):
        got = torch.vander(torch.tensor(x), N=n, increasing=inc)
        np.testing.assert_allclose(_np(got), np.vander(x, n, increasing=inc))
    ints = torch.vander(torch.tensor([1, 2, 3], dtype=torch.int8))
    assert ints.dtype == torch.int64 and ints.tolist() == np.vander([1, 2, 3]).tolist()
    assert torch.vander(torch.tensor([1, 2]), N=0).shape == (2, 0)
    with pytest.raises(RuntimeError, match="one-dimensional"):
        torch.vander(torch.ones(2, 2))
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.vander(torch.tensor([1, 2]), N=-1)
    _gradcheck(lambda t: torch.vander(t, 4), _leaf(3))


# ---------------------------------------------------------------- shape ops
def test_diagflat():
    a = RNG.standard_normal((2, 2))
    for k in (0, 1, -2):
        np.testing.assert_array_equal(_np(torch.diagflat(torch.tensor(a), k)), np.diagflat(a, k))
    assert torch.tensor(3.0).diagflat().tolist() == [[3.0]]


def test_scatter_into_views():
    a = RNG.standard_normal((3, 5))
    src = RNG.standard_normal((3, 2))
    want = a.copy()
    want[:, 1:5:2] = src
    got = torch.slice_scatter(torch.tensor(a), torch.tensor(src), 1, 1, None, 2)
    np.testing.assert_array_equal(_np(got), want)
    want = a.copy()
    want[-1] = np.arange(5)
    got = torch.tensor(a).select_scatter(torch.arange(5.0, dtype=torch.float64), 0, -1)
    np.testing.assert_array_equal(_np(got), want)
    want = a.copy()
    idx = np.arange(3)
    want[idx, idx + 1] = [7.0, 8.0, 9.0]
    got = torch.diagonal_scatter(torch.tensor(a), torch.tensor([7.0, 8.0, 9.0]), 1)
    np.testing.assert_array_equal(_np(got), want)
    # src is cast to input's dtype, as in PyTorch
    ints = torch.zeros(2, 2, dtype=torch.int64).select_scatter(torch.tensor([1.7, 2.2]), 0, 0)
    assert ints.dtype == torch.int64 and ints.tolist() == [[1, 2], [0, 0]]
    with pytest.raises(RuntimeError, match="src size = \\[3\\], slice size = \\[5\\]"):
        torch.select_scatter(torch.tensor(a), torch.ones(3), 0, 0)
    with pytest.raises(RuntimeError, match="slice step must be positive"):
        torch.slice_scatter(torch.tensor(a), torch.tensor(src), 1, step=0)
    with pytest.raises(IndexError):
        torch.slice_scatter(torch.tensor(a), torch.tensor(src), 3)
    with pytest.raises(IndexError):
        torch.select_scatter(torch.tensor(a), torch.ones(5), 0, 3)
    with pytest.raises(RuntimeError, match="cannot be identical"):
        torch.diagonal_scatter(torch.tensor(a), torch.ones(3), 0, 1, 1)


def test_scatter_into_views_gradients():
    x, s = _leaf(3, 4), _leaf(3, 2)
    _gradcheck(lambda a, b: torch.slice_scatter(a, b, 1, 0, None, 2), x, s)
    _gradcheck(lambda a, b: torch.select_scatter(a, b, 1, 2), x, _leaf(3))
    _gradcheck(lambda a, b: torch.diagonal_scatter(a, b, -1), x, _leaf(2))


def test_unravel_index():
    flat = np.array([0, 4, 5, 11, 23])
    shape = (2, 3, 4)
    got = torch.unravel_index(torch.tensor(flat), shape)
    for g, w in zip(got, np.unravel_index(flat, shape), strict=True):
        assert g.dtype == torch.int64 and g.tolist() == w.tolist()
    assert [t.item() for t in torch.unravel_index(torch.tensor(-1), (2, 3))] == [1, 2]
    assert torch.unravel_index(torch.tensor([1]), ()) == ()
    with pytest.raises(TypeError, match="integer dtype"):
        torch.unravel_index(torch.tensor(1.0), (2, 3))
    with pytest.raises(ValueError, match="negative"):
        torch.unravel_index(torch.tensor([1]), (-2, 3))


# ---------------------------------------------------------------- put, index_reduce
def test_put():
    a = RNG.standard_normal((2, 3))
    idx = np.array([0, -1, 4])
    vals = np.array([7.0, 8.0, 9.0])
    want = a.copy()
    np.put(want, idx, vals)
    x = torch.tensor(a)
    assert x.put_(torch.tensor(idx), torch.tensor(vals)) is x
    np.testing.assert_array_equal(_np(x), want)
    t = torch.zeros(3, 2).t()  # non-contiguous: positions are row-major in t's own shape
    t.put_(torch.tensor([1]), torch.tensor([7.0]))
    assert t.tolist() == [[0.0, 7.0, 0.0], [0.0, 0.0, 0.0]]
    acc = torch.zeros(4).put(torch.tensor([1, 1, 3]), torch.tensor([1.0, 2.0, 3.0]), True)
    assert acc.tolist() == [0.0, 3.0, 0.0, 3.0]
    with pytest.raises(IndexError, match="out of range"):
        torch.zeros(5).put_(torch.tensor([5]), torch.tensor([1.0]))
    with pytest.raises(IndexError, match="same number of elements"):
        torch.zeros(5).put_(torch.tensor([1, 2]), torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index"):
        torch.zeros(5).put_(torch.tensor([1.0]), torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.zeros(5).put_(torch.tensor([1]), torch.tensor([1.0], dtype=torch.float64))
    _gradcheck(lambda a, b: a.put(torch.tensor([0, 5]), b, True), _leaf(2, 3), _leaf(2))


def _np_index_reduce(a, dim, idx, src, reduce, include_self):
    a = np.moveaxis(a.copy(), dim, 0)
    src = np.moveaxis(src, dim, 0)
    fn = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for i in set(idx.tolist()):
        parts = [src[j] for j in range(len(idx)) if idx[j] == i]
        if include_self:
            parts.append(a[i])
        a[i] = fn(np.stack(parts), axis=0)
    return np.moveaxis(a, 0, dim)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    a = RNG.standard_normal((4, 3))
    src = RNG.standard_normal((4, 5))
    idx = np.array([0, 2, 0, 1, 2])
    got = torch.tensor(a).index_reduce(
        1, torch.tensor(idx), torch.tensor(src), reduce, include_self=include_self
    )
    want = _np_index_reduce(a, 1, idx, src, reduce, include_self)
    np.testing.assert_allclose(_np(got), want, rtol=1e-12)
    x = torch.tensor(a)
    assert x.index_reduce_(1, torch.tensor(idx), torch.tensor(src), reduce) is x


def test_index_reduce_errors_and_gradient():
    x, src = torch.ones(3, 2), torch.ones(3, 2)
    with pytest.raises(RuntimeError, match="one of prod, mean, amax or amin"):
        x.index_reduce_(0, torch.tensor([0, 0, 2]), src, "sum")
    with pytest.raises(IndexError, match="index out of range"):
        x.index_reduce_(0, torch.tensor([0, 0, 5]), src, "amax")
    with pytest.raises(RuntimeError, match="Number of indices"):
        x.index_reduce_(0, torch.tensor([0, 0]), src, "amax")
    with pytest.raises(RuntimeError, match="int32/int64"):
        x.index_reduce_(0, torch.tensor([0.0, 0, 1]), src, "amax")
    with pytest.raises(RuntimeError, match="same scalar type"):
        x.index_reduce_(0, torch.tensor([0, 0, 2]), src.long(), "amax")
    idx = torch.tensor([0, 2, 0])
    _gradcheck(lambda a, b: a.index_reduce(0, idx, b, "prod"), _leaf(3, 2), _leaf(3, 2))
    _gradcheck(lambda a, b: a.index_reduce(0, idx, b, "mean"), _leaf(3, 2), _leaf(3, 2))


# ---------------------------------------------------------------- Tensor methods
def test_fill_diagonal_():
    for shape, wrap in (((3, 4), False), ((7, 3), True), ((7, 3), False), ((3, 3, 3), False)):
        a = np.zeros(shape)
        np.fill_diagonal(a, 5.0, wrap=wrap)
        x = torch.zeros(shape)
        assert x.fill_diagonal_(5.0, wrap=wrap) is x
        np.testing.assert_array_equal(_np(x), a)
    with pytest.raises(RuntimeError, match="equal length"):
        torch.zeros(2, 3, 4).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        torch.zeros(3).fill_diagonal_(1)


def test_sum_to_size():
    a = RNG.standard_normal((2, 3, 4))
    x = torch.tensor(a)
    np.testing.assert_allclose(_np(x.sum_to_size(3, 1)), a.sum(0).sum(1, keepdims=True))
    np.testing.assert_allclose(_np(x.sum_to_size((1, 3, 4))), a.sum(0, keepdims=True))
    np.testing.assert_allclose(_np(x.sum_to_size(4)), a.sum((0, 1)))
    assert x.sum_to_size(2, 3, 4).shape == (2, 3, 4)
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        x.sum_to_size(5)
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        x.sum_to_size(1, 2, 3, 4)
    _gradcheck(lambda t: t.sum_to_size(3, 1), _leaf(2, 3, 4))


def test_conjugate_transposes_and_casts():
    c = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
    x = torch.tensor(c)
    np.testing.assert_array_equal(_np(x.H.resolve_conj()), c.conj().T)
    b = RNG.standard_normal((4, 2, 3)) + 1j * RNG.standard_normal((4, 2, 3))
    np.testing.assert_array_equal(
        _np(torch.tensor(b).mH.resolve_conj()), np.swapaxes(b.conj(), -1, -2)
    )
    with pytest.raises(RuntimeError, match="tensor.H is only supported on matrices"):
        _ = torch.ones(2, 3, 4).H
    with pytest.raises(RuntimeError, match="tensor.mH is only supported"):
        _ = torch.ones(3).mH
    f = torch.ones(2, dtype=torch.float64)
    assert f.cfloat().dtype == torch.complex64 and f.float().cdouble().dtype == torch.complex128


def test_new_empty_strided_resize_as_is_set_to():
    x = torch.zeros(2, 3, dtype=torch.float64)
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.stride() == (1, 2) and e.dtype == torch.float64
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        r = torch.arange(6.0).resize_as(torch.zeros(3, 2))
    assert r.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert x.is_set_to(x) and x.is_set_to(x.view(2, 3))
    assert not x.is_set_to(x.clone()) and not x.is_set_to(x.t())


# ---------------------------------------------------------------- linear algebra
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (3, 5), (5, 3)])
def test_lu_unpack_reconstructs(shape):
    A = torch.tensor(RNG.standard_normal(shape))
    LU, piv = torch.linalg.lu_factor(A)
    P, L, U = torch.lu_unpack(LU, piv)
    m, n = shape[-2:]
    k = min(m, n)
    assert P.shape[-2:] == (m, m) and L.shape[-2:] == (m, k) and U.shape[-2:] == (k, n)
    np.testing.assert_allclose(_np(P @ L @ U), _np(A), atol=1e-12)
    np.testing.assert_array_equal(_np(L), np.tril(_np(L)))
    np.testing.assert_array_equal(_np(U), np.triu(_np(U)))
    empty = torch.lu_unpack(LU, piv, unpack_data=False, unpack_pivots=False)
    assert all(t.numel() == 0 for t in empty)


def test_lu_unpack_errors_and_matrix_rank():
    LU, piv = torch.linalg.lu_factor(torch.eye(3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="torch.int32"):
        torch.lu_unpack(LU, piv.long())
    with pytest.raises(RuntimeError, match="torch.linalg.matrix_rank"):
        torch.matrix_rank(torch.eye(3))


# ---------------------------------------------------------------- creation and global state
def test_frombuffer():
    buf = bytearray(np.arange(6, dtype=np.int16).tobytes())
    t = torch.frombuffer(buf, dtype=torch.int16)
    assert t.tolist() == list(range(6))
    t[0] = 100  # shares the memory
    assert np.frombuffer(buf, dtype=np.int16)[0] == 100
    part = torch.frombuffer(buf, dtype=torch.int16, count=2, offset=4)
    assert part.tolist() == [2, 3]
    with pytest.raises(ValueError, match="must not be greater than actual buffer length"):
        torch.frombuffer(buf, dtype=torch.int32, count=4)
    with pytest.raises(ValueError, match="multiple of element size"):
        torch.frombuffer(buf, dtype=torch.int32, offset=2)
    with pytest.raises(ValueError, match="must not be 0"):
        torch.frombuffer(bytearray(), dtype=torch.int32)
    with pytest.raises(ValueError, match="offset"):
        torch.frombuffer(buf, dtype=torch.int16, offset=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert torch.frombuffer(b"abcd", dtype=torch.uint8).tolist() == [97, 98, 99, 100]


def test_typename_is_storage():
    assert torch.typename(torch.zeros(2)) == "torch.FloatTensor"
    assert torch.typename(torch.zeros(2, dtype=torch.int64)) == "torch.LongTensor"
    assert torch.typename(3) == "int"
    assert torch.typename(np.zeros(1)) == "numpy.ndarray"
    assert torch.is_storage(torch.zeros(2).untyped_storage())
    assert not torch.is_storage(torch.zeros(2))


def test_global_switches():
    assert torch.get_num_interop_threads() >= 1
    prev = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    assert torch.is_warn_always_enabled()
    torch.set_warn_always(prev)
    assert torch.is_anomaly_enabled() is False


def test_anomaly_switch():
    pytest.importorskip("torch.autograd")
    try:
        torch.set_anomaly_enabled(True)
        assert torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
        torch.set_anomaly_enabled(True, False)
        assert not torch.is_anomaly_check_nan_enabled()
    finally:
        torch.set_anomaly_enabled(False)
    assert not torch.is_anomaly_enabled()


# ---------------------------------------------------------------- printing
@pytest.fixture
def printoptions():
    yield
    torch.set_printoptions(profile="default")


def test_set_printoptions(printoptions):
    x = torch.tensor([1.23456, 100.5, 0.001])
    torch.set_printoptions(precision=2, sci_mode=False)
    assert repr(x) == "tensor([  1.23, 100.50,   0.00])"
    torch.set_printoptions(sci_mode=True)
    assert repr(x) == "tensor([1.23e+00, 1.00e+02, 1.00e-03])"
    torch.set_printoptions(precision=3)  # sci_mode goes back to None: the values decide
    assert repr(torch.tensor([0.5, 2.0])) == "tensor([0.500, 2.000])"
    torch.set_printoptions(profile="default", threshold=5, edgeitems=1, linewidth=20)
    assert repr(torch.arange(10.0)) == "tensor([0.,  ..., 9.])"
    assert repr(torch.arange(5.0)) == "tensor([0., 1., 2.,\n        3., 4.])"
    torch.set_printoptions(profile="full")
    assert "..." not in repr(torch.arange(2000))
    torch.set_printoptions(profile="short")
    assert repr(torch.tensor([0.123456])) == "tensor([0.12])"
    torch.set_printoptions(profile="default")
    assert repr(torch.tensor([0.5, 1.25, 2.0])) == "tensor([0.5000, 1.2500, 2.0000])"
