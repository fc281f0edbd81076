"""The tracer: run the user's code once and record the core ops it calls.

How (see ``_ops.py`` for the interception point): while :class:`Tracer` is active, every
op entry of ``torch``, ``torch._C``, ``torch.Tensor`` and ``torch.nn.functional`` is a
wrapper that runs the op and, for the outermost op only, appends a :class:`Node` to the
graph. Tensors are matched to graph values by identity; a tensor the graph has not made
is a parameter or buffer of the traced module (by identity again) or else a constant.

Sizes stay symbolic: ``t.shape``/``t.size()`` return :class:`SymInt` s, ints that remember
the ``Tensor.size`` node that made them, and arithmetic on them is recorded
(``operator.mul``), so ``x.view(x.size(0), -1)`` keeps following the batch size when the
graph runs at another shape (ONNX export with ``dynamic_axes`` relies on it).

A tensor turned into Python data (``.item()``, ``int(t)``, ``bool(t)``, ``.tolist()``) is
frozen into the trace with a :class:`TracerWarning`.

Submodules: :class:`ModuleScopes` cuts each submodule's own graph out of the same run, from
the ops recorded between the entry and the return of its first call, so no forward runs
twice (``traced.child`` in ``torch.jit.trace``).
"""

import os
import sys
import threading
import warnings

import torch
from torch.jit import _ops
from torch.jit._ir import Graph, Node, Value, map_values, values_in

Tensor = torch.Tensor
_state = threading.local()
_LOCK = threading.RLock()


class TracerWarning(Warning):
    """The trace may not generalise: Python data taken from a tensor was frozen into it."""


class TracingCheckError(RuntimeError):
    """``check_trace`` found the traced graph disagreeing with the Python function."""


def current():
    """The active tracer, or None."""
    return getattr(_state, "tracer", None)


def is_tracing():
    """True while ``torch.jit.trace`` runs the traced code."""
    return current() is not None


def _torch_dirs():
    return tuple(os.path.realpath(p) + os.sep for p in torch.__path__)


def user_source(skip_dirs=None):
    """(file, line, text) of the innermost frame outside the torch packages, or None."""
    import linecache

    skip = skip_dirs or _torch_dirs()
    f = sys._getframe(1)
    while f is not None:
        file = f.f_code.co_filename
        if not os.path.realpath(file).startswith(skip) and not file.startswith("<frozen"):
            return (file, f.f_lineno, linecache.getline(file, f.f_lineno).strip())
        f = f.f_back
    return None


class SymInt(int):
    """An int from a traced shape: arithmetic on it is recorded (see the module docstring)."""

    def _op(self, name, other, reverse=False):
        import operator

        a, b = (other, self) if reverse else (self, other)
        result = getattr(operator, name)(int(a), int(b))
        tr = current()
        if tr is None or tr.depth or not isinstance(result, int):
            return result
        return tr.record_int("operator." + name, (a, b), result)

    def __add__(self, o):
        return self._op("add", o) if isinstance(o, int) else int(self) + o

    def __radd__(self, o):
        return self._op("add", o, True) if isinstance(o, int) else o + int(self)

    def __sub__(self, o):
        return self._op("sub", o) if isinstance(o, int) else int(self) - o

    def __rsub__(self, o):
        return self._op("sub", o, True) if isinstance(o, int) else o - int(self)

    def __mul__(self, o):
        return self._op("mul", o) if isinstance(o, int) else int(self) * o

    def __rmul__(self, o):
        return self._op("mul", o, True) if isinstance(o, int) else o * int(self)

    def __floordiv__(self, o):
        return self._op("floordiv", o) if isinstance(o, int) else int(self) // o

    def __mod__(self, o):
        return self._op("mod", o) if isinstance(o, int) else int(self) % o

    def __neg__(self):
        return self._op("mul", -1)

    __hash__ = int.__hash__


