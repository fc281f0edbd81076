"""``Tracer`` and ``symbolic_trace``: run ``forward`` on proxies and keep the graph.

While :meth:`Tracer.trace` runs, and only then (restored in ``finally``):

* ``torch.nn.Module.__call__`` goes through :meth:`Tracer.call_module`, which records leaf
  modules (those of ``torch.nn`` by default) as one ``call_module`` node and traces
  through the others;
* reading a parameter or buffer of a module (``self.weight``) gives a ``get_attr`` proxy;
* functions registered with :func:`wrap` are recorded as one ``call_function`` node;
* the traced function's module globals that name torch functions point at the proxy-aware
  stand-ins of ``torch.fx.proxy`` (``from torch import relu`` then traces too).
"""

import functools
import inspect
import sys

import torch
from torch.fx import proxy as _proxy
from torch.fx.graph import Graph
from torch.fx.proxy import TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap"]

_wrapped = []  # (globals dict, name) of functions registered with wrap()
_wrapped_fns = set()  # id() of the functions themselves


def _is_wrapped(fn):
    return id(fn) in _wrapped_fns


def wrap(fn_or_name):
    """Record calls of a module-level function as one ``call_function`` node when traced,
    instead of tracing through it. Call at module scope, with the function or its name."""
    frame = sys._getframe(1)
    g = frame.f_globals
    if g.get("__fx_generated__"):
        return fn_or_name  # the header line of generated code: already registered
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("torch.fx.wrap must be called at the top level of a module")
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    if callable(fn_or_name) and g.get(name) is not fn_or_name:
        raise NotImplementedError(f"torch.fx.wrap: {name} is not a global of the calling module")
    _wrapped.append((g, name))
    if name in g:
        _wrapped_fns.add(id(g[name]))
    return fn_or_name


def _wrapper_of(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        p = _proxy._find_proxy(args)
        if p is None:
            p = _proxy._find_proxy(kwargs.values())
        if p is None:
            return fn(*args, **kwargs)
        return p.tracer.create_proxy("call_function", fn, args, kwargs)

    return wrapper


class Tracer(TracerBase):
    """Symbolic tracer; subclass it and override ``is_leaf_module``, ``call_module``,
    ``create_node``, ``create_proxy`` or ``trace`` to change what is recorded."""

    def __init__(self, autowrap_modules=(), autowrap_functions=(), param_shapes_constant=False):
        self._autowrap_functions = tuple(autowrap_functions)
        self.graph = None
        self.root = None

    def is_leaf_module(self, m, module_qualified_name):
        """Leaf modules are recorded as one ``call_module`` node: by default those defined
        in ``torch.nn`` (except ``Sequential``)."""
        mod = type(m).__module__ or ""
        return mod.startswith(("torch.nn", "torch.ao.nn")) and not isinstance(
            m, torch.nn.Sequential
        )

    def call_module(self, m, forward, args, kwargs):
        """Called for each submodule call while tracing: record it or trace ``forward``."""
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def path_of_module(self, mod):
        name = self._module_paths.get(id(mod)) if getattr(self, "_module_paths", None) else None
        if name is None:
            return super().path_of_module(mod)
        return name

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """Reading a module attribute while tracing: parameters and buffers of the root
        become ``get_attr`` proxies (one per attribute, cached)."""
        if isinstance(attr_val, torch.Tensor):
            path = self._tensor_paths.get(id(attr_val))
            if path is not None:
                if path not in parameter_proxy_cache:
                    parameter_proxy_cache[path] = self.create_proxy("get_attr", path, (), {})
                return parameter_proxy_cache[path]
        return attr_val

    def trace(self, root, concrete_args=None):
        """Trace ``root`` (a module or a function) and return the :class:`Graph`."""
        if isinstance(root, torch.nn.Module):
            self.root = root
            fn = type(root).forward
            args_start = 1
            fn_self = root
        else:
            self.root = torch.nn.Module()
            fn = root
            args_start = 0
            fn_self = None
        self.graph = Graph(tracer_cls=type(self))
        self._module_paths = {id(m): n for n, m in self.root.named_modules()}
        self._tensor_paths = {}
        for n, b in self.root.named_buffers():
            self._tensor_paths.setdefault(id(b), n)
        for n, p in self.root.named_parameters():
            self._tensor_paths.setdefault(id(p), n)
        concrete_args = dict(concrete_args or {})

        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[args_start:]
        proxies, kw = [], {}
        for p in params:
            if p.name in concrete_args:
                value = concrete_args[p.name]
            elif p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TraceError(
                    f"symbolic_trace: *args / **kwargs parameter {p.name!r} cannot be traced"
                )
            else:
                default = () if p.default is p.empty else (p.default,)
                value = self.create_proxy("placeholder", p.name, default, {})
            if p.kind == p.KEYWORD_ONLY:
                kw[p.name] = value
            else:
                proxies.append(value)

        cache = {}
        tracer = self
        orig_call = torch.nn.Module.__call__
        orig_getattr = torch.nn.Module.__getattr__

        def module_call(mod, *args, **kwargs):
            return tracer.call_module(mod, lambda *a, **k: orig_call(mod, *a, **k), args, kwargs)

        def module_getattr(mod, name):
            return tracer.getattr(name, orig_getattr(mod, name), cache)

        patched = []  # (namespace dict or object, name, original)

        def patch_dict(d, name, value):
            patched.append((d, name, d[name]))
            d[name] = value

        _proxy._acquire()
        try:
            torch.nn.Module.__call__ = module_call
            torch.nn.Module.__getattr__ = module_getattr
            for g, name in _wrapped:
                if name in g:
                    patch_dict(g, name, _wrapper_of(_proxy.unwrap(g[name])))
            g = getattr(fn, "__globals__", {})
            for name, value in list(g.items()):
                if (
                    not isinstance(value, _proxy._ProxyAware)
                    and callable(value)
                    and _proxy._is_op(name, value)
                ):
                    s = _proxy._standins.get(id(value))
                    if s is not None and s.__wrapped__ is value:
                        patch_dict(g, name, s)
            for f in self._autowrap_functions:
                fg = getattr(fn, "__globals__", {})
                if fg.get(f.__name__) is f:
                    patch_dict(fg, f.__name__, _wrapper_of(f))
            result = fn(fn_self, *proxies, **kw) if fn_self is not None else fn(*proxies, **kw)
            self.create_node("output", "output", (self.create_arg(result),), {})
        finally:
            torch.nn.Module.__call__ = orig_call
            torch.nn.Module.__getattr__ = orig_getattr
            for d, name, value in reversed(patched):
                d[name] = value
            cache.clear()
            _proxy._release()
        self._module_paths = self._tensor_paths = None
        return self.graph


TraceError = _proxy.TraceError


def symbolic_trace(root, concrete_args=None):
    """Trace a module or function into a :class:`~torch.fx.GraphModule`."""
    from torch.fx.graph_module import GraphModule

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, torch.nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
