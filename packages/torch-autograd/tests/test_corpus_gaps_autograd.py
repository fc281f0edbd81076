"""The autograd side of gaps a corpus of real PyTorch programs found: module-level in-place
functions (torch.sin_, ...) and in-place view ops (unsqueeze_, t_, ...) record like the
Tensor methods, ``.grad`` assignment is checked, and a repr's ``grad_fn=`` suffix wraps as in
PyTorch. Gradients are checked against closed-form derivatives computed with NumPy.
"""

import numpy as np
import pytest

import torch

A = np.array([-1.5, -0.25, 0.5, 2.0])


def _leaf(values=A, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype, requires_grad=True)


# ---------------------------------------------------------------- B5: torch.f_ and autograd
@pytest.mark.parametrize("name", ["sin_", "exp_", "relu_", "sigmoid_", "tanh_", "zero_", "abs_"])
def test_torch_inplace_on_leaf_requiring_grad_raises(name):
    a = _leaf()
    with pytest.raises(RuntimeError):
        getattr(torch, name)(a)


def test_torch_inplace_fill_clamp_on_leaf_raise():
    with pytest.raises(RuntimeError):
        torch.fill_(_leaf(), 1.0)
    with pytest.raises(RuntimeError):
        torch.clamp_(_leaf(), 0.0, 1.0)


def test_torch_sin_inplace_records():
    a = _leaf()
    c = a * 1
    assert torch.sin_(c) is c
    assert c.grad_fn is not None and not c.is_leaf
    c.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cos(A))


def test_torch_inplace_chain_gradient():
    a = _leaf()
    c = a * 1
    torch.relu_(c)
    c = c * 1  # sigmoid_ and tanh_ save their result: each overwrites a fresh tensor
    torch.sigmoid_(c)
    c = c * 1
    torch.tanh_(c)
    (c * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
    r = np.maximum(A, 0)
    s = 1 / (1 + np.exp(-r))
    expected = np.array([1, 2, 3, 4]) * (1 - np.tanh(s) ** 2) * s * (1 - s) * (A > 0)
    np.testing.assert_allclose(a.grad.numpy(), expected)


def test_torch_clamp_inplace_gradient():
    a = _leaf()
    c = a * 2
    torch.clamp_(c, -1.0, 1.0)
    c.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2.0 * (np.abs(2 * A) <= 1))  # bounds pass


def test_torch_inplace_on_leaf_under_no_grad():
    a = _leaf()
    with torch.no_grad():
        torch.exp_(a)
    np.testing.assert_allclose(a.detach().numpy(), np.exp(A))
    assert a.is_leaf and a.requires_grad and a.grad_fn is None


# ---------------------------------------------------------------- B6: in-place view ops
@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.unsqueeze_(0),
        lambda t: t.squeeze_(),
        lambda t: t.t_(),
        lambda t: t.transpose_(0, 1),
        lambda t: t.swapdims_(0, 1),
        lambda t: t.swapaxes_(0, 1),
        lambda t: t.as_strided_((2,), (1,)),
    ],
)
def test_inplace_view_on_leaf_requiring_grad_raises(op):
    a = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError):
        op(a)
    assert a.shape == (2, 3)


def test_inplace_view_on_leaf_under_no_grad():
    a = torch.zeros(2, 3, requires_grad=True)
    with torch.no_grad():
        a.unsqueeze_(0)
    assert a.shape == (1, 2, 3) and a.requires_grad and a.grad_fn is None


def test_unsqueeze_inplace_records():
    a = _leaf(np.array([0.0, 1.0, 2.0]))
    b = a * 2
    assert b.unsqueeze_(0) is b
    assert b.shape == (1, 3) and b.grad_fn is not None
    w = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)
    (b * w).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0, 6.0])


def test_transpose_inplace_gradient():
    a = _leaf(np.arange(6.0))
    b = (a * 1).reshape(2, 3)
    b.t_()
    w = np.arange(1.0, 7.0).reshape(3, 2)
    (b * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), w.T.reshape(-1))


def test_inplace_view_chain_gradient():
    a = _leaf(np.arange(6.0))
    b = (a * 1).reshape(2, 3)
    b.t_()
    b.transpose_(0, 1)
    b.swapdims_(0, 1)
    b.swapaxes_(0, 1)
    b.squeeze_()
    b.unsqueeze_(1)
    assert b.shape == (2, 1, 3)
    b.squeeze_(1)
    b.as_strided_((3,), (2,))  # storage elements 0, 2, 4
    (b * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [1.0, 0.0, 2.0, 0.0, 3.0, 0.0])


