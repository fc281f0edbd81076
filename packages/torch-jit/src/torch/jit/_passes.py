"""The optimiser: passes that rewrite a graph in place and keep its results.

- :func:`eliminate_dead_code` drops nodes whose outputs nobody reads (ops that write into a
  tensor, ``add_`` and friends, always stay);
- :func:`constant_fold` runs, once, every op whose inputs are all constants and stores the
  result as a ``prim::Constant``;
- :func:`eliminate_common_subexpressions` makes identical calls on identical values share
  one node;
- :func:`accumulate_matmuls` turns a sum of matrix products (``x @ w1 + b1 + h @ w2 + b2``)
  into one ``prim::matmul_sum`` whose later products add into the first one's buffer;
- :func:`fuse_elementwise` groups runs of elementwise ops into ``prim::FusionGroup``
  nodes. A group is one node whose block lists its elementwise ops over the group's
  inputs; the interpreter runs it as one pass of the core's fused kernel
  (:mod:`torch.jit._fuser`), or op by op where the kernel does not apply;
- :func:`absorb_linear_products` (at run time only) hands a group the ``F.linear`` whose
  result only it reads, so the product is made chunk by chunk under the group's program.

Random ops and ops that write into their inputs are never folded or merged, and a graph
containing in-place ops is not rewritten by CSE or folding at all (values stop being
immutable there).
"""

import math

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


def _joins(group, produced, node):
    """Whether elementwise ``node`` extends the open group: it reads the group's results, or
    its result has the shape and dtype (as traced) of the group's last one."""
    if any(v in produced for v in node.inputs):
        return True
    a, b = group[-1].outputs, node.outputs
    if len(a) != 1 or len(b) != 1:
        return False
    a, b = a[0], b[0]
    return a.shape is not None and (a.shape, a.dtype) == (b.shape, b.dtype)


def _hoistable(node, produced):
    """Whether ``node`` (not elementwise) may run before the open group: it reads none of
    the group's results and has no effect (no writes, no blocks, no random numbers)."""
    return not (
        node.blocks
        or writes_inputs(node)
        or is_random(node)
        or any(v in produced for v in node.inputs)
    )


class _NoPush(Exception):
    pass


def _chunk_args(node):
    """(value, chunks, dim) of a ``chunk`` call, or None."""
    if node.kind not in ("Tensor.chunk", "torch.chunk"):
        return None
    names = ["input", "chunks", "dim"]
    if len(node.args) > 3 or any(k not in names for k in node.kwargs):
        return None
    a = dict(zip(names, node.args), **node.kwargs)
    a.setdefault("dim", 0)
    if not isinstance(a.get("input"), Value) or any(
        isinstance(a.get(k), Value) or not isinstance(a.get(k), int) for k in ("chunks", "dim")
    ):
        return None
    return a["input"], a["chunks"], a["dim"]


