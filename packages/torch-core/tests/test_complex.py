"""complex64/complex128 tensors against NumPy: creation, printing, arithmetic, products,
reductions, views of the parts, and the errors of ops that need ordered numbers."""

import cmath

import numpy as np
import pytest

import torch

rng = np.random.default_rng(0)
DTYPES = [(torch.complex64, np.complex64, 1e-5), (torch.complex128, np.complex128, 1e-12)]


def rand(shape, npdt):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(npdt)


def close(t, expected, tol):
    np.testing.assert_allclose(t.numpy(), expected, rtol=tol, atol=tol)


def test_creation_from_python_and_numpy():
    z = torch.tensor([1 + 2j, 3, -1j])
    assert z.dtype == torch.complex64 and z.dtype.is_complex and not z.dtype.is_floating_point
    assert z.tolist() == [1 + 2j, 3 + 0j, -1j]
    assert torch.tensor(2.5 - 1j).item() == 2.5 - 1j
    assert complex(torch.tensor(2 + 1j)) == 2 + 1j
    a = rand((3, 2), np.complex128)
    t = torch.from_numpy(a)
    assert t.dtype == torch.complex128 and torch.cdouble is torch.complex128
    t[0, 0] = 5j  # shares memory with the array
    assert a[0, 0] == 5j
    np.testing.assert_array_equal(t.numpy(), a)
    assert torch.zeros(2, dtype=torch.cfloat).tolist() == [0j, 0j]
    assert torch.full((2,), 1j).dtype == torch.complex64
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.tensor([1j]).dtype == torch.complex128
    finally:
        torch.set_default_dtype(torch.float32)


def test_printing_matches_pytorch_layout():
    assert repr(torch.tensor([1 + 2j, 3 - 1j])) == "tensor([1.+2.j, 3.-1.j])"
    assert repr(torch.tensor([[1 + 2j]], dtype=torch.complex128)) == (
        "tensor([[1.+2.j]], dtype=torch.complex128)"
    )
    assert repr(torch.tensor([1.5 + 0.25j])) == "tensor([1.5000+0.2500j])"


@pytest.mark.parametrize("tdt,npdt,tol", DTYPES)
def test_arithmetic_and_functions(tdt, npdt, tol):
    a, b = rand((4, 5), npdt), rand((4, 5), npdt)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    close(ta + tb, a + b, tol)
    close(ta - tb, a - b, tol)
    close(ta * tb, a * b, tol)
    close(ta / tb, a / b, tol * 10)
    close(ta**2, a**2, tol * 10)
    close(-ta, -a, tol)
    close(ta * (2 - 1j), a * (2 - 1j), tol)
    close(ta + 1, a + 1, tol)
    for name in ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "reciprocal"]:
        close(getattr(torch, name)(ta), getattr(np, name)(a), tol * 100)
    assert (ta == ta).all() and not (ta != ta).any()


def test_promotion_with_real_tensors_and_numbers():
    f32, f64 = torch.ones(2), torch.ones(2, dtype=torch.float64)
    assert (f32 + 1j).dtype == torch.complex64
    assert (f64 + 1j).dtype == torch.complex128
    assert (torch.ones(2, dtype=torch.complex64) + f64).dtype == torch.complex128
    assert (torch.arange(3) * 1j).dtype == torch.complex64
    assert torch.promote_types(torch.float64, torch.complex64) == torch.complex128
    assert not torch.can_cast(torch.complex64, torch.float64)


@pytest.mark.parametrize("tdt,npdt,tol", DTYPES)
def test_matmul_and_reductions(tdt, npdt, tol):
    a, b = rand((3, 4), npdt), rand((4, 2), npdt)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    close(ta @ tb, a @ b, tol * 10)
    close(ta.T @ ta.conj(), a.T @ a.conj(), tol * 10)  # transposed operands
    close(ta.sum(), a.sum(), tol * 10)
    close(ta.sum(0), a.sum(0), tol * 10)
    close(ta.mean(1), a.mean(1), tol * 10)
    close(ta.prod(1), a.prod(1), tol * 10)
    close(torch.vdot(ta[0], ta[1]), np.vdot(a[0], a[1]), tol * 10)


def test_parts_are_views():
    z = torch.tensor([1 + 2j, 3 - 4j])
    assert z.real.tolist() == [1.0, 3.0] and z.imag.tolist() == [2.0, -4.0]
    z.imag[0] = 7.0
    assert z[0].item() == 1 + 7j
    z.real = torch.tensor([0.5, 0.5])
    assert z.tolist() == [0.5 + 7j, 0.5 - 4j]
    r = torch.view_as_real(z)
    assert r.shape == (2, 2) and r.dtype == torch.float32
    r[1, 1] = 9.0
    assert z[1].item() == 0.5 + 9j
    back = torch.view_as_complex(r)
    assert back.tolist() == z.tolist()
    x = torch.ones(3)
    assert x.real is x or x.real.tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="imag"):
        _ = x.imag
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        torch.view_as_complex(torch.ones(3, 3))
    with pytest.raises(RuntimeError, match="stride 1"):
        torch.view_as_complex(torch.ones(2, 4)[:, ::2])
    with pytest.raises(RuntimeError, match="complex"):
        torch.view_as_real(torch.ones(2))


