"""The engine and the tensor-level API: backward, hooks, retain_graph, accumulation, grad
mode, in-place safety, memory, errors.  Oracles: closed-form derivatives computed in NumPy."""

import gc
import sys
import warnings
import weakref

import numpy as np
import pytest

import torch
from torch.autograd import Function


def leaf(*shape, seed=0):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).requires_grad_()


# ---------------------------------------------------------------- basics
def test_backward_fills_grad_of_leaves():
    x = leaf(3, 4)
    w = leaf(4, 2, seed=1)
    loss = (x @ w).tanh().sum()
    loss.backward()
    xn, wn = x.detach().numpy(), w.detach().numpy()
    d = 1 - np.tanh(xn @ wn) ** 2
    np.testing.assert_allclose(x.grad.numpy(), d @ wn.T, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), xn.T @ d, rtol=1e-12)


def test_graph_structure():
    x = leaf(2)
    y = x * 2
    z = y.exp().sum()
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert z.grad_fn.name() == "SumBackward0"
    ((exp_fn, nr),) = z.grad_fn.next_functions
    assert exp_fn.name() == "ExpBackward0" and nr == 0
    ((mul_fn, _),) = exp_fn.next_functions
    assert mul_fn.name() == "MulBackward0"
    acc, _ = mul_fn.next_functions[0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x
    assert mul_fn.next_functions[1] == (None, 0)  # the number 2


def test_broadcast_gradients_are_summed_to_input_shape():
    a = leaf(3, 1)
    b = leaf(4, seed=1)
    (a * b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((3, 1), b.detach().numpy().sum()))
    np.testing.assert_allclose(b.grad.numpy(), np.full(4, a.detach().numpy().sum()))


def test_dtype_change_sends_gradient_back_in_input_dtype():
    x = torch.ones(3, dtype=torch.float32, requires_grad=True)
    (x.double() * 3).sum().backward()
    assert x.grad.dtype == torch.float32
    np.testing.assert_allclose(x.grad.numpy(), [3, 3, 3])


def test_mixed_dtype_binary_op():
    a = torch.ones(2, dtype=torch.float32, requires_grad=True)
    b = torch.full((2,), 2.0, dtype=torch.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == torch.float32 and b.grad.dtype == torch.float64
    np.testing.assert_allclose(a.grad.numpy(), [2, 2])


def test_accumulates_across_backward_calls():
    x = leaf(3)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 5.0))


def test_shared_gradient_is_not_aliased_between_leaves():
    a, b = leaf(2), leaf(2, seed=1)
    (a + b).sum().backward()
    a.grad.add_(1)  # must not change b.grad
    np.testing.assert_allclose(b.grad.numpy(), [1, 1])


def test_implicit_gradient_only_for_scalars():
    y = leaf(3) * 2
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        y.backward()
    y.backward(torch.ones(3, dtype=torch.float64))


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.ones(2).sum().backward()


def test_gradient_shape_mismatch_raises():
    y = leaf(3) * 2
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(torch.ones(4, dtype=torch.float64))


# ---------------------------------------------------------------- retain_graph
def test_second_backward_raises_with_retain_graph_hint():
    x = leaf(3)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_retain_graph_allows_second_backward():
    x = leaf(3)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * x.detach().numpy())


def test_graph_without_saved_tensors_can_run_twice():
    x = leaf(3)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2, 2])


# ---------------------------------------------------------------- hooks
def test_seed_hook_example(capsys):
    # ../shared/seeds/003: hooks in autograd, with today's constructors
    a, b, c = [torch.randn(5, 5, requires_grad=True) for i in range(3)]

    def print_norm(grad):
        print(grad.norm(2))

    y = b * c + a
    y.register_hook(print_norm)

    z = y * y - b
    z.backward(torch.ones(5, 5))
    printed = capsys.readouterr().out
    expected = np.linalg.norm(2 * (b * c + a).detach().numpy())
    assert printed.startswith("tensor(")
    assert abs(float(printed[7:].split(")")[0]) - expected) < 1e-3 * expected


