"""Inference tensors (made in torch.inference_mode()) never enter autograd later, as in
PyTorch: an op that would save one for backward raises; one that saves nothing does not."""

import pytest

import torch


def test_inference_tensors_and_autograd():
    w = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        x = torch.full((3,), 2.0)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        w * x  # mul saves x for w's gradient
    (w + x).sum().backward()  # add saves nothing
    assert w.grad.tolist() == [1.0, 1.0, 1.0]
    (w * x.clone()).sum().backward()  # a clone is a normal tensor
    assert w.grad.tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(RuntimeError, match="requires_grad=True on inference tensor"):
        x.requires_grad_()
