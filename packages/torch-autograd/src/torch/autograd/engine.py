"""The backward engine: runs the tape's nodes in dependency order, without recursion.

1. Walk the graph from the roots and count, for each node, how many edges lead into it.
2. With ``inputs`` (``autograd.grad``, ``backward(inputs=...)``), keep only the nodes from
   which an input is reachable.
3. Run a node when every edge into it has delivered its gradient (count reaches zero):
   the gradients for each of its outputs are summed first, then its formula is called and
   its results are passed along its edges.  Unless ``retain_graph``, a node frees its saved
   tensors right after it ran.
"""

import torch
from torch import _C
from torch.autograd import graph
from torch.autograd.graph import AccumulateGrad

_set_grad_enabled = _C._set_grad_enabled


def _collect(roots):
    """Dependency counts of every node reachable from roots, and its list of children."""
    deps = {}
    stack = list(roots)
    seen = set(stack)
    while stack:
        fn = stack.pop()
        for e in fn._edges:
            if e is None:
                continue
            child = e[0]
            deps[child] = deps.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return deps, seen


def _needed(nodes, targets):
    """Nodes from which some target node is reachable (iterative post-order)."""
    needed = {}
    for start in nodes:
        if start in needed:
            continue
        stack = [(start, iter(start._edges))]
        needed[start] = start in targets
        while stack:
            fn, it = stack[-1]
            for e in it:
                if e is None:
                    continue
                child = e[0]
                if child not in needed:
                    needed[child] = child in targets
                    stack.append((child, iter(child._edges)))
                    break
                if needed[child]:
                    needed[fn] = True
            else:
                stack.pop()
                if stack and needed[fn]:
                    needed[stack[-1][0]] = True
    return needed


def _real_output(node, nr):
    """Whether output nr of node is a real tensor (its gradient must then be real)."""
    meta = node._out_meta
    if meta:
        return meta[nr] is not None and not meta[nr][1].is_complex
    return node._real_out


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _call(fn, grads, create_graph):
    """Run one node: its pre-hooks, its formula, its post-hooks."""
    if fn._pre_hooks:
        grads = _run_pre_hooks(fn, grads)
    try:
        if fn.multi_output:
            if all(g is None for g in grads):
                return [None] * len(fn._edges)
            out = fn.backward(*fn._materialize(grads))
        else:
            if grads[0] is None:
                return [None] * len(fn._edges)
            out = fn.backward(grads[0])
    except Exception as e:
        _explain(e, fn)
        raise
    if graph.anomaly["enabled"] and graph.anomaly["check_nan"]:
        _check_nan(fn, out)
    if fn._post_hooks:
        for hook in fn._post_hooks:
            new = hook(out, grads)
            if new is not None:
                out = new
    return out


def _run_pre_hooks(fn, grads):
    grads = list(grads)
    for nr, hooks in fn._pre_hooks.items():
        for hook in hooks:
            if nr < 0:  # node pre-hook: sees all grads
                new = hook(tuple(grads))
                if new is not None:
                    grads = list(new)
            elif grads[nr] is not None:
                new = hook(grads[nr])
                if new is not None:
                    grads[nr] = new
    return grads


def _explain(e, fn):
    """Name the forward op (and where it was called) in an error raised by its backward."""
    note = f"in the backward of {fn.name()}{fn.where()}"
    if note not in str(e) and not getattr(e, "__notes__", None):
        e.add_note(note)


def _check_nan(fn, out):
    for i, g in enumerate(out):
        if isinstance(g, torch.Tensor) and g.is_floating_point() and bool(g.isnan().any()):
            raise RuntimeError(
                f"Function '{fn.name()}' returned nan values in its {i}th output{fn.where()}"
            )


