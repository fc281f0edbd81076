"""The graph IR shared by the tracer, the script compiler, the optimiser and the exporters.

A :class:`Graph` is a list of :class:`Node` s in execution order over :class:`Value` s (SSA:
every value is made once, by a graph input, a parameter or one node's output).

A node is one call of a core op, kept in the form it was called with: ``kind`` names the
op ("torch.add", "Tensor.view", "F.conv2d", "nn.LSTM", "operator.mul", "prim::Constant",
"prim::If", "prim::Loop", "prim::FusionGroup"), ``args``/``kwargs`` are the call's arguments
with every traced tensor or integer replaced by its :class:`Value`, and ``out`` is the
result's structure (a Value, or a tuple/list of them) that binds the op's results to
values. Everything else in ``args`` is a constant (numbers, strings, dtypes, slices, ...).
``source`` is the user's ``(file, line, text)`` that called the op.

Control flow nodes own :class:`Block` s: ``prim::If`` has a then and an else block with
no inputs; ``prim::Loop`` (args: trip count, condition, carried values...) has a body block
whose inputs are (iteration, carried...) and whose outputs are (condition, carried...).

Values know what tracing saw: ``shape`` and ``dtype`` for tensors (``type`` is "Tensor",
"int", "float", "bool", ...).
"""

import itertools

_ids = itertools.count()


_TYPE_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


class Value:
    """One SSA value: a graph input, a parameter, or a node output."""

    __slots__ = ("name", "type", "shape", "dtype", "node", "param")

    def __init__(self, type="Tensor", shape=None, dtype=None, name=None, param=None):
        self.name = name if name is not None else str(next(_ids))
        self.type = type
        self.shape = None if shape is None else tuple(int(s) for s in shape)
        self.dtype = dtype
        self.node = None  # the node that makes it (None for inputs and parameters)
        self.param = param  # the dotted attribute name for a parameter/buffer input

    @classmethod
    def like(cls, obj, **kw):
        """A value typed after ``obj`` (a tensor or a Python scalar)."""
        import torch

        if isinstance(obj, torch.Tensor):
            return cls("Tensor", tuple(obj.shape), str(obj.dtype).replace("torch.", ""), **kw)
        return cls(type(obj).__name__, **kw)

    def type_str(self):
        if self.type != "Tensor":
            return self.type
        if self.shape is None:
            return "Tensor"
        dt = _TYPE_NAMES.get(self.dtype, (self.dtype or "").capitalize())
        return f"{dt}({', '.join(map(str, self.shape))})"

    def __repr__(self):
        return "%" + self.name


class Node:
    """One op call (see the module docstring)."""

    __slots__ = ("kind", "args", "kwargs", "out", "attrs", "blocks", "source", "_fn")

    def __init__(self, kind, args=(), kwargs=None, out=None, attrs=None, blocks=(), source=None):
        self.kind = kind
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})
        self.out = out
        self.attrs = dict(attrs or {})
        self.blocks = list(blocks)
        self.source = source
        self._fn = None
        for v in self.outputs:
            v.node = self

    @property
    def inputs(self):
        """The values the call reads, in argument order (constants left out)."""
        return list(values_in((self.args, self.kwargs)))

    @property
    def outputs(self):
        return list(values_in(self.out))

    def where(self):
        """'file:line: text' of the user's call, or '' when unknown."""
        if not self.source:
            return ""
        file, line, text = self.source
        return f"{file}:{line}: {text}".rstrip()

    def __repr__(self):
        return format_node(self)


class Block:
    """A list of nodes with its own inputs and outputs (a graph body, an If branch, a Loop body)."""

    def __init__(self, inputs=(), nodes=(), outputs=()):
        self.inputs = list(inputs)
        self.nodes = list(nodes)
        self.outputs = list(outputs)


class Graph(Block):
    """A whole function: ``inputs`` (user arguments), ``params`` (name -> value of a module's
    parameter or buffer), ``nodes``, and ``out`` (the returned structure of values)."""

    def __init__(self):
        super().__init__()
        self.params = {}
        self.out = None
        self.in_spec = None  # how the user's (nested) arguments flatten onto ``inputs``
        # scripted code: in_spec is "args" and this is (names, type names, defaults)
        self.signature = None

    @property
    def outputs(self):
        return list(values_in(self.out))

    @outputs.setter
    def outputs(self, _):  # Block.__init__ assigns it; a graph's outputs come from ``out``
        pass

    def param(self, name, like):
        """The input value of parameter/buffer ``name`` (made once)."""
        v = self.params.get(name)
        if v is None:
            v = self.params[name] = Value.like(like, name=name, param=name)
        return v

    def all_nodes(self):
        """Every node, nested blocks included (pre-order)."""
        stack = list(reversed(self.nodes))
        while stack:
            n = stack.pop()
            yield n
            for b in reversed(n.blocks):
                stack.extend(reversed(b.nodes))

    def __str__(self):
        return format_graph(self)


