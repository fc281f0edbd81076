"""The optimiser: passes that rewrite a graph in place and keep its results.

- :func:`eliminate_dead_code` drops nodes whose outputs nobody reads (ops that write into a
  tensor, ``add_`` and friends, always stay);
- :func:`constant_fold` runs, once, every op whose inputs are all constants and stores the
  result as a ``prim::Constant``;
- :func:`eliminate_common_subexpressions` makes identical calls on identical values share
  one node;
- :func:`fuse_elementwise` groups chains of elementwise ops into ``prim::FusionGroup``
  nodes. A group is one node whose block lists its elementwise ops over the group's
  inputs; the interpreter runs them one by one (a fused kernel of the core will take the
  same format).

Random ops and ops that write into their inputs are never folded or merged, and a graph
containing in-place ops is not rewritten by CSE or folding at all (values stop being
immutable there).
"""

import torch
from torch.jit._ir import Block, Node, Value, map_values, values_in
from torch.jit._ops import resolve

_RANDOM = set(
    """rand rand_like randn randn_like randint randint_like randperm normal bernoulli
    multinomial dropout dropout1d dropout2d dropout3d alpha_dropout feature_alpha_dropout
    rrelu poisson uniform_ normal_ bernoulli_ random_ exponential_ empty empty_like
    new_empty""".split()
)
ELEMENTWISE = set(
    """add sub mul div true_divide neg relu sigmoid tanh exp log sqrt rsqrt abs pow clamp
    sin cos erf reciprocal square maximum minimum where gelu silu leaky_relu elu softplus
    hardtanh mish __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__
    __rtruediv__ __neg__ __pow__ __rpow__""".split()
)


def _op_name(kind):
    return kind.rpartition(".")[2]


_EFFECTS = ("prim::list_", "prim::dict_", "prim::RaiseException", "prim::PythonOp",
            "prim::CallMethod", "prim::CallFunction", "builtins.print")  # fmt: skip


def writes_inputs(node):
    """Whether the op writes into an argument (``add_``, ``__setitem__``, ``__iadd__``, out=)
    or has another effect (list appends, exceptions, calls of Python or of methods)."""
    if node.kind.startswith(_EFFECTS):
        return True
    name = _op_name(node.kind)
    if name.startswith("__i") or name in ("__setitem__", "copy_"):
        return True
    return (name.endswith("_") and not name.endswith("__")) or "out" in node.kwargs


def is_random(node):
    return _op_name(node.kind) in _RANDOM


def _uses(graph):
    used = set(values_in(graph.out))
    for n in graph.all_nodes():
        used.update(n.inputs)
        for b in n.blocks:
            used.update(v for v in b.outputs if isinstance(v, Value))
    return used


def eliminate_dead_code(graph):
    """Remove nodes whose results are unused. Returns the number removed."""
    removed = 0

    def sweep(block, live):
        nonlocal removed
        kept = []
        for n in reversed(block.nodes):
            if n.blocks or writes_inputs(n) or any(v in live for v in n.outputs):
                live.update(n.inputs)
                for b in n.blocks:
                    inner = set(v for v in b.outputs if isinstance(v, Value))
                    sweep(b, inner)
                    live.update(inner)
                kept.append(n)
            else:
                removed += 1
        block.nodes = kept[::-1]

    sweep(graph, set(values_in(graph.out)))
    return removed


def _mutating(graph):
    return any(writes_inputs(n) for n in graph.all_nodes())


def constant_fold(graph, consts=None):
    """Evaluate nodes whose inputs are all constants. Returns the number folded."""
    if _mutating(graph):
        return 0
    known = dict(consts or {})
    folded = 0
    new_nodes = []
    for n in graph.nodes:
        if n.kind == "prim::Constant":
            known[n.out] = n.attrs["value"]
            new_nodes.append(n)
            continue
        ins = n.inputs
        if n.blocks or is_random(n) or not all(v in known for v in ins):
            new_nodes.append(n)
            continue
        with torch.no_grad():
            result = resolve(n)(
                *map_values(n.args, known.__getitem__), **map_values(n.kwargs, known.__getitem__)
            )
        outs = n.outputs
        flat = _flatten_result(n.out, result)
        if flat is None:
            new_nodes.append(n)
            continue
        for v, r in zip(outs, flat):
            known[v] = r
            c = Node("prim::Constant", out=v, attrs={"value": r}, source=n.source)
            new_nodes.append(c)
        folded += 1
    graph.nodes = new_nodes
    eliminate_dead_code(graph)
    return folded


