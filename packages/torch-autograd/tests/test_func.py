"""torch.func against closed forms, NumPy loops and finite differences."""

import numpy as np
import pytest

import torch
from torch.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    stack_module_state,
    vjp,
    vmap,
)

D = torch.float64
RNG = np.random.default_rng(1234)


def rand(*shape):
    return torch.tensor(RNG.standard_normal(shape), dtype=D)


def numeric_jacobian(f, x, eps=1e-6):
    """Central differences of f (numpy in, numpy out) at x: shape f(x).shape + x.shape."""
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = eps
        d = d.reshape(x.shape)
        cols.append((np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps))
    return np.stack(cols, -1).reshape(np.shape(f(x)) + x.shape)


def f_np(x):
    return np.stack([np.sin(x[0]) * x[1] ** 2, np.exp(x[1]) + x[0] * x[2] ** 3, x.prod()])


def f_t(x):
    return torch.stack([torch.sin(x[0]) * x[1] ** 2, torch.exp(x[1]) + x[0] * x[2] ** 3, x.prod()])


def close(a, b, tol=1e-6):
    a = a.numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    b = b.numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def plain(t):
    """A result that carries no graph."""
    return not t.requires_grad and t.grad_fn is None


# ------------------------------------------------------------------------------------ grad


def test_grad_of_sin_is_cos_and_carries_no_graph():
    x = rand(5)
    g = grad(lambda x: x.sin().sum())(x)
    close(g, np.cos(x.numpy()))
    assert plain(g) and plain(x)


def test_grad_argnums_tuple_and_negative():
    x, y = rand(4), rand(4)

    def f(x, y):
        return (x * y**2).sum()

    gx, gy = grad(f, argnums=(0, 1))(x, y)
    close(gx, y.numpy() ** 2)
    close(gy, 2 * x.numpy() * y.numpy())
    close(grad(f, argnums=-1)(x, y), 2 * x.numpy() * y.numpy())
    (only_y,) = grad(f, argnums=(1,))(x, y)
    close(only_y, 2 * x.numpy() * y.numpy())


def test_grad_of_pytree_argument():
    params = {"w": rand(3), "b": [rand(), rand(2)]}
    x = rand(3)

    def f(p, x):
        return (p["w"] * x).sum() + p["b"][0] ** 2 + p["b"][1].exp().sum()

    g = grad(f)(params, x)
    assert set(g) == {"w", "b"} and isinstance(g["b"], list)
    close(g["w"], x.numpy())
    close(g["b"][0], 2 * params["b"][0].numpy())
    close(g["b"][1], np.exp(params["b"][1].numpy()))


def test_grad_has_aux_and_grad_and_value():
    x = rand(3)

    def f(x):
        y = x**2
        return y.sum(), {"y": y}

    g, aux = grad(f, has_aux=True)(x)
    close(g, 2 * x.numpy())
    close(aux["y"], x.numpy() ** 2)
    assert plain(aux["y"])
    g, (value, aux) = grad_and_value(f, has_aux=True)(x)
    close(value, (x.numpy() ** 2).sum())
    assert plain(value) and plain(g)
    g, value = grad_and_value(lambda x: x.exp().sum())(x)
    close(g, np.exp(x.numpy()))
    close(value, np.exp(x.numpy()).sum())


def test_grad_of_unused_input_is_zero():
    x, y = rand(3), rand(2)
    gx, gy = grad(lambda x, y: x.sum() * 2, argnums=(0, 1))(x, y)
    close(gx, np.full(3, 2.0))
    close(gy, np.zeros(2))
    close(grad(lambda x: torch.ones((), dtype=D))(x), np.zeros(3))


def test_grad_ignores_outer_no_grad_and_respects_inner():
    x = rand(3)
    with torch.no_grad():
        g = grad(lambda x: (x**3).sum())(x)
    close(g, 3 * x.numpy() ** 2)
    assert plain(g)

    def inner_no_grad(x):
        with torch.no_grad():
            return (x * 2).sum()

    close(grad(inner_no_grad)(x), np.zeros(3))


def test_grad_of_input_that_requires_grad_stays_differentiable():
    # d/dx of grad(f)(x) = f''(x): the transform composes with ordinary autograd
    x = rand(4).requires_grad_()
    g = grad(lambda x: (x**3).sum())(x)
    close(g.detach(), 3 * x.detach().numpy() ** 2)
    assert g.requires_grad
    g.sum().backward()
    close(x.grad, 6 * x.detach().numpy())


