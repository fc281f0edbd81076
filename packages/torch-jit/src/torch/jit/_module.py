"""ScriptFunction and ScriptModule: a graph with a calling convention (and, for a module,
the parameters and buffers it reads)."""

import torch
from torch import nn
from torch.jit import _script, _trace
from torch.jit._ir import format_code
from torch.jit._run import run_graph


def _run(graph, args, kwargs, params, what, owner=None):
    if graph.in_spec == "args":  # a scripted function: its arguments as they are
        return run_graph(graph, _script_args(graph, args, kwargs, what, owner), params)
    leaves, _ = _trace.flatten((tuple(args), kwargs))
    if len(leaves) != len(graph.inputs):
        raise RuntimeError(
            f"{what}: expected {len(graph.inputs)} tensor argument(s) (the structure traced or "
            f"declared), got {len(leaves)}"
        )
    return run_graph(graph, leaves, params)


_CHECKS = {"Tensor": torch.Tensor, "int": int, "float": (float, int), "bool": bool, "str": str}


def _script_args(graph, args, kwargs, what, owner):
    names, types, defaults = graph.signature
    if len(args) > len(names):
        raise RuntimeError(
            f"{what}() expected at most {len(names)} argument(s) but received {len(args)}"
        )
    values = list(args)
    for name, default in zip(names[len(args) :], defaults[len(args) :]):
        if name in kwargs:
            values.append(kwargs.pop(name))
        elif default is not _script._NO_DEFAULT:
            values.append(default)
        else:
            raise RuntimeError(f"{what}() is missing value for argument '{name}'")
    if kwargs:
        raise RuntimeError(f"{what}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for name, t, v in zip(names, types, values):
        expected = _CHECKS.get(t)
        if expected is not None and not isinstance(v, expected):
            raise RuntimeError(
                f"{what}() Expected a value of type '{t}' for argument '{name}' but instead "
                f"found type '{type(v).__name__}'."
            )
    return ([owner] if owner is not None else []) + values


class ScriptFunction(_script._ScriptedFunction):
    """A traced or scripted function: call it like the original; ``graph``/``code`` show it."""

    def __init__(self, graph, name="forward", original=None):
        self.graph = graph
        self.name = self.__name__ = name
        self._original = original
        self.__doc__ = getattr(original, "__doc__", None)

    @property
    def code(self):
        """Python-like source of the graph."""
        return format_code(self.graph, self.name, method=False)

    def __call__(self, *args, **kwargs):
        return _run(self.graph, args, kwargs, {}, self.name)

    def save(self, f):
        """Same as ``torch.jit.save(self, f)``."""
        from torch.jit._serialization import save

        save(self, f)

    def __repr__(self):
        return f"<torch.jit.ScriptFunction {self.name}>"


class ScriptModule(nn.Module):
    """A traced, scripted or loaded module. It holds the original module's parameters,
    buffers and submodules (the same tensor objects: ``state_dict``, ``parameters()``,
    optimisers and ``train()``/``eval()`` see them) and runs the recorded graph."""

    def __init__(self, graphs=None, original=None, name=None):
        super().__init__()
        if original is not None:
            self._parameters.update(original._parameters)
            self._buffers.update(original._buffers)
            self._non_persistent_buffers_set.update(original._non_persistent_buffers_set)
            self._modules.update(original._modules)
            self.training = original.training
        object.__setattr__(self, "_original", original)  # (not a submodule: see train)
        self._graphs = dict(graphs or {})
        self.original_name = name or (type(original).__name__ if original is not None else "")
        for method in self._graphs:
            if method != "forward":
                object.__setattr__(self, method, _Method(self, method))

    def train(self, mode=True):
        """Also switches the original module (the graph's parameters are its tensors, and
        its submodules' modes are what eager code sees)."""
        super().train(mode)
        if self._original is not None:
            self._original.train(mode)
        return self

    def _tensors(self):
        params = dict(self.named_buffers())
        params.update(self.named_parameters())
        return params

    def forward(self, *args, **kwargs):
        return self._call("forward", args, kwargs)

    def _call(self, method, args, kwargs):
        graph = self._graphs.get(method)
        if graph is None:
            raise RuntimeError(f"{self.original_name}: the script module has no method {method!r}")
        return _run(graph, args, kwargs, self._tensors(), f"{self.original_name}.{method}", self)

    @property
    def graph(self):
        """The graph of ``forward``."""
        return self._graphs["forward"]

    @property
    def inlined_graph(self):
        return self.graph

    @property
    def code(self):
        """Python-like source of ``forward``."""
        return format_code(self.graph)

    def save(self, f, **kwargs):
        """Same as ``torch.jit.save(self, f)``."""
        from torch.jit._serialization import save

        save(self, f, **kwargs)

    def extra_repr(self):
        return f"original_name={self.original_name}"


class _Method:
    def __init__(self, module, name):
        self.module, self.name = module, name

    @property
    def graph(self):
        return self.module._graphs[self.name]

    @property
    def code(self):
        return format_code(self.graph, self.name)

    def __call__(self, *args, **kwargs):
        return self.module._call(self.name, args, kwargs)


def param_names(module):
    """id(tensor) -> dotted name of every parameter and buffer (first name of a shared one)."""
    names = {}
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        names.setdefault(id(t), name)
    return names


def is_script(obj):
    return isinstance(obj, (ScriptModule, ScriptFunction))
