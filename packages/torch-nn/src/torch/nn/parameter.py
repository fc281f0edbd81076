"""``Parameter``: a tensor that a :class:`~torch.nn.Module` registers as one of its weights,
and ``Buffer``: a tensor it registers as state (running statistics, ...)."""

import collections

import torch
from torch import _C

Tensor = torch.Tensor

__all__ = [
    "Parameter",
    "Buffer",
    "UninitializedParameter",
    "UninitializedBuffer",
    "is_lazy",
]


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


class UninitializedTensorMixin:
    """What uninitialised parameters and buffers share: no shape yet (an empty tensor holds
    their dtype, device and ``requires_grad``) until :meth:`materialize` gives them one and
    turns them into their ``cls_to_become``."""

    __slots__ = ()
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor ``shape`` (uninitialised memory; the module fills it), on
        ``device`` with ``dtype`` (by default: those it was created with), and make it a
        plain ``cls_to_become`` (a Parameter or a Tensor)."""
        if isinstance(shape, int):
            shape = (shape,)
        current = Tensor.data.fget(self)
        device = current.device if device is None else device
        dtype = current.dtype if dtype is None else dtype
        self.data = torch.empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer: a lazy module "
            "gives its parameters their shapes on its first forward call (or when a "
            "state_dict is loaded into it); run a forward pass with a sample batch first"
        )

    def size(self, dim=None):
        return self.shape

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer: run a forward pass "
            "with a sample batch first to initialize the lazy module"
        )

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter without a shape yet, as lazy modules (``LazyLinear``, ``LazyConv2d``,
    ...) hold until their first forward call; :meth:`materialize` turns it into a
    :class:`Parameter` (the same object, so references to it stay valid)."""

    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(torch.empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        current = Tensor.data.fget(self)
        result = type(self)(self.requires_grad, current.device, current.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer without a shape yet (lazy batch and instance norm hold their running
    statistics so); :meth:`materialize` turns it into a plain Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None):
        super().__init__(torch.empty(0, device=device, dtype=dtype))
        if requires_grad:
            self.requires_grad_(True)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        current = Tensor.data.fget(self)
        result = type(self)(self.requires_grad, current.device, current.dtype)
        memo[id(self)] = result
        return result


def is_lazy(param):
    """Whether param is an uninitialised parameter or buffer (of a lazy module)."""
    return isinstance(param, UninitializedTensorMixin)
