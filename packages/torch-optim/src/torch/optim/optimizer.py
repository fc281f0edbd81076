"""The ``Optimizer`` base class: parameter groups, per-parameter state and its state_dict.

Subclasses define ``__init__`` (validate, then pass their defaults) and either ``step`` or,
as every optimizer here but LBFGS does, the update rule of one parameter (``_update``, with
``_init_state``) that the shared ``Optimizer.step`` loop calls. Every hyperparameter is read
from the group at each step, so editing ``param_groups`` takes effect.
"""

import functools
from collections import defaultdict
from copy import deepcopy

import torch

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """The default of a hyperparameter that every parameter group must set itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# How a hyperparameter is named in the "Invalid ...: value" errors.
_LABELS = {"lr": "learning rate", "eps": "epsilon value"}


def _check_nonnegative(**values):
    """``ValueError('Invalid learning rate: -1.0')`` for the first negative (or NaN) value."""
    for name, value in values.items():
        if not value >= 0.0:
            raise ValueError(f"Invalid {_LABELS.get(name, name + ' value')}: {value}")


def _check_betas(betas):
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _closure_loss(closure):
    """The loss of ``closure`` (which calls backward): grad mode on, even inside ``step``."""
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


def _regularized_grad(p, grad, maximize, weight_decay, lr=0.0, decoupled=False):
    """The gradient an update rule sees: negated with ``maximize``, plus ``weight_decay * p``
    (L2), or, ``decoupled`` (AdamW), with ``p`` first shrunk by ``lr * weight_decay``."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(p, alpha=weight_decay)
    return grad


def _update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2):
    """Adam's running averages of g and g^2, in place; returns the g^2 buffer for reuse.
    Binary in-place ops: the core's lerp_/addcmul_ are several times slower."""
    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
    squared = torch.mul(grad, grad)
    exp_avg_sq.mul_(beta2).add_(squared, alpha=1 - beta2)
    return squared


