"""``Proxy``: the stand-in for a value while code is traced symbolically.

Every operation on a proxy appends a node to its tracer's graph and returns a new proxy:
Python operators become ``call_function`` nodes on :mod:`operator` functions, attribute
reads ``getattr`` nodes, method calls ``call_method`` nodes, and ``torch.*`` /
``torch.nn.functional.*`` calls ``call_function`` nodes on the torch function.

How ``torch.sin(proxy)`` is seen: our tensors have no ``__torch_function__``, so while any
proxy is alive the public functions of ``torch``, ``torch.nn.functional``,
``torch.linalg``, ``torch.special`` and ``torch.fft`` are replaced by :class:`_ProxyAware`
stand-ins that record the call when a proxy is among the arguments and otherwise call the
function. The stand-ins compare and hash equal to the function they wrap, nodes always
hold the real function, and the namespaces are restored as soon as the last proxy is
gone (proxies are counted; CPython frees them promptly).
"""

import builtins
import dis
import operator
import sys
import threading
import types

import torch
from torch.fx.node import Node, map_aggregate

__all__ = ["Proxy", "Attribute", "TraceError", "TracerBase", "GraphAppendingTracer"]


class TraceError(ValueError):
    """Symbolic tracing met Python that needs a concrete value (control flow on a proxy)."""


class _LenError(TraceError, RuntimeError):
    pass


