"""functorch: the function transforms under their first package's name, which PyTorch still
ships and older programs import (``import functorch as ft; ft.jvp(...)``).

The transforms are :mod:`torch.func`'s own (``vmap``, ``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian``). The functional-module helpers of that package,
``make_functional``, ``make_functional_with_buffers`` and ``combine_state_for_ensemble``, and
their ``FunctionalModule``/``FunctionalModuleWithBuffers``, need torch.nn: they load on first
use (:mod:`functorch._make_functional`).
"""

import torch.func
from torch.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap  # noqa: F401

_MODULE_HELPERS = (
    "FunctionalModule",
    "FunctionalModuleWithBuffers",
    "combine_state_for_ensemble",
    "make_functional",
    "make_functional_with_buffers",
)
# torch.func's transforms (its module helpers functional_call and stack_module_state are
# not functorch's), then this package's own
__all__ = [
    name for name in torch.func.__all__ if name not in ("functional_call", "stack_module_state")
] + list(_MODULE_HELPERS)


def __getattr__(name):
    if name in _MODULE_HELPERS:
        from functorch import _make_functional

        return getattr(_make_functional, name)
    raise AttributeError(f"module 'functorch' has no attribute '{name}'")
