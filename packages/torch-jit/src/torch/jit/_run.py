"""The interpreter: runs a graph's nodes one by one through the normal (autograd-enabled)
ops, so gradients reach the parameters exactly as in eager mode.

:func:`run_graph` runs a copy of the graph with its sums of matrix products accumulated
(:func:`torch.jit._passes.accumulate_matmuls`) and its elementwise chains grouped
(:func:`torch.jit._passes.fuse_elementwise`), made on the first call; a fusion group runs
as one call of the core's fused kernel (:mod:`torch.jit._fuser`) when no input needs a
gradient, and op by op otherwise."""

import torch
from torch.jit import _fuser, _passes, _trace
from torch.jit._ir import Value, copy_graph, map_values
from torch.jit._ops import resolve


def _trace_off():
    return _trace.current() is None


def _bind(spec, obj, env):
    if isinstance(spec, Value):
        env[spec] = obj
    elif isinstance(spec, (tuple, list)):
        for s, o in zip(spec, obj):
            _bind(s, o, env)


def run_nodes(nodes, env):
    """Execute ``nodes`` in order, reading and writing ``env`` (Value -> object)."""
    get = env.__getitem__
    for node in nodes:
        kind = node.kind
        try:
            if kind == "prim::Constant":
                env[node.out] = node.attrs["value"]
                continue
            if kind == "prim::If":
                _run_if(node, env)
                continue
            if kind == "prim::Loop":
                _run_loop(node, env)
                continue
            if kind == "prim::FusionGroup":
                _run_fusion(node, env)
                continue
            if kind == "prim::LinearFusionGroup":
                _run_linear_fusion(node, env)
                continue
            if kind == "prim::NoGrad":
                with torch.no_grad():
                    _bind(node.out, tuple(run_block(node.blocks[0], env)), env)
                continue
            fn = (
                node._fn
                if node._fn is not None and _trace_off()
                else resolve(node, cache=_trace_off())
            )
            args = map_values(node.args, get)
            kwargs = map_values(node.kwargs, get) if node.kwargs else {}
            result = fn(*args, **kwargs)
            if result is None and kind == "Tensor.__setitem__":
                result = args[0]  # (the traced node's output is the written tensor)
        except Exception as e:
            if node.source and hasattr(e, "add_note") and not getattr(e, "_jit_where", False):
                e.add_note(f"in the traced/scripted op {node.kind} called at {node.where()}")
                e._jit_where = True
            raise
        _bind(node.out, result, env)


def run_block(block, env, inputs=()):
    for v, x in zip(block.inputs, inputs):
        env[v] = x
    run_nodes(block.nodes, env)
    return [env[v] if isinstance(v, Value) else v for v in block.outputs]


def _truth(x):
    return bool(x.item()) if isinstance(x, torch.Tensor) else bool(x)


def _run_if(node, env):
    cond = map_values(node.args[0], env.__getitem__)
    block = node.blocks[0] if _truth(cond) else node.blocks[1]
    _bind(node.out, tuple(run_block(block, env)), env)


def _run_loop(node, env):
    trip, cond, *carried = map_values(node.args, env.__getitem__)
    body = node.blocks[0]
    i = 0
    trip = int(trip) if trip is not None else None
    while (trip is None or i < trip) and _truth(cond):
        cond, *carried = run_block(body, env, (i, *carried))
        i += 1
    _bind(node.out, tuple(carried), env)


def _program(node, tensors):
    """The group's compiled program where its fused kernel may run on ``tensors``, else
    None: while tracing, when one requires grad (and grad mode is on), under autocast
    (which may cast some of the ops), or for ops the kernel lacks."""
    if not _trace_off():
        return None
    program = node._fn
    if program is None:
        program = node._fn = _fuser.compile_group(node) or False
    if not program or torch.is_autocast_enabled("cpu") or torch.is_autocast_enabled("cuda"):
        return None
    if torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in tensors
    ):
        return None
    return program


def _group_outputs(node, env, ins):
    """A fusion group's outputs: one pass of the core's fused kernel (torch/jit/_fuser.py)
    where it can, else its elementwise ops one by one (see :func:`_program`)."""
    program = _program(node, ins)
    outs = program.run(ins) if program else None
    return outs if outs is not None else run_block(node.blocks[0], env, ins)


