"""Saved-tensor introspection (``grad_fn._saved_<name>``, ``_raw_saved_<name>``) and hooks
(``torch.autograd.graph.saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``). Oracles: the tensors themselves, NumPy, and the same
computation run without hooks."""

import numpy as np
import pytest

import torch
from torch.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks


def _leaf(*shape, seed=0, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    return torch.tensor(a, requires_grad=True)


def test_mul_saves_its_operands_as_they_are():
    a, b = _leaf(5), _leaf(5, seed=1)
    y = a * b
    assert y.grad_fn._saved_self is a
    assert y.grad_fn._saved_other is b
    assert (a * 2.0).grad_fn._saved_other == 2.0


@pytest.mark.parametrize(
    "op, name, oracle",
    [
        (torch.exp, "result", np.exp),
        (torch.tanh, "result", np.tanh),
        (torch.sigmoid, "result", lambda x: 1 / (1 + np.exp(-x))),
        (torch.relu, "result", lambda x: np.maximum(x, 0)),
        (torch.sin, "self", lambda x: x),
        (torch.cos, "self", lambda x: x),
        (torch.log, "self", lambda x: x),
    ],
)
def test_unary_saved_values(op, name, oracle):
    x = _leaf(6, positive=op is torch.log)
    y = op(x)
    saved = getattr(y.grad_fn, "_saved_" + name)
    np.testing.assert_allclose(saved.detach().numpy(), oracle(x.detach().numpy()), rtol=1e-12)
    if name == "result":  # a new tensor attached to the node, not the output itself
        assert saved is not y
        assert saved.grad_fn is y.grad_fn
    else:
        assert saved is x


def test_binary_and_matrix_saved_names():
    a, b = _leaf(3, 4), _leaf(3, 4, seed=1, positive=True)
    d = (a / b).grad_fn
    assert d._saved_self is a and d._saved_other is b
    p = a.pow(3).grad_fn
    assert p._saved_self is a and p._saved_exponent == 3
    add = torch.add(a, b, alpha=2.5).grad_fn
    assert add._saved_alpha == 2.5
    assert torch.sub(a, b).grad_fn._saved_alpha == 1
    m, n = _leaf(2, 3), _leaf(3, 4, seed=2)
    mm = m.mm(n).grad_fn
    assert mm._saved_self is m and mm._saved_mat2 is n
    mat = (m @ n).grad_fn
    assert mat._saved_self is m and mat._saved_other is n
    names = dir(mm)
    assert "_saved_self" in names and "_raw_saved_mat2" in names
    with pytest.raises(AttributeError):
        mm._saved_nothing  # noqa: B018


def test_saved_tensors_are_freed_after_backward():
    x = _leaf(4)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_result  # noqa: B018


def _grads(fn, *inputs):
    out = fn(*inputs)
    return torch.autograd.grad(out.sum(), inputs)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a * b,  # recorded by the core's gate (no keywords)
        lambda a, b: torch.div(a, b, rounding_mode=None),  # keywords: the Python recorder
        lambda a, b: (a / b).tanh() * a.sigmoid(),
        lambda a, b: a.sin() * b.cos() + a.exp(),
        lambda a, b: a.pow(2) + torch.pow(b, a),
        lambda a, b: (a @ b.t()).relu(),
        lambda a, b: torch.nn.functional.softmax(a * b, dim=1),
    ],
)
def test_hooks_see_every_saved_tensor_and_give_the_same_gradients(fn):
    a, b = _leaf(3, 4), _leaf(3, 4, seed=1, positive=True)
    expected = _grads(fn, a, b)
    packed, unpacked = [], []

    def pack(t):
        packed.append(torch.is_grad_enabled())
        return ("box", t * 4)  # any object: backward must go through unpack

    def unpack(box):
        unpacked.append(1)
        return box[1] / 4

    with saved_tensors_hooks(pack, unpack):
        out = fn(a, b)
    assert packed and not any(packed)  # called once per saved tensor, under no_grad
    got = torch.autograd.grad(out.sum(), (a, b))
    assert len(unpacked) == len(packed)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)


def test_hooks_count_and_values_of_mul():
    a, b = _leaf(5), _leaf(5, seed=1)
    seen = []
    with saved_tensors_hooks(lambda t: seen.append(t) or len(seen) - 1, lambda i: seen[i]):
        y = a * b
    assert len(seen) == 2 and any(t is a for t in seen) and any(t is b for t in seen)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy())


def test_unpack_runs_on_each_access_and_innermost_hooks_win():
    x = _leaf(4)
    calls = []
    outer = saved_tensors_hooks(lambda t: t, lambda t: calls.append("outer") or t)
    inner = saved_tensors_hooks(lambda t: t, lambda t: calls.append("inner") or t)
    with outer:
        with inner:
            y = x.pow(2)
        z = x.sin()
    y.grad_fn._saved_self  # noqa: B018
    y.grad_fn._saved_self  # noqa: B018
    z.grad_fn._saved_self  # noqa: B018
    assert calls == ["inner", "inner", "outer"]


def test_hooks_on_a_custom_function():
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x * x

    x = _leaf(4)
    n = []
    with saved_tensors_hooks(lambda t: n.append(1) or t.clone(), lambda t: t):
        y = Cube.apply(x)
    y.sum().backward()
    assert n == [1]
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2, rtol=1e-12)


def test_double_backward_through_copies_made_by_hooks():
    x = _leaf(5)
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t.clone()):
        y = (x * x * x).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), 3 * x.detach().numpy() ** 2, rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy(), rtol=1e-12)


def test_save_on_cpu_gives_the_same_gradients_and_copies():
    a, b = _leaf(3, 4), _leaf(4, 2, seed=1)
    expected = _grads(lambda a, b: (a @ b).tanh(), a, b)
    with save_on_cpu(pin_memory=False):
        out = (a @ b).tanh()
    with torch.no_grad():
        a.mul_(2)  # the saved copies are not changed (and no version error)
    got = torch.autograd.grad(out.sum(), (a, b))
    with torch.no_grad():
        a.div_(2)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12)
    with save_on_cpu(pin_memory=True):  # no CUDA here: ignored
        (a * b.sum()).sum().backward()


def test_disable_saved_tensors_hooks():
    x = _leaf(3)
    with disable_saved_tensors_hooks("no hooks here"):
        x.exp()  # saving without hooks is fine
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="inside"):
            with disable_saved_tensors_hooks("inside"):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # usable again
        x.exp()


def test_unpack_must_return_a_tensor():
    x = _leaf(3)
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.exp()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.grad_fn._saved_result  # noqa: B018


def test_raw_saved_register_hooks():
    x = _leaf(4)
    y = x.sin()
    raw = y.grad_fn._raw_saved_self
    log = []
    raw.register_hooks(lambda t: log.append("pack") or t * 2, lambda t: log.append("u") or t / 2)
    assert log == ["pack"]
    np.testing.assert_allclose(y.grad_fn._saved_self.detach().numpy(), x.detach().numpy())
    y.sum().backward()
    assert log == ["pack", "u", "u"]
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()), rtol=1e-12)
    z = x.cos()
    raw = z.grad_fn._raw_saved_self
    with pytest.raises(TypeError):
        raw.register_hooks(1, 2)
    raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError, match="already been set"):
        raw.register_hooks(lambda t: t, lambda t: t)


def test_no_hooks_left_active():
    from torch.autograd import graph

    with pytest.raises(ValueError):
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            raise ValueError
    assert graph._saved_hooks == []