def test_hook_can_replace_gradient_and_be_removed():
    x = leaf(3)
    y = x * 2
    handle = y.register_hook(lambda g: g * 10)
    y.sum().backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 20.0))
    handle.remove()
    x.grad = None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))


def test_leaf_hook_sees_summed_gradient_once():
    x = leaf(2)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()))
    (x * 2 + x * 3).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0].numpy(), [5, 5])


def test_retain_grad_keeps_non_leaf_gradient():
    x = leaf(3)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), 2 * y.detach().numpy())
    assert y.retains_grad


def test_grad_fn_post_hook_sees_input_and_output_grads():
    x = leaf(2)
    y = x * 3
    calls = []
    y.grad_fn.register_hook(lambda gin, gout: calls.append((gin[0].clone(), gout[0].clone())))
    y.sum().backward()
    gin, gout = calls[0]
    np.testing.assert_allclose(gin.numpy(), [3, 3])
    np.testing.assert_allclose(gout.numpy(), [1, 1])


# ---------------------------------------------------------------- autograd.grad
def test_grad_returns_without_touching_dot_grad():
    x = leaf(3)
    (g,) = torch.autograd.grad((x**2).sum(), x)
    np.testing.assert_allclose(g.numpy(), 2 * x.detach().numpy())
    assert x.grad is None


def test_grad_create_graph_gives_second_derivative():
    x = leaf(3)
    y = (x**3).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy())


def test_grad_allow_unused():
    x, unused = leaf(2), leaf(2, seed=1)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        torch.autograd.grad((x * 2).sum(), [x, unused])
    gx, gu = torch.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gu is None
    np.testing.assert_allclose(gx.numpy(), [2, 2])


def test_grad_wrt_intermediate():
    x = leaf(3)
    y = x * 2
    z = (y * y).sum()
    (gy,) = torch.autograd.grad(z, y)
    np.testing.assert_allclose(gy.numpy(), 2 * y.detach().numpy())


def test_backward_inputs_restricts_accumulation():
    a, b = leaf(2), leaf(2, seed=1)
    (a * b).sum().backward(inputs=[a])
    assert b.grad is None
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy())


# ---------------------------------------------------------------- grad mode
def test_no_grad_context_and_decorator():
    x = leaf(2)
    with torch.no_grad():
        assert not (x * 2).requires_grad
        with torch.enable_grad():
            assert (x * 2).requires_grad

    @torch.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad
    assert torch.is_grad_enabled()


def test_set_grad_enabled_forms():
    x = leaf(2)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    torch.set_grad_enabled(False)
    try:
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    with torch.inference_mode():
        assert not (x * 2).requires_grad


def test_variable_is_a_tensor_and_volatile_warns():
    v = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    assert type(v) is torch.Tensor and v.requires_grad
    assert isinstance(v, torch.autograd.Variable)
    with pytest.warns(UserWarning, match="volatile"):
        w = torch.autograd.Variable(torch.ones(2), volatile=True)
    assert not w.requires_grad


def test_requires_grad_api():
    x = torch.ones(2)
    assert x.requires_grad_() is x and x.requires_grad
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert d.data_ptr() == y.data_ptr()
    y.detach_()
    assert y.is_leaf and not y.requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        torch.ones(2, dtype=torch.int64).requires_grad_()


def test_data_is_detached_and_numpy_refuses_grad():
    x = leaf(2)
    assert not x.data.requires_grad
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        x.numpy()
    np.testing.assert_array_equal(x.detach().numpy(), x.data.numpy())


def test_out_argument_with_grad_raises():
    x = leaf(2)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        torch.exp(x, out=torch.empty(2, dtype=torch.float64))


# ---------------------------------------------------------------- in-place
def test_seed_inplace_example():
    # ../shared/seeds/003: z.add_(y) dirties z; q needs z in its backward, r does not
    x = torch.ones(5, 5, requires_grad=True)
    y = torch.ones(5, 5, requires_grad=True) * 4

    z = x * y
    q = z * y
    r = z + y
    z.add_(y)
    z.backward(torch.ones(5, 5), retain_graph=True)
    r.backward(torch.ones(5, 5))
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as err:
        q.backward(torch.ones(5, 5))
    message = str(err.value)
    assert "is at version 1; expected version 0" in message
    assert "MulBackward0" in message and __file__ in message