class Tracer:
    """Records one run (use :func:`trace_graph`)."""

    def __init__(self, params=None):
        self.graph = Graph()
        self.values = {}  # id(tensor or SymInt) -> Value
        # Value -> the tensor or SymInt bound to it; it also keeps everything in ``values``
        # alive (ids must not be reused)
        self.objs = {}
        self.params = params or {}  # id(tensor) -> dotted name
        self.depth = 0
        # values computed from the data of an input or a parameter (not from shapes only):
        # turning one of them into a Python value is what TracerWarning reports
        self.dynamic = set()
        self.skip = _torch_dirs()

    # -------------------------------------------------------------- values
    def bind(self, obj, value):
        self.values[id(obj)] = value
        self.objs[value] = obj

    def value_of(self, obj, make_const=True):
        """The graph value of a tensor or SymInt; None for other Python data."""
        v = self.values.get(id(obj))
        if v is not None or not isinstance(obj, Tensor):
            return v
        name = self.params.get(id(obj))
        if name is not None:
            v = self.graph.param(name, obj)
            self.dynamic.add(v)
        else:
            if obj.grad_fn is not None:
                warnings.warn(
                    TracerWarning(
                        "torch.jit.trace: a tensor computed outside the traced ops is used as "
                        f"a constant{self._where()}; its value is frozen into the trace"
                    ),
                    stacklevel=4,
                )
            v = Value.like(obj)
            self.depth += 1  # (detach() here is not the user's: it records nothing)
            try:
                value = obj.detach()
            finally:
                self.depth -= 1
            self.graph.nodes.append(
                Node("prim::Constant", out=v, attrs={"value": value}, source=self.source())
            )
        self.bind(obj, v)
        return v

    def source(self):
        return user_source(self.skip)

    def _where(self):
        src = self.source()
        return f" (at {src[0]}:{src[1]}: {src[2]})" if src else ""

    def _encode(self, obj):
        """A call argument with tensors and SymInts replaced by values."""
        if isinstance(obj, (Tensor, SymInt)):
            v = self.value_of(obj)
            return obj if v is None else v
        if isinstance(obj, tuple):
            enc = tuple(self._encode(o) for o in obj)
            return enc if type(obj) is tuple else (torch.Size(enc) if _plain(enc) else enc)
        if isinstance(obj, list):
            return [self._encode(o) for o in obj]
        if isinstance(obj, dict):
            return {k: self._encode(o) for k, o in obj.items()}
        if isinstance(obj, slice):
            return slice(*(self._encode(o) for o in (obj.start, obj.stop, obj.step)))
        return obj

    def _outputs(self, obj):
        """The output structure of an op result: a fresh value per tensor."""
        if isinstance(obj, Tensor):
            v = Value.like(obj)
            self.bind(obj, v)
            return v
        if isinstance(obj, (tuple, list)):
            return (
                type(obj)(self._outputs(o) for o in obj)
                if type(obj) in (tuple, list)
                else (tuple(self._outputs(o) for o in obj))
            )
        return obj

    # -------------------------------------------------------------- recording
    def record(self, kind, args, kwargs, result, attrs=None):
        enc_args, enc_kwargs = self._encode(args), self._encode(kwargs)
        if not _has_tensor(result):
            return result
        out = self._outputs(result)
        node = Node(kind, enc_args, enc_kwargs, out, attrs=attrs, source=self.source())
        if any(v in self.dynamic for v in node.inputs):
            self.dynamic.update(node.outputs)
        self.graph.nodes.append(node)
        return result

    def record_int(self, kind, args, result):
        enc = self._encode(args)
        if not any(True for _ in values_in(enc)):
            return result
        sym = SymInt(result)
        v = Value("int")
        self.bind(sym, v)
        node = Node(kind, enc, out=v, source=self.source())
        self.graph.nodes.append(node)
        if any(x in self.dynamic for x in node.inputs):
            self.dynamic.add(v)
        return sym

    def size_of(self, t, dim):
        n = _ORIG_SIZE(t, dim)
        v = self.value_of(t)
        sym = SymInt(n)
        out = Value("int")
        self.bind(sym, out)  # (sizes are not data: ops on them stay static for warnings)
        self.graph.nodes.append(Node("Tensor.size", (v, dim), out=out, source=self.source()))
        return sym


def _plain(t):
    return all(isinstance(x, int) for x in t)


def _has_tensor(obj):
    if isinstance(obj, Tensor):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_has_tensor(o) for o in obj)
    return False


# ------------------------------------------------------------------ the patches
_ORIG_SIZE = Tensor.size
_ORIG_SHAPE = Tensor.__dict__["shape"]


# Ops that write into their first argument and return None.
WRITES_SELF = ("Tensor.__setitem__",)


