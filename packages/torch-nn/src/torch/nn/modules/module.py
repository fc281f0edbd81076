"""``Module``: the base class of every layer and model.

A module keeps three ordered dicts: ``_parameters`` (name -> Parameter or None),
``_buffers`` (name -> Tensor or None) and ``_modules`` (name -> child Module or None).
Assigning an attribute registers the value in the right dict (``__setattr__``); reading one
looks there after the instance ``__dict__`` (``__getattr__``).  Every conversion
(``to``, ``double``, ``cpu``, ...) is one walk, :meth:`Module._apply`, over the tree.
The hooks (their registration, and the call path that runs them) are in ``_hooks``.
"""

import collections

import torch
from torch.nn.modules._hooks import (
    RemovableHandle,
    _global_any,
    _global_buffer_registration_hooks,
    _global_module_registration_hooks,
    _global_parameter_registration_hooks,
    _init_hooks,
    _ModuleHooks,
    _restore_hooks,
    _run_registration_hooks,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from torch.nn.parameter import Buffer, Parameter

Tensor = torch.Tensor

__all__ = [
    "Module",
    "RemovableHandle",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_parameter_registration_hook",
    "register_module_module_registration_hook",
]


class _IncompatibleKeys(
    collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
):
    """What ``load_state_dict`` returns: the keys that were missing and unexpected."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, spaces):
    """Indent every line of text but the first by ``spaces``."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


# ---------------------------------------------------------------- Module
class Module(_ModuleHooks):
    """Base class of all layers and models: subclass it, create submodules and parameters in
    ``__init__`` (after ``super().__init__()``) and write ``forward``; call the instance
    (``model(x)``), not ``forward``, so that hooks run.

    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torch.nn.Linear(4, 2)
    ...
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> Net()(torch.ones(3, 4)).shape
    torch.Size([3, 2])
    """

    dump_patches = False
    _version = 1  # of the state_dict format, kept in state_dict()._metadata
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if not self.call_super_init and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        _init_hooks(d)
        d["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *input):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function: '
            "define forward(self, ...) in the subclass"
        )

    # ------------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if not (
            d["_forward_pre_hooks"]
            or d["_forward_hooks"]
            or d["_backward_hooks"]
            or d["_backward_pre_hooks"]
            or _global_any[0]
        ):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    _call_impl = __call__

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """A tensor that is part of the module's state but not a parameter (e.g. BatchNorm's
        running mean): moved by ``to()``, saved in ``state_dict`` unless ``persistent=False``."""
        _check_new_name(self, name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        tensor = _run_registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add ``param`` (a Parameter, or None for an absent one such as a disabled bias)."""
        _check_new_name(self, name, "parameter", "_parameters")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        param = _run_registration_hooks(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module, reachable as ``self.<name>``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        module = _run_registration_hooks(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        # only reached when normal lookup failed: the registered members
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
            b = d["_buffers"]
            if name in b:
                return b[name]
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, d, d["_buffers"], d["_modules"], d["_non_persistent_buffers_set"])
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(name, d, params, d["_buffers"], d["_non_persistent_buffers_set"])
            value = _run_registration_hooks(_global_module_registration_hooks, self, name, value)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.__dict__.get("persistent", True)
            else:
                persistent = name not in d["_non_persistent_buffers_set"]
            if name not in buffers:
                d.pop(name, None)
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __setstate__(self, state):
        self.__dict__.update(state)
        _restore_hooks(self.__dict__)
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    def __dir__(self):
        keys = [
            *dir(type(self)),
            *self.__dict__,
            *self._parameters,
            *self._modules,
            *self._buffers,
        ]
        return sorted({k for k in keys if not k[0].isdigit()})

    # ------------------------------------------------------------------ traversal
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        if recurse:
            modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + "." + name if module_prefix else name), value

    def parameters(self, recurse=True):
        """The parameters of this module (and of its submodules, unless ``recurse=False``),
        each once: what optimizers take."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``(name, parameter)`` pairs, names dotted like the state_dict keys."""
        return self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """This module and all below it, depth first, with dotted names ('' for self)."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(
                    memo, prefix + "." + name if prefix else name, remove_duplicate
                )

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` ('' is self)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at dotted path ``target`` (e.g. 'encoder.0.weight')."""
        mod, name = _holder(self, target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        mod, name = _holder(self, target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    def get_extra_state(self):
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called: "
            "override get_extra_state and set_extra_state together"
        )

    def set_extra_state(self, state):
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called: "
            "override get_extra_state and set_extra_state together"
        )

    def apply(self, fn):
        """Call ``fn(m)`` on every submodule (children first) and on self; returns self.
        Typical use: custom initialisation."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ conversions
    def _apply(self, fn, recurse=True):
        """Apply ``fn`` to each parameter, gradient and buffer.  Parameters and gradients take
        the result in place (``.data =``), so an optimizer holding them keeps working."""
        if recurse:
            for m in self.children():
                m._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with torch.no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or ``to(tensor)``: converts
        floating-point parameters and buffers (integer ones keep their dtype).  The keyword
        ``memory_format`` (``torch.channels_last``, ...) lays out the 4-D and 5-D ones.  In
        place; returns self."""
        dtype, device = kwargs.get("dtype"), kwargs.get("device")
        memory_format = kwargs.get("memory_format")
        if memory_format is not None and not isinstance(memory_format, torch.memory_format):
            raise TypeError(
                "to(): argument 'memory_format' must be torch.memory_format, not "
                f"{type(memory_format).__name__}"
            )
        for a in args:
            if isinstance(a, torch.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, (str, torch.device, int)):
                device = a
            elif isinstance(a, bool):  # non_blocking
                continue
            else:
                raise TypeError(f"to() received an invalid argument: {a!r}")
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t):
            if device is not None:
                t = t.to(device)
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            if memory_format is not None and t.dim() in (4, 5):
                t = t.to(memory_format=memory_format)
            return t

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse=True):
        return self._apply(lambda t: torch.empty_like(t), recurse)

    def share_memory(self):
        """Move parameters and buffers to shared memory (``Tensor.share_memory_``; needs the
        torch-multiprocessing package)."""
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------------ modes
    def train(self, mode=True):
        """Training mode (``mode=True``) or evaluation mode for this module and all below it
        (Dropout and BatchNorm behave differently); returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the ``.grad`` of every parameter: to None (the default) or to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g = p.grad = g.detach()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # ------------------------------------------------------------------ state_dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered dict from dotted names to this module's parameters and persistent
        buffers (detached, sharing memory with them unless ``keep_vars``).  Save it with
        ``torch.save`` and restore it with :meth:`load_state_dict`."""
        if args:  # the old positional form state_dict(destination, prefix, keep_vars)
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = collections.OrderedDict()
            destination._metadata = collections.OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        """Copy this module's own entries (``prefix + name``) of state_dict into its
        parameters and buffers, recording missing keys, unexpected keys and errors.
        Subclasses override it to convert older formats (see ``local_metadata['version']``)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        for k, v in self._buffers.items():
            if v is not None and k not in self._non_persistent_buffers_set:
                local_state[k] = v
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with torch.no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(value, Parameter):
                                value = Parameter(value, requires_grad=param.requires_grad)
                            self._parameters[name] = value
                        else:
                            self._buffers[name] = value
                    else:
                        param.copy_(value)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.shape} and whose dimensions in the checkpoint are "
                    f"{value.shape}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head, dot, _ = key[len(prefix) :].partition(".")
                if dot:
                    if head not in self._modules:
                        unexpected_keys.append(key)
                elif head not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` (as :meth:`state_dict` makes it).

        With ``strict`` (the default), keys missing from state_dict or unknown to the module
        raise a RuntimeError listing them; with ``strict=False`` they are returned as
        ``(missing_keys, unexpected_keys)``.  A shape mismatch is always an error, listed per
        key.  ``assign=True`` makes the module hold state_dict's tensors instead of copying."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = collections.OrderedDict(state_dict)

        def load(module, local_state, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(
                local_state, prefix, local_metadata, True, missing, unexpected, errors
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {
                        k: v for k, v in local_state.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise RuntimeError("load_state_dict post hooks should return None")

        load(self, state_dict)
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {self._get_name()}:\n\t" + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------------ printing
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside this module's parentheses in its repr (e.g. the layer's sizes);
        override it in custom modules.  One line, or several."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(m), 2) for name, m in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if len(extra_lines) == 1 and not child_lines:
            text += extra_lines[0]
        elif lines:
            text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _type_name(value):
    if isinstance(value, Tensor):
        return torch._dtypes.legacy_type_name(value.dtype)
    return type(value).__name__


def _check_new_name(module, name, kind, members):
    """The checks of register_buffer and register_parameter: ``kind`` is 'buffer' or
    'parameter', ``members`` the name of the dict it goes in."""
    d = module.__dict__
    if members not in d:
        raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in d[members]:
        raise KeyError(f"attribute '{name}' already exists")


def _holder(module, target):
    """(the submodule of module that holds the attribute at dotted path target, its name)."""
    module_path, _, name = target.rpartition(".")
    mod = module.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
    return mod, name


def _remove_from(name, *dicts_or_sets):
    for d in dicts_or_sets:
        if d is None or name not in d:
            continue
        if isinstance(d, dict):
            del d[name]
        else:
            d.discard(name)
