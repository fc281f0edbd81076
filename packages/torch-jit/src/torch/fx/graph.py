"""``Graph``: the nodes of one ``forward``, in execution order, and the Python they become.

The nodes form a doubly linked list closed by a sentinel, so inserting and erasing are
cheap and iterating ``graph.nodes`` survives erasing the node being visited. New nodes go
at the end, or where :meth:`Graph.inserting_before` / :meth:`Graph.inserting_after` say.
:meth:`Graph.python_code` writes the graph back out as a ``forward`` function.
"""

import builtins
import contextlib
import keyword
import math
import operator
import re

import torch
from torch._ops import OpOverload, OpOverloadPacket
from torch.fx.node import Node, _fmt, map_arg

__all__ = ["Graph", "PythonCode"]

_NO_DEFAULT = object()


class _Namespace:
    """Unique Python identifiers for node names: ``add``, ``add_1``, ``float_1`` ..."""

    def __init__(self):
        self._used = set()
        self._count = {}

    def create(self, candidate):
        base = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_"
        if base[0].isdigit():
            base = "_" + base
        name = base
        if name in self._used or keyword.iskeyword(name) or hasattr(builtins, name):
            n = self._count.get(base, 0)
            while True:
                n += 1
                name = f"{base}_{n}"
                if name not in self._used:
                    break
            self._count[base] = n
        self._used.add(name)
        return name

    def release(self, name):
        self._used.discard(name)


class _NodeList:
    def __init__(self, graph, reverse=False):
        self._graph, self._reverse = graph, reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = "_prev" if self._reverse else "_next"
        cur = getattr(root, step)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, step)

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))

    def __repr__(self):
        return repr(list(self))


class PythonCode:
    """What :meth:`Graph.python_code` returns: ``src`` (the module source) and ``globals``."""

    def __init__(self, src, globals):
        self.src = src
        self.globals = globals


def _target_name(target):
    """The name a node gets from its target, as in PyTorch: a callable's ``__name__``, a
    string target without its dunder underscores (``__mul__`` -> ``mul``), in snake case
    (``MyFn`` -> ``my_fn``, ``myMod.subMod`` -> ``my_mod_sub_mod``)."""
    if isinstance(target, str):
        name = target
        if len(name) > 4 and name.startswith("__") and name.endswith("__"):
            name = name[2:-2]
    else:
        name = getattr(target, "__name__", None)
        if not isinstance(name, str):
            name = type(target).__name__
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()