def _wrap(fn, kind):
    def op(*args, **kwargs):
        tr = current()
        if tr is None or tr.depth:
            return fn(*args, **kwargs)
        tr.depth += 1
        try:
            result = fn(*args, **kwargs)
        finally:
            tr.depth -= 1
        if result is None and kind in WRITES_SELF and args:
            # t[i] = v: the node's output is the written tensor's new value
            tr.record(kind, args, kwargs, args[0])
            return None
        return tr.record(kind, args, kwargs, result)

    op.__name__ = getattr(fn, "__name__", kind)
    op.__doc__ = getattr(fn, "__doc__", None)
    op.__wrapped__ = fn
    return op


def _to_python(fn, name):
    def op(self, *args, **kwargs):
        tr = current()
        if tr is not None and not tr.depth and tr.values.get(id(self)) in tr.dynamic:
            what = {"item": "a Python number", "tolist": "a Python list"}.get(
                name, f"a Python {name.strip('_')}"
            )
            warnings.warn(
                TracerWarning(
                    f"Converting a tensor to {what} might cause the trace to be incorrect: the "
                    f"value is recorded as a constant{tr._where()}"
                ),
                stacklevel=2,
            )
        return fn(self, *args, **kwargs)

    op.__name__ = name
    return op


def _size(self, dim=None):
    tr = current()
    if tr is None or tr.depth or id(self) not in tr.values:
        return _ORIG_SIZE(self) if dim is None else _ORIG_SIZE(self, dim)
    if dim is not None:
        return tr.size_of(self, dim)
    return torch.Size([tr.size_of(self, d) for d in range(self.dim())])


def _shape(self):
    return _size(self)


def _module_forward(cls, forward):
    """A recurrent layer's forward recorded as one ``nn.<Class>`` node."""

    def recorded(self, *args, **kwargs):
        tr = current()
        if tr is None or tr.depth:
            return forward(self, *args, **kwargs)
        weights = {n: p for n, p in self._parameters.items() if p is not None}
        tr.depth += 1
        try:
            result = forward(self, *args, **kwargs)
        finally:
            tr.depth -= 1
        attrs = {"config": _ops.module_config(self), "training": self.training}
        return tr.record("nn." + cls.__name__, args, {**kwargs, "weights": weights}, result, attrs)

    recorded.__wrapped__ = forward
    return recorded


def _patch_plan():
    import torch.nn as nn

    plan = []
    for space, _, ops in _ops.namespaces():
        for name, kind in ops.items():
            orig = vars(space)[name]
            plan.append((space, name, orig, _wrap(getattr(space, name), kind)))
    for name in _ops.TO_PYTHON:
        if name in vars(Tensor):
            plan.append((Tensor, name, vars(Tensor)[name], _to_python(getattr(Tensor, name), name)))
    plan.append((Tensor, "size", vars(Tensor)["size"], _size))
    plan.append((Tensor, "shape", _ORIG_SHAPE, property(_shape)))
    for cls in (nn.LSTM, nn.GRU, nn.RNN):
        plan.append((cls, "forward", vars(cls)["forward"], _module_forward(cls, cls.forward)))
    return plan


_PLAN = None


class _Patched:
    """Installs the recording wrappers (re-entrant: nested traces share one installation)."""

    depth = 0

    def __enter__(self):
        global _PLAN
        _LOCK.acquire()
        if _Patched.depth == 0:
            # built afresh: whatever another package installed since is what gets restored
            _PLAN = _patch_plan()
            for space, name, _, new in _PLAN:
                setattr(space, name, new)
        _Patched.depth += 1

    def __exit__(self, *exc):
        _Patched.depth -= 1
        if _Patched.depth == 0:
            for space, name, orig, _ in _PLAN:
                setattr(space, name, orig)
        _LOCK.release()


# ------------------------------------------------------------------ flattening arguments
def flatten(obj):
    """(list of tensors, spec) where spec is ``obj`` with tensors replaced by their index."""
    leaves = []

    def go(o):
        if isinstance(o, Tensor):
            leaves.append(o)
            return _Leaf(len(leaves) - 1)
        if isinstance(o, (tuple, list)):
            return type(o)(go(x) for x in o) if type(o) in (tuple, list) else tuple(map(go, o))
        if isinstance(o, dict):
            return {k: go(v) for k, v in o.items()}
        return o

    return leaves, go(obj)


class _Leaf(int):
    """Index of a flattened tensor inside an argument spec."""