def values_in(obj):
    """The values inside a nested structure of tuples/lists/dicts/slices, in order."""
    if isinstance(obj, Value):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from values_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from values_in(o)
    elif isinstance(obj, slice):
        yield from values_in((obj.start, obj.stop, obj.step))


def map_values(obj, fn):
    """``obj`` with each value v replaced by ``fn(v)`` (same structure)."""
    if isinstance(obj, Value):
        return fn(obj)
    if isinstance(obj, tuple):
        mapped = tuple(map_values(o, fn) for o in obj)
        return type(obj)(mapped) if type(obj) is not tuple and _is_size(obj) else mapped
    if isinstance(obj, list):
        return [map_values(o, fn) for o in obj]
    if isinstance(obj, dict):
        return {k: map_values(o, fn) for k, o in obj.items()}
    if isinstance(obj, slice):
        return slice(*(map_values(o, fn) for o in (obj.start, obj.stop, obj.step)))
    return obj


def _is_size(obj):
    import torch

    return isinstance(obj, torch.Size)


# ---------------------------------------------------------------- text forms
def _fmt_arg(a):
    if isinstance(a, Value):
        return repr(a)
    if isinstance(a, tuple):
        inner = ", ".join(_fmt_arg(x) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    if isinstance(a, list):
        return "[" + ", ".join(_fmt_arg(x) for x in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {_fmt_arg(v)}" for k, v in a.items()) + "}"
    if isinstance(a, slice):
        parts = (a.start, a.stop) if a.step is None else (a.start, a.stop, a.step)
        return ":".join("" if x is None else _fmt_arg(x) for x in parts)
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return f"<tensor {tuple(a.shape)}>"
    return repr(a)


def _fmt_call(node):
    parts = [_fmt_arg(a) for a in node.args]
    parts += [f"{k}={_fmt_arg(v)}" for k, v in node.kwargs.items()]
    attrs = {k: v for k, v in node.attrs.items() if k != "value"}
    if "value" in node.attrs:
        parts.append(f"value={_fmt_arg(node.attrs['value'])}")
    parts += [f"{k}={v!r}" for k, v in attrs.items()]
    return f"{node.kind}({', '.join(parts)})"


def format_node(node, indent="  "):
    outs = ", ".join(f"{v!r} : {v.type_str()}" for v in node.outputs)
    text = f"{indent}{outs + ' = ' if outs else ''}{_fmt_call(node)}"
    if node.source:
        text += f"  # {node.source[0].rsplit('/', 1)[-1]}:{node.source[1]}"
    lines = [text]
    for i, b in enumerate(node.blocks):
        ins = ", ".join(repr(v) for v in b.inputs)
        lines.append(f"{indent}  block{i}({ins}):")
        lines += [format_node(n, indent + "    ") for n in b.nodes]
        lines.append(f"{indent}    -> ({', '.join(_fmt_arg(v) for v in b.outputs)})")
    return "\n".join(lines)


def format_graph(graph):
    ins = [f"{v!r} : {v.type_str()}" for v in graph.inputs + list(graph.params.values())]
    lines = [f"graph({', '.join(ins)}):"]
    lines += [format_node(n) for n in graph.nodes]
    lines.append(f"  return ({_fmt_arg(graph.out)})")
    return "\n".join(lines)


_CODE_PREFIX = {"F.": "torch.nn.functional.", "Tensor.": "torch.Tensor.", "nn.": "torch.nn."}


def _code_name(v, names):
    if v.param is not None:
        return "self." + v.param
    return names.setdefault(v, f"v{len(names)}")


def _code_arg(a, names):
    if isinstance(a, Value):
        return _code_name(a, names)
    if isinstance(a, tuple):
        inner = ", ".join(_code_arg(x, names) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    if isinstance(a, list):
        return "[" + ", ".join(_code_arg(x, names) for x in a) + "]"
    if isinstance(a, slice):
        parts = (a.start, a.stop, a.step)
        return "slice(" + ", ".join(_code_arg(x, names) for x in parts) + ")"
    text = _fmt_arg(a)
    return text.replace("torch.", "torch.") if not text.startswith("<") else "CONSTANTS.c"


def _code_lines(nodes, names, indent):
    lines = []
    for n in nodes:
        outs = [_code_name(v, names) for v in n.outputs]
        lhs = ", ".join(outs) + (", " if len(outs) == 1 and not isinstance(n.out, Value) else "")
        if n.kind == "prim::Constant":
            rhs = _code_arg(n.attrs["value"], names)
            if rhs == "CONSTANTS.c":
                rhs = f"CONSTANTS.c{outs[0][1:]}"
        elif n.kind == "prim::GetAttr":
            rhs = f"{_code_arg(n.args[0], names)}.{n.args[1]}"
        elif n.kind == "prim::CallMethod":
            parts = [_code_arg(a, names) for a in n.args[2:]]
            parts += [f"{k}={_code_arg(v, names)}" for k, v in n.kwargs.items()]
            rhs = f"{_code_arg(n.args[0], names)}.{n.args[1]}({', '.join(parts)})"
        elif n.kind == "prim::If":
            lines.append(f"{indent}if {_code_arg(n.args[0], names)}:")
            for b, head in zip(n.blocks, ("", "else:")):
                if head:
                    lines.append(f"{indent}{head}")
                body = _code_lines(b.nodes, names, indent + "    ")
                lines += body or ([] if outs else [indent + "    pass"])
                if outs:
                    vals = ", ".join(_code_arg(v, names) for v in b.outputs)
                    lines.append(f"{indent}    {', '.join(outs)} = {vals}")
            continue
        elif n.kind == "prim::Loop":
            body = n.blocks[0]
            i = _code_name(body.inputs[0], names)
            carried = [_code_name(v, names) for v in body.inputs[1:]]
            init = [_code_arg(a, names) for a in n.args[2:]]
            if carried:
                lines.append(f"{indent}{', '.join(carried)} = {', '.join(init)}")
            lines.append(f"{indent}for {i} in range({_code_arg(n.args[0], names)}):")
            lines += _code_lines(body.nodes, names, indent + "    ")
            if carried:
                new = ", ".join(_code_arg(v, names) for v in body.outputs[1:])
                lines.append(f"{indent}    {', '.join(carried)} = {new}")
            if outs:
                lines.append(f"{indent}{', '.join(outs)} = {', '.join(carried)}")
            continue
        else:
            name = n.kind
            for short, full in _CODE_PREFIX.items():
                if name.startswith(short):
                    name = full + name[len(short) :]
            parts = [_code_arg(a, names) for a in n.args]
            parts += [f"{k}={_code_arg(v, names)}" for k, v in n.kwargs.items()]
            rhs = f"{name}({', '.join(parts)})"
        lines.append(f"{indent}{lhs} = {rhs}" if outs else f"{indent}{rhs}")
    return lines


def format_code(graph, name="forward", method=True):
    """The graph as Python-like source (``ScriptModule.code``)."""
    names = {}
    inputs = list(graph.inputs)
    if inputs and inputs[0].type == "Module":  # a scripted method's own ``self``
        names[inputs.pop(0)] = "self"
    args = (["self"] if method else []) + [_code_name(v, names) for v in inputs]
    lines = [f"def {name}({', '.join(args)}):"]
    lines += _code_lines(graph.nodes, names, "    ")
    lines.append(f"    return {_code_arg(graph.out, names)}")
    return "\n".join(lines) + "\n"


def copy_graph(graph):
    """A copy with fresh values and nodes (constant tensors are shared, not copied)."""
    fresh = {}

    def new(v):
        c = fresh.get(v)
        if c is None:
            c = fresh[v] = Value(v.type, v.shape, v.dtype, name=v.name, param=v.param)
        return c

    def block(b, into):
        into.inputs = [new(v) for v in b.inputs]
        into.nodes = [node(n) for n in b.nodes]
        if not isinstance(into, Graph):
            into.outputs = map_values(list(b.outputs), new)
        return into

    def node(n):
        return Node(
            n.kind,
            map_values(n.args, new),
            map_values(n.kwargs, new),
            map_values(n.out, new),
            dict(n.attrs),
            [block(b, Block()) for b in n.blocks],
            n.source,
        )

    g = Graph()
    g.params = {k: new(v) for k, v in graph.params.items()}
    block(graph, g)
    g.out = map_values(graph.out, new)
    g.in_spec = graph.in_spec
    g.signature = graph.signature
    return g
