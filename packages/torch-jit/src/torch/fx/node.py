"""``Node``: one operation of an FX :class:`~torch.fx.Graph`, and helpers over arguments.

A node is one of six ``op`` kinds: ``placeholder`` (an input of ``forward``), ``get_attr``
(a parameter, buffer or submodule of the owning module, ``target`` is its dotted path),
``call_function`` (``target`` is a callable), ``call_method`` (``target`` is a method name
called on ``args[0]``), ``call_module`` (``target`` is the path of a submodule) and
``output`` (``args[0]`` is what ``forward`` returns). Arguments are nested tuples, lists,
dicts, slices and constants in which other nodes stand for their values; ``users`` is
kept up to date whenever ``args``/``kwargs`` change.
"""

import builtins

from torch._ops import OpOverload, OpOverloadPacket

__all__ = ["Node", "map_arg", "map_aggregate"]


def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of the nested tuples/lists/dicts/slices in ``a``."""
    if isinstance(a, tuple):
        items = tuple(map_aggregate(x, fn) for x in a)
        return type(a)(*items) if hasattr(a, "_fields") else items
    if isinstance(a, list):
        return [map_aggregate(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(
            map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn)
        )
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to every :class:`Node` inside the argument structure ``a``."""
    if not callable(fn):
        raise TypeError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _collect_nodes(a):
    found = {}
    map_arg(a, lambda n: found.setdefault(n))
    return found


class Node:
    """One operation of a graph; create nodes through :class:`~torch.fx.Graph` methods."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in (
            "placeholder",
            "get_attr",
            "call_function",
            "call_method",
            "call_module",
            "output",
        ):
            raise ValueError(f"torch.fx.Node: unknown op {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"call_function node {name!r}: target {target!r} is not callable")
        if op in ("get_attr", "call_method", "call_module") and not isinstance(target, str):
            raise ValueError(
                f"{op} node {name!r}: target must be a string, not {type(target).__name__}"
            )
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self.users = {}
        self.meta = {}
        self._input_nodes = {}
        self._args, self._kwargs = (), {}
        self._prev = self._next = self
        self._erased = False
        self._update_args_kwargs(tuple(args), dict(kwargs))

    # ---------------------------------------------------------------- arguments
    def _update_args_kwargs(self, args, kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args, self._kwargs = args, kwargs
        self._input_nodes = _collect_nodes((args, kwargs))
        for new in self._input_nodes:
            new.users.setdefault(self)

    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, value):
        self._update_args_kwargs(tuple(value), self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value):
        self._update_args_kwargs(self._args, dict(value))

    @property
    def all_input_nodes(self):
        """The nodes this node reads, in order of first appearance."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self._args)
        args[idx] = arg
        self.args = args

    def update_kwarg(self, key, arg):
        self.kwargs = {**self._kwargs, key: arg}

    def replace_input_with(self, old_input, new_input):
        """Make this node read ``new_input`` wherever it read ``old_input``."""
        swap = lambda n: new_input if n is old_input else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(
        self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False
    ):
        """Make every user of this node read ``replace_with`` instead; returns those users."""
        if propagate_meta:
            for k, v in self.meta.items():
                replace_with.meta.setdefault(k, v)
        changed = []
        for user in list(self.users):
            if user is replace_with or not delete_user_cb(user):
                continue
            user.replace_input_with(self, replace_with)
            changed.append(user)
        return changed

    # ---------------------------------------------------------------- list position
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Move or insert node ``x`` just before this node."""
        if x is self:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev, x._next, self._prev = x, p, self, x

    def append(self, x):
        """Move or insert node ``x`` just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    # ---------------------------------------------------------------- misc
    def is_impure(self):
        """True when the node must stay even without users (inputs, output, side effects)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return getattr(self.target, "_fx_side_effect", False) or self.target in _SIDE_EFFECTS
        if self.op == "call_module":
            mod = self.graph.owning_module
            try:
                return (
                    bool(getattr(mod.get_submodule(self.target), "_is_impure", False))
                    if mod
                    else False
                )
            except AttributeError:
                return False
        return False

    def format_node(self):
        """One line describing this node, as in ``str(graph)``."""
        if self.op == "output":
            return f"return {self._args[0]}"  # (the value's own str, nodes by name)
        target = self.target if isinstance(self.target, str) else _callable_name(self.target)
        head = f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={target}]"
        if self.op in ("placeholder", "get_attr"):
            return head
        return f"{head}(args = {_fmt(self._args)}, kwargs = {_fmt(self._kwargs)})"

    def __repr__(self):
        return self.name


_SIDE_EFFECTS = set()


def _callable_name(fn):
    """The dotted name a graph printout gives a function, as PyTorch's: ``torch.relu``,
    ``torch.nn.functional.softmax``, ``torch.Tensor.add``, ``operator.add``, ``builtins.len``."""
    if isinstance(fn, (OpOverloadPacket, OpOverload)):
        return f"torch.ops.{fn}"  # (as PyTorch prints an operator)
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str):
        return repr(fn)
    mod = getattr(fn, "__module__", None) or ""
    if mod == "builtins" or getattr(builtins, name, None) is fn:
        return f"builtins.{name}"
    if mod == "_operator":
        return f"operator.{name}"
    public = _public_space(fn, name, mod)
    if public is not None:
        return f"{public}.{name}"
    qualname = getattr(fn, "__qualname__", None) or name
    if not qualname.replace(".", "_").isidentifier():
        qualname = name
    return f"{mod}.{qualname}" if mod else qualname


def _public_space(fn, name, mod):
    """Which public namespace ``fn`` is reached from under its ``__name__`` (our functions
    live in private modules, or are built-ins of ``torch._C``), or None."""
    import sys

    import torch

    def holds(space):
        if space is None:
            return False
        got = getattr(space, name, None)
        return got is fn or getattr(got, "__wrapped__", None) is fn

    if not mod.startswith("torch"):
        return None
    if mod.split(".")[-1][:1] != "_" and holds(sys.modules.get(mod)):
        return mod  # a public module that has it: torch.nn.functional.linear, torch.linalg.norm
    spaces = [("torch.functional", getattr(torch, "functional", None))]
    torch_first = [
        ("torch", torch),
        ("torch.nn.functional", sys.modules.get("torch.nn.functional")),
    ]
    if mod.startswith(("torch._nn", "torch.nn")):  # F's own functions (F.softmax is torch.softmax)
        torch_first.reverse()
    spaces += torch_first
    spaces += [
        (f"torch.{sub}", sys.modules.get(f"torch.{sub}")) for sub in ("linalg", "special", "fft")
    ]
    for label, space in spaces:
        if label == "torch.functional" and name not in getattr(space, "__all__", ()):
            continue
        if holds(space):
            return label
    if holds(torch.Tensor):
        return "torch.Tensor"
    return None


def _fmt(a):
    if isinstance(a, Node):
        return "%" + a.name
    if isinstance(a, tuple):
        inner = ", ".join(_fmt(x) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    if isinstance(a, list):
        return "[" + ", ".join(_fmt(x) for x in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in a.items()) + "}"
    return str(a)