def _run_fusion(node, env):
    outs = _group_outputs(node, env, [env[v] for v in node.args])  # (its args are values)
    _bind(node.out, tuple(outs) if isinstance(node.out, tuple) else outs[0], env)


def _run_linear_fusion(node, env):
    """A fusion group with the ``F.linear`` it reads (:func:`_passes.absorb_linear_products`),
    and with ``then`` the ``F.linear`` that reads its one output: the products made chunk by
    chunk around the group's program where the kernel applies, else the first product, the
    group as :func:`_run_fusion` runs it, then the second product."""
    x, w, b, *rest = map_values(node.args, env.__getitem__)
    then = None
    if node.attrs.get("then"):
        w2, b2, *rest = rest
        then = (w2, b2)
    slot = node.attrs["slot"]
    program = _program(node, [x, w, b, *rest, *(then or ())])
    outs = program.run_linear(x, w, b, rest, slot, then) if program else None
    if outs is None:
        ins = rest[:slot] + [torch.nn.functional.linear(x, w, b)] + rest[slot:]
        outs = _group_outputs(node, env, ins)
        if then is not None:
            outs = [torch.nn.functional.linear(outs[0], *then)]
    _bind(node.out, tuple(outs) if isinstance(node.out, tuple) else outs[0], env)


def _executable(graph):
    """The graph that runs for ``graph``: a copy with its elementwise chains grouped into
    fusion groups (made once, and again when a pass has changed ``graph``'s nodes), or
    ``graph`` itself when it has fusion groups already or nothing to group."""
    cached = getattr(graph, "_exec_cache", None)
    if cached is not None and cached[0] is graph.nodes and cached[1] == len(graph.nodes):
        return cached[2]
    run, fused, changed = graph, copy_graph(graph), 0
    if not any(n.kind == "prim::FusionGroup" for n in graph.nodes):
        # (matmul sums first: their bias additions then join the elementwise group)
        changed = _passes.accumulate_matmuls(fused) + _passes.fuse_elementwise(fused)
    if _passes.absorb_linear_products(fused) + changed:
        run = fused
    graph._exec_cache = (graph.nodes, len(graph.nodes), run)
    return run


def run_graph(graph, inputs, params):
    """Run ``graph`` on flat tensor ``inputs`` with ``params`` (name -> tensor)."""
    if len(inputs) != len(graph.inputs):
        raise RuntimeError(f"expected {len(graph.inputs)} inputs, got {len(inputs)}")
    if _trace_off():
        graph = _executable(graph)
    env = dict(zip(graph.inputs, inputs))
    for name, v in graph.params.items():
        env[v] = params[name]
    run_nodes(graph.nodes, env)
    return map_values(graph.out, env.__getitem__)


def annotate_types(graph, inputs, params):
    """Run ``graph`` once and record each value's shape and dtype (what a scripted graph
    lacks and the exporters need). The blocks of branches not taken run too, on the same
    inputs, where they can."""
    env = dict(zip(graph.inputs, inputs))
    for name, v in graph.params.items():
        env[v] = params[name]
    calls = {}
    methods = [n for n in graph.all_nodes() if n.kind == "prim::CallMethod"]
    with torch.no_grad():
        for n in methods:
            n._fn = _recording_call(n, calls)
        try:
            run_nodes(graph.nodes, env)
            for node in graph.all_nodes():
                for block in node.blocks:
                    if all(v in env for n in block.nodes for v in n.outputs):
                        continue
                    loop = node.kind == "prim::Loop"
                    ins = [0, *map_values(node.args[2:], env.get)] if loop else []
                    try:
                        run_block(block, env, ins)
                    except Exception:  # noqa: BLE001  (a branch that cannot run keeps no types)
                        pass
        finally:
            for n in methods:
                n._fn = None
    for v, obj in env.items():
        if isinstance(obj, torch.Tensor):
            v.type, v.shape = "Tensor", tuple(obj.shape)
            v.dtype = str(obj.dtype).replace("torch.", "")
        elif isinstance(obj, bool):
            v.type = "bool"
        elif isinstance(obj, int):
            v.type = "int"
        elif isinstance(obj, float):
            v.type = "float"
    return calls


def _recording_call(node, calls):
    from torch.jit._ops import PRIM

    call = PRIM["prim::CallMethod"]

    def recorded(obj, name, *args, **kwargs):
        calls.setdefault(node, (args, kwargs))
        return call(obj, name, *args, **kwargs)

    return recorded