class Graph:
    """The IR of :mod:`torch.fx`: build it with the node methods, run it as a GraphModule."""

    def __init__(self, owning_module=None, tracer_cls=None):
        self._root = Node(self, "", "placeholder", "", (), {})
        self._len = 0
        self._names = _Namespace()
        self._insert = self._root.prepend
        self.owning_module = owning_module
        self._tracer_cls = tracer_cls

    @property
    def nodes(self):
        """The nodes in execution order (supports ``len`` and ``reversed``)."""
        return _NodeList(self)

    # ---------------------------------------------------------------- creating nodes
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Insert a new node at the current insertion point and return it."""
        if name is None:
            name = "output" if op == "output" else _target_name(target)
        node = Node(self, self._names.create(name), op, target, args or (), kwargs or {}, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name, type_expr=None, default_value=_NO_DEFAULT):
        """An input of ``forward`` called ``name`` (with a default when one is given)."""
        args = () if default_value is _NO_DEFAULT else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Read the parameter, buffer or submodule at ``qualified_name`` of the owning module."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The value ``forward`` returns (one per graph, normally the last node)."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """Copy ``node`` (from any graph) here, mapping its input nodes with ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        name = node.name if node.op != "placeholder" else None
        new = self.create_node(node.op, node.target, args, kwargs, name, node.type)
        new.meta = dict(node.meta)
        return new

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy the nodes of ``g`` here (``val_map`` maps old to new nodes and is filled in);
        returns the copied output value instead of adding the output node."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                out = map_arg(node.args[0], lambda n: val_map[n])
                return (out, node) if return_output_node else out
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo):
        g = Graph(tracer_cls=self._tracer_cls)
        out = g.graph_copy(self, {})
        if out is not None or any(n.op == "output" for n in self.nodes):
            g.output(out)
        memo[id(self)] = g
        return g

    def erase_node(self, to_erase):
        """Remove a node that nothing reads any more."""
        if to_erase.graph is not self or to_erase._erased:
            raise RuntimeError(f"erase_node: node {to_erase} is not in this graph")
        if to_erase.users:
            raise RuntimeError(
                f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in "
                f"the graph: {dict(to_erase.users)}! Replace its uses first "
                "(replace_all_uses_with)."
            )
        to_erase._remove_from_list()
        to_erase._erased = True
        to_erase._update_args_kwargs((), {})
        self._names.release(to_erase.name)
        self._len -= 1

    @contextlib.contextmanager
    def _insert_at(self, insert):
        saved, self._insert = self._insert, insert
        try:
            yield
        finally:
            self._insert = saved

    def inserting_before(self, n=None):
        """``with graph.inserting_before(n):`` new nodes go just before ``n``
        (the start if None)."""
        if n is None:
            return self._insert_at(self._root.append)
        return self._insert_at(n.prepend)

    def inserting_after(self, n=None):
        """``with graph.inserting_after(n):`` each new node goes just after ``n``
        (the end if None; several nodes end up in reverse order, as in PyTorch)."""
        if n is None:
            return self._insert_at(self._root.prepend)
        return self._insert_at(n.append)

    def find_nodes(self, *, op, target=None):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---------------------------------------------------------------- checks and passes
    def lint(self):
        """Check the graph: every input defined earlier in this graph, names unique,
        targets of the right kind and present in the owning module."""
        seen, names = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node {node} does not belong to this graph")
            if node.name in names:
                raise RuntimeError(f"Node name {node.name!r} is not unique")
            names.add(node.name)
            for inp in node.all_input_nodes:
                if inp.graph is not self:
                    raise RuntimeError(
                        f"Argument {inp} of node {node} belongs to a different graph"
                    )
                if inp not in seen:
                    raise RuntimeError(
                        f"Argument {inp} of node {node} is used before it is defined"
                    )
            seen.add(node)
            mod = self.owning_module
            if mod is not None and node.op in ("get_attr", "call_module"):
                obj = mod
                for part in node.target.split("."):
                    if not hasattr(obj, part):
                        raise RuntimeError(
                            f"Node {node} target {node.target} does not exist in the owning module"
                        )
                    obj = getattr(obj, part)

    def eliminate_dead_code(self):
        """Erase nodes without users that have no side effects; True if any went."""
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not node.is_impure():
                self.erase_node(node)
                changed = True
        return changed

    # ---------------------------------------------------------------- printing
    def __str__(self):
        params = ", ".join(
            f"{n.name}" for n in self.nodes if n.op == "placeholder" and n.type is not None
        )
        lines = [f"graph({params}):"] + ["    " + n.format_node() for n in self.nodes]
        return "\n".join(lines)

    __repr__ = __str__

    def print_tabular(self):
        """Print the nodes as a table (needs the ``tabulate`` package)."""
        try:
            from tabulate import tabulate
        except ImportError as e:
            raise ImportError(
                "Graph.print_tabular needs the `tabulate` package, which is not installed; "
                "install it with `pip install tabulate`"
            ) from e
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    # ---------------------------------------------------------------- code generation
    def python_code(self, root_module="self"):
        """The graph as Python source defining ``forward(self, ...)``, with its globals."""
        return _CodeGen(self, root_module).run()


_INFIX = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
    operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
    operator.rshift: ">>", operator.lt: "<", operator.le: "<=", operator.gt: ">",
    operator.ge: ">=", operator.eq: "==", operator.ne: "!=",
}  # fmt: skip
_PREFIX = {operator.neg: "-", operator.pos: "+", operator.invert: "~", operator.not_: "not "}


def _quoted(name):
    """A string literal in double quotes, as PyTorch writes getattr's names."""
    return f'"{name}"' if '"' not in name and "\\" not in name else repr(name)


def _attr_path(base, path):
    expr = base
    for part in path.split("."):
        expr = (
            f"{expr}.{part}"
            if part.isidentifier() and not keyword.iskeyword(part)
            else f"getattr({expr}, {_quoted(part)})"
        )
    return expr


