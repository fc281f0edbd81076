"""grad_fn names that programs print (tutorials walk loss.grad_fn.next_functions): basic
indexing is named after its last view step, as PyTorch names it."""

import pytest

import torch


@pytest.mark.parametrize(
    "index,name",
    [
        ((slice(None, 2),), "SliceBackward0"),
        ((slice(None), 1), "SelectBackward0"),
        (0, "SelectBackward0"),
        (-1, "SelectBackward0"),
        (None, "UnsqueezeBackward0"),
        ((slice(1, None), 0), "SelectBackward0"),
        ((0, slice(1, None)), "SliceBackward0"),
        (slice(None), "SliceBackward0"),
        ((Ellipsis, 0), "SelectBackward0"),
        ((slice(None), slice(None, 2)), "SliceBackward0"),
        ([0, 2], "IndexBackward0"),
    ],
)
def test_indexing_nodes_are_named_like_pytorch(index, name):
    w = torch.randn(3, 4, requires_grad=True)
    y = w[index]
    assert type(y.grad_fn).__name__ == name
    y.sum().backward()  # the same backward whatever the name
    expected = torch.zeros(3, 4)
    expected[index] = 1.0
    assert torch.equal(w.grad, expected)