def test_inplace_view_bumps_version_of_saved_tensor():
    # c * c saved c: changing c's shape afterwards makes that backward refuse, as in PyTorch
    a = _leaf()
    c = a * 1
    d = c * c
    c.unsqueeze_(0)
    with pytest.raises(RuntimeError):
        d.sum().backward()


# ---------------------------------------------------------------- C5: assigning .grad
def test_grad_assign_non_tensor_raises():
    a = torch.randn((), requires_grad=True)
    with pytest.raises(TypeError):
        a.grad = 0.0
    assert a.grad is None
    with pytest.raises(TypeError):
        a.grad = np.zeros(())


def test_grad_assign_wrong_shape_or_dtype_raises():
    a = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        a.grad = torch.zeros(2)
    with pytest.raises(RuntimeError):
        a.grad = torch.zeros(3, dtype=torch.float64)
    assert a.grad is None


def test_assigned_grad_accumulates():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    a.grad = torch.ones(2)
    (a * a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1 + 2 * np.array([1.0, 2.0]))
    b = a * 3
    b.retain_grad()
    b.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 1.0])
    b.grad = None  # non-leaf: None is fine
    a.grad = torch.zeros(2, requires_grad=True)  # a grad may itself require grad
    assert a.grad.requires_grad


# ---------------------------------------------------------------- D3: repr of grad_fn etc.
REPRS = [
    (
        lambda: torch.linspace(0, 1, 12, requires_grad=True).reshape(2, 6) * 1.2345,
        "tensor([[0.0000, 0.1122, 0.2245, 0.3367, 0.4489, 0.5611],\n"
        "        [0.6734, 0.7856, 0.8978, 1.0100, 1.1223, 1.2345]],\n"
        "       grad_fn=<MulBackward0>)",
    ),
    (
        lambda: (
            torch.tensor([1.0, 1.25, 1.5, 1.75, 2.0], dtype=torch.float64, requires_grad=True) + 1
        ),
        "tensor([2.0000, 2.2500, 2.5000, 2.7500, 3.0000], dtype=torch.float64,\n"
        "       grad_fn=<AddBackward0>)",
    ),
    (
        lambda: torch.tensor([1.0, 2.0], requires_grad=True) * 2,
        "tensor([2., 4.], grad_fn=<MulBackward0>)",
    ),
    (
        lambda: torch.tensor([-1.0, -0.6, -0.2, 0.2, 0.6, 1.0], requires_grad=True),
        "tensor([-1.0000, -0.6000, -0.2000,  0.2000,  0.6000,  1.0000],\n"
        "       requires_grad=True)",
    ),
    (
        lambda: torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0], requires_grad=True),
        "tensor([-1.0000, -0.5000,  0.0000,  0.5000,  1.0000], requires_grad=True)",
    ),
    (
        lambda: torch.tensor(
            [[1.0, 1.125, 1.25, 1.375, 1.5], [1.625, 1.75, 1.875, 2.0, 2.125]],
            dtype=torch.float64,
            requires_grad=True,
        ),
        "tensor([[1.0000, 1.1250, 1.2500, 1.3750, 1.5000],\n"
        "        [1.6250, 1.7500, 1.8750, 2.0000, 2.1250]], dtype=torch.float64,\n"
        "       requires_grad=True)",
    ),
]


@pytest.mark.parametrize("make, expected", REPRS)
def test_repr_wraps_autograd_suffixes(make, expected):
    assert repr(make()) == expected


# ------------------------------------------- max/min/amax/amin: node names and tie gradients
# (nn-zero-to-hero's makemore part 4 prints ``(a - b).abs().max()``: PyTorch shows
# grad_fn=<MaxBackward1>). PyTorch 2.13 names the nodes so; the gradients are checked against
# NumPy: a full or amax/amin reduction splits it evenly among the tied extremes, a reduction
# along a dim with indices gives it to the index (the first of the ties).
M = np.array([[1.0, 3.0, 3.0], [0.0, -2.0, -2.0]])


def _even_split(values, extreme, axis=None):
    mask = (values == extreme(values, axis=axis, keepdims=True)).astype(float)
    return mask / mask.sum(axis=axis, keepdims=True)


def _to_index(values, arg, axis):
    g = np.zeros_like(values)
    np.put_along_axis(g, np.expand_dims(arg(values, axis=axis), axis), 1.0, axis)
    return g


