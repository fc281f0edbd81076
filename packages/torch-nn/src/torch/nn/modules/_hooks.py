"""The hooks of :class:`~torch.nn.Module`: per-module hooks (forward, full backward,
state-dict, load-state-dict), the hooks on every module (``register_module_*_hook``), the
handles that remove them, and the autograd nodes that let full backward hooks see the
gradients of one call.

``Module`` inherits the registration methods and the slow call path from
:class:`_ModuleHooks`; its ``__call__`` takes that path only when some hook is registered.
"""

import collections
import functools
import warnings
import weakref

import torch
from torch import _C

Tensor = torch.Tensor


class RemovableHandle:
    """What the ``register_*_hook`` methods return: ``handle.remove()`` unregisters the hook
    (also usable as a context manager)."""

    __module__ = "torch.nn.modules.module"  # its public home (repr)
    _next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


# Hooks that apply to every module (register_module_*_hook).
_global_forward_pre_hooks = collections.OrderedDict()
_global_forward_hooks = collections.OrderedDict()
_global_forward_hooks_always_called = collections.OrderedDict()
_global_backward_pre_hooks = collections.OrderedDict()
_global_backward_hooks = collections.OrderedDict()
_global_buffer_registration_hooks = collections.OrderedDict()
_global_parameter_registration_hooks = collections.OrderedDict()
_global_module_registration_hooks = collections.OrderedDict()
_global_any = [False]  # any global forward/backward hook registered: __call__ takes the slow path


def _refresh_global_any():
    _global_any[0] = bool(
        _global_forward_pre_hooks
        or _global_forward_hooks
        or _global_backward_pre_hooks
        or _global_backward_hooks
    )


def _add_global_hook(hooks, hook, extra=None):
    """Put hook in one of the global dicts; removing it refreshes ``_global_any`` too."""
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    _refresh_global_any()
    remove = handle.remove

    def remove_and_refresh():
        remove()
        _refresh_global_any()

    handle.remove = remove_and_refresh
    return handle


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` before the forward of every module."""
    return _add_global_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` after the forward of every module."""
    handle = _add_global_hook(_global_forward_hooks, hook, _global_forward_hooks_always_called)
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    return _add_global_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` for every module, as the gradients with
    respect to its inputs are computed."""
    return _add_global_hook(_global_backward_hooks, hook)


register_module_backward_hook = register_module_full_backward_hook