def unflatten(spec, leaves):
    if isinstance(spec, _Leaf):
        return leaves[spec]
    if isinstance(spec, (tuple, list)):
        return type(spec)(unflatten(s, leaves) for s in spec)
    if isinstance(spec, dict):
        return {k: unflatten(v, leaves) for k, v in spec.items()}
    return spec


def trace_graph(fn, args, kwargs=None, params=None, strict=True, scopes=None):
    """Run ``fn(*args, **kwargs)`` once, recording it. Returns (graph, eager result).
    ``scopes`` (a :class:`ModuleScopes`) also records its submodules' graphs in that run."""
    kwargs = kwargs or {}
    tr = Tracer(params)
    if scopes is not None:
        scopes.tracer = tr
    leaves, spec = flatten((tuple(args), kwargs))
    g = tr.graph
    g.in_spec = spec
    for t in leaves:
        v = Value.like(t)
        g.inputs.append(v)
        tr.bind(t, v)
        tr.dynamic.add(v)
    outer = current()
    with _Patched():
        _state.tracer = tr
        try:
            result = fn(*args, **kwargs)
        finally:
            _state.tracer = outer
    if strict and _has_container(result):
        raise RuntimeError(
            "torch.jit.trace: Encountering a dict or list at the output of the tracer might "
            "cause the trace to be incorrect; pass strict=False to allow a list or dict output"
        )
    g.out = _encode_result(tr, result)
    return g, result


# ------------------------------------------------------------------ submodule graphs
class _Scope:
    """One open call of a watched submodule: its inputs and where its ops begin."""

    __slots__ = ("module", "leaves", "inputs", "spec", "start")

    def __init__(self, module, leaves, inputs, spec, start):
        self.module, self.leaves, self.inputs, self.spec = module, leaves, inputs, spec
        self.start = start


class _NoGraph(Exception):
    """A submodule call whose ops cannot make a graph of their own."""


