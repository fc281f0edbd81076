"""torch.autograd: tape-based reverse-mode automatic differentiation (the torch-autograd wheel).

Installing this package registers the recording layer with the tensor core, so tensors with
``requires_grad=True`` build a graph that ``Tensor.backward()`` walks. Filled in by later issues.
"""

__version__ = "0.1.0"
