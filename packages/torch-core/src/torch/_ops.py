"""``torch.ops``: operators by namespace, as PyTorch's ``torch.ops.<namespace>.<op>``.

``torch.ops.<namespace>`` is an :class:`_OpNamespace` (any name gives one, as in PyTorch),
``torch.ops.<namespace>.<op>`` an :class:`OpOverloadPacket` that calls the overload its
arguments fit, and ``.default`` / ``.<overload>`` an :class:`OpOverload` that calls one.
This build has no C++ operator registry: the operators are the ones listed in
``_NAMESPACES``, Python functions registered here, namely the profiler's
``_record_function_enter``, ``_record_function_enter_new`` and ``_record_function_exit``
(``torch.profiler``). An operator that is not there raises AttributeError, naming it.
"""

import types

__all__ = ["OpOverload", "OpOverloadPacket", "ops"]


def _overloaded_args(args, kwargs):
    """The arguments (also inside a list or tuple argument) whose type defines
    ``__torch_function__`` (a ``torch.fx`` Proxy, a tensor-like), in order, one per type,
    a subclass before its base class: the ones an operator call hands itself to."""
    found = []

    def visit(a):
        if hasattr(type(a), "__torch_function__") and not any(type(b) is type(a) for b in found):
            at = next((i for i, b in enumerate(found) if issubclass(type(a), type(b))), len(found))
            found.insert(at, a)

    for a in (*args, *kwargs.values()):
        if type(a) in (list, tuple):
            for b in a:
                visit(b)
        else:
            visit(a)
    return found


def _torch_function(op, overloaded, args, kwargs):
    """The ``__torch_function__`` protocol: each overloaded argument's type in turn is asked
    to run ``op``; NotImplemented passes to the next, and when all decline it is a
    TypeError."""
    types_ = tuple(type(a) for a in overloaded)
    for a in overloaded:
        result = type(a).__torch_function__(op, types_, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(
        f"no implementation found for 'torch.ops.{op}' on types that implement "
        f"__torch_function__: {list(types_)}"
    )


class OpOverload:
    """One overload of an operator (``torch.ops.profiler._record_function_exit.default``)."""

    def __init__(self, packet, overload, fn, schema):
        self._overloadpacket = packet
        self._overloadname = overload
        self._op = fn
        self._schema = schema  # the signature, as text
        self.__name__ = self.__qualname__ = f"{packet.__name__}.{overload}"
        self.__module__ = packet.__module__
        self.__doc__ = getattr(fn, "__doc__", None)
        self._fx_side_effect = packet._fx_side_effect

    @property
    def overloadpacket(self):
        return self._overloadpacket

    @property
    def op(self):
        return self._op

    def name(self):
        """``namespace::op`` (``.overload`` appended for a non-default one)."""
        base = self._overloadpacket._qualified_op_name
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def namespace(self):
        return self._overloadpacket._namespace

    def __call__(self, *args, **kwargs):
        overloaded = _overloaded_args(args, kwargs)
        if overloaded:
            return _torch_function(self, overloaded, args, kwargs)
        return self._op(*args, **kwargs)

    def __deepcopy__(self, memo=None):
        return self  # (an operator is one object: a copied fx graph calls the same)

    def __reduce__(self):
        packet = self._overloadpacket
        return (_find, (packet._namespace, packet.__name__, self._overloadname))

    def __repr__(self):
        return f"<OpOverload(op='{self._overloadpacket}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self._overloadpacket}.{self._overloadname}"


class OpOverloadPacket:
    """An operator with its overloads (``torch.ops.profiler._record_function_exit``):
    calling it calls the overload ``select(*args, **kwargs)`` names (the default one when
    there is no ``select``)."""

    def __init__(self, namespace, name, overloads, select=None, side_effect=False):
        self._namespace = namespace
        self._qualified_op_name = f"{namespace}::{name}"
        self.__name__ = self.__qualname__ = name
        self.__module__ = f"torch._ops.{namespace}"
        self._fx_side_effect = side_effect  # torch.fx's dead-code elimination keeps the call
        self._select = select
        self._overloads = {
            ov: OpOverload(self, ov, fn, schema) for ov, (fn, schema) in overloads.items()
        }
        first = next(iter(self._overloads.values()))
        self.__doc__ = first.__doc__

    def overloads(self):
        """The overload names (``"default"`` first)."""
        return list(self._overloads)

    @property
    def op(self):
        return self.__call__

    def __getattr__(self, name):
        overloads = self.__dict__.get("_overloads", {})
        if name in overloads:
            return overloads[name]
        raise AttributeError(
            f"The underlying op of '{self._namespace}.{self.__name__}' has no overload name "
            f"'{name}'"
        )

    def __call__(self, *args, **kwargs):
        overloaded = _overloaded_args(args, kwargs)
        if overloaded:
            return _torch_function(self, overloaded, args, kwargs)
        overload = self._select(*args, **kwargs) if self._select else "default"
        return self._overloads[overload]._op(*args, **kwargs)

    def __deepcopy__(self, memo=None):
        return self

    def __reduce__(self):
        return (_find, (self._namespace, self.__name__))

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self.__name__}')>"

    def __str__(self):
        return f"{self._namespace}.{self.__name__}"


