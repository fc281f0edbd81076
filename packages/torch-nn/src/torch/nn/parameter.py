"""``Parameter``: a tensor that a :class:`~torch.nn.Module` registers as one of its weights,
and ``Buffer``: a tensor it registers as state (running statistics, ...)."""

import collections

import torch
from torch import _C

Tensor = torch.Tensor

__all__ = ["Parameter", "Buffer", "is_lazy"]


class Parameter(Tensor):
    """A leaf tensor that, assigned as a Module attribute, becomes one of its parameters.

    ``Parameter(data)`` shares ``data``'s memory (it is not copied) and requires grad unless
    ``requires_grad=False``.  Ops on parameters return plain tensors.

    >>> p = torch.nn.Parameter(torch.zeros(2))
    >>> p.requires_grad, p.is_leaf
    (True, True)
    """

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty((0,), _C.get_default_dtype(), None)
        elif not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): data must be a Tensor, not {type(data).__name__}; "
                "wrap it with torch.tensor(...) first"
            )
        super().__init__(data)  # an alias of data's memory, with no history
        if requires_grad:
            if not (self.is_floating_point() or self.is_complex()):
                raise RuntimeError(
                    f"Only Tensors of floating point and complex dtype can require gradients "
                    f"(the Parameter's dtype is {self.dtype}); pass requires_grad=False"
                )
            _C.Tensor.requires_grad.fset(self, True)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        """A new Parameter with a copy of the values (not of ``.grad``)."""
        if id(self) in memo:
            return memo[id(self)]
        with torch.no_grad():
            result = type(self)(self.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        from torch._utils import _rebuild_parameter

        return (_rebuild_parameter, (self.detach(), self.requires_grad, collections.OrderedDict()))


class _BufferMeta(type(Tensor)):
    """isinstance(t, Buffer) holds for tensors that ``Buffer(...)`` marked."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer: ``self.running = nn.Buffer(torch.zeros(3))`` registers it
    like ``register_buffer('running', ..., persistent=...)``.  Returns the tensor itself (a
    plain Tensor), marked."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty((0,), _C.get_default_dtype(), None)
        t = data.detach()
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param):
    """Lazy (uninitialised) parameters do not exist in this build: always False."""
    return False
