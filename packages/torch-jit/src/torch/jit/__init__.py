"""torch.jit (the torch-jit wheel): trace and script Python code into a graph of core ops,
run it, optimise it, save and load it, and export it (``torch.onnx``).

- :func:`trace` runs a function or module once on example inputs and records the core ops
  it calls (``_trace.py`` describes how); :func:`script` compiles a typed subset of Python
  from its source, control flow included (``_script.py``).
- Both give a :class:`ScriptFunction` or :class:`ScriptModule` that runs its graph through
  the ordinary ops, so autograd, optimisers and ``state_dict`` work as in eager mode.
- :func:`save`/:func:`load` write and read a zip archive (a JSON graph and the tensors in
  ``torch.save``'s format); loading never unpickles code.
"""

__version__ = "0.1.0"

import contextlib
import inspect
import warnings

import torch
from torch.jit import _passes
from torch.jit._ir import Graph, Node, Value, copy_graph
from torch.jit._module import ScriptFunction, ScriptModule, is_script, param_names
from torch.jit._script import (
    Attribute,
    CompilationUnit,
    Final,
    NotSupportedError,
    annotate,
    export,
    ignore,
    interface,
    is_scripting,
    script,
    unused,
)
from torch.jit._serialization import load, save
from torch.jit._trace import (
    ModuleScopes,
    TracerWarning,
    TracingCheckError,
    is_tracing,
    trace_graph,
)

__all__ = [
    "Attribute",
    "CompilationUnit",
    "Final",
    "Graph",
    "Node",
    "NotSupportedError",
    "ScriptFunction",
    "ScriptModule",
    "TracerWarning",
    "TracingCheckError",
    "Value",
    "annotate",
    "export",
    "freeze",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "load",
    "optimize_for_inference",
    "save",
    "script",
    "trace",
    "trace_module",
    "unused",
]


def _as_args(example_inputs):
    if example_inputs is None:
        return ()
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    return tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)


def _check(graph, fn, args, kwargs, params, tol, rng):
    """check_trace: run the graph and the Python code again on the same inputs (and the
    same random draws) and warn where they differ."""
    from torch.jit._run import run_graph
    from torch.jit._trace import flatten

    leaves, _ = flatten((tuple(args), kwargs))
    with torch.no_grad():
        if rng is not None:
            torch.set_rng_state(rng)
        got = run_graph(graph, leaves, params)
        if rng is not None:
            torch.set_rng_state(rng)
        eager = fn(*args, **kwargs)
    eager_leaves, _ = flatten(eager)
    got_leaves, _ = flatten(got)
    for i, (a, b) in enumerate(zip(eager_leaves, got_leaves)):
        same = a.shape == b.shape and (
            torch.allclose(a.detach().double(), b.detach().double(), rtol=tol, atol=tol)
            if a.is_floating_point()
            else bool(torch.equal(a, b))
        )
        if not same:
            warnings.warn(
                TracerWarning(
                    f"Output nr {i + 1}. of the traced function does not match the "
                    "corresponding output of the Python function: the trace may depend on "
                    "Python values or untraced ops"
                ),
                stacklevel=4,
            )


def _trace(fn, args, kwargs, params, check_trace, strict, tol, param_tensors, scopes=None):
    rng = torch.get_rng_state()
    graph, _ = trace_graph(fn, args, kwargs, params, strict=strict, scopes=scopes)
    _passes.eliminate_dead_code(graph)
    from torch.jit._trace import rename

    rename(graph)
    if check_trace:
        after = torch.get_rng_state()
        _check(graph, fn, args, kwargs, param_tensors, tol, rng)
        torch.set_rng_state(after)
    return graph


def trace(
    func,
    example_inputs=None,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-5,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_kwarg_inputs=None,
    _store_inputs=True,
):
    """Trace a function or ``nn.Module`` by running it on ``example_inputs``.

    Returns a :class:`ScriptFunction` (for a function) or a :class:`ScriptModule` (for a
    module: its ``forward``) whose graph holds the core ops the run called. Control flow is
    not recorded, only the path taken; converting a tensor to a Python value (``.item()``,
    ``int(t)``, ``bool(t)``) freezes that value with a :class:`TracerWarning`.
    ``check_trace`` runs the graph again on the inputs and warns when the results differ.
    ``strict=False`` allows lists and dicts in the output.
    """
    if isinstance(func, (ScriptModule, ScriptFunction)):
        warnings.warn(
            "The input to trace is already a ScriptModule, tracing it is a no-op. Returning "
            "the object as is.",
            stacklevel=2,
        )
        return func
    args = _as_args(example_inputs)
    kwargs = dict(example_kwarg_inputs or {})
    if isinstance(func, torch.nn.Module):
        return trace_module(
            func,
            {"forward": args},
            check_trace=check_trace,
            check_tolerance=check_tolerance,
            strict=strict,
            example_inputs_is_kwarg=bool(kwargs),
            _kwargs=kwargs,
        )
    owner = getattr(func, "__self__", None)
    if inspect.ismethod(func) and isinstance(owner, torch.nn.Module):
        mod = trace_module(owner, {func.__name__: args}, check_trace=check_trace, strict=strict)
        return getattr(mod, func.__name__) if func.__name__ != "forward" else mod
    if not callable(func):
        raise TypeError(f"torch.jit.trace: expected a function or nn.Module, got {func!r}")
    graph = _trace(func, args, kwargs, {}, check_trace, strict, check_tolerance, {})
    return ScriptFunction(graph, getattr(func, "__name__", "forward"), func)


