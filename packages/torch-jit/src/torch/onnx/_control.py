"""Conversions of the structural nodes: control flow (ONNX ``If``/``Loop``), fusion groups,
and, in scripted models, module attributes and submodule calls (a submodule is traced on
the arguments it received and its ops are converted in place)."""

import numpy as np

import torch
from torch.jit._ir import Value, values_in
from torch.onnx.errors import UnsupportedOperatorError


class ModuleHandle:
    """A module standing for a graph value during conversion (``self``, a submodule)."""

    def __init__(self, module, path):
        self.module, self.path = module, path


def _info(name, v):
    from onnx import helper
    from torch.onnx._export import onnx_dtype

    if isinstance(v, Value) and v.type == "Tensor" and v.dtype:
        return helper.make_tensor_value_info(name, onnx_dtype(v.dtype), None)
    if isinstance(v, Value) and v.type == "bool" or isinstance(v, bool):
        return helper.make_tensor_value_info(name, onnx_dtype("bool"), [])
    if isinstance(v, Value) and v.type == "float" or isinstance(v, float):
        return helper.make_tensor_value_info(name, onnx_dtype("float32"), [])
    return helper.make_tensor_value_info(name, onnx_dtype("int64"), [])


def _sub_graph(ctx, block, name, inputs=()):
    """An ONNX graph of ``block`` (its nodes see the enclosing scope's names)."""
    from onnx import helper
    from torch.onnx._export import Context, convert_nodes

    sub = Context(ctx.opset)
    sub.names = dict(ctx.names)
    sub.arrays = dict(ctx.arrays)
    sub._count = ctx._count
    sub.calls = ctx.calls
    sub.prefix = name
    sub.fresh = lambda hint="t": Context.fresh(sub, f"{name}_{hint}")
    infos = []
    for v, onnx_name in inputs:
        sub.names[v] = onnx_name
        infos.append(_info(onnx_name, v))
    convert_nodes(sub, block.nodes)
    outs, out_infos = [], []
    for i, v in enumerate(block.outputs):
        src = sub.names[v] if isinstance(v, Value) else _literal(sub, v)
        out = sub.fresh(f"out{i}")
        sub.nodes.append(helper.make_node("Identity", [src], [out]))
        outs.append(out)
        out_infos.append(_info(out, v))
    ctx._count = sub._count + 1
    return helper.make_graph(sub.nodes, name, infos, out_infos, sub.initializers)


def _dtype_enum(name):
    from torch.onnx._export import onnx_dtype

    return onnx_dtype(name)


def _literal(ctx, v):
    if isinstance(v, bool):
        return ctx.const(np.asarray(v))
    if isinstance(v, int):
        return ctx.const(np.asarray(v, np.int64))
    if isinstance(v, float):
        return ctx.const(np.asarray(v, np.float32))
    raise UnsupportedOperatorError(f"ONNX export: cannot return {v!r} from a block")


def _bool(ctx, arg):
    if isinstance(arg, Value):
        name = ctx.name(arg)
        if arg.type == "Tensor" and arg.dtype == "bool" and arg.shape == ():
            return name
        scalar = ctx.op("Reshape", name, ctx.const(np.zeros(0, np.int64)))  # shape ()
        return ctx.op("Cast", scalar, to=_dtype_enum("bool"))
    return ctx.const(np.asarray(bool(arg)))