def test_grad_with_closed_over_parameter():
    w = rand(3).requires_grad_()
    x = rand(3)
    g = grad(lambda x: (w * x.sin()).sum())(x)
    close(g.detach(), w.detach().numpy() * np.cos(x.numpy()))
    g.sum().backward()  # d/dw sum(w * cos x) = cos x
    close(w.grad, np.cos(x.numpy()))


def test_grad_errors():
    x = rand(3)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        grad(lambda x: x.sin())(x)
    with pytest.raises(RuntimeError, match="to return a Tensor, got <class 'float'>"):
        grad(lambda x: 1.0)(x)
    with pytest.raises(ValueError, match="must be Tensor, got <class 'float'>"):
        grad(lambda x: x)(1.0)
    with pytest.raises(RuntimeError, match="Got argnum=2, but only 1 positional inputs"):
        grad(lambda x: x.sum(), argnums=2)(x)
    with pytest.raises(RuntimeError, match="argnums must be non-empty"):
        grad(lambda x: x.sum(), argnums=())(x)
    with pytest.raises(RuntimeError, match="argnums must be int or Tuple"):
        grad(lambda x: x.sum(), argnums=[0])(x)
    with pytest.raises(RuntimeError, match="argnums elements must be unique"):
        grad(lambda x: x.sum(), argnums=(0, -1))(x)
    with pytest.raises(RuntimeError, match="should be a tuple: \\(output, aux\\)"):
        grad(lambda x: x.sum(), has_aux=True)(x)
    with pytest.raises(RuntimeError, match="floating point"):
        grad(lambda x: x.sum())(torch.arange(3))


# ---------------------------------------------------------------------- higher derivatives


def test_nested_grad_gives_higher_derivatives():
    x = rand(4)

    def f(x):
        return (x.sin() * x**2).sum()

    xs = x.numpy()
    g1 = grad(f)(x)
    close(g1, np.cos(xs) * xs**2 + 2 * xs * np.sin(xs))
    second = grad(lambda x: grad(f)(x).sum())(x)  # the Hessian is diagonal here
    expected = -np.sin(xs) * xs**2 + 4 * xs * np.cos(xs) + 2 * np.sin(xs)
    close(second, expected)
    assert plain(second)
    t = torch.tensor(1.7, dtype=D)
    third = grad(grad(grad(lambda t: t**5 + t.exp())))(t)
    close(third, 60 * 1.7**2 + np.exp(1.7))
    assert plain(third)


def test_nested_grad_does_not_confuse_perturbations():
    # d/dx [ d/dy (x * y) at y=x ] = d/dx x = 1 (not 2)
    x = torch.tensor(3.0, dtype=D)
    close(grad(lambda x: grad(lambda y: x * y)(x))(x), 1.0)
    # d/dx [2 x^2 y at y=x] = d/dx 2 x^3 = 6 x^2
    close(grad(lambda x: grad(lambda y: (x * y) ** 2)(x))(x), 6 * 3.0**2)


def test_hessian_of_quadratic_form():
    a = rand(4, 4)
    x = rand(4)
    h = hessian(lambda x: x @ a @ x)(x)
    close(h, a.numpy() + a.numpy().T)
    assert plain(h)


def test_hessian_matches_finite_differences_of_gradient():
    x = rand(3)

    def scalar_np(x):
        return np.sum(x**3 * np.sin(x[::-1]))

    def grad_np(x):
        return numeric_jacobian(scalar_np, x)

    h = hessian(lambda x: (x**3 * torch.sin(x.flip(0))).sum())(x)
    close(h, numeric_jacobian(grad_np, x.numpy(), eps=1e-4), tol=1e-5)


def test_hessian_argnums_tuple_blocks():
    x, y = rand(3), rand(3)
    (hxx, hxy), (hyx, hyy) = hessian(lambda x, y: (x * y**2).sum(), argnums=(0, 1))(x, y)
    close(hxx, np.zeros((3, 3)))
    close(hxy, np.diag(2 * y.numpy()))
    close(hyx, np.diag(2 * y.numpy()))
    close(hyy, np.diag(2 * x.numpy()))