def trace_module(
    mod,
    inputs,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-5,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_inputs_is_kwarg=False,
    _store_inputs=True,
    _kwargs=None,
    _trace_children=True,
):
    """Trace the methods of ``mod`` named in ``inputs`` ({method name: example inputs}).

    Returns a :class:`ScriptModule` sharing ``mod``'s parameters, buffers and submodules;
    its ``forward`` (and each other traced method) runs the recorded graph. Each submodule
    that ``forward`` ran is a ScriptModule too, its graph taken from the same run (the ops
    of its first call), so every forward runs once, as in one eager call."""
    if not isinstance(mod, torch.nn.Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    params = param_names(mod)
    tensors = {}
    for name, t in list(mod.named_buffers()) + list(mod.named_parameters()):
        tensors.setdefault(name, t)
    graphs, scopes = {}, None
    for method, example in inputs.items():
        fn = mod if method == "forward" else getattr(mod, method)
        args = _as_args(example)
        kwargs = _kwargs if method == "forward" and _kwargs else {}
        # the graphs of the submodules that forward calls come from the same single run
        watch = None
        if method == "forward" and _trace_children:
            watch = scopes = ModuleScopes(mod, _submodules(mod), strict)
        with watch if watch is not None else contextlib.nullcontext():
            graphs[method] = _trace(
                fn, args, kwargs, params, check_trace, strict, check_tolerance, tensors, watch
            )
    return _traced_tree(mod, graphs, scopes.graphs if scopes is not None else {})


def _submodules(mod):
    """The submodules whose calls the trace of ``mod.forward`` records graphs for: all of
    them, except script modules (they have their graphs) and what lies inside one."""
    found, seen, todo = [], {id(mod)}, [mod]
    while todo:
        for child in todo.pop()._modules.values():
            if child is not None and id(child) not in seen and not is_script(child):
                seen.add(id(child))
                found.append(child)
                todo.append(child)
    return found


def _traced_tree(mod, graphs, child_graphs, made=None):
    """The ScriptModule of ``mod``, each submodule that ran in the trace (a graph in
    ``child_graphs``, by id) replaced by a ScriptModule of its own, down the tree, as
    PyTorch's TracedModule (``traced.child.code``, ``traced.child(x)``); a submodule the
    trace did not run, or could not give a graph of its own, stays the module it is. A
    submodule reachable under several names gets one ScriptModule."""
    made = {} if made is None else made
    traced = ScriptModule(graphs, mod)
    for name, child in mod._modules.items():
        graph = child_graphs.get(id(child)) if child is not None else None
        if graph is not None:
            if id(child) not in made:
                made[id(child)] = _traced_tree(child, {"forward": graph}, child_graphs, made)
            traced._modules[name] = made[id(child)]
    return traced


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Fold the parameters and buffers of an eval-mode ScriptModule into constants, then
    fold constants, CSE and DCE. Returns a new ScriptModule (the graph no longer reads
    parameters, so it holds none)."""
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(
            "Freezing expects a ScriptModule as input. Please use torch.jit.script or "
            "torch.jit.trace to script your 'nn.Module'."
        )
    if mod.training:
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call "
            ".eval() on your module before freezing."
        )
    tensors = mod._tensors()
    graphs = {}
    for method, g in mod._graphs.items():
        g = copy_graph(g)
        consts = []
        for name, v in g.params.items():
            v.param = None
            consts.append(
                Node("prim::Constant", out=v, attrs={"value": tensors[name].detach().clone()})
            )
        g.params = {}
        g.nodes = consts + g.nodes
        _passes.constant_fold(g)
        _passes.eliminate_common_subexpressions(g)
        _passes.eliminate_dead_code(g)
        graphs[method] = g
    frozen = ScriptModule(graphs, None, mod.original_name)
    frozen.eval()
    return frozen


def optimize_for_inference(mod, other_methods=None):
    """``freeze`` (when needed) and then fuse chains of elementwise ops."""
    frozen = (
        mod
        if not mod._graphs or not any(g.params for g in mod._graphs.values())
        else (freeze(mod.eval()))
    )
    for g in frozen._graphs.values():
        _passes.fuse_elementwise(g)
    return frozen


def _trace_for_export(model, args, kwargs):
    """The trace torch.onnx.export converts (no check, any output structure)."""
    if isinstance(model, torch.nn.Module):
        return trace_module(
            model,
            {"forward": args},
            check_trace=False,
            strict=False,
            _kwargs=kwargs,
            _trace_children=False,
        )
    graph = _trace(model, args, kwargs, {}, False, False, 0, {})
    return ScriptFunction(graph, getattr(model, "__name__", "forward"), model)