def convert_control(ctx, node):
    kind = node.kind
    outs = list(values_in(node.out))
    if kind == "prim::If":
        cond = _bool(ctx, node.args[0])
        then_g = _sub_graph(ctx, node.blocks[0], ctx.fresh("then"))
        else_g = _sub_graph(ctx, node.blocks[1], ctx.fresh("else"))
        if not outs:
            raise UnsupportedOperatorError("ONNX export: an if statement without results")
        result = ctx.op("If", cond, outputs=len(outs), then_branch=then_g, else_branch=else_g)
        return _shape(node.out, result)
    if kind == "prim::Loop":
        trip, cond, *init = node.args
        body = node.blocks[0]
        it_name, cond_name = ctx.fresh("iter"), ctx.fresh("cond")
        carried = [(v, ctx.fresh("carried")) for v in body.inputs[1:]]
        from onnx import helper
        from torch.onnx._export import onnx_dtype

        graph = _sub_graph(ctx, body, ctx.fresh("loop_body"), [(body.inputs[0], it_name)] + carried)
        graph.input.insert(1, helper.make_tensor_value_info(cond_name, onnx_dtype("bool"), []))
        trip_name = None if trip is None else ctx.tensor(trip, "int64")
        if isinstance(trip, Value) and trip.type == "Tensor":
            trip_name = ctx.op("Cast", trip_name, to=_dtype_enum("int64"))
        init_names = [
            ctx.tensor(a, "int64") if not isinstance(a, float) else ctx.tensor(a) for a in init
        ]
        if not init_names:
            raise UnsupportedOperatorError("ONNX export: a loop that carries no values")
        result = ctx.op(
            "Loop", trip_name, _bool(ctx, cond), *init_names, outputs=len(outs), body=graph
        )
        return _shape(node.out, result)
    if kind in ("prim::NoGrad", "prim::FusionGroup"):
        block = node.blocks[0]
        from torch.onnx._export import convert_nodes

        if kind == "prim::FusionGroup":
            for v, a in zip(block.inputs, node.args):
                ctx.names[v] = ctx.name(a)
        convert_nodes(ctx, block.nodes)
        return _shape(node.out, [ctx.name(v) for v in block.outputs])
    if kind == "prim::GetAttr":
        base = ctx.names[node.args[0]]
        obj = base.module
        for part in node.args[1].split("."):
            obj = getattr(obj, part)
        path = (base.path + "." if base.path else "") + node.args[1]
        if isinstance(obj, torch.nn.Module):
            return ModuleHandle(obj, path)
        if isinstance(obj, torch.Tensor):
            if path not in ctx.param_names:
                from onnx import numpy_helper
                from torch.onnx._export import to_numpy

                arr = to_numpy(obj)
                ctx.initializers.append(numpy_helper.from_array(arr, path))
                ctx.arrays[path] = arr
                ctx.param_names.add(path)
            return path
        return _literal(ctx, obj)
    if kind == "prim::getattr":
        raise UnsupportedOperatorError(f"ONNX export: reading .{node.args[1]} of a tensor")
    if kind == "prim::CallMethod":
        return _call_module(ctx, node)
    raise UnsupportedOperatorError(f"ONNX export: {kind}")


def _shape(spec, names):
    names = names if isinstance(names, list) else [names]
    if isinstance(spec, Value):
        return names[0]
    return tuple(names)


def _call_module(ctx, node):
    """A submodule call: trace the module on the arguments it got and convert its ops."""
    import torch.jit
    from torch.onnx._export import convert_nodes, to_numpy

    handle = ctx.names[node.args[0]]
    name = node.args[1]
    example = ctx.calls.get(node)
    if example is None:
        raise UnsupportedOperatorError(
            f"ONNX export: the call of {handle.path or 'self'}.{name} did not run when the "
            "model was run on the example inputs"
        )
    args, kwargs = example
    mod = handle.module
    fn = mod if name == "forward" else getattr(mod, name)
    if isinstance(mod, torch.jit.ScriptModule) and name == "forward":
        fn = mod
    traced = torch.jit._trace_for_export(
        fn if isinstance(fn, torch.nn.Module) else _Bound(mod, name), args, kwargs
    )
    graph = traced.graph
    for v, a in zip(graph.inputs, list(_value_args(node))):
        ctx.names[v] = ctx.name(a)
    tensors = traced._tensors() if hasattr(traced, "_tensors") else {}
    prefix = handle.path + "." if handle.path else ""
    for pname, v in graph.params.items():
        full = prefix + pname
        if full not in ctx.param_names:
            from onnx import numpy_helper

            arr = to_numpy(tensors[pname])
            ctx.initializers.append(numpy_helper.from_array(arr, full))
            ctx.arrays[full] = arr
            ctx.param_names.add(full)
        ctx.names[v] = full
    convert_nodes(ctx, graph.nodes)
    flat = [ctx.name(v) for v in values_in(graph.out)]
    return flat[0] if isinstance(node.out, Value) else tuple(flat)


def _value_args(node):
    for a in node.args[2:]:
        yield from values_in(a)


class _Bound(torch.nn.Module):
    """A module whose forward is another module's method (to trace that method)."""

    def __init__(self, mod, name):
        super().__init__()
        self.inner = mod
        self.method = name

    def forward(self, *args, **kwargs):
        return getattr(self.inner, self.method)(*args, **kwargs)