class _CodeGen:
    def __init__(self, graph, root):
        self.graph, self.root = graph, root
        self.globals = {"torch": torch, "inf": math.inf, "nan": math.nan, "__fx_generated__": True}
        self.wrapped = []

    def add_global(self, hint, obj):
        for k, v in self.globals.items():
            if v is obj and k != "__fx_generated__":
                return k
        name = re.sub(r"[^0-9a-zA-Z_]", "_", hint)
        base, i = name, 0
        while name in self.globals or keyword.iskeyword(name) or hasattr(builtins, name):
            i += 1
            name = f"{base}_{i}"
        self.globals[name] = obj
        return name

    def fn_expr(self, fn):
        if isinstance(fn, (OpOverloadPacket, OpOverload)):
            return f"torch.ops.{fn}"  # torch.ops.profiler._record_function_exit(.default)
        name = getattr(fn, "__name__", None)
        if getattr(builtins, name or "", None) is fn:
            return name
        if name:
            from torch.fx.proxy import unwrap
            from torch.nn import functional as F

            for prefix, space in (
                ("torch", torch),
                ("torch.nn.functional", F),
                ("torch.Tensor", torch.Tensor),
            ):
                if unwrap(getattr(space, name, None)) is fn:
                    return f"{prefix}.{name}"
            if getattr(operator, name, None) is fn:
                return f"{self.add_global('operator', operator)}.{name}"
        from torch.fx._symbolic_trace import _is_wrapped

        mod = getattr(fn, "__module__", None) or "fn"
        g = self.add_global(f"{mod}_{getattr(fn, '__qualname__', name) or 'fn'}", fn)
        if _is_wrapped(fn) and g not in self.wrapped:
            self.wrapped.append(g)
        return g

    def arg(self, a):
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple) and not hasattr(a, "_fields") and type(a) is tuple:
            inner = ", ".join(self.arg(x) for x in a)
            return f"({inner},)" if len(a) == 1 else f"({inner})"
        if isinstance(a, list):
            return "[" + ", ".join(self.arg(x) for x in a) + "]"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{self.arg(k)}: {self.arg(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({self.arg(a.start)}, {self.arg(a.stop)}, {self.arg(a.step)})"
        if a is None or a is Ellipsis or isinstance(a, (bool, int, str)):
            return repr(a)
        if isinstance(a, float):
            return repr(a)  # inf / nan are globals
        if isinstance(a, (torch.dtype, torch.memory_format)):
            return str(a)
        if isinstance(a, torch.device):
            return f"torch.device({str(a)!r})"
        if callable(a) and not isinstance(a, torch.nn.Module):
            return self.fn_expr(a)
        return self.add_global(f"_{type(a).__name__}_const", a)

    def call(self, node):
        args, kwargs = node.args, node.kwargs
        if node.op == "get_attr":
            return _attr_path(self.root, node.target)
        if node.op == "call_module":
            callee = _attr_path(self.root, node.target)
        elif node.op == "call_method":
            callee = f"{self.arg(args[0])}.{node.target}"
            args = args[1:]
        else:
            fn = node.target
            if not kwargs:
                if fn in _INFIX and len(args) == 2:
                    return f"{self.arg(args[0])} {_INFIX[fn]} {self.arg(args[1])}"
                if fn in _PREFIX and len(args) == 1:
                    return f"{_PREFIX[fn]}{self.arg(args[0])}"
                if fn is operator.getitem and len(args) == 2:
                    return f"{self.arg(args[0])}[{self.arg(args[1])}]"
                if (
                    fn is builtins.getattr
                    and len(args) == 2
                    and isinstance(args[1], str)
                    and args[1].isidentifier()
                ):
                    return f"{self.arg(args[0])}.{args[1]}"
            callee = self.fn_expr(fn)
        parts = [self.arg(a) for a in args] + [f"{k} = {self.arg(v)}" for k, v in kwargs.items()]
        return f"{callee}({', '.join(parts)})"

    def run(self):
        nodes = list(self.graph.nodes)
        last_use = {}
        for node in nodes:
            for inp in node.all_input_nodes:
                last_use[inp] = node
        dies_at = {}
        for value, user in last_use.items():
            dies_at.setdefault(user, []).append(value)
        params, body = [self.root], []
        for node in nodes:
            if node.op == "placeholder":
                params.append(
                    node.target if not node.args else f"{node.target} = {self.arg(node.args[0])}"
                )
                if node.name != node.target:  # (the node's name differs: `my_x = myX`)
                    body.append(f"{node.name} = {node.target}")
                continue
            if node.op == "output":
                body.append(f"return {self.arg(node.args[0])}")
                continue
            line = f"{node.name} = {self.call(node)}"
            dead = [v.name for v in dies_at.get(node, ())]
            if not node.users:  # a result nothing reads goes at once too
                dead.append(node.name)
            if dead:
                line += ";  " + " = ".join(dead) + " = None"
            body.append(line)
        if not body:
            body.append("pass")
        head = "\n".join(f'torch.fx._symbolic_trace.wrap("{w}")' for w in self.wrapped)
        src = (
            "\n"
            + head
            + "\n\n"
            + f"def forward({', '.join(params)}):\n"
            + "".join(f"    {b}\n" for b in body)
            + "    "
        )
        return PythonCode(src, self.globals)


del _fmt