def test_inplace_on_leaf_raises():
    x = leaf(2)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.narrow(0, 0, 1).mul_(2)
    with torch.no_grad():
        x.add_(1)  # what optimizers do


def test_inplace_on_non_leaf_differentiates():
    x = leaf(4)
    y = x * 2
    y.relu_()
    y.sum().backward()
    expected = np.where(x.detach().numpy() > 0, 2.0, 0.0)
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_inplace_op_that_needs_old_value():
    x = leaf(3)
    y = x * 1
    y.sin_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()))


def test_inplace_add_where_backward_does_not_need_value():
    x = leaf(3)
    y = x * x
    s = y + 1  # AddBackward saves nothing: y may change
    y.add_(1)
    s.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_inplace_on_view_rewrites_base_history():
    x = leaf(4)
    y = x * 1
    y.narrow(0, 1, 2).mul_(3)
    assert y.grad_fn.name() == "CopySlices"
    (y * y).sum().backward()
    xn = x.detach().numpy()
    scale = np.array([1, 3, 3, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * scale**2 * xn)


def test_copy_into_view_of_non_leaf():
    x, v = leaf(3), leaf(2, seed=1)
    y = x * 2
    y.narrow(0, 0, 2).copy_(v * 5)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0, 0, 2])
    np.testing.assert_allclose(v.grad.numpy(), [5, 5])


def test_version_counter_bumps_on_every_inplace_op():
    t = torch.zeros(3)
    v0 = t._version
    t.add_(1)
    t.mul_(2)
    t[0] = 5
    t.zero_()
    assert t._version == v0 + 4


# ---------------------------------------------------------------- engine scale and memory
def test_long_chain_backpropagates_without_recursion():
    x = torch.ones(2, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    limit = sys.getrecursionlimit()
    y.sum().backward()
    assert sys.getrecursionlimit() == limit
    np.testing.assert_allclose(x.grad.numpy(), [1, 1])
    del y
    gc.collect()


def test_unneeded_intermediate_is_freed_when_dropped():
    x = leaf(3)
    y = x * 2  # (x * 2).sum() does not save y
    ref = weakref.ref(y)
    z = y.sum()
    del y
    assert ref() is None
    z.backward()


def test_saved_output_does_not_keep_its_tensor_alive():
    x = leaf(3)
    y = x.exp()  # ExpBackward saves its output's values, not the tensor object
    ref = weakref.ref(y)
    z = y.sum()
    del y
    assert ref() is None
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()))


def test_saved_tensors_freed_after_backward():
    x = leaf(3)
    a = x * 2
    b = a * a  # saves a
    ref = weakref.ref(a)
    del a
    assert ref() is not None
    b.sum().backward()
    assert ref() is None


def test_graph_freed_with_its_output():
    x = leaf(3)
    y = (x * 2).exp()
    node = weakref.ref(y.grad_fn)
    del y
    assert node() is None


# ---------------------------------------------------------------- errors name the op
class _Broken(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        raise ValueError("broken backward")


def test_backward_error_names_forward_op_and_line():
    x = leaf(2)
    y = _Broken.apply(x)  # the line the note must name
    line = sys._getframe().f_lineno - 1
    with pytest.raises(ValueError, match="broken backward") as err:
        y.sum().backward()
    note = "\n".join(getattr(err.value, "__notes__", []))
    assert "_BrokenBackward" in note and f"{__file__}:{line}" in note


def test_detect_anomaly_reports_nan_and_forward_stack():
    x = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = x.sqrt() * 0  # d sqrt at 0 is inf; inf * 0 = nan
        with pytest.raises(RuntimeError, match="returned nan values") as err:
            y.sum().backward()
    assert "test_detect_anomaly_reports_nan_and_forward_stack" in str(err.value)
    assert not torch.autograd.is_anomaly_enabled()


# ---------------------------------------------------------------- custom Function
class Cube(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x**3 * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False)
        return g * 3 * x**2 * ctx.scale, None


def test_custom_function_forward_backward_and_double_backward():
    x = leaf(3)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 6 * x.detach().numpy() ** 2)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 12 * x.detach().numpy())
    assert torch.autograd.gradcheck(lambda t: Cube.apply(t, 2.0), (leaf(3),))