# ------------------------------------------------------------------ namespace stand-ins
class _ProxyAware:
    """Stand-in for a torch function while proxies are alive."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        for attr in ("__name__", "__qualname__", "__module__", "__doc__"):
            try:
                setattr(self, attr, getattr(fn, attr))
            except AttributeError:
                pass

    def __call__(self, *args, **kwargs):
        p = _find_proxy(args)
        if p is None:
            p = _find_proxy(kwargs.values())
        if p is None:
            return self.__wrapped__(*args, **kwargs)
        return p.tracer.create_proxy("call_function", self.__wrapped__, args, kwargs)

    def __eq__(self, other):
        return (
            self.__wrapped__ == getattr(other, "__wrapped__", other)
            if isinstance(other, _ProxyAware)
            else self.__wrapped__ == other
        )

    def __hash__(self):
        return hash(self.__wrapped__)

    def __getattr__(self, name):
        return getattr(self.__wrapped__, name)

    def __repr__(self):
        return repr(self.__wrapped__)


def _find_proxy(items):
    for a in items:
        if isinstance(a, Proxy):
            return a
        if type(a) in (list, tuple):
            for b in a:
                if isinstance(b, Proxy):
                    return b
    return None


def _namespaces():
    from torch.nn import functional as F

    for name in getattr(F, "_CORE_KERNELS", ()):  # (F's core kernels are looked up lazily)
        if name not in vars(F):
            try:
                getattr(F, name)
            except (AttributeError, NotImplementedError):
                pass
    spaces = [torch, F]
    for sub in ("linalg", "special", "fft"):
        mod = sys.modules.get("torch." + sub)
        if mod is not None:
            spaces.append(mod)
    return spaces


def _is_op(name, obj):
    if name.startswith("_") or isinstance(obj, (type, types.ModuleType, _ProxyAware)):
        return False
    return (
        isinstance(obj, (types.FunctionType, types.BuiltinFunctionType))
        or type(obj).__name__ == "_GradGate"
    )


_lock = threading.RLock()
_users = 0
_saved = []  # (namespace, name, original, stand-in)
_standins = {}  # id(original) -> stand-in


def standin(fn):
    """The stand-in of a torch function (made once, then reused)."""
    s = _standins.get(id(fn))
    if s is None or s.__wrapped__ is not fn:
        s = _standins[id(fn)] = _ProxyAware(fn)
    return s


def _acquire():
    global _users
    with _lock:
        _users += 1
        if _users > 1:
            return
        for space in _namespaces():
            for name, obj in list(vars(space).items()):
                if _is_op(name, obj):
                    s = standin(obj)
                    setattr(space, name, s)
                    _saved.append((space, name, obj, s))


def _release():
    global _users
    with _lock:
        _users -= 1
        if _users > 0:
            return
        for space, name, obj, s in reversed(_saved):
            if vars(space).get(name) is s:
                setattr(space, name, obj)
        _saved.clear()


def unwrap(fn):
    """The real function behind a stand-in (or ``fn`` itself)."""
    return fn.__wrapped__ if isinstance(fn, _ProxyAware) else fn


# ------------------------------------------------------------------ tracers
class TracerBase:
    """Turns calls on proxies into nodes of ``self.graph``; :class:`Tracer` adds tracing."""

    graph = None
    root = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Make the node (override to tag or redirect nodes)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(
        self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None
    ):
        """Record ``target(*args, **kwargs)`` as a node and return a proxy of its result."""
        if kind == "call_function":
            target = unwrap(target)
        node = self.create_node(
            kind, target, self.create_arg(args), self.create_arg(kwargs), name, type_expr
        )
        return proxy_factory_fn(node) if proxy_factory_fn else self.proxy(node)

    def create_arg(self, a):
        """Turn an argument into what a node holds: proxies become their nodes."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, slice):
            return map_aggregate(a, self.create_arg)
        if isinstance(a, (tuple, list, dict)):
            return self._seq(a)
        if isinstance(a, torch.Tensor):
            return self._tensor_arg(a)
        if isinstance(a, torch.nn.Module):
            return self.graph.get_attr(self.path_of_module(a))
        if (
            a is None
            or a is Ellipsis
            or isinstance(
                a, (bool, int, float, complex, str, torch.dtype, torch.device, torch.memory_format)
            )
        ):
            return a
        if isinstance(a, (types.FunctionType, types.BuiltinFunctionType, _ProxyAware)) or callable(
            a
        ):
            return unwrap(a)
        if isinstance(a, range) or type(a).__module__ == "enum" or hasattr(type(a), "__members__"):
            return a
        raise NotImplementedError(
            f"torch.fx: argument of type {type(a).__name__} cannot be recorded in a graph"
        )

    def _seq(self, a):
        if isinstance(a, dict):
            return {k: self.create_arg(v) for k, v in a.items()}
        items = [self.create_arg(x) for x in a]
        if isinstance(a, list):
            return items
        return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)

    def _tensor_arg(self, t):
        root = self.root
        if root is None:
            raise RuntimeError(
                "torch.fx: a tensor constant was used with proxies of a graph that has no owning "
                "module; store it on a module and use graph.get_attr"
            )
        for name, p in root.named_parameters():
            if p is t:
                return self.graph.get_attr(name)
        for name, b in root.named_buffers():
            if b is t:
                return self.graph.get_attr(name)
        i = 0
        while hasattr(root, f"_tensor_constant{i}"):
            i += 1
        name = f"_tensor_constant{i}"
        setattr(root, name, t)
        return self.graph.get_attr(name)

    def path_of_module(self, mod):
        for name, m in self.root.named_modules() if self.root is not None else ():
            if m is mod:
                return name
        raise NameError("torch.fx: module is not installed as a submodule of the traced module")

    def iter(self, obj):
        """Iterating a proxy: ``a, b = proxy`` works (getitem nodes), loops raise TraceError."""
        frame = sys._getframe(2)
        inst = next(
            (i for i in dis.get_instructions(frame.f_code) if i.offset == frame.f_lasti), None
        )
        if inst is not None and inst.opname == "UNPACK_SEQUENCE":
            return (obj[i] for i in range(inst.argval))
        raise TraceError(
            "Proxy object cannot be iterated. This happens when a traced value drives a for loop "
            "or is unpacked as *args / **kwargs; symbolic tracing only records operations, not "
            "Python control flow (see the torch.fx docs for what can be traced)"
        )

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def keys(self, obj):
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to an existing graph: pair it with ``Proxy(node, tracer)``
    to add operations to a graph by calling them on proxies."""

    def __init__(self, graph):
        self.graph = graph
        self.root = graph.owning_module


# ------------------------------------------------------------------ proxies
class Proxy:
    """A traced value: operations on it become nodes of ``tracer.graph``.

    ``Proxy(node)`` without a tracer appends to ``node.graph``."""

    __hash__ = object.__hash__

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.__dict__["node"] = node
        self.__dict__["tracer"] = tracer
        _acquire()
        self.__dict__["_counted"] = True

    def __del__(self):
        if self.__dict__.get("_counted"):
            self.__dict__["_counted"] = False
            _release()

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Attribute(self, name)

    def __setattr__(self, name, value):
        self.tracer.create_proxy("call_function", builtins.setattr, (self, name, value), {})

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise _LenError(
            "'len' is not supported in symbolic tracing by default. To record it as a call, "
            "run torch.fx.wrap('len') at module scope"
        )

    def keys(self):
        return self.tracer.keys(self)

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        """A call that hands itself to its proxy arguments (``torch.ops.<ns>.<op>(proxy)``)
        becomes a ``call_function`` node on it, as in PyTorch."""
        kwargs = kwargs or {}
        tracers = []

        def find(a):
            if isinstance(a, Proxy) and a.tracer not in tracers:
                tracers.append(a.tracer)
            return a

        map_aggregate((args, kwargs), find)
        if len(tracers) > 1:
            raise RuntimeError(f"torch.fx: {orig_method} was called with proxies of two tracers")
        return tracers[0].create_proxy("call_function", orig_method, args, kwargs)

    def __deepcopy__(self, memo):
        return Proxy(self.node, self.tracer)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__.update(d)
        _acquire()
        self.__dict__["_counted"] = True


class Attribute(Proxy):
    """``proxy.name``: a ``getattr`` node made only when the value is used, or a
    ``call_method`` node when it is called."""

    def __init__(self, root, attr):
        self.__dict__["root"] = root
        self.__dict__["attr"] = attr
        self.__dict__["tracer"] = root.tracer
        self.__dict__["_node"] = None

    @property
    def node(self):
        if self._node is None:
            self.__dict__["_node"] = self.tracer.create_proxy(
                "call_function", getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def _binary(fn, reflected):
    def method(self, other):
        args = (other, self) if reflected else (self, other)
        return self.tracer.create_proxy("call_function", fn, args, {})

    return method


def _unary(fn):
    return lambda self: self.tracer.create_proxy("call_function", fn, (self,), {})


for _name in "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split():
    _fn = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    setattr(Proxy, f"__{_name}__", _binary(_fn, False))
    setattr(Proxy, f"__r{_name}__", _binary(_fn, True))
for _name in "lt le gt ge eq ne getitem".split():
    setattr(Proxy, f"__{_name}__", _binary(getattr(operator, _name), False))
for _name in "neg pos invert abs".split():
    setattr(Proxy, f"__{_name}__", _unary(getattr(operator, _name)))
Proxy.__hash__ = object.__hash__
del _name, _fn