def test_forward_over_reverse_hessian_vector_product():
    a, x, v = rand(3, 3), rand(3), rand(3)
    _, hv = jvp(grad(lambda x: x @ a @ x + x.exp().sum()), (x,), (v,))
    h = a.numpy() + a.numpy().T + np.diag(np.exp(x.numpy()))
    close(hv, h @ v.numpy())
    assert plain(hv)


def test_grad_of_a_vjp():
    # d/dx sum(v * cos x) = -v * sin x
    x, v = rand(3), rand(3)
    g = grad(lambda x: vjp(torch.sin, x)[1](v)[0].sum())(x)
    close(g, -v.numpy() * np.sin(x.numpy()))


def test_torch_func_is_an_attribute_of_torch():
    assert torch.func.grad is grad and torch.func.vmap is vmap


def test_jacfwd_of_jacrev_and_jacrev_of_jacrev_agree():
    x = rand(3)

    def f(x):
        return (x.exp() * x.roll(1)).sum()

    close(jacfwd(jacrev(f))(x), jacrev(jacrev(f))(x), tol=1e-10)


# --------------------------------------------------------------------------------- vjp/jvp


def test_vjp_is_v_transpose_jacobian():
    x, v = rand(3), rand(3)
    out, vjp_fn = vjp(f_t, x)
    close(out, f_np(x.numpy()))
    jac = numeric_jacobian(f_np, x.numpy())
    (g,) = vjp_fn(v)
    close(g, v.numpy() @ jac)
    (g2,) = vjp_fn(2 * v)  # vjp_fn can be called again
    close(g2, 2 * v.numpy() @ jac)
    assert plain(out) and plain(g)


def test_vjp_several_primals_and_outputs():
    x, y = rand(3), rand(3)
    (a, b), vjp_fn = vjp(lambda x, y: (x * y, (x**2).sum()), x, y)
    ca, cb = rand(3), torch.tensor(0.5, dtype=D)
    gx, gy = vjp_fn((ca, cb))
    close(gx, ca.numpy() * y.numpy() + 0.5 * 2 * x.numpy())
    close(gy, ca.numpy() * x.numpy())


def test_vjp_has_aux_and_errors():
    x = rand(3)
    out, vjp_fn, aux = vjp(lambda x: (x.sin(), x.cos()), x, has_aux=True)
    close(aux, np.cos(x.numpy()))
    assert plain(aux)
    with pytest.raises(RuntimeError, match="pytree structure of cotangents"):
        vjp_fn((torch.ones(3, dtype=D),))
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        vjp_fn(torch.ones(2, dtype=D))
    with pytest.raises(RuntimeError, match="return only tensors"):
        vjp(lambda x: 3.0, x)


def test_jvp_is_jacobian_times_tangent():
    x, t = rand(3), rand(3)
    out, tangent_out = jvp(f_t, (x,), (t,))
    close(out, f_np(x.numpy()))
    close(tangent_out, numeric_jacobian(f_np, x.numpy()) @ t.numpy())
    assert plain(out) and plain(tangent_out)


def test_jvp_several_primals_and_aux():
    x, y, tx, ty = rand(3), rand(3), rand(3), rand(3)
    out, t_out, aux = jvp(lambda x, y: (x * y.exp(), y), (x, y), (tx, ty), has_aux=True)
    xs, ys = x.numpy(), y.numpy()
    close(t_out, tx.numpy() * np.exp(ys) + xs * np.exp(ys) * ty.numpy())
    close(aux, ys)
    _, zero = jvp(lambda x: torch.ones(2, dtype=D), (x,), (tx,))
    close(zero, np.zeros(2))


def test_jvp_errors():
    x = rand(3)
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        jvp(torch.sin, x, x)
    with pytest.raises(RuntimeError, match="same python structure"):
        jvp(torch.sin, (x,), (x, x))
    with pytest.raises(RuntimeError, match="different size"):
        jvp(torch.sin, (x,), (torch.ones(2, dtype=D),))
    with pytest.raises(RuntimeError, match="at least one Tensor"):
        jvp(lambda: torch.ones(1), (), ())