def register_module_buffer_registration_hook(hook):
    return _add_global_hook(_global_buffer_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    return _add_global_hook(_global_parameter_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    return _add_global_hook(_global_module_registration_hooks, hook)


def _run_registration_hooks(hooks, module, name, value):
    """``value`` after the global registration hooks: each may return a replacement."""
    for hook in hooks.values():
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def _insert(hooks, key, hook, prepend):
    hooks[key] = hook
    if prepend:
        hooks.move_to_end(key, last=False)


def _add_backward_hook(module, hook, full, prepend):
    # a module takes full or regular backward hooks, not both
    if module._is_full_backward_hook is (not full):
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks on a single "
            "Module. Please use only one of them."
        )
    module._is_full_backward_hook = full
    handle = RemovableHandle(module._backward_hooks)
    _insert(module._backward_hooks, handle.id, hook, prepend)
    return handle


# The per-module hook dicts (hook id -> hook; the *_with_kwargs and *_always_called ones:
# hook id -> True), in the order Module.__init__ makes them.
_HOOK_DICTS = (
    "_backward_pre_hooks",
    "_backward_hooks",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


def _init_hooks(d):
    """A new module's hook state, into its ``__dict__`` d."""
    for name in _HOOK_DICTS:
        d[name] = collections.OrderedDict()
        if name == "_backward_hooks":  # (the attribute order PyTorch's modules have)
            d["_is_full_backward_hook"] = None


def _restore_hooks(d):
    """The hook state that an unpickled module's ``__dict__`` d lacks (older pickles)."""
    for name in _HOOK_DICTS:
        if name not in d:
            d[name] = collections.OrderedDict()
    d.setdefault("_is_full_backward_hook", None)


# ---------------------------------------------------------------- full backward hooks
class _BackwardHook:
    """The gradients flowing through one call of a module, for its full backward hooks.

    The tensors going into forward and coming out of it pass through an identity autograd
    node each (``_HookIdentity``).  Backward reaches the output node first: it runs the
    backward pre-hooks and keeps ``grad_output``; it reaches the input node once the module's
    whole graph ran: the hooks get ``(module, grad_input, grad_output)`` and may replace
    ``grad_input``.  Used twice in one forward, a module gets one such record per call."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_slots = None  # positions of the tensor arguments that went through the node
        self.n_outputs = 0
        self.output_slots = ()

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (_C.is_grad_enabled() and any(args[i].requires_grad for i in slots)):
            return args
        self.input_slots = slots
        wrapped = _HookIdentity.apply(self, "in", *[args[i] for i in slots])
        args = list(args)
        for i, t in zip(slots, wrapped):
            args[i] = t
        return tuple(args)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        outs = (result,) if single else result
        if not isinstance(outs, tuple):
            return result
        slots = [i for i, a in enumerate(outs) if isinstance(a, Tensor)]
        if not (_C.is_grad_enabled() and any(outs[i].requires_grad for i in slots)):
            return result
        self.n_outputs = len(outs)
        self.output_slots = slots
        wrapped = _HookIdentity.apply(self, "out", *[outs[i] for i in slots])
        outs = list(outs)
        for i, t in zip(slots, wrapped):
            outs[i] = t
        if single:
            return outs[0]
        return tuple(outs) if type(result) is tuple else type(result)(*outs)

    @staticmethod
    def _pack(slots, values, size):
        packed = [None] * size
        for i, v in zip(slots, values):
            packed[i] = v
        return tuple(packed)

    def on_grad_outputs(self, grads):
        grads = self._pack(self.output_slots, grads, self.n_outputs)
        for hook in self.pre_hooks:
            new = hook(self.module, grads)
            if new is not None:
                grads = self._check(new, len(grads), "backward pre hook")
        self.grad_outputs = grads
        if self.input_slots is None and self.hooks:  # no input needs a gradient: call now
            warnings.warn(
                "Full backward hook is called with the gradients with respect to the module's "
                "outputs only (grad_input is all None), since no input of "
                f"{self.module._get_name()} requires gradients",
                stacklevel=2,
            )
            self._call_hooks(self._pack((), (), self.n_inputs))
        return tuple(grads[i] for i in self.output_slots)

    def on_grad_inputs(self, grads):
        grads = self._call_hooks(self._pack(self.input_slots, grads, self.n_inputs))
        return tuple(grads[i] for i in self.input_slots)

    def _call_hooks(self, grad_inputs):
        for hook in self.hooks:
            new = hook(self.module, grad_inputs, self.grad_outputs)
            if new is not None:
                grad_inputs = self._check(new, len(grad_inputs), "backward hook")
        return grad_inputs

    def _check(self, new, n, what):
        new = (new,) if isinstance(new, Tensor) else tuple(new)
        if len(new) != n:
            raise RuntimeError(
                f"{what} of {self.module._get_name()} returned {len(new)} gradients, but it "
                f"must return None or one per {'input' if what == 'backward hook' else 'output'}"
                f" ({n})"
            )
        return new


def _hook_identity_class():
    from torch.autograd import Function

    class _HookIdentity(Function):
        """The identity, whose backward lets a _BackwardHook see (and replace) the grads."""

        @staticmethod
        def forward(ctx, state, kind, *tensors):
            ctx.state, ctx.kind = state, kind
            ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
            return tensors

        @staticmethod
        def backward(ctx, *grads):
            if ctx.kind == "out":
                grads = ctx.state.on_grad_outputs(grads)
            else:
                grads = ctx.state.on_grad_inputs(grads)
            return (None, None, *grads)

    return _HookIdentity


class _LazyHookIdentity:
    """``_HookIdentity`` made on first use (torch.autograd is imported after torch.nn may be)."""

    cls = None

    def apply(self, *args):
        if _LazyHookIdentity.cls is None:
            _LazyHookIdentity.cls = _hook_identity_class()
        return _LazyHookIdentity.cls.apply(*args)


_HookIdentity = _LazyHookIdentity()


# ---------------------------------------------------------------- Module's hook methods
class _ModuleHooks:
    """The hook part of :class:`~torch.nn.Module`: registering hooks, and calling
    ``forward`` with them (``Module.__call__`` comes here only when some hook is set)."""

    def _call_with_hooks(self, args, kwargs):
        pre_hooks = (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items())
        for hook_id, hook in pre_hooks:
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of "
                            f"(new_args, new_kwargs), but got {res}."
                        )
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw = None
        hooks = [*_global_backward_hooks.values(), *self._backward_hooks.values()]
        bw_pre = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        if hooks or bw_pre:
            bw = _BackwardHook(self, hooks, bw_pre)
            args = bw.setup_input_hook(args)
        fwd_hooks = (*_global_forward_hooks.items(), *self._forward_hooks.items())
        try:
            result = self.forward(*args, **kwargs)
        except Exception:
            for hook_id, hook in fwd_hooks:
                if (
                    hook_id in self._forward_hooks_always_called
                    or hook_id in _global_forward_hooks_always_called
                ):
                    try:
                        self._run_forward_hook(hook_id, hook, args, kwargs, None)
                    except Exception:
                        pass
            raise
        for hook_id, hook in fwd_hooks:
            res = self._run_forward_hook(hook_id, hook, args, kwargs, result)
            if res is not None:
                result = res
        if bw is not None:
            result = bw.setup_output_hook(result)
        return result

    def _run_forward_hook(self, hook_id, hook, args, kwargs, result):
        if hook_id in self._forward_hooks_with_kwargs:
            return hook(self, args, kwargs, result)
        return hook(self, args, result)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` before each forward; it may return new args (a tuple, or
        one value).  With ``with_kwargs``: ``hook(module, args, kwargs)`` returning None or
        ``(args, kwargs)``."""
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        _insert(self._forward_pre_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` after each forward; a non-None result replaces the
        output.  With ``with_kwargs``: ``hook(module, args, kwargs, output)``."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        _insert(self._forward_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` when the gradients with respect to the module's
        outputs are known; it may return replacements for them."""
        handle = RemovableHandle(self._backward_pre_hooks)
        _insert(self._backward_pre_hooks, handle.id, hook, prepend)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` once the gradients with respect to the
        module's inputs are computed (one entry per positional argument, None for
        non-tensors and inputs that need no gradient); it may return a new ``grad_input``.
        The hook must not modify its arguments in place."""
        return _add_backward_hook(self, hook, True, prepend)

    def register_backward_hook(self, hook):
        """The older name: ``hook(module, grad_input, grad_output)``.  Here it has the
        semantics of :meth:`register_full_backward_hook` (gradients with respect to the
        module's inputs and outputs)."""
        return _add_backward_hook(self, hook, False, False)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` before ``state_dict`` collects this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after; may edit state_dict."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = (
            functools.partial(hook, self) if with_module else hook
        )
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` after loading; may edit the key lists."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle
