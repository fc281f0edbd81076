"""Calls the core's gates record themselves (Note [Recording in C++] in torch-core's
bind_grad.cpp) give the same graph as the recorder's Python path (keywords, anomaly mode):
same nodes, edges, view bases, call sites and gradients."""

import inspect

import numpy as np
import pytest

import torch
from torch.autograd import graph


def _line():
    return inspect.currentframe().f_back.f_lineno


def test_gates_of_plain_ops_and_views_record_in_the_core():
    gates = torch._C._grad_gates
    assert gates["Tensor.view"].record_kind == 2
    assert gates["Tensor.reshape"].record_kind == 3
    assert gates["tanh"].record_kind == 1
    assert gates["Tensor.add_"].record_kind == 0  # in-place: the Python recorder
    assert gates["tanh"].node_type is gates["tanh"].formula.formula


def test_view_node_edges_base_and_call_site():
    x = torch.randn(4, 6, requires_grad=True)
    line = _line() + 1
    y = x.view(24)
    assert y._base is x
    assert type(y.grad_fn).__name__ == "ViewBackward0"
    (fn, nr), = y.grad_fn.next_functions  # fmt: skip
    assert fn is graph.accumulator(x) and nr == 0
    assert y.grad_fn.where().endswith(f"{__file__}:{line})")
    z = y.view(2, 12)
    assert z._base is x  # the root, not the intermediate view
    assert z.grad_fn.next_functions[0][0] is y.grad_fn


def test_reshape_is_a_view_only_when_it_shares_memory():
    x = torch.randn(4, 6, requires_grad=True)
    assert x.reshape(24)._base is x
    t = x.t()
    copy = t.reshape(24)  # t is not contiguous: reshape copies
    assert copy._base is None
    assert type(copy.grad_fn).__name__ == "UnsafeViewBackward0"  # (PyTorch's name)
    copy.backward(torch.arange(24.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(24.0).reshape(6, 4).T)


def test_keywords_and_anomaly_mode_give_the_same_graph():
    x = torch.randn(3, 5, requires_grad=True)
    w = torch.randn(5, 2, requires_grad=True)

    def run(keywords):
        x.grad = w.grad = None
        y = torch.matmul(x, w).transpose(0, 1)
        y = torch.softmax(y, dim=-1) if keywords else torch.softmax(y, -1)
        y.sum(dim=0).pow(2).sum().backward()
        names = []
        node = y.grad_fn
        while node is not None and hasattr(node, "next_functions"):
            names.append(type(node).__name__)
            node = node.next_functions[0][0] if node.next_functions else None
        return names, x.grad.clone(), w.grad.clone()

    plain = run(False)
    with_kw = run(True)
    with torch.autograd.detect_anomaly():
        anomalous = run(False)
    for other in (with_kw, anomalous):
        assert other[0] == plain[0]
        torch.testing.assert_close(other[1], plain[1])
        torch.testing.assert_close(other[2], plain[2])


def test_gradients_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4))
    x = torch.tensor(a, requires_grad=True)
    y = (x.reshape(12) * 3.0).view(3, 4).t().tanh()  # every step a gate records itself
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * (1 - np.tanh(3.0 * a) ** 2), rtol=1e-12)


def test_op_returning_its_input_records_nothing():
    x = torch.randn(3, requires_grad=True)
    assert x.contiguous() is x
    assert x.grad_fn is None


def test_error_in_the_op_propagates_unchanged():
    x = torch.randn(4, 6, requires_grad=True)
    with pytest.raises(RuntimeError, match="shape"):
        x.view(5, 5)
    with pytest.raises(RuntimeError):
        torch.tanh(x) + torch.randn(5)
    y = x.view(24)  # the gate still works after an error
    assert y.grad_fn is not None


def test_in_place_on_a_view_recorded_in_the_core():
    x = torch.randn(4, 6, requires_grad=True)
    b = x * 1.0
    v = b.view(24)
    v.mul_(2.0)  # rewrites b's history (CopySlices); v is re-derived from it
    b.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((4, 6), 2.0))
