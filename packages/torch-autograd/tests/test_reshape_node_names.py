"""grad_fn names that tutorials print (``grad_fn=<ViewBackward0>``) as PyTorch 2.13 names
them, and flatten of a non-contiguous tensor as the copy it is (no ``_base``: changing it
in place leaves the input's history alone). The corpus of pytorch/tutorials programs
showed ``ReshapeAliasBackward0`` / ``BatchNormBackward0`` where PyTorch prints
``ViewBackward0`` / ``NativeBatchNormBackward0``."""

import numpy as np
import pytest

import torch


def _name(t):
    return type(t.grad_fn).__name__


@pytest.fixture
def x():
    return torch.randn(3, 4, requires_grad=True)


def test_reshape_that_views_is_view_backward(x):
    assert _name(x.reshape(12)) == "ViewBackward0"
    assert _name(x.reshape(2, 6).reshape_as(x)) == "ViewBackward0"
    assert _name(x.view(12)) == "ViewBackward0"
    assert _name(x.flatten()) == "ViewBackward0"
    assert x.reshape(12)._base is x


def test_reshape_that_copies_is_unsafe_view_backward(x):
    y = x.t().reshape(12)
    assert _name(y) == "UnsafeViewBackward0" and y._base is None
    y.backward(torch.arange(12.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(12.0).reshape(4, 3).T)


def test_flatten_of_a_non_contiguous_tensor_is_a_copy(x):
    y = x.t().flatten()
    assert _name(y) == "UnsafeViewBackward0" and y._base is None


def test_in_place_on_a_flattened_copy_leaves_the_input_alone(x):
    w = x
    h = w * 1
    y = h.t().flatten()
    y.mul_(2)
    assert type(h.grad_fn).__name__ == "MulBackward0"  # h's history is unchanged
    (h.sum() + (y * y).sum()).backward()
    # d/dw [sum(w) + sum((2 w)^2)] = 1 + 8 w
    np.testing.assert_allclose(w.grad.numpy(), 1 + 8 * w.detach().numpy(), rtol=1e-6)


def test_in_place_on_a_flattened_view_still_reaches_the_input(x):
    h = x * 1
    f = h.flatten()
    assert f._base is h
    f.mul_(3)
    assert type(h.grad_fn).__name__ == "CopySlices"
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 4), 3.0))


def test_batch_norm_node_name(x):
    bn = torch.nn.BatchNorm1d(4)
    assert _name(bn(x)) == "NativeBatchNormBackward0"
    bn.eval()
    assert _name(bn(x)) == "NativeBatchNormBackward0"
    assert _name(torch.nn.functional.batch_norm(x, None, None, training=True)) == (
        "NativeBatchNormBackward0"
    )
    assert "grad_fn=<NativeBatchNormBackward0>" in repr(bn(x))
