"""functorch's functional modules: a module turned into a function of its parameters (and
buffers), ``func(params, [buffers,] *args)``, which the transforms can differentiate. Each
function runs a private copy of the module through :func:`torch.func.functional_call`, and
the parameters returned are the copy's, so the original module and the function do not
change each other."""

import copy

import torch
from torch import nn
from torch.func import functional_call


class FunctionalModuleWithBuffers(nn.Module):
    """``forward(params, buffers, *args, **kwargs)``: the module's forward with ``params`` and
    ``buffers`` (in the order of its ``named_parameters()`` and ``named_buffers()``) in place
    of its own."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.buffer_names = tuple(buffer_names)

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model = copy.deepcopy(model)  # (the parameters returned are the copy's, as in PyTorch)
        params, buffers = dict(model.named_parameters()), dict(model.named_buffers())
        values = tuple(p.detach() if disable_autograd_tracking else p for p in params.values())
        fmodel = FunctionalModuleWithBuffers(model, params, buffers)
        return fmodel, values, tuple(buffers.values())

    def forward(self, params, buffers, *args, **kwargs):
        state = _named(self.param_names, params, "params")
        state.update(_named(self.buffer_names, buffers, "buffers"))
        return functional_call(self.stateless_model, state, args, kwargs)


class FunctionalModule(nn.Module):
    """``forward(params, *args, **kwargs)``: the module's forward with ``params`` (in the
    order of its ``named_parameters()``) in place of its own."""

    def __init__(self, stateless_model, param_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model = copy.deepcopy(model)  # (the parameters returned are the copy's, as in PyTorch)
        params = dict(model.named_parameters())
        values = tuple(p.detach() if disable_autograd_tracking else p for p in params.values())
        return FunctionalModule(model, params), values

    def forward(self, params, *args, **kwargs):
        state = _named(self.param_names, params, "params")
        return functional_call(self.stateless_model, state, args, kwargs)


def _named(names, values, what):
    values = tuple(values)
    if len(values) != len(names):
        raise RuntimeError(f"expected {len(names)} {what}, got {len(values)}")
    return dict(zip(names, values))


def make_functional(model, disable_autograd_tracking=False):
    """``(func, params)``: ``func(params, *args)`` runs ``model`` with ``params`` (its
    parameters, detached with ``disable_autograd_tracking``). A model with buffers needs
    :func:`make_functional_with_buffers`."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"make_functional(model): expected an nn.Module, got {type(model)}")
    if len(tuple(model.buffers())) > 0:
        raise RuntimeError(
            "make_functional(model): `model` has buffers. Please use "
            "make_functional_with_buffers(model) instead."
        )
    return FunctionalModule._create_from(model, disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(func, params, buffers)``: ``func(params, buffers, *args)`` runs ``model`` with them."""
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"make_functional_with_buffers(model): expected an nn.Module, got {type(model)}"
        )
    return FunctionalModuleWithBuffers._create_from(model, disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """``(func, params, buffers)`` for an ensemble of models of one class: each of ``params``
    and ``buffers`` stacks the models' tensors along a new first dim (for ``vmap``), and
    ``func`` is the first model's (``make_functional_with_buffers``)."""
    models = list(models)
    if not models:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "combine_state_for_ensemble: Expected all models to have the same training/eval mode."
        )
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError(
            "combine_state_for_ensemble: Expected all models to be of the same class."
        )
    funcs, params, buffers = zip(*(make_functional_with_buffers(m) for m in models))
    params = tuple(torch.stack(ps).detach() for ps in zip(*params))
    buffers = tuple(torch.stack(bs).detach() for bs in zip(*buffers))
    return funcs[0], params, buffers
