"""``torch.compile`` through torch.jit: trace per input signature, optimise, run the graph.

A compiled function or module keeps a cache of graphs keyed by a *guard*: the type, shape,
dtype, device and ``requires_grad`` of every tensor argument, the value of every other
argument, and (for a module) its ``training`` flag. A call whose guard is new traces the
code once (that run's result is returned), optimises the graph (CSE, DCE, sums of matrix
products, elementwise fusion groups) and caches it; later calls with the same guard run the graph.

When a trace cannot represent the code (it converted a tensor to a Python value, so its
control flow depends on data, or the outputs are not tensors) the call falls back to eager
execution, with one warning naming the reason; ``fullgraph=True`` raises instead.
"""

import functools
import warnings

import torch
from torch.jit import _passes
from torch.jit._module import param_names
from torch.jit._run import run_graph
from torch.jit._trace import TracerWarning, flatten, trace_graph

_MAX_GRAPHS = 64  # per compiled object: beyond that, recompiling is a sign to stop


class _Fallback(Exception):
    pass


def _guard_of(obj):
    if isinstance(obj, torch.Tensor):
        return ("T", tuple(obj.shape), obj.dtype, str(obj.device), obj.requires_grad)
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__,) + tuple(_guard_of(o) for o in obj)
    if isinstance(obj, dict):
        return ("dict",) + tuple((k, _guard_of(v)) for k, v in sorted(obj.items()))
    try:
        hash(obj)
    except TypeError:
        raise _Fallback(f"an argument of type {type(obj).__name__} is not hashable") from None
    return (type(obj).__name__, obj)


class _Compiled:
    """The state shared by compiled functions and modules."""

    def __init__(self, fn, module, fullgraph, name):
        self.fn = fn
        self.module = module
        self.fullgraph = fullgraph
        self.name = name
        self.graphs = {}
        self.eager_guards = set()
        self.warned = False

    def _fall_back(self, reason):
        if self.fullgraph:
            raise RuntimeError(
                f"torch.compile(fullgraph=True): cannot compile {self.name}: {reason}"
            )
        if not self.warned:
            self.warned = True
            warnings.warn(
                f"torch.compile: running {self.name} eagerly: {reason}", UserWarning, stacklevel=4
            )

    def __call__(self, *args, **kwargs):
        try:
            guard = (_guard_of((args, kwargs)), self.module.training if self.module else None)
        except _Fallback as e:
            self._fall_back(str(e))
            return self.fn(*args, **kwargs)
        graph = self.graphs.get(guard)
        if graph is not None:
            leaves, _ = flatten((tuple(args), kwargs))
            return run_graph(graph, leaves, self._tensors())
        if guard in self.eager_guards:
            return self.fn(*args, **kwargs)
        return self._compile(guard, args, kwargs)

    def _tensors(self):
        if self.module is None:
            return {}
        tensors = dict(self.module.named_buffers())
        tensors.update(self.module.named_parameters())
        return tensors

    def _compile(self, guard, args, kwargs):
        params = param_names(self.module) if self.module is not None else {}
        reason = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TracerWarning)
            try:
                graph, result = trace_graph(self.fn, args, kwargs, params, strict=False)
            except RuntimeError as e:  # an output the trace cannot represent
                reason, result, graph = str(e).splitlines()[0], None, None
        for w in caught:
            if issubclass(w.category, TracerWarning) and reason is None:
                reason = str(w.message)
            elif not issubclass(w.category, TracerWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if reason is not None:
            self._fall_back(reason)
            self.eager_guards.add(guard)
            return result if graph is not None else self.fn(*args, **kwargs)
        _passes.eliminate_common_subexpressions(graph)
        _passes.eliminate_dead_code(graph)
        _passes.accumulate_matmuls(graph)
        _passes.fuse_elementwise(graph)
        if len(self.graphs) < _MAX_GRAPHS:
            self.graphs[guard] = graph
        return result


class OptimizedModule(torch.nn.Module):
    """What ``torch.compile(module)`` returns: ``_orig_mod`` is the module (its parameters,
    so ``state_dict`` keys start with ``_orig_mod.``, as in PyTorch); calling it runs the
    compiled graphs."""

    def __init__(self, mod, fullgraph):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", _Compiled(mod, mod, fullgraph, type(mod).__name__))

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


def compile_model(model, fullgraph=False, dynamic=None, backend="inductor"):
    """Compile ``model`` (a function or an nn.Module) through torch.jit (see the module
    docstring); ``torch.compile`` calls this when torch-jit is installed."""
    if isinstance(model, torch.nn.Module):
        return OptimizedModule(model, fullgraph)
    compiled = _Compiled(model, None, fullgraph, getattr(model, "__qualname__", repr(model)))

    @functools.wraps(model)
    def run(*args, **kwargs):
        return compiled(*args, **kwargs)

    run._torchdynamo_orig_callable = model
    run._compiled = compiled
    return run