# ------------------------------------------------------------------------------ jacobians


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobian_matches_finite_differences(jac):
    x = rand(3)
    j = jac(f_t)(x)
    close(j, numeric_jacobian(f_np, x.numpy()))
    assert plain(j)


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobian_shapes_and_structure(jac):
    x, y = rand(2, 3), rand(4)

    def f(x, y):
        return {"a": x.sum(0) * y[:3], "b": (x**2).sum()}

    out = jac(f, argnums=(0, 1))(x, y)
    assert out["a"][0].shape == (3, 2, 3) and out["a"][1].shape == (3, 4)
    assert out["b"][0].shape == (2, 3) and out["b"][1].shape == (4,)
    close(out["b"][0], 2 * x.numpy())
    close(out["b"][1], np.zeros(4))
    expected = np.zeros((3, 4))
    expected[:, :3] = np.diag(x.numpy().sum(0))
    close(out["a"][1], expected)
    j = jac(lambda x: x.sum())(x)  # int argnums: the input's structure
    close(j, np.ones((2, 3)))


def test_jacrev_has_aux_and_errors():
    x = rand(3)
    j, aux = jacrev(lambda x: (x.exp(), x.sum()), has_aux=True)(x)
    close(j, np.diag(np.exp(x.numpy())))
    close(aux, x.numpy().sum())
    with pytest.raises(ValueError, match="chunk_size"):
        jacrev(torch.sin, chunk_size=0)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        jacfwd(torch.sin, randomness="sometimes")
    with pytest.raises(RuntimeError, match="Expected tensors"):
        jacrev(lambda x: (x, 3), has_aux=True)(x)


# ------------------------------------------------------------------------------------ vmap


def test_vmap_matches_a_loop():
    x, w = rand(5, 3), rand(3, 2)
    out = vmap(lambda r: (r @ w).tanh())(x)
    close(out, np.stack([np.tanh(r @ w.numpy()) for r in x.numpy()]))


@pytest.mark.parametrize("in_dim", [0, 1, 2, -1, -3])
def test_vmap_in_dims(in_dim):
    x = rand(2, 3, 4)
    out = vmap(lambda s: s.sum(0) * 2, in_dims=in_dim)(x)
    moved = np.moveaxis(x.numpy(), in_dim, 0)
    close(out, np.stack([s.sum(0) * 2 for s in moved]))


def test_vmap_none_in_dims_kwargs_and_non_tensor_args():
    x, y = rand(4, 3), rand(3)
    out = vmap(lambda a, b, c, scale=1.0: (a * b + c) * scale, in_dims=(0, None, None))(
        x, y, 2.0, scale=3.0
    )
    close(out, np.stack([(r * y.numpy() + 2.0) * 3.0 for r in x.numpy()]))


def test_vmap_nested_pytree_in_dims():
    x, y, z = rand(4, 2), rand(2, 4), rand(2)

    def f(d, pair):
        return d["x"] + d["y"] + pair[0] * pair[1]

    pair1 = rand(4, 2)
    out = vmap(f, in_dims=({"x": 0, "y": 1}, [None, 0]))({"x": x, "y": y}, [z, pair1])
    expected = [x.numpy()[i] + y.numpy()[:, i] + z.numpy() * pair1.numpy()[i] for i in range(4)]
    close(out, np.stack(expected))


def test_vmap_out_dims():
    x = rand(3, 4)
    out = vmap(lambda r: r * 2, out_dims=1)(x)
    close(out, (x.numpy() * 2).T)
    close(vmap(lambda r: r * 2, out_dims=-1)(x), (x.numpy() * 2).T)
    a, b = vmap(lambda r: (r.sum(), r.outer(r)), out_dims=(0, 2))(x)
    close(a, x.numpy().sum(1))
    outer = np.stack([np.outer(r, r) for r in x.numpy()])
    close(b, np.moveaxis(outer, 0, 2))
    d = vmap(lambda r: {"p": r, "q": [r.sum()]}, out_dims={"p": 1, "q": 0})(x)
    close(d["p"], x.numpy().T)
    close(d["q"][0], x.numpy().sum(1))
    c, n = vmap(lambda r: (r + 1, torch.ones(2)), out_dims=(0, None))(x)
    close(c, x.numpy() + 1)
    close(n, np.ones(2))
    single = vmap(lambda r: r, out_dims=(1,))(x)
    close(single, x.numpy().T)


def test_nested_vmap_is_an_outer_product():
    a, b = rand(3), rand(4)
    out = vmap(vmap(lambda x, y: x * y, in_dims=(None, 0)), in_dims=(0, None))(a, b)
    close(out, np.outer(a.numpy(), b.numpy()))