@pytest.mark.parametrize(
    "op, name, expected",
    [
        (lambda t: t.max(), "MaxBackward1", _even_split(M, np.max)),
        (lambda t: torch.max(t), "MaxBackward1", _even_split(M, np.max)),
        (lambda t: t.min(), "MinBackward1", _even_split(M, np.min)),
        (lambda t: torch.amax(t), "AmaxBackward0", _even_split(M, np.max)),
        (lambda t: t.amax((0, 1)), "AmaxBackward0", _even_split(M, np.max)),
        (lambda t: torch.amin(t), "AminBackward0", _even_split(M, np.min)),
        (lambda t: t.amin(1), "AminBackward0", _even_split(M, np.min, 1)),
        (lambda t: t.amax(0, keepdim=True), "AmaxBackward0", _even_split(M, np.max, 0)),
        (lambda t: t.max(1).values, "MaxBackward0", _to_index(M, np.argmax, 1)),
        (lambda t: t.min(0)[0], "MinBackward0", _to_index(M, np.argmin, 0)),
        (lambda t: torch.min(t, 1, keepdim=True)[0], "MinBackward0", _to_index(M, np.argmin, 1)),
    ],
)
def test_max_min_nodes_named_like_pytorch(op, name, expected):
    a = _leaf(M)
    r = op(a)
    assert r.grad_fn.name() == name and type(r.grad_fn).__name__ == name
    assert f"grad_fn=<{name}>" in repr(r)
    r.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), expected)


def test_max_min_of_a_0d_tensor_named_like_pytorch():
    s = torch.tensor(2.0, requires_grad=True)
    assert s.max().grad_fn.name() == "MaxBackward1"
    assert s.amax().grad_fn.name() == "AmaxBackward0"
    assert s.amin(keepdim=True).grad_fn.name() == "AminBackward0"
    assert s.min(0)[0].grad_fn.name() == "MinBackward0"
    s.max().backward()
    assert s.grad.item() == 1.0


def test_full_max_double_backward_keeps_the_name_and_split():
    a = _leaf(M)
    (g,) = torch.autograd.grad(a.max() * a.max(), a, create_graph=True)
    # d/da max^2 = 2 max * split; max = 3, split 0.5 on the two 3s
    np.testing.assert_allclose(g.detach().numpy(), 6.0 * _even_split(M, np.max))
    assert g.requires_grad


# ------------------------------------------------------- torch.stack: one StackBackward0 node
# (an LSTM's (h_n, c_n) print grad_fn=<StackBackward0> in PyTorch 2.13: the sequence-models
# tutorial). The node links straight to the stacked tensors, as PyTorch's does; each gets
# its slice of the gradient (NumPy: the weights' slice along dim).
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack_node_named_and_linked_like_pytorch(dim):
    a = _leaf(M)
    b = torch.tensor(M * 3)  # needs no gradient
    c = _leaf(M[::-1].copy())
    d = c * 2
    r = torch.stack([a, b, d], dim)
    assert r.grad_fn.name() == "StackBackward0" and "grad_fn=<StackBackward0>" in repr(r)
    nodes = [n for n, _ in r.grad_fn.next_functions]
    assert type(nodes[0]).__name__ == "AccumulateGrad" and nodes[0].variable is a
    assert nodes[1] is None and nodes[2] is d.grad_fn
    w = np.arange(r.numel(), dtype=float).reshape(tuple(r.shape))
    (r * torch.tensor(w)).sum().backward()
    axis = dim % 3
    np.testing.assert_allclose(a.grad.numpy(), np.take(w, 0, axis=axis))
    np.testing.assert_allclose(c.grad.numpy(), 2 * np.take(w, 2, axis=axis))


def test_stack_promotes_and_gives_each_input_its_dtype():
    a = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    c = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    r = torch.stack((a, c))
    assert r.dtype == torch.float64 and r.grad_fn.name() == "StackBackward0"
    (r * torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)).sum().backward()
    assert a.grad.dtype == torch.float32 and c.grad.dtype == torch.float64
    np.testing.assert_allclose(a.grad.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(c.grad.numpy(), [3.0, 4.0])


def test_stack_double_backward_and_no_grad():
    x = _leaf([1.0, 2.0, 3.0])
    y = torch.stack([x * x, x]).pow(2).sum()  # sum x^4 + x^2
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(g.detach().numpy(), 4 * v**3 + 2 * v)
    np.testing.assert_allclose(h.numpy(), 12 * v**2 + 2)
    with torch.no_grad():
        assert torch.stack([x, x]).grad_fn is None
    assert not torch.stack([x.detach()] * 2).requires_grad
    # cat of unsqueezed tensors stays a CatBackward0 (as in PyTorch)
    assert torch.cat([x.unsqueeze(0), x.unsqueeze(0)]).grad_fn.name() == "CatBackward0"
    assert torch.hstack([x, x]).grad_fn.name() == "CatBackward0"