def run_backward(roots, grads, retain_graph, create_graph, inputs=None, accumulate=True):
    """Propagate ``grads`` (one per root edge) through the graph.

    roots: list of (node, output_nr).  With ``inputs`` (tensors), returns their gradients
    (None where none reached them); with ``accumulate`` those of leaves also go into
    ``.grad``, otherwise nothing is written to any ``.grad``.
    """
    if inputs is None:
        return _run_all(roots, grads, retain_graph, create_graph)
    root_nodes = {fn for fn, _ in roots}
    deps, nodes = _collect(root_nodes)
    captures = {}  # node -> [(output_nr, slot)]: where the grads of `inputs` are read
    leaf_slots = {}  # AccumulateGrad node -> slot
    if inputs is not None:
        for slot, t in enumerate(inputs):
            e = graph.edge(t)
            if e is None:
                continue
            if isinstance(e[0], AccumulateGrad):
                leaf_slots[e[0]] = slot
            else:
                captures.setdefault(e[0], []).append((e[1], slot))
        needed = _needed(root_nodes, set(captures) | set(leaf_slots))
        deps = {}
        for fn in nodes:
            if needed.get(fn):
                for e in fn._edges:
                    if e is not None and needed.get(e[0]):
                        deps[e[0]] = deps.get(e[0], 0) + 1
    else:
        needed = None
    results = [None] * (len(inputs) if inputs is not None else 0)

    buffers = {}
    for (fn, nr), g in zip(roots, grads):
        buf = buffers.get(fn)
        if buf is None:
            buf = buffers[fn] = [None] * fn_outputs(fn)
        buf[nr] = _add(buf[nr], g)
    ready = [fn for fn in root_nodes if deps.get(fn, 0) == 0]

    prev = _set_grad_enabled(create_graph)
    try:
        while ready:
            fn = ready.pop()
            grads_in = buffers.pop(fn, None) or [None]
            if type(fn) is AccumulateGrad:
                if fn in leaf_slots:
                    slot = leaf_slots[fn]
                    results[slot] = grads_in[0]
                    if not accumulate:
                        continue
                if grads_in[0] is not None:
                    fn.apply_accumulate(grads_in[0])
                continue
            if fn in captures:
                for nr, slot in captures[fn]:
                    results[slot] = grads_in[nr]
            if needed is not None and not any(
                e is not None and needed.get(e[0]) for e in fn._edges
            ):
                continue
            out = _call(fn, grads_in, create_graph)
            if not retain_graph:
                fn._release()
            for e, g in zip(fn._edges, out):
                if e is None:
                    continue
                child, nr = e
                if needed is not None and not needed.get(child):
                    continue
                if g is not None:
                    if g.dtype.is_complex and _real_output(child, nr):
                        g = g.real
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * fn_outputs(child)
                    buf[nr] = g if buf[nr] is None else buf[nr] + g
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    ready.append(child)
    finally:
        _set_grad_enabled(prev)
    for slot, t in enumerate(inputs):  # a real tensor's gradient is real (the real part)
        g = results[slot]
        if g is not None and g.dtype.is_complex and not t.dtype.is_complex:
            results[slot] = g.real
    return results


def fn_outputs(fn):
    return fn.n_outputs


def _run_all(roots, grads, retain_graph, create_graph):
    """run_backward without ``inputs``: every reachable node runs (the common case, kept lean)."""
    root_nodes = {fn for fn, _ in roots}
    deps, _ = _collect(root_nodes)
    buffers = {}
    for (fn, nr), g in zip(roots, grads):
        buf = buffers.get(fn)
        if buf is None:
            buf = buffers[fn] = [None] * fn.n_outputs
        buf[nr] = _add(buf[nr], g)
    ready = [fn for fn in root_nodes if fn not in deps]
    simple = not graph.anomaly["enabled"]
    prev = _set_grad_enabled(create_graph)
    try:
        while ready:
            fn = ready.pop()
            grads_in = buffers.pop(fn, None)
            if fn.__class__ is AccumulateGrad:
                if grads_in is not None and grads_in[0] is not None:
                    fn.apply_accumulate(grads_in[0])
                continue
            edges = fn._edges
            if grads_in is None:
                out = ()  # nothing reached this node: nothing flows on
            elif simple and not (fn.multi_output or fn._pre_hooks or fn._post_hooks):
                g = grads_in[0]
                if g is None:
                    out = ()
                else:
                    try:
                        out = fn.backward(g)
                    except Exception as e:
                        _explain(e, fn)
                        raise
            else:
                out = _call(fn, grads_in, create_graph)
            if not retain_graph:
                fn._release()
            for i, e in enumerate(edges):
                if e is None:
                    continue
                child, nr = e
                g = out[i] if i < len(out) else None
                if g is not None:
                    if g.dtype.is_complex and _real_output(child, nr):
                        g = g.real
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * child.n_outputs
                    buf[nr] = g if buf[nr] is None else buf[nr] + g
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    ready.append(child)
            out = g = None  # hold no gradient here: a leaf may take its gradient without a copy
    finally:
        _set_grad_enabled(prev)
    return []