def test_vmap_of_grad_is_per_sample_gradients():
    x, w = rand(6, 3), rand(3)

    def loss(w, xi):
        return (xi @ w).sin()

    per_sample = vmap(grad(loss), in_dims=(None, 0))(w, x)
    expected = np.stack([np.cos(xi @ w.numpy()) * xi for xi in x.numpy()])
    close(per_sample, expected)
    assert plain(per_sample)


def test_vmap_of_jacrev_and_grad_of_vmap():
    x = rand(4, 3)
    jacs = vmap(jacrev(f_t))(x)
    close(jacs, np.stack([numeric_jacobian(f_np, r) for r in x.numpy()]))
    g = grad(lambda x: vmap(lambda r: (r**3).sum())(x).sum())(x)
    close(g, 3 * x.numpy() ** 2)


def test_vmap_of_hessian():
    x = rand(5, 2)
    h = vmap(hessian(lambda r: r[0] ** 2 * r[1]))(x)
    expected = np.stack([[[2 * r[1], 2 * r[0]], [2 * r[0], 0.0]] for r in x.numpy()])
    close(h, expected)


def test_vmap_empty_batch():
    out = vmap(lambda r: r.sum() + r)(torch.zeros(0, 3, dtype=D))
    assert out.shape == (0, 3)
    out = vmap(lambda r: r.sum(), in_dims=1)(torch.zeros(2, 0))
    assert out.shape == (0,)


def test_vmap_errors():
    x = rand(3, 4)
    with pytest.raises(ValueError, match="same size in the mapped dimension, got sizes \\[3, 4\\]"):
        vmap(lambda a, b: a + b)(x, rand(4, 4))
    with pytest.raises(ValueError, match="expected in_dim to satisfy -2 <= in_dim < 2"):
        vmap(torch.sum, in_dims=2)(x)
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure"):
        vmap(lambda a, b: a + b, in_dims=(0,))(x, x)
    with pytest.raises(ValueError, match="expected `in_dims` to be int or a"):
        vmap(lambda a, b: a + b, in_dims=[0, 0])(x, x)
    with pytest.raises(ValueError, match="in_dim must be either an integer dimension or None"):
        vmap(lambda a, b: a + b, in_dims=(0, 1.0))(x, x)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        vmap(lambda a, b: a + b)(x, 1.0)
    with pytest.raises(ValueError, match="at least one Tensor to vmap over"):
        vmap(lambda a: a, in_dims=None)(x)
    with pytest.raises(ValueError, match="got no inputs"):
        vmap(lambda: x)()
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'float'>"):
        vmap(lambda a: (a, 1.0))(x)
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        vmap(lambda a: a, out_dims=None)(x)
    with pytest.raises(ValueError, match="out_dims is not compatible with the structure"):
        vmap(lambda a: a, out_dims=(0, 1))(x)
    with pytest.raises(ValueError, match="`out_dims` must be an int, None or a python collection"):
        vmap(lambda a: a, out_dims="a")(x)
    with pytest.raises(IndexError, match="Dimension out of range"):
        vmap(lambda a: a, out_dims=2)(x)
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        vmap(lambda a: a, chunk_size=0)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(lambda a: a, randomness="sometimes")


def test_vmap_randomness():
    x = torch.zeros(4, 3, dtype=D)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda r: r + torch.rand(3, dtype=D))(x)
    same = vmap(lambda r: r + torch.rand(3, dtype=D), randomness="same")(x)
    for row in same.numpy()[1:]:
        close(row, same.numpy()[0])
    different = vmap(lambda r: r + torch.rand(3, dtype=D), randomness="different")(x)
    assert not np.allclose(different.numpy()[0], different.numpy()[1])


def test_vmap_chunk_size_gives_the_same_result():
    x = rand(7, 2)
    close(vmap(torch.exp, chunk_size=3)(x), np.exp(x.numpy()))


# ------------------------------------------------------------------------- functional_call


def linear():
    torch.manual_seed(0)
    return torch.nn.Linear(3, 2).double()


def test_functional_call_uses_given_tensors_and_restores():
    m = linear()
    weight, bias = m.weight, m.bias
    w, b, x = rand(2, 3), rand(2), rand(5, 3)
    out = functional_call(m, {"weight": w, "bias": b}, (x,))
    close(out, x.numpy() @ w.numpy().T + b.numpy())
    out = functional_call(m, {"weight": w}, x)  # a single non-tuple argument; bias: own
    close(out.detach(), x.numpy() @ w.numpy().T + bias.detach().numpy())
    assert m.weight is weight and m.bias is bias
    assert isinstance(m.weight, torch.nn.Parameter)