class _OpNamespace(types.ModuleType):
    """``torch.ops.<namespace>``: its operators as attributes."""

    def __init__(self, name):
        super().__init__("torch.ops." + name)
        self.name = name
        self._dir = []

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        packet = _load(self.name, op_name)
        if packet is None:
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}' (this "
                f"build's torch.ops has no operator '{self.name}::{op_name}')"
            )
        setattr(self, op_name, packet)
        self._dir.append(op_name)
        return packet

    def __iter__(self):
        return iter(self._dir)


class _Ops(types.ModuleType):
    """``torch.ops``: ``torch.ops.<namespace>.<op>``."""

    __file__ = "_ops.py"

    def __init__(self):
        super().__init__("torch.ops")
        self.loaded_libraries = set()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace

    def load_library(self, path):
        """Loading custom C++ operators is not supported: this build has no operator
        registry to put them in."""
        raise RuntimeError(
            f"torch.ops.load_library({path!r}): this build has no C++ operator registry, so "
            "custom operator libraries cannot be loaded"
        )

    def __iter__(self):
        return iter(n for n, v in vars(self).items() if isinstance(v, _OpNamespace))


# ---------------------------------------------------------------------------------------
# the operators
def _profiler_ops():
    from torch import profiler as p

    def exit_overload(*args, **kwargs):
        handle = args[0] if args else kwargs.get("handle", kwargs.get("record"))
        return "_RecordFunction" if isinstance(handle, p._RecordFunction) else "default"

    return {
        "_record_function_enter": (
            {
                "default": (
                    p._record_function_enter,
                    "profiler::_record_function_enter(str name, str? args=None) -> Tensor",
                )
            },
            None,
        ),
        "_record_function_enter_new": (
            {
                "default": (
                    p._record_function_enter_new,
                    "profiler::_record_function_enter_new(str name, str? args=None) -> "
                    "__torch__.torch.classes.profiler._RecordFunction",
                )
            },
            None,
        ),
        "_record_function_exit": (
            {
                "default": (
                    p._record_function_exit,
                    "profiler::_record_function_exit(Tensor handle) -> ()",
                ),
                "_RecordFunction": (
                    p._record_function_exit_record,
                    "profiler::_record_function_exit._RecordFunction("
                    "__torch__.torch.classes.profiler._RecordFunction record) -> ()",
                ),
            },
            exit_overload,
        ),
    }


# namespace -> (function giving {op name: ({overload: (fn, schema)}, select)}, side effect)
_NAMESPACES = {"profiler": (_profiler_ops, True)}
_tables = {}


def _load(namespace, op_name):
    entry = _NAMESPACES.get(namespace)
    if entry is None:
        return None
    make, side_effect = entry
    table = _tables.get(namespace)
    if table is None:
        table = _tables[namespace] = make()
    spec = table.get(op_name)
    if spec is None:
        return None
    overloads, select = spec
    return OpOverloadPacket(namespace, op_name, overloads, select, side_effect)


def _find(namespace, op_name, overload=None):
    """``torch.ops.<namespace>.<op_name>[.<overload>]`` (how a pickled operator loads)."""
    packet = getattr(getattr(ops, namespace), op_name)
    return packet if overload is None else getattr(packet, overload)


ops = _Ops()