class _HookHandle:
    """What the ``register_*_hook`` methods return: ``remove()`` unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = _HookHandle._next_id
        _HookHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.id, None)


def _with_step_hooks(step):
    """Wraps a subclass's ``step``: runs the step hooks and records that a step happened."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self._in_step:  # a subclass's step calling super().step(): hooks run once
            return step(self, *args, **kwargs)
        for hook in tuple(self._step_pre_hooks.values()):
            changed = hook(self, args, kwargs)
            if changed is not None:
                if not (isinstance(changed, tuple) and len(changed) == 2):
                    raise RuntimeError(
                        f"a step pre-hook must return None or (args, kwargs), but got {changed}"
                    )
                args, kwargs = changed
        self._in_step = True
        try:
            out = step(self, *args, **kwargs)
        finally:
            self._in_step = False
        self._opt_called = True  # read by the lr schedulers' "step order" warning
        for hook in tuple(self._step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    return wrapper


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts, each a
            parameter group with a ``"params"`` entry and options that override ``defaults``.
        defaults: the default value of each option (``required`` for options without one).
    """

    # The update rule of one parameter, for the shared ``step`` loop:
    # ``_update(p, grad, state, group)`` moves ``p`` in place, given the gradient after
    # ``maximize`` and weight decay and ``p``'s state (``state["step"]`` already counts this
    # step). None: the subclass brings its own ``step``.
    _update = None
    # The RuntimeError a sparse gradient raises ("{}": the class name); None: accepted.
    _sparse_grad_error = "{} does not support sparse gradients"

    def __init__(self, params, defaults):
        if self._update is not None and defaults.get("differentiable"):
            raise NotImplementedError(
                "differentiable=True is not supported: step() always runs under torch.no_grad()"
            )
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._step_pre_hooks = {}
        self._step_post_hooks = {}
        self._in_step = False
        self._opt_called = False
        if isinstance(params, torch.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors "
                "or dicts, but got a Tensor"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_step_hooks(cls.__dict__["step"])

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name, value in (("_step_pre_hooks", {}), ("_step_post_hooks", {})):
            self.__dict__.setdefault(name, value)
        self.__dict__.setdefault("_in_step", False)
        self.__dict__.setdefault("_opt_called", False)

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key not in ("params", "param_names"):
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group):
        """Adds a group of parameters, with its own options (missing ones from ``defaults``).

        Useful to train layers unfrozen mid-training. The dict itself is kept (and edited).
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        named = bool(params) and isinstance(params[0], tuple)
        if named:
            param_group["param_names"] = [name for name, _ in params]
            params = [p for _, p in params]
        for p in params:
            if not isinstance(p, torch.Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(p).__name__
                )
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        if self.param_groups and named != ("param_names" in self.param_groups[0]):
            raise ValueError("all optimizer param groups must be named or all unnamed")
        param_group["params"] = params

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        ids = {id(p) for p in params}
        if len(ids) != len(params):
            raise ValueError("optimizer contains a parameter group with duplicate parameters")
        for group in self.param_groups:
            if any(id(p) in ids for p in group["params"]):
                raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Resets every parameter's ``.grad``: to None (the default) or to zeros, in place."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    @_with_step_hooks
    @torch.no_grad()
    def step(self, closure=None):
        """One optimisation step; ``closure`` re-evaluates the model and returns the loss.

        Updates each parameter that has a gradient by the subclass's ``_update``, one at a
        time: ``foreach`` and ``fused`` are accepted as options, but there is this one loop.
        """
        if self._update is None:
            raise NotImplementedError(f"{type(self).__name__} defines no update rule")
        loss = _closure_loss(closure)
        sparse_grad_error = self._sparse_grad_error
        for group in self.param_groups:
            maximize = group["maximize"]
            weight_decay = group.get("weight_decay", 0)  # Rprop has none
            decoupled = group.get("decoupled_weight_decay", False)
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if sparse_grad_error is not None and grad.is_sparse:
                    raise RuntimeError(sparse_grad_error.format(type(self).__name__))
                state = self._step_state(p, group)
                grad = _regularized_grad(p, grad, maximize, weight_decay, group["lr"], decoupled)
                self._update(p, grad, state, group)
        return loss

    def _init_state(self, state, p, group):
        """Fills the new state of ``p`` (which holds ``step`` so far) before its first step."""

    def _start_state(self, state, p, group):
        state["step"] = torch.tensor(0.0)  # a float32 tensor, as PyTorch keeps it
        self._init_state(state, p, group)

    def _step_state(self, p, group):
        """The state of ``p`` for this step: created on first use, ``step`` counting it."""
        state = self.state[p]
        if not state:
            self._start_state(state, p, group)
        state["step"] += 1
        return state

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before each step; it may return new
        ``(args, kwargs)`` for the step. Returns a handle whose ``remove()`` drops it."""
        handle = _HookHandle(self._step_pre_hooks)
        self._step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after each step. Returns a removable handle."""
        handle = _HookHandle(self._step_post_hooks)
        self._step_post_hooks[handle.id] = hook
        return handle

    def state_dict(self):
        """``{"state": {id: per-parameter state}, "param_groups": [group, ...]}``.

        Parameters are named by integers, numbered in group order from 0; each group keeps
        its options and lists the ids of its parameters. Tensors are referenced, not copied.
        """
        ids = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            packed["params"] = [ids.setdefault(id(p), len(ids)) for p in group["params"]]
            groups.append(packed)
        state = {ids[id(p)]: value for p, value in self.state.items() if id(p) in ids}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads a ``state_dict()`` into an optimizer over the same parameter layout.

        Floating-point state is cast to its parameter's dtype, except the float32 scalars
        (``step``, NAdam's ``mu_product``, ASGD's ``eta`` and ``mu``): kept as saved, so that a
        resumed run repeats the uninterrupted one bit for bit.
        """
        saved_groups = deepcopy(state_dict["param_groups"])
        groups = self.param_groups
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )
        params = {
            saved_id: p
            for group, saved in zip(groups, saved_groups)
            for saved_id, p in zip(saved["params"], group["params"])
        }

        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in params:
                p = params[key]
                state[p] = {name: _cast_state(p, item, name) for name, item in value.items()}
                step = state[p].get("step")
                if step is not None and not isinstance(step, torch.Tensor):
                    state[p]["step"] = torch.tensor(float(step))  # older, plain-number format
            else:
                state[key] = value

        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            for name, default in self.defaults.items():  # options added since the save
                if default is not required:
                    saved.setdefault(name, default)
        self.__setstate__({"state": state, "param_groups": saved_groups})


# Per-parameter scalars that stay float32 whatever the parameter's dtype.
_SCALAR_STATE = frozenset(("step", "mu_product", "eta", "mu"))


def _cast_state(param, value, key):
    """State saved for ``param``, with floating-point tensors in ``param``'s dtype."""
    if isinstance(value, torch.Tensor):
        if key in _SCALAR_STATE:
            return value
        if param.is_floating_point() and value.is_floating_point():
            return value.to(dtype=param.dtype)
        return value
    if isinstance(value, dict):
        return {name: _cast_state(param, item, name) for name, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, item, key) for item in value)
    return value