def test_abs_angle_conj_polar_sgn():
    a = rand((6,), np.complex128)
    t = torch.from_numpy(a)
    close(t.abs(), np.abs(a), 1e-12)
    assert t.abs().dtype == torch.float64
    close(torch.angle(t), np.angle(a), 1e-12)
    close(t.conj(), a.conj(), 0)
    close(torch.conj_physical(t), a.conj(), 0)
    m, ph = torch.from_numpy(np.abs(a)), torch.from_numpy(np.angle(a))
    close(torch.polar(m, ph), a, 1e-12)
    close(torch.complex(t.real, t.imag), a, 0)
    close(torch.sgn(t), a / np.abs(a), 1e-12)
    assert torch.sgn(torch.tensor([0j])).tolist() == [0j]
    assert torch.angle(torch.tensor([-2.0, 3.0])).tolist() == pytest.approx([cmath.pi, 0.0])


def test_shape_and_index_ops():
    a = rand((3, 4), np.complex128)
    t = torch.from_numpy(a)
    close(torch.cat([t, t]), np.concatenate([a, a]), 0)
    close(t.flip(1), a[:, ::-1], 0)
    close(t[torch.tensor([2, 0])], a[[2, 0]], 0)
    close(t[t.real > 0], a[a.real > 0], 0)
    close(t.t().contiguous(), a.T, 0)
    close(torch.stack([t, t], 1), np.stack([a, a], 1), 0)
    u = t.clone()
    u[1] = 3j
    assert (u[1] == 3j).all()


def test_casts():
    z = torch.tensor([1.5 + 2j])
    assert torch.tensor([1, 2]).to(torch.complex64).tolist() == [1 + 0j, 2 + 0j]
    assert z.to(torch.complex128).dtype == torch.complex128
    assert z.to(torch.float32).tolist() == [1.5]  # the real part, as in PyTorch
    assert z.to(torch.bool).tolist() == [True]


def test_ops_needing_order_or_real_values_raise():
    z = torch.tensor([1j, 2])
    with pytest.raises(RuntimeError, match="complex64"):
        _ = z < z
    with pytest.raises(RuntimeError, match="complex64"):
        z.max()
    with pytest.raises(RuntimeError, match="cannot be converted"):
        torch.zeros(2).fill_(1j)
    with pytest.raises(RuntimeError):
        torch.zeros(2).add_(z)  # a complex result cannot go into a float tensor


def test_random_complex_tensors():
    g = torch.Generator().manual_seed(0)
    z = torch.randn(200000, dtype=torch.complex64, generator=g)
    assert z.dtype == torch.complex64
    assert abs((z.abs() ** 2).mean().item() - 1.0) < 0.02  # E|z|^2 = 1
    assert abs(z.real.var().item() - 0.5) < 0.01 and abs(z.imag.var().item() - 0.5) < 0.01
    u = torch.rand(1000, dtype=torch.complex128, generator=g)
    parts = torch.view_as_real(u)
    assert bool(((parts >= 0) & (parts < 1)).all())


def test_dlpack_round_trip_keeps_complex_values():
    z = torch.tensor([1 + 2j, 3 - 1j])
    a = np.from_dlpack(z)
    assert a.dtype == np.complex64
    np.testing.assert_array_equal(a, np.array([1 + 2j, 3 - 1j], dtype=np.complex64))
    back = torch.from_dlpack(np.array([0.5 - 1j], dtype=np.complex128))
    assert back.dtype == torch.complex128 and back.tolist() == [0.5 - 1j]


def test_isclose_uses_the_modulus_for_complex():
    a = torch.tensor([1 + 1j, 2 - 1j], dtype=torch.complex128)
    assert torch.isclose(a, a + 1e-12).all() and torch.allclose(a, a * (1 + 1e-9j))
    assert not torch.allclose(a, a + 1e-3j)
    nan = torch.tensor([complex("nan")])
    assert not torch.isclose(nan, nan).item() and torch.isclose(nan, nan, equal_nan=True).item()


def test_eig_with_complex_eigenvalues_matches_numpy():
    rng_ = np.random.default_rng(7)
    A = rng_.standard_normal((3, 5, 5))
    w, V = torch.linalg.eig(torch.from_numpy(A))
    assert w.dtype == torch.complex128 and V.dtype == torch.complex128
    for i in range(3):
        np.testing.assert_allclose(
            np.sort_complex(w[i].numpy()), np.sort_complex(np.linalg.eigvals(A[i])), rtol=1e-10
        )
        np.testing.assert_allclose(A[i] @ V[i].numpy(), V[i].numpy() * w[i].numpy(), atol=1e-10)
        np.testing.assert_allclose(np.linalg.norm(V[i].numpy(), axis=0), 1.0, rtol=1e-10)
    rotation = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
    assert sorted(torch.linalg.eigvals(rotation).tolist(), key=lambda z: z.imag) == [-1j, 1j]