def _flatten_result(spec, result):
    out = []

    def go(s, r):
        if isinstance(s, Value):
            out.append(r)
            return True
        if isinstance(s, (tuple, list)) and isinstance(r, (tuple, list)) and len(s) == len(r):
            return all(go(a, b) for a, b in zip(s, r))
        return s == r

    return out if go(spec, result) else None


def _key(obj):
    if isinstance(obj, Value):
        return ("%", id(obj))
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__,) + tuple(_key(o) for o in obj)
    if isinstance(obj, dict):
        return ("dict",) + tuple((k, _key(v)) for k, v in sorted(obj.items()))
    if isinstance(obj, slice):
        return ("slice", _key(obj.start), _key(obj.stop), _key(obj.step))
    if isinstance(obj, torch.Tensor):
        return ("tensor", id(obj))
    return (type(obj).__name__, repr(obj))


def eliminate_common_subexpressions(graph):
    """Replace repeated identical calls by the first one. Returns the number removed."""
    if _mutating(graph):
        return 0
    seen = {}
    replace = {}
    kept = []
    removed = 0
    for n in graph.nodes:
        if replace:
            n.args = map_values(n.args, lambda v: replace.get(v, v))
            n.kwargs = map_values(n.kwargs, lambda v: replace.get(v, v))
        if n.blocks or is_random(n) or n.kind == "prim::Constant":
            kept.append(n)
            continue
        key = (n.kind, _key(n.args), _key(n.kwargs), _key(n.attrs))
        first = seen.get(key)
        if first is None or not _same_shape(first.out, n.out):
            seen[key] = n
            kept.append(n)
            continue
        for old, new in zip(n.outputs, first.outputs):
            replace[old] = new
        removed += 1
    graph.nodes = kept
    graph.out = map_values(graph.out, lambda v: replace.get(v, v))
    return removed


def _same_shape(a, b):
    return type(a) is type(b) and len(list(values_in(a))) == len(list(values_in(b)))


def _is_elementwise(node):
    space = node.kind.partition(".")[0]
    return (
        space in ("torch", "Tensor", "F")
        and _op_name(node.kind) in ELEMENTWISE
        and not (writes_inputs(node))
    )


def fuse_elementwise(graph, min_size=2):
    """Group chains of consecutive elementwise ops. Returns the number of groups made."""
    uses = {}  # value -> number of nodes outside a candidate group reading it
    for n in graph.all_nodes():
        for v in n.inputs:
            uses.setdefault(v, set()).add(n)
    outputs = set(values_in(graph.out))
    new_nodes, group, made = [], [], 0

    def close():
        nonlocal made
        if len(group) >= min_size:
            produced = {v for n in group for v in n.outputs}
            members = set(group)
            ins = []
            for n in group:
                for v in n.inputs:
                    if v not in produced and v not in ins:
                        ins.append(v)
            outs = [
                v
                for v in produced
                if v in outputs or any(u not in members for u in uses.get(v, ()))
            ]
            outs.sort(key=lambda v: [o for n in group for o in n.outputs].index(v))
            block = Block(inputs=ins, nodes=list(group), outputs=outs)
            fused = Node(
                "prim::FusionGroup",
                args=tuple(ins),
                out=tuple(outs),
                attrs={"ops": [n.kind for n in group]},
                blocks=[block],
                source=group[0].source,
            )
            new_nodes.append(fused)
            made += 1
        else:
            new_nodes.extend(group)
        group.clear()

    for n in graph.nodes:
        if _is_elementwise(n):
            produced = {v for g in group for v in g.outputs}
            if group and not any(v in produced for v in n.inputs):
                close()
            group.append(n)
        else:
            close()
            new_nodes.append(n)
    close()
    graph.nodes = new_nodes
    return made


def optimize(graph, fuse=True):
    """The standard pipeline: fold constants, CSE, DCE, then fuse elementwise chains."""
    constant_fold(graph)
    eliminate_common_subexpressions(graph)
    eliminate_dead_code(graph)
    if fuse:
        fuse_elementwise(graph)
    return graph