class SortedPair(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, g, g_idx):
        (idx,) = ctx.saved_tensors
        return torch.zeros_like(g).scatter(0, idx, g)


def test_mark_non_differentiable():
    x = leaf(4)
    values, idx = SortedPair.apply(x)
    assert values.requires_grad and not idx.requires_grad
    (values * torch.arange(4.0, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[idx.numpy()], [0, 1, 2, 3])


class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.add_(1)

    @staticmethod
    def backward(ctx, g):
        return g


def test_mark_dirty():
    x = leaf(2)
    y = x * 2
    z = AddOneInPlace.apply(y)
    assert z is y and y.grad_fn.name() == "AddOneInPlaceBackward"
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        AddOneInPlace.apply(leaf(2))


class TwoOutputs(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        assert g2 is None
        return g1 * 2


def test_set_materialize_grads_false_passes_none():
    x = leaf(2)
    a, _ = TwoOutputs.apply(x)
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])


class OnceSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_once_differentiable():
    x = leaf(2)
    go = torch.ones(2, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(OnceSquare.apply(x), x, go, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * x.detach().numpy())
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_legacy_function_instantiation_raises():
    with pytest.raises(RuntimeError, match="static"):
        Cube()


def test_gradcheck_detects_a_wrong_formula():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(Wrong.apply, (leaf(2),))
    assert not torch.autograd.gradcheck(Wrong.apply, (leaf(2),), raise_exception=False)


def test_gradcheck_warns_on_float32():
    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-2, rtol=1e-2)
    assert any("double precision" in str(w.message) for w in caught)


def test_deepcopy_of_leaf_keeps_grad_state():
    import copy

    x = leaf(2)
    (x * 2).sum().backward()
    y = copy.deepcopy(x)
    assert y.is_leaf and y.requires_grad and y.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(y.grad.numpy(), x.grad.numpy())
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: torch.flatten(x, 1),
        lambda x: torch.reshape(x, (6, 4)),
        lambda x: torch.transpose(x, 0, 1),
        lambda x: torch.permute(x, (2, 0, 1)),
        lambda x: torch.squeeze(x),
        lambda x: torch.unsqueeze(x, 0),
        lambda x: torch.narrow(x, 1, 0, 2),
        lambda x: torch.select(x, 0, 1),
        lambda x: torch.diagonal(x),
        lambda x: torch.clone(x),
    ],
)
def test_function_forms_of_tensor_methods_record(call):
    x = leaf(2, 3, 4)
    y = call(x)
    assert y.grad_fn is not None
    y.sum().backward()
    assert x.grad.shape == x.shape


def test_leaf_grad_never_aliases_a_tensor_the_user_holds():
    x = leaf(3)
    g = torch.ones(3, dtype=torch.float64)
    x.backward(g)  # the seed reaches the leaf unchanged
    g.add_(1)
    np.testing.assert_array_equal(x.grad.numpy(), [1, 1, 1])
    y = x * 1
    z = y.view(3)  # a view: the same storage as y
    h = torch.full((3,), 2.0, dtype=torch.float64)
    z.backward(h)  # h reaches the leaf through reshape views of itself
    h.add_(1)
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3, 3])


def test_data_setter_takes_the_new_tensor_dtype_and_all():
    w = torch.ones(2, requires_grad=True)
    new = torch.arange(3, dtype=torch.float64)
    w.data = new
    assert w.dtype == torch.float64 and w.shape == (3,) and w.requires_grad and w.is_leaf
    assert w.data_ptr() == new.data_ptr()  # shares the memory, as PyTorch's does
    (w * w).sum().backward()
    assert w.grad.tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(TypeError, match="Tensor"):
        w.data = [1.0]
