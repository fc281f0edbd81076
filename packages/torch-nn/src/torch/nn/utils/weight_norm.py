"""Weight normalisation as a forward pre-hook (the older API; see
:func:`torch.nn.utils.parametrizations.weight_norm` for the parametrization).

``weight_norm(module, "weight", dim=0)`` replaces the parameter ``weight`` by two,
``weight_g`` (the norms) and ``weight_v`` (the directions), and recomputes
``module.weight = weight_g * weight_v / ||weight_v||`` before each forward call; the norm
is taken over every dimension but ``dim`` (over all of them for ``dim=None``).
"""

import warnings

import torch
from torch.nn.parameter import Parameter, is_lazy

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of v over all dimensions but ``dim``, kept as size-1 dimensions (shape
    (v.size(0), 1, ..., 1) for dim 0); the norm of all of v (0-d) for dim -1."""
    if dim == -1:
        return torch.linalg.vector_norm(v)
    d = dim % v.dim()
    others = tuple(i for i in range(v.dim()) if i != d)
    if not others:
        return v.abs()
    return torch.linalg.vector_norm(v, 2, dim=others, keepdim=True)


def _weight_norm(v, g, dim):
    """g * v / ||v||, the norm over all dimensions but dim (all of them for dim -1)."""
    return v * (g / _norm_except_dim(v, dim))


class WeightNorm:
    """The forward pre-hook that :func:`weight_norm` registers: sets ``module.<name>`` from
    ``<name>_g`` and ``<name>_v`` before each call."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if is_lazy(weight):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. Make "
                "sure to run the dummy forward before applying weight normalization"
            )
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with torch.no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||``: the parameters ``<name>_g``
    (the norms, shape 1 except along ``dim``) and ``<name>_v`` (the direction, initially
    the weight) replace it, and a forward pre-hook recomputes ``module.<name>`` before each
    call.  ``dim=None`` (or -1) normalises the whole tensor.  Deprecated in favour of
    :func:`torch.nn.utils.parametrizations.weight_norm`.  Returns module."""
    warnings.warn(
        "`torch.nn.utils.weight_norm` is deprecated in favor of "
        "`torch.nn.utils.parametrizations.weight_norm`.",
        FutureWarning,
        stacklevel=2,
    )
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm`: ``module.<name>`` becomes a parameter holding the current
    normalised weight again.  Returns module."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