def _chunk_sizes(n, chunks):
    step = -(-n // chunks)
    return [min(step, n - i) for i in range(0, n, step)]


def push_chunks_up(graph):
    """Move each ``chunk`` of an elementwise result above the elementwise ops that made it
    (``(a + b).chunk(4, 1)`` becomes ``a.chunk(4, 1)[i] + b.chunk(4, 1)[i]``), through
    results read by nothing else, so the ops before and after the chunk can fuse into one
    group and the whole tensor is never written. Needs the traced shapes; a broadcast
    operand (a bias) is chunked along its own dim, or used whole where it has size 1.
    Returns the number of chunks moved."""
    if _mutating(graph):
        return 0
    uses = {}
    for n in graph.all_nodes():
        for v in set(n.inputs):
            uses[v] = uses.get(v, 0) + 1
    outputs = set(values_in(graph.out))
    for n in graph.all_nodes():
        for b in n.blocks:
            outputs.update(v for v in b.outputs if isinstance(v, Value))
    producer = {v: n for n in graph.nodes for v in n.outputs}
    removed, moved = set(), 0

    def split(x, d, chunks, sizes, out=None, taken=None):
        """Values for the pieces of ``x`` along its dim ``d`` (None: x broadcasts there)."""
        if d is None or x.shape[d] == 1:
            return [x] * len(sizes), []
        if x.shape[d] != sum(sizes):
            raise _NoPush
        shapes = [x.shape[:d] + (k,) + x.shape[d + 1 :] for k in sizes]
        p = producer.get(x)
        single = (
            p is not None
            and p not in removed
            and _is_elementwise(p)
            and len(p.outputs) == 1
            and uses.get(x) == 1
            and x not in outputs
        )
        if not single:
            outs = out or [Value("Tensor", sh, x.dtype) for sh in shapes]
            return outs, [
                Node("Tensor.chunk", (x, chunks, d), out=tuple(outs), source=p and p.source)
            ]
        pieces, nodes = {}, []
        for v in p.inputs:
            if v.type != "Tensor" or v.shape is None:
                raise _NoPush
            if v not in pieces:
                dv = d - (len(x.shape) - len(v.shape))
                pieces[v], made = split(v, dv if dv >= 0 else None, chunks, sizes, taken=taken)
                nodes += made
        taken.add(p)
        outs = out or [Value("Tensor", sh, x.dtype) for sh in shapes]
        for i, o in enumerate(outs):
            piece = {v: ps[i] for v, ps in pieces.items()}
            nodes.append(
                Node(
                    p.kind,
                    map_values(p.args, lambda v, piece=piece: piece.get(v, v)),
                    map_values(p.kwargs, lambda v, piece=piece: piece.get(v, v)),
                    out=o,
                    attrs=p.attrs,
                    source=p.source,
                )
            )
        return outs, nodes

    new_nodes = []
    for n in graph.nodes:
        spec = _chunk_args(n)
        x = spec and spec[0]
        if spec and x.shape and producer.get(x) is not None and _is_elementwise(producer[x]):
            _, chunks, dim = spec
            d = dim + len(x.shape) if dim < 0 else dim
            outs = n.outputs
            if 0 <= d < len(x.shape) and x.shape[d] > 0 and chunks > 0:
                sizes = _chunk_sizes(x.shape[d], chunks)
                if len(sizes) == len(outs) and isinstance(n.out, tuple):
                    taken = set()
                    try:
                        _, made = split(x, d, chunks, sizes, out=list(n.out), taken=taken)
                    except _NoPush:
                        made = None
                    if made and taken:  # (else the chunk stays where it is)
                        removed.update(taken)
                        new_nodes.extend(made)
                        moved += 1
                        continue
        new_nodes.append(n)
    graph.nodes = [n for n in new_nodes if n not in removed]
    return moved


_ADDS = ("Tensor.__add__", "Tensor.__radd__", "Tensor.add", "torch.add")
_MATMULS = ("Tensor.__matmul__", "Tensor.matmul", "torch.matmul", "Tensor.mm", "torch.mm")


def _tensor_pair(node):
    """The two tensor values of a call with just two tensor arguments (``a + b``, no
    ``alpha``, ``out`` or numbers), else None."""
    args = node.args
    if len(args) != 2 or node.kwargs:
        return None
    if not all(isinstance(a, Value) and a.type == "Tensor" and a.shape is not None for a in args):
        return None
    return args


def accumulate_matmuls(graph):
    """Rewrite each sum of two or more matrix products, ``x @ w1 + b1 + h @ w2 + b2``, as one
    ``prim::matmul_sum(x, w1, h, w2) + b1 + b2`` (:func:`torch.jit._ops._matmul_sum`): the
    second product is added into the first one's buffer by the matrix-product kernel, so no
    (B, N) sum is written and the additions left (biases) fuse with what follows.

    Only for what the traced shapes show safe: the sum's terms all have its dtype, the
    products are 2-D @ 2-D of the sum's own shape (none broadcasts against another) and are
    read by nothing else; the other terms keep their order. Floating-point additions are
    only reassociated (same numbers up to rounding). Graphs with in-place ops are left
    alone (a product may not move past a write). Returns the number of sums rewritten."""
    if _mutating(graph):
        return 0
    uses = {}
    for n in graph.all_nodes():
        for v in n.inputs:  # (``p + p`` reads p twice: not single-use)
            uses[v] = uses.get(v, 0) + 1
    for n in graph.all_nodes():
        for b in n.blocks:
            for v in values_in(b.outputs):
                uses[v] = uses.get(v, 0) + 2
    for v in values_in(graph.out):
        uses[v] = uses.get(v, 0) + 2
    producer = {v: n for n in graph.nodes for v in n.outputs}
    seen, replace, made = set(), {}, 0

    def terms(v, tree, dtype):
        p = producer.get(v)
        if p in seen or p is None or p.kind not in _ADDS or uses.get(v) != 1:
            return [v]
        pair = _tensor_pair(p)
        if pair is None or v.dtype != dtype:
            return [v]
        seen.add(p)
        tree.append(p)
        return terms(pair[0], tree, dtype) + terms(pair[1], tree, dtype)

    for root in reversed(graph.nodes):
        out = root.out
        if root in seen or root.kind not in _ADDS or not isinstance(out, Value):
            continue
        pair = _tensor_pair(root)
        if pair is None or out.shape is None:
            continue
        seen.add(root)
        tree = [root]
        leaves = terms(pair[0], tree, out.dtype) + terms(pair[1], tree, out.dtype)
        if any(v.dtype != out.dtype for v in leaves):
            continue
        prods = []
        for i, v in enumerate(leaves):
            p = producer.get(v)
            mats = p is not None and p.kind in _MATMULS and _tensor_pair(p)
            if (
                mats
                and uses.get(v) == 1
                and v.shape == out.shape
                and all(len(m.shape) == 2 and m.dtype == out.dtype for m in mats)
            ):
                prods.append(i)
        if len(prods) < 2:
            continue
        rest = [v for i, v in enumerate(leaves) if i not in prods]
        mm_nodes = [producer[leaves[i]] for i in prods]
        last = max(mm_nodes, key=graph.nodes.index)
        acc = out if not rest else Value("Tensor", out.shape, out.dtype)
        args = tuple(m for p in mm_nodes for m in p.args)
        replace.update({p: [] for p in mm_nodes + tree})
        replace[last] = [Node("prim::matmul_sum", args, out=acc, source=mm_nodes[0].source)]
        chain = []
        # Terms smaller than the sum (biases) are summed once first, outside any fusion
        # group, so a group adds one of them to each element, not each of them.
        small = [v for v in rest if math.prod(v.shape) < math.prod(out.shape)]
        shape = small and torch.broadcast_shapes(*(v.shape for v in small))
        if len(small) > 1 and math.prod(shape) < math.prod(out.shape):
            total = Value("Tensor", shape, out.dtype)
            chain.append(Node("prim::sum", tuple(small), out=total, source=root.source))
            rest = [v for v in rest if v not in small] + [total]
        for i, v in enumerate(rest):  # (acc + b1) + b2 ..., the last one made root's value
            shape = torch.broadcast_shapes(acc.shape, v.shape)
            nxt = out if i == len(rest) - 1 else Value("Tensor", shape, out.dtype)
            chain.append(Node("Tensor.__add__", (acc, v), out=nxt, source=root.source))
            acc = nxt
        replace[root] = chain
        made += 1
    if made:
        graph.nodes = [m for n in graph.nodes for m in replace.get(n, [n])]
    return made


def fuse_elementwise(graph, min_size=2):
    """Group runs of elementwise ops. Returns the number of groups made.

    A run is consecutive elementwise ops each of which reads a result of the ones before or
    has the same (traced) shape and dtype; an op that is not elementwise and reads none of
    the run's results moves above it, so the run goes on after it (``x @ w1 + b1`` and
    ``h @ w2`` in ``x @ w1 + b1 + h @ w2 + b2`` leave the three additions one group).
    :func:`push_chunks_up` runs first."""
    push_chunks_up(graph)
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

    produced = set()
    for n in graph.nodes:
        if _is_elementwise(n):
            if group and not _joins(group, produced, n):
                close()
                produced.clear()
            group.append(n)
            produced.update(n.outputs)
        elif group and _hoistable(n, produced):
            new_nodes.append(n)  # (runs before the group, which comes after it)
        else:
            close()
            produced.clear()
            new_nodes.append(n)
    close()
    graph.nodes = new_nodes
    return made


def _linear_args(node):
    """(input, weight, bias) of a plain ``F.linear`` call node, else None."""
    if node is None or node.kind != "F.linear" or len(node.args) > 3:
        return None
    args = dict(zip(("input", "weight", "bias"), node.args))
    args.update(node.kwargs)
    if set(args) - {"input", "weight", "bias"}:
        return None
    x, w = args.get("input"), args.get("weight")
    if not isinstance(x, Value) or not isinstance(w, Value):
        return None
    return x, w, args.get("bias")


def absorb_linear_products(graph):
    """Give each fusion group the ``F.linear`` whose result it alone reads, as one
    ``prim::LinearFusionGroup`` node: args ``(input, weight, bias, *the group's other
    args)``, attribute ``slot`` the place of the product among the group's inputs, the
    group's block unchanged. The interpreter makes the product in row chunks and runs the
    group's program on each chunk while it is in cache (Note [Epilogue fusion] in
    csrc/fused.cpp), so the product is never written whole; where that kernel does not
    apply it runs ``F.linear`` and the group. Only for what the traced shapes show safe:
    every output of the group has the product's shape, nothing else reads the product.

    Where the group has one output and an ``F.linear`` alone reads it (an MLP block:
    linear, activation, linear), that second linear joins too: attribute ``then``, args
    ``(input, weight, bias, weight2, bias2, *the group's other args)``, the node's output
    the second linear's; weight2 and bias2 must exist where the group runs.

    Graphs with in-place ops are left alone. Returns the number of groups given a product.
    (A run-time rewrite only: saved and exported graphs keep plain groups.)"""
    if _mutating(graph):
        return 0
    reads, reader = {}, {}

    def count(nodes):  # (a group's own block reads only its inputs: not counted)
        for n in nodes:
            for v in n.inputs:
                reads[v] = reads.get(v, 0) + 1
                reader[v] = n
            for b in n.blocks if n.kind != "prim::FusionGroup" else ():
                count(b.nodes)
                for v in values_in(b.outputs):
                    reads[v] = reads.get(v, 0) + 2

    count(graph.nodes)
    for v in values_in(graph.out):
        reads[v] = reads.get(v, 0) + 2
    producer = {v: n for n in graph.nodes for v in n.outputs}
    position = {n: i for i, n in enumerate(graph.nodes)}

    def before(v, node):  # v is a constant, an input, or made by an earlier node
        p = producer.get(v) if isinstance(v, Value) else None
        return p is None or position[p] < position[node]

    replace, made = {}, 0
    for g in graph.nodes:
        if g.kind != "prim::FusionGroup" or g.kwargs:
            continue
        for slot, v in enumerate(g.args):
            p = producer.get(v)
            first = _linear_args(p)
            if first is None or p in replace or reads.get(v) != 1:
                continue
            x, w, b = first
            if v.shape is None or len(v.shape) < 2 or any(o.shape != v.shape for o in g.outputs):
                continue
            rest = tuple(a for i, a in enumerate(g.args) if i != slot)
            args, out, attrs = (x, w, b, *rest), g.out, {**g.attrs, "slot": slot}
            z = g.outputs[0] if len(g.outputs) == 1 else None
            q = reader.get(z) if z is not None and reads.get(z) == 1 else None
            second = _linear_args(q) if position.get(q, -1) > position[g] else None
            if second is not None and second[0] is z and before(second[1], g):
                _, w2, b2 = second
                if before(b2, g) and q not in replace:
                    replace[q] = []
                    args, out, attrs = (x, w, b, w2, b2, *rest), q.out, {**attrs, "then": True}
            replace[p] = []
            replace[g] = [
                Node(
                    "prim::LinearFusionGroup",
                    args=args,
                    out=out,
                    attrs=attrs,
                    blocks=g.blocks,
                    source=g.source,
                )
            ]
            made += 1
            break
    if made:
        graph.nodes = [m for n in graph.nodes for m in replace.get(n, [n])]
    return made


def optimize(graph, fuse=True):
    """The standard pipeline: fold constants, CSE, DCE, then fuse elementwise chains."""
    constant_fold(graph)
    eliminate_common_subexpressions(graph)
    eliminate_dead_code(graph)
    if fuse:
        fuse_elementwise(graph)
    return graph