class ModuleScopes:
    """The graph of each watched submodule's ``forward``, taken from the one traced run.

    A forward pre-hook opens a scope when a watched module is called at the top level of
    the trace (not from inside a recorded op) and notes the values of its tensor
    arguments; a forward hook closes it. The nodes recorded in between are that call's
    ops: copied with the arguments as the graph inputs, the module's own parameters and
    buffers under their names relative to it, and any other value from outside (a
    constant, a tensor or int the caller computed) frozen as a constant, as a trace of the
    submodule on its own would have it. Each module keeps the graph of its first call;
    nothing runs a second time. ``graphs`` maps ``id(module)`` to the graph."""

    def __init__(self, root, modules, strict=True):
        self.root = root
        self.modules = {id(m): m for m in modules}
        self.parents = {}  # id(module) -> ids of the modules (or root) holding it
        for m in (root, *modules):
            for child in m._modules.values():
                if id(child) in self.modules:
                    self.parents.setdefault(id(child), set()).add(id(m))
        self.strict = strict
        self.tracer = None  # set by trace_graph
        self.graphs = {}
        self._stack = []  # (module, _Scope or None) per call being run
        self._handles = []

    def __enter__(self):
        for m in self.modules.values():
            self._handles.append(m.register_forward_pre_hook(self._enter, with_kwargs=True))
            self._handles.append(
                m.register_forward_hook(self._exit, with_kwargs=True, prepend=True)
            )
        return self

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        self._handles = []
        self._stack = []
        return False

    def _enter(self, module, args, kwargs):
        tr = current()
        if tr is None or tr is not self.tracer:
            return  # (another thread, or a trace run inside this one)
        scope = None
        if not tr.depth and id(module) not in self.graphs and self._wanted(module):
            leaves, spec = flatten((tuple(args), kwargs))
            tr.depth += 1  # (what runs here is not the user's: t.shape records no size)
            try:
                inputs = [tr.value_of(t) for t in leaves]
            finally:
                tr.depth -= 1
            scope = _Scope(module, leaves, inputs, spec, len(tr.graph.nodes))
        self._stack.append((module, scope))

    def _wanted(self, module):
        """Whether this call's graph can be used: the module is not being recorded already
        (a recursive call), and one of its holders is the root or has (or is getting) a
        graph of its own, so that the module is reachable from the traced root (a
        ModuleList is never called: its items' calls are not recorded)."""
        recording = {id(s.module) for _, s in self._stack if s is not None}
        if id(module) in recording:
            return False
        return any(
            p == id(self.root) or p in self.graphs or p in recording
            for p in self.parents.get(id(module), ())
        )

    def _exit(self, module, args, kwargs, result):
        tr = current()
        if tr is None or tr is not self.tracer:
            return None
        # a call that raised never reached its hook: its entry is dropped with the next one
        while self._stack:
            m, scope = self._stack.pop()
            if m is module:
                break
        else:
            return None
        if scope is not None:
            tr.depth += 1
            try:
                graph = self._graph(scope, result)
            except _NoGraph:
                graph = None
            finally:
                tr.depth -= 1
            if graph is not None:
                self.graphs[id(module)] = graph
        return None

    def _graph(self, scope, result):
        from torch.jit import _passes

        tr = self.tracer
        if self.strict and _has_container(result):
            return None  # (a trace of the module alone would refuse it: it stays eager)
        try:
            out = _encode_result(tr, result)
        except RuntimeError:
            return None
        names = {}
        for name, t in list(scope.module.named_parameters()) + list(scope.module.named_buffers()):
            names.setdefault(id(t), name)
        g = Graph()
        g.in_spec = scope.spec
        fresh = {}  # value of the run -> value of the new graph
        for t, v in zip(scope.leaves, scope.inputs):
            fresh[v] = Value.like(t)  # (a tensor passed twice: its last argument, as bind does)
            g.inputs.append(fresh[v])
        consts = []

        def outside(v):
            obj = tr.objs.get(v)
            if isinstance(obj, Tensor) and id(obj) in names:
                c = g.param(names[id(obj)], obj)
            elif isinstance(obj, Tensor):
                producer = v.node
                if producer is not None and producer.kind == "prim::Constant":
                    value, source = producer.attrs["value"], producer.source
                else:
                    if obj.grad_fn is not None:
                        warnings.warn(
                            TracerWarning(
                                f"torch.jit.trace: {type(scope.module).__name__} uses a tensor "
                                "its caller computed (not an argument) as a constant in its "
                                "own traced graph; its value is frozen there"
                            ),
                            stacklevel=2,
                        )
                    value, source = obj.detach(), None
                c = Value.like(obj)
                consts.append(Node("prim::Constant", out=c, attrs={"value": value}, source=source))
            elif isinstance(obj, int):
                return int(obj)  # a size the caller computed: a constant here
            else:  # (nothing the tracer made: the module keeps running eagerly)
                raise _NoGraph(v)
            fresh[v] = c
            return c

        def arg(v):
            c = fresh.get(v)
            return c if c is not None else outside(v)

        def made(v):
            c = fresh[v] = Value(v.type, v.shape, v.dtype)
            return c

        nodes = []
        for n in tr.graph.nodes[scope.start :]:
            args, kwargs = map_values(n.args, arg), map_values(n.kwargs, arg)
            nodes.append(
                Node(n.kind, args, kwargs, map_values(n.out, made), dict(n.attrs), (), n.source)
            )
        g.out = map_values(out, arg)
        g.nodes = consts + nodes
        _passes.eliminate_dead_code(g)
        rename(g)
        return g


def _has_container(obj):
    if isinstance(obj, (list, dict)):
        return True
    return isinstance(obj, tuple) and any(_has_container(o) for o in obj)


def _encode_result(tr, obj):
    if isinstance(obj, Tensor):
        return tr.value_of(obj)
    if isinstance(obj, tuple):
        return tuple(_encode_result(tr, o) for o in obj)
    if isinstance(obj, list):
        return [_encode_result(tr, o) for o in obj]
    if isinstance(obj, dict):
        return {k: _encode_result(tr, o) for k, o in obj.items()}
    if obj is None or isinstance(obj, (int, float, bool, str)):
        return obj
    raise RuntimeError(
        f"torch.jit.trace: only tensors and (nested) tuples of tensors can be returned from a "
        f"traced function, got {type(obj).__name__}"
    )


def rename(graph):
    """Number the values of a graph 0, 1, ... in order (the text form reads better)."""
    seen = set()
    count = 0
    for v in graph.inputs:
        v.name, count = str(count), count + 1
        seen.add(v)

    def visit(nodes):
        nonlocal count
        for n in nodes:
            for b in n.blocks:
                for v in b.inputs:
                    if v not in seen:
                        v.name, count = str(count), count + 1
                        seen.add(v)
                visit(b.nodes)
            for v in n.outputs:
                if v not in seen:
                    v.name, count = str(count), count + 1
                    seen.add(v)

    visit(graph.nodes)
