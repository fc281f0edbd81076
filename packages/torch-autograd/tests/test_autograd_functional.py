"""torch.autograd.functional against closed forms and finite differences."""

import numpy as np
import pytest

import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

D = torch.float64


def numeric_jacobian(f, x, eps=1e-6):
    """Central differences of f (numpy in, numpy out) at x: shape out.shape + x.shape."""
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = eps
        d = d.reshape(x.shape)
        cols.append((np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps))
    out = np.stack(cols, -1)
    return out.reshape(np.shape(f(x)) + x.shape)


def f_np(x):
    return np.stack([np.sin(x[0]) * x[1] ** 2, np.exp(x[1]) + x[0] * x[1] ** 3])


def f_t(x):
    return torch.stack([torch.sin(x[0]) * x[1] ** 2, torch.exp(x[1]) + x[0] * x[1] ** 3])


def scalar_np(x):
    return np.sum(x**3 * np.sin(x[::-1]))


def scalar_t(x):
    return (x**3 * torch.sin(x.flip(0))).sum()


X = [0.3, -1.2]


def test_jacobian_matches_finite_differences():
    x = torch.tensor(X, dtype=D)
    np.testing.assert_allclose(jacobian(f_t, x).numpy(), numeric_jacobian(f_np, X), rtol=1e-6)
    J = jacobian(f_t, x, vectorize=True, strategy="forward-mode")
    np.testing.assert_allclose(J.numpy(), numeric_jacobian(f_np, X), rtol=1e-6)


def test_jacobian_shapes_for_tuples():
    a, b = torch.randn(2, 3, dtype=D), torch.randn(3, dtype=D)
    J = jacobian(lambda a, b: (a * b, (a @ b).sum()), (a, b))
    assert [[tuple(t.shape) for t in row] for row in J] == [
        [(2, 3, 2, 3), (2, 3, 3)],
        [(2, 3), (3,)],
    ]
    np.testing.assert_allclose(J[1][1].numpy(), a.sum(0).numpy())
    J = jacobian(lambda a: (a.sum(), a * 2), a)  # tuple outputs, one input
    assert isinstance(J, tuple) and J[0].shape == (2, 3) and J[1].shape == (2, 3, 2, 3)


def test_jacobian_independent_output_and_strict():
    x = torch.tensor(X, dtype=D)
    assert torch.equal(jacobian(lambda a: torch.ones(2, dtype=D), x), torch.zeros(2, 2, dtype=D))
    with pytest.raises(RuntimeError, match="does not require gradients"):
        jacobian(lambda a: torch.ones(2), x, strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        jacobian(lambda a, b: a * 2, (x, x), strict=True)
    with pytest.raises(RuntimeError, match="strict=True"):
        jacobian(f_t, x, strict=True, vectorize=True)


def test_argument_errors():
    x = torch.tensor(X, dtype=D)
    with pytest.raises(TypeError, match="Tensor or a tuple of Tensors"):
        jacobian(f_t, [x])
    with pytest.raises(TypeError, match="outputs of the user-provided function"):
        jacobian(lambda a: 3, x)
    with pytest.raises(RuntimeError, match="v can only be None"):
        vjp(f_t, x)
    with pytest.raises(RuntimeError, match="v can only be None"):
        jvp(f_t, x)
    with pytest.raises(RuntimeError, match="invalid size"):
        vjp(f_t, x, torch.ones(3, dtype=D))
    with pytest.raises(RuntimeError, match="single element"):
        hessian(f_t, x)


def test_vjp_and_jvp_against_the_jacobian():
    x = torch.tensor(X, dtype=D)
    J = numeric_jacobian(f_np, X)
    v = torch.tensor([0.7, -2.0], dtype=D)
    out, g = vjp(f_t, x, v)
    np.testing.assert_allclose(out.numpy(), f_np(np.array(X)))
    np.testing.assert_allclose(g.numpy(), v.numpy() @ J, rtol=1e-6)
    out, g = jvp(f_t, x, v)
    np.testing.assert_allclose(g.numpy(), J @ v.numpy(), rtol=1e-6)
    assert not out.requires_grad and not g.requires_grad
    out, g = vjp(lambda a: (a * 2).sum(), x)  # v may be None for a single-element output
    assert out.item() == pytest.approx(-1.8) and g.tolist() == [2.0, 2.0]


def test_hessian_and_products():
    x = torch.tensor(X, dtype=D)
    H = numeric_jacobian(lambda a: numeric_jacobian(scalar_np, a, 1e-5), X, 1e-4)
    np.testing.assert_allclose(hessian(scalar_t, x).numpy(), H, rtol=1e-4, atol=1e-6)
    v = torch.tensor([1.5, -0.5], dtype=D)
    out, hv = hvp(scalar_t, x, v)
    np.testing.assert_allclose(hv.numpy(), H @ v.numpy(), rtol=1e-4, atol=1e-6)
    _, vh = vhp(scalar_t, x, v)
    np.testing.assert_allclose(vh.numpy(), v.numpy() @ H, rtol=1e-4, atol=1e-6)
    assert out.item() == pytest.approx(scalar_np(np.array(X)))
    blocks = hessian(lambda a, b: (a * b).sum(), (x, x))
    assert torch.equal(blocks[0][1], torch.eye(2, dtype=D))
    assert torch.equal(blocks[0][0], torch.zeros(2, 2, dtype=D))
    with pytest.raises(RuntimeError, match="input 0"):
        hvp(lambda a: (a * 2).sum(), x, v, strict=True)  # linear: zero Hessian
    assert hvp(lambda a: (a * 2).sum(), x, v)[1].tolist() == [0.0, 0.0]


def test_create_graph_keeps_results_differentiable():
    x = torch.tensor(X, dtype=D, requires_grad=True)
    J = jacobian(lambda a: a**3, x, create_graph=True)
    assert J.requires_grad
    (g,) = torch.autograd.grad(J.trace(), x)
    np.testing.assert_allclose(g.numpy(), 6 * np.array(X))
    out, hv = hvp(scalar_t, x, torch.ones(2, dtype=D), create_graph=True)
    assert out.requires_grad and hv.requires_grad
    out, g = vjp(lambda a: (a * 2).sum(), x)
    assert not out.requires_grad and not g.requires_grad


def test_reachable_after_import_torch():
    assert torch.autograd.functional.jacobian is jacobian
