"""Parametrizations: a module's tensor computed, on each access, from other tensors.

``register_parametrization(module, "weight", P())`` moves ``module.weight`` to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property that
returns ``P()(original)`` (a chain of parametrizations applies them in order).  To do so the
module's class is swapped for a subclass, ``Parametrized<Class>``, holding that property;
removing the last parametrization restores the class.  A parametrization with a
``right_inverse(value)`` method decides what ``original`` holds on registration (``original
= right_inverse(weight)``) and makes ``module.weight = value`` assignable; a right_inverse
that returns a sequence of tensors parametrizes the tensor by several, kept as
``original0``, ``original1``, ...  Under :func:`cached` each parametrized tensor is computed
once.
"""

import collections.abc
import contextlib

import torch
from torch.nn.modules.container import ModuleDict, ModuleList
from torch.nn.parameter import Parameter

Tensor = torch.Tensor

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within this context each parametrized tensor is computed once (on first access) and
    the result reused: for a parametrized weight used several times in a forward pass, or
    in each step of a recurrent network.  Contexts nest; the cache empties when the
    outermost one exits."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _set_in_place(dest, value):
    """dest takes value's data (shape included), staying the same object, so an optimizer
    that holds a parameter keeps holding it."""
    with torch.no_grad():
        dest.set_(value.detach())


def _check_same(what, before, after, note=""):
    if after.dtype != before.dtype:
        raise ValueError(
            f"{what} may not change the dtype of the tensor, unless `unsafe` flag is enabled."
            f"{note}\nunparametrized dtype: {before.dtype}\nparametrized dtype: {after.dtype}"
        )
    if after.shape != before.shape:
        raise ValueError(
            f"{what} may not change the shape of the tensor, unless `unsafe` flag is enabled."
            f"{note}\nunparametrized shape: {before.shape}\nparametrized shape: {after.shape}"
        )


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor of a module, in the order they apply, and the
    tensor(s) they are applied to: ``original`` or, where a right_inverse returned a
    sequence, ``original0``, ``original1``, ...  Calling it computes the parametrized
    tensor; :meth:`right_inverse` assigns to it.  Built by register_parametrization."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        before = (original.shape, original.dtype)
        with torch.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...)"
                f". Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if not unsafe:
                _check_same("When `right_inverse` outputs one tensor, it", original, new)
            # original keeps its identity (optimizers holding it stay valid)
            _set_in_place(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(value).__name__}."
                    )
                if isinstance(original, Parameter):
                    value = Parameter(value.detach().clone(), original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", value)
        if not unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != before[1]:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {before[1]}\nparametrized dtype: {z.dtype}"
                )
            if z.shape != before[0]:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {before[0]}\nparametrized shape: {z.shape}"
                )

    def right_inverse(self, value):
        """Make the parametrized tensor ``value``: the right inverses of the
        parametrizations, last first, give the new original tensor(s), which are written
        into the existing ones in place."""
        with torch.no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if not self.unsafe:
                    _check_same("The tensor returned by `right_inverse`", self.original, value)
                _set_in_place(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors. "
                        f"Got {type(value).__name__}."
                    )
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError(
                            f"`right_inverse` must return a sequence of tensors. Got element "
                            f"{i} of type {type(tensor).__name__}"
                        )
                    if not self.unsafe:
                        _check_same(f"Tensor {i} returned by `right_inverse`", original, tensor)
                    _set_in_place(original, tensor)

    def forward(self):
        first = self[0]
        if self.is_tensor:
            x = first(self.original)
        else:
            x = first(*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for i in range(1, len(self)):
            x = self[i](x)
        return x


def _deepcopy_parametrized(self, memo):
    """deepcopy of a parametrized module (its class is made on the fly: copy the state)."""
    import copy

    obj = memo.get(id(self))
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _getstate_parametrized(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(): "
        "save module.state_dict() and load it into a module parametrized the same way"
    )


def _inject_new_class(module):
    """Swap module's class for ``Parametrized<Class>``, a subclass to hold the properties."""
    cls = module.__class__
    attrs = {"__getstate__": _getstate_parametrized}
    if not hasattr(cls, "__deepcopy__"):
        attrs["__deepcopy__"] = _deepcopy_parametrized
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), attrs)


def _inject_property(module, tensor_name):
    """The property ``tensor_name`` of the module's (parametrized) class."""

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize ``module.<tensor_name>`` (a parameter or buffer) by the module
    ``parametrization``: from now on ``module.<tensor_name>`` returns
    ``parametrization(original)``, the original tensor living in
    ``module.parametrizations[tensor_name].original`` (the same Parameter object, holding
    ``parametrization.right_inverse(weight)`` if the parametrization defines one).  A second
    registration on the same name chains the parametrizations (applied in registration
    order).  Returns module.

    Unless ``unsafe``, the parametrization must keep the tensor's shape and dtype (checked
    once, at registration)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            _check_same("Registering a parametrization", y, x)
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(
                            f"parametrization.right_inverse must return a tensor. Got: "
                            f"{type(z).__name__}"
                        )
                    _check_same("The tensor returned by parametrization.right_inverse", y, z)
        parametrizations = module.parametrizations[tensor_name]
        parametrizations.append(parametrization)
        parametrizations.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized "
            f"element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module, tensor_name=None):
    """Whether module has any parametrization (with ``tensor_name``: one on that tensor)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Remove the parametrizations of ``module.<tensor_name>``: it becomes a parameter (or
    buffer) again, holding its current parametrized value (``leave_parametrized=True``, in
    the original Parameter object) or the original tensor.  The module gets its own class
    back once it has no parametrizations left.  Returns module."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with torch.no_grad():
                t = getattr(module, tensor_name)
            _set_in_place(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
        with torch.no_grad():
            t = getattr(module, tensor_name)
        if isinstance(parametrizations.original0, Parameter):
            original = Parameter(t.detach().clone(), parametrizations.original0.requires_grad)
        else:
            original = t.detach().clone()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization was registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on to_module the parametrizations (the same modules) of
    ``from_module.<tensor_name>``, or of all its parametrized tensors, and make to_module
    use from_module's original tensors (the same objects: the two modules then share
    them).  A tensor to_module lacks is created first.  Returns to_module."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not is_parametrized(from_module, name):
            raise ValueError(
                f"{from_module} does not have a parametrization on {name}: nothing to transfer"
            )
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            with torch.no_grad():
                value = getattr(from_module, name).detach().clone()
            to_module.register_parameter(name, Parameter(value))
        for p in source:
            register_parametrization(to_module, name, p, unsafe=source.unsafe)
        dest = to_module.parametrizations[name]
        keys = (
            ["original"] if source.is_tensor else [f"original{i}" for i in range(source.ntensors)]
        )
        for key in keys:
            value = getattr(source, key)
            for registry in (dest._parameters, dest._buffers):
                registry.pop(key, None)
            _register_parameter_or_buffer(dest, key, value)
    return to_module
