"""The autograd side of ``torch.Tensor``: backward, hooks, detach, requires_grad, .data."""

import weakref

import torch
from torch._tensor import tensor_method
from torch.autograd import graph

Tensor = torch.Tensor
_core_requires_grad = Tensor.requires_grad  # the core's property (refuses non-leaves)
_core_numpy = Tensor.numpy

tensor_method(0, "output_nr")  # which output of grad_fn this tensor is
tensor_method(None, "_base")  # for a view made while recording: the tensor whose memory it shares


@tensor_method
def requires_grad_(self, requires_grad=True):
    """Sets ``requires_grad`` of this (leaf) tensor in place, so autograd records the ops on it;
    returns ``self``."""
    self.requires_grad = requires_grad
    return self


@tensor_method
def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """The gradient of this tensor with respect to the graph's leaves, accumulated into
    their ``.grad``.  ``gradient`` is required unless this tensor has a single element."""
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


@tensor_method
def register_hook(self, hook):
    """Call ``hook(grad)`` when this tensor's gradient is computed; if it returns a tensor,
    that replaces the gradient.  Returns a handle whose ``remove()`` unregisters it."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._add_pre_hook(self.output_nr, hook)
    if "_backward_hooks" not in self.__dict__:
        self._backward_hooks = []
    hooks = self._backward_hooks
    hooks.append(hook)
    return graph.RemovableHandle(hooks, hook)


@tensor_method
def register_post_accumulate_grad_hook(self, hook):
    """Call ``hook(tensor)`` after a leaf's ``.grad`` was updated."""
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if "_post_accumulate_hooks" not in self.__dict__:
        self._post_accumulate_hooks = []
    hooks = self._post_accumulate_hooks
    hooks.append(hook)
    return graph.RemovableHandle(hooks, hook)


@tensor_method
def retain_grad(self):
    """Keep the gradient of this non-leaf tensor in ``.grad`` during backward."""
    if self.grad_fn is None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        return
    if self.__dict__.get("retains_grad"):
        return
    ref = weakref.ref(self)  # the hook lives on grad_fn: no cycle back to the tensor

    def keep(grad):
        t = ref()
        if t is not None:
            t.grad = grad.detach().clone() if t.grad is None else t.grad + grad

    self.grad_fn._add_pre_hook(self.output_nr, keep)
    self.retains_grad = True


tensor_method(False, "retains_grad")


@tensor_method
def detach_(self):
    """Make this tensor a leaf that does not require grad, in place."""
    self.__dict__.pop("grad_fn", None)
    self.__dict__.pop("output_nr", None)
    _core_requires_grad.fset(self, False)
    return self


def _get_data(self):
    return self.detach()


def _set_data(self, value):
    """``x.data = y``: x views y's storage (shape and dtype too), keeping its autograd state."""
    if not isinstance(value, Tensor):
        raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
    torch._C._set_data(self, value)


tensor_method(
    property(_get_data, _set_data, doc="This tensor's values, detached from autograd."), "data"
)


@tensor_method
def numpy(self, *, force=False):
    """This tensor as a NumPy array sharing its memory (CPU tensors). Refuses a tensor that
    requires grad unless ``force``, which detaches it first."""
    if self.requires_grad and not force:
        raise RuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        )
    return _core_numpy(self.detach() if force else self)
