"""``SummaryWriter.add_graph``: a graph of a model's modules, from one forward pass.

This project has no tracer (PyTorch's ``add_graph`` records every operation with
``torch.jit.trace``). What is drawn here is a *module-level* graph:

* one node per call of a leaf module (a module without children: ``Linear``, ``Conv2d``,
  ``ReLU``, ...), named by its place in the model (``Net/features/0``), so TensorBoard
  groups the nodes by parent module; its op is the module's class, its attributes the
  shapes of its outputs, its parameters' shapes and its ``repr``;
* an ``input/<i>`` node per tensor argument and an ``output/<i>`` node per output tensor;
* an edge from A to B when B's input was computed from A's output. The edges follow the
  autograd graph of the forward pass (floating-point inputs are made to require grad for
  it), so they pass through the functional operations between modules (``F.relu``,
  ``view``, ``+``, ...), which are not drawn as nodes. Where a tensor carries no autograd
  history (integer inputs, or nothing requiring grad), an edge is drawn only when a module
  receives exactly the tensor object that another module (or the caller) produced.

Computation done outside leaf modules (a parent's own parameters used in its ``forward``,
operations on constants) shows only as edges, never as nodes. The forward pass really runs,
once, in the model's current mode (so a BatchNorm in training mode updates its statistics).
"""

from tensorboard.compat.proto import (
    attr_value_pb2,
    graph_pb2,
    node_def_pb2,
    tensor_shape_pb2,
    versions_pb2,
)

import torch


def _tensors(obj):
    """The tensors in a nested structure of tuples, lists and dicts, in order."""
    if torch.is_tensor(obj):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _tensors(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors(item)]
    return []


def _shape_attr(tensors):
    shapes = [
        tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in t.shape]
        )
        for t in tensors
    ]
    return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(shape=shapes))


def _str_attr(s):
    return attr_value_pb2.AttrValue(s=s.encode("utf-8"))


class _Recorder:
    def __init__(self):
        self.nodes = []
        self.order = {}  # node name -> index, to list a node's inputs in a stable order
        # id -> (node name, the object itself, kept alive so that its id is not reused)
        self.by_tensor = {}
        self.by_grad_fn = {}

    def add_node(self, name, op, inputs, outputs, **attrs):
        node = node_def_pb2.NodeDef(name=name, op=op, input=inputs)
        node.attr["_output_shapes"].CopyFrom(_shape_attr(outputs))
        for key, value in attrs.items():
            node.attr[key].CopyFrom(_str_attr(value))
        self.order[name] = len(self.nodes)
        self.nodes.append(node)

    def produced(self, name, tensors):
        for t in tensors:
            self.by_tensor[id(t)] = (name, t)
            fn = getattr(t, "grad_fn", None)
            if fn is not None:
                self.by_grad_fn[id(fn)] = (name, fn)

    def sources(self, tensors):
        """The nodes that the tensors were computed from."""
        found = set()
        for t in tensors:
            if id(t) in self.by_tensor:
                found.add(self.by_tensor[id(t)][0])
                continue
            stack = [getattr(t, "grad_fn", None)]
            seen = set()
            while stack:
                fn = stack.pop()
                if fn is None or id(fn) in seen:
                    continue
                seen.add(id(fn))
                if id(fn) in self.by_grad_fn:
                    found.add(self.by_grad_fn[id(fn)][0])
                    continue
                stack.extend(next_fn for next_fn, _ in getattr(fn, "next_functions", ()))
        return sorted(found, key=self.order.__getitem__)


def _prepare_input(t):
    """A copy of the input tensor ``t`` whose autograd history starts at the input node."""
    if not (t.is_floating_point() and hasattr(t, "requires_grad_")):
        return t
    leaf = t.detach().requires_grad_(True)
    return leaf.clone()  # not a leaf: the model may modify it in place


def build_graph(model, input_to_model, verbose=False):
    """The ``GraphDef`` of ``model`` called on ``input_to_model`` (a tensor, or a tuple or
    list of positional arguments)."""
    try:
        import torch.nn
    except ImportError as e:
        raise ImportError(f"add_graph draws torch.nn modules: {e}") from e
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"add_graph: expected a torch.nn.Module, got {type(model).__name__}")
    if input_to_model is None:
        raise ValueError(
            "add_graph needs input_to_model: the graph is recorded from one forward pass"
        )
    args = input_to_model if isinstance(input_to_model, (tuple, list)) else (input_to_model,)

    root = type(model).__name__
    rec = _Recorder()
    call_counts = {}

    with torch.enable_grad():
        inputs = []
        for i, a in enumerate(args):
            if torch.is_tensor(a):
                name = f"input/{i}"
                a = _prepare_input(a)
                rec.add_node(name, "IO Node", [], [a])
                rec.produced(name, [a])
            inputs.append(a)

        def hook(module, module_inputs, output, path):
            base = f"{root}/{path.replace('.', '/')}" if path else root
            count = call_counts.get(base, 0)
            call_counts[base] = count + 1
            name = base if count == 0 else f"{base}_{count}"  # a module called again
            outputs = _tensors(output)
            params = ", ".join(
                f"{n}: {list(p.shape)}" for n, p in module.named_parameters(recurse=False)
            )
            rec.add_node(
                name,
                type(module).__name__,
                rec.sources(_tensors(module_inputs)),
                outputs,
                parameters=params,
                module=repr(module),
            )
            rec.produced(name, outputs)

        handles = []
        try:
            for path, module in model.named_modules():
                if next(iter(module.children()), None) is None:
                    handles.append(
                        module.register_forward_hook(lambda m, i, o, path=path: hook(m, i, o, path))
                    )
            output = model(*inputs)
        finally:
            for handle in handles:
                handle.remove()

        for j, t in enumerate(_tensors(output)):
            rec.add_node(f"output/{j}", "IO Node", rec.sources([t]), [t])

    if verbose:
        for node in rec.nodes:
            shapes = [list(d.size for d in s.dim) for s in node.attr["_output_shapes"].list.shape]
            print(f"{node.name} ({node.op}) <- {list(node.input)} -> {shapes}")
    return graph_pb2.GraphDef(node=rec.nodes, versions=versions_pb2.VersionDef(producer=22))