def test_functional_call_restores_after_an_exception():
    class Boom(torch.nn.Linear):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom(3, 2)
    weight = m.weight
    with pytest.raises(ValueError, match="boom"):
        functional_call(m, {"weight": torch.zeros(2, 3), "extra": torch.ones(1)}, (rand(3),))
    assert m.weight is weight and m._parameters["weight"] is weight
    assert not hasattr(m, "extra")


def test_functional_call_kwargs_buffers_and_nested_names():
    net = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3)).double()
    net.eval()
    mean, var = rand(3), rand(3).abs() + 0.5
    x = rand(4, 3)
    out = functional_call(net, {"1.running_mean": mean, "1.running_var": var}, (x,))
    lin = x.numpy() @ net[0].weight.detach().numpy().T + net[0].bias.detach().numpy()
    bn = net[1]
    expected = (lin - mean.numpy()) / np.sqrt(var.numpy() + bn.eps)
    expected = expected * bn.weight.detach().numpy() + bn.bias.detach().numpy()
    close(out.detach(), expected)
    close(net[1].running_mean, np.zeros(3))

    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(2, dtype=D))

        def forward(self, x, scale=1.0):
            return self.w * x * scale

    w = rand(2)
    close(functional_call(Scaled(), {"w": w}, (rand(2) * 0 + 1,), {"scale": 3.0}), 3 * w.numpy())


def test_functional_call_strict_dicts_and_ties():
    m = linear()
    x = rand(3)
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'bias'"):
        functional_call(m, {"weight": rand(2, 3)}, (x,), strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'foo'"):
        functional_call(
            m, {"weight": rand(2, 3), "bias": rand(2), "foo": rand(1)}, (x,), strict=True
        )
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(m, ({"weight": rand(2, 3)}, {"weight": rand(2, 3)}), (x,))
    with pytest.raises(ValueError, match="to be a dict, or a list/tuple of dicts"):
        functional_call(m, 3, (x,))
    w, b = rand(2, 3), rand(2)
    close(functional_call(m, ({"weight": w}, {"bias": b}), (x,)), w.numpy() @ x.numpy() + b.numpy())

    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(2, 2, bias=False)
            self.b = torch.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.a(x) + self.b(x)

    t = Tied().double()
    v = rand(2)
    eye = torch.eye(2, dtype=D)
    close(functional_call(t, {"a.weight": eye}, (v,)), 2 * v.numpy())
    own = t.b.weight.detach().numpy()
    close(
        functional_call(t, {"a.weight": eye}, (v,), tie_weights=False).detach(),
        v.numpy() + own @ v.numpy(),
    )
    with pytest.raises(ValueError, match="which are tied"):
        functional_call(t, {"a.weight": eye, "b.weight": eye * 2}, (v,))


def test_grad_through_functional_call_is_least_squares_gradient():
    m = linear()
    x, y = rand(6, 3), rand(6, 2)
    params = {k: v.detach() for k, v in m.named_parameters()}

    def loss(p):
        return ((functional_call(m, p, (x,)) - y) ** 2).sum()

    g = grad(loss)(params)
    w, b = params["weight"].numpy(), params["bias"].numpy()
    r = x.numpy() @ w.T + b - y.numpy()
    close(g["weight"], 2 * r.T @ x.numpy())
    close(g["bias"], 2 * r.sum(0))
    assert plain(g["weight"]) and m.weight.grad is None


def test_stack_module_state_and_vmap_ensemble():
    torch.manual_seed(0)
    models = [torch.nn.Linear(3, 2).double() for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert params["weight"].shape == (4, 2, 3) and params["weight"].is_leaf
    assert params["weight"].requires_grad and buffers == {}
    x = rand(5, 3)
    out = vmap(lambda p, b: functional_call(models[0], (p, b), (x,)))(params, buffers)
    expected = np.stack(
        [x.numpy() @ m.weight.detach().numpy().T + m.bias.detach().numpy() for m in models]
    )
    close(out.detach(), expected)
    out.sum().backward()
    close(params["bias"].grad, np.full((4, 2), 5.0))
    with pytest.raises(RuntimeError, match="at least one model"):
        stack_module_state([])
    with pytest.raises(RuntimeError, match="same class"):
        stack_module_state([torch.nn.Linear(3, 2), torch.nn.Conv1d(3, 2, 1)])
