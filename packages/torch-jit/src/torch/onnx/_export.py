"""From a traced graph to an ONNX model: the conversion context and the driver."""

import numpy as np

import torch
from torch.jit import _passes
from torch.jit._ir import Value, copy_graph, values_in
from torch.onnx.errors import OnnxExporterError, SymbolicValueError, UnsupportedOperatorError

SUPPORTED_OPSETS = (17, 18)
_DTYPES = {
    "float32": "FLOAT",
    "float64": "DOUBLE",
    "float16": "FLOAT16",
    "bfloat16": "BFLOAT16",
    "int64": "INT64",
    "int32": "INT32",
    "int16": "INT16",
    "int8": "INT8",
    "uint8": "UINT8",
    "bool": "BOOL",
}
_NP = {
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "int64": np.int64,
    "int32": np.int32,
    "int16": np.int16,
    "int8": np.int8,
    "uint8": np.uint8,
    "bool": np.bool_,
}


def onnx_dtype(dtype):
    """TensorProto enum value of a torch dtype (or its name)."""
    from onnx import TensorProto

    name = str(dtype).replace("torch.", "")
    return getattr(TensorProto, _DTYPES[name])


def np_dtype(dtype):
    return _NP[str(dtype).replace("torch.", "")]


def to_numpy(t):
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.contiguous().numpy().copy()


class Context:
    """What a conversion function builds with: ``op`` adds an ONNX node, ``const`` an
    initializer, ``name`` gives the ONNX name of a graph value."""

    def __init__(self, opset):
        self.opset = opset
        self.nodes = []
        self.initializers = []
        self.arrays = {}  # initializer name -> numpy array (constants the conversions read)
        self.names = {}  # Value -> ONNX name
        self.dtypes = {}  # ONNX name -> torch dtype name, where known
        self._count = 0
        self.node = None  # the graph node being converted
        self.calls = {}  # CallMethod node -> the arguments it received (scripted models)
        self.param_names = set()

    def fresh(self, hint="t"):
        self._count += 1
        return f"{hint}_{self._count}"

    def op(self, op_type, *inputs, outputs=1, **attrs):
        """Add a node; returns its output name (or a list when ``outputs`` > 1)."""
        from onnx import helper

        outs = [self.fresh(op_type) for _ in range(outputs)]
        ins = ["" if i is None else i for i in inputs]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, ins, outs, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, array, hint="const"):
        from onnx import numpy_helper

        name = self.fresh(hint)
        array = np.asarray(array)
        self.initializers.append(numpy_helper.from_array(array, name))
        self.arrays[name] = array
        return name

    def i64(self, values):
        """A 1-D int64 constant."""
        return self.const(np.asarray(values, dtype=np.int64).reshape(-1), "ints")

    def scalar(self, value, dtype):
        """A 0-d constant of ``dtype`` (a torch dtype name)."""
        return self.const(np.asarray(value, dtype=np_dtype(dtype)), "scalar")

    def name(self, v):
        if v not in self.names:
            raise SymbolicValueError(f"ONNX export: value %{v.name} is used before it is made")
        return self.names[v]

    def array(self, arg):
        """The numpy value of a constant argument (a Python number or a constant graph
        value), or None where it is only known when the model runs."""
        if isinstance(arg, Value):
            return self.arrays.get(self.names.get(arg))
        if isinstance(arg, torch.Tensor):
            return to_numpy(arg)
        if isinstance(arg, (int, float, bool)):
            return np.asarray(arg)
        return None

    def tensor(self, arg, dtype="float32"):
        """ONNX name of a tensor argument; Python numbers become constants of ``dtype``."""
        if isinstance(arg, Value):
            return self.name(arg)
        if isinstance(arg, torch.Tensor):
            return self.const(to_numpy(arg))
        if arg is None:
            return None
        return self.scalar(arg, dtype)

    def ints(self, dims):
        """A 1-D int64 tensor of sizes that may mix numbers and traced sizes (int values)."""
        if isinstance(dims, Value):
            return self.name(dims)
        dims = list(dims)
        if not any(isinstance(d, Value) for d in dims):
            return self.i64([int(d) for d in dims])
        parts = []
        for d in dims:
            if isinstance(d, Value):
                part = self.name(d)
                if d.type == "Tensor" and d.shape and len(d.shape) == 1:
                    parts.append(part)
                    continue
                parts.append(self.op("Unsqueeze", part, self.i64([0])))
            else:
                parts.append(self.i64([int(d)]))
        return self.op("Concat", *parts, axis=0)


def _source(node):
    where = node.where()
    return f" (called from {where})" if where else ""


def convert_graph(graph, ctx, input_names, output_names, export_params, dynamic_axes, params):
    """Fill ``ctx`` from ``graph``; returns (graph inputs, outputs) as ONNX value infos."""
    from onnx import helper

    dyn = _dynamic(dynamic_axes)
    inputs = []
    for i, v in enumerate(graph.inputs):
        name = input_names[i] if i < len(input_names) else f"input_{i}"
        ctx.names[v] = name
        ctx.dtypes[name] = v.dtype
        inputs.append(_info(name, v, dyn.get(name), any(dyn)))
    for pname, v in graph.params.items():
        tensor = params[pname]
        if export_params:
            arr = to_numpy(tensor)
            from onnx import numpy_helper

            ctx.initializers.append(numpy_helper.from_array(arr, pname))
            ctx.arrays[pname] = arr
        else:
            inputs.append(_info(pname, v, None, False))
        ctx.names[v] = pname
        ctx.dtypes[pname] = v.dtype
    convert_nodes(ctx, graph.nodes)
    outputs = []
    flat_out = list(values_in(graph.out))
    for i, v in enumerate(flat_out):
        name = output_names[i] if i < len(output_names) else f"output_{i}"
        src = ctx.name(v)
        ctx.nodes.append(helper.make_node("Identity", [src], [name]))
        outputs.append(_info(name, v, dyn.get(name), any(dyn)))
    return inputs, outputs


def convert_nodes(ctx, nodes):
    """Convert graph nodes in order into ``ctx``."""
    from torch.onnx._symbolic import SYMBOLICS, op_key

    for node in nodes:
        ctx.node = node
        if node.kind == "prim::Constant":
            val = node.attrs["value"]
            arr = to_numpy(val) if isinstance(val, torch.Tensor) else np.asarray(val)
            if isinstance(val, int) and not isinstance(val, bool):
                arr = arr.astype(np.int64)
            ctx.names[node.out] = ctx.const(arr, "constant")
            continue
        if node.kind in ("prim::If", "prim::Loop", "prim::NoGrad", "prim::FusionGroup",
                         "prim::GetAttr", "prim::CallMethod", "prim::getattr"):  # fmt: skip
            from torch.onnx._control import convert_control

            _bind(ctx, node.out, convert_control(ctx, node))
            continue
        key = op_key(node.kind)
        fn = SYMBOLICS.get(key)
        if fn is None or (fn.min_opset and ctx.opset < fn.min_opset):
            raise UnsupportedOperatorError(
                f"Exporting the operator '{node.kind}' to ONNX opset version {ctx.opset} is "
                f"not supported{_source(node)}. The exporter converts: "
                f"{', '.join(sorted(SYMBOLICS))}"
            )
        try:
            result = fn(ctx, node)
        except (UnsupportedOperatorError, SymbolicValueError) as e:
            if "called from" in str(e):
                raise
            raise type(e)(f"{e}{_source(node)}") from None
        _bind(ctx, node.out, result)


def _bind(ctx, spec, result):
    if isinstance(spec, Value):
        if isinstance(result, (list, tuple)):
            raise OnnxExporterError(f"conversion of {ctx.node.kind} returned too many outputs")
        ctx.names[spec] = result
    elif isinstance(spec, (tuple, list)):
        if not isinstance(result, (tuple, list)) or len(result) != len(spec):
            raise OnnxExporterError(f"conversion of {ctx.node.kind} returned a wrong structure")
        for s, r in zip(spec, result):
            _bind(ctx, s, r)


def _dynamic(dynamic_axes):
    out = {}
    for name, axes in (dynamic_axes or {}).items():
        if isinstance(axes, dict):
            out[name] = {int(k): str(v) for k, v in axes.items()}
        else:
            out[name] = {int(a): f"{name}_dynamic_axes_{j + 1}" for j, a in enumerate(axes)}
    return out


def _info(name, v, axes, any_dynamic):
    from onnx import helper

    if v.type != "Tensor":
        return helper.make_tensor_value_info(name, onnx_dtype("int64"), [])
    shape = list(v.shape)
    if axes:
        for a, dim_name in axes.items():
            shape[a] = dim_name
    elif any_dynamic and v.node is not None:
        shape = [None] * len(shape)  # an output of a dynamic model: rank only
    return helper.make_tensor_value_info(name, onnx_dtype(v.dtype), shape)


def _flat_args(args, kwargs):
    if isinstance(args, torch.Tensor):
        args = (args,)
    args = tuple(args)
    if args and isinstance(args[-1], dict) and kwargs is None:
        kwargs, args = args[-1], args[:-1]
    return args, dict(kwargs or {})


def _script_graph(model, args, kwargs):
    """The graph of a traced or scripted model, its tensors and inputs, with every value
    typed by one run (scripted graphs know no shapes), and the arguments each module call
    received in that run (they are traced for the export)."""
    from torch.jit._module import ScriptModule, _script_args
    from torch.jit._run import annotate_types
    from torch.jit._trace import flatten

    graph = copy_graph(model.graph)
    params = model._tensors() if isinstance(model, ScriptModule) else {}
    if graph.in_spec == "args":
        owner = model if isinstance(model, ScriptModule) else None
        inputs = _script_args(graph, args, dict(kwargs), "export", owner)
    else:
        inputs, _ = flatten((tuple(args), kwargs))
    calls = annotate_types(graph, inputs, params)
    return graph, params, (inputs, calls)


def export_model(
    model,
    args,
    f,
    *,
    kwargs,
    export_params,
    verbose,
    training,
    input_names,
    output_names,
    opset_version,
    do_constant_folding,
    dynamic_axes,
):
    import onnx
    import torch.jit
    from onnx import helper
    from torch.onnx import TrainingMode

    opset = 17 if opset_version is None else int(opset_version)
    if opset not in SUPPORTED_OPSETS:
        raise ValueError(
            f"torch.onnx.export: opset_version {opset} is not supported; use one of "
            f"{', '.join(map(str, SUPPORTED_OPSETS))}"
        )
    args, kwargs = _flat_args(args, kwargs)
    is_module = isinstance(model, torch.nn.Module)
    was_training = model.training if is_module else False
    if is_module and training != TrainingMode.PRESERVE:
        model.train(training == TrainingMode.TRAINING)
    try:
        if isinstance(model, (torch.jit.ScriptModule, torch.jit.ScriptFunction)):
            graph, params, run = _script_graph(model, args, kwargs)
        else:
            traced = torch.jit._trace_for_export(model, args, kwargs)
            graph, params = traced.graph, (traced._tensors() if is_module else {})
            run = None
    finally:
        if is_module:
            model.train(was_training)
    if run is None:
        graph = copy_graph(graph)  # (the passes below rewrite it)
    if do_constant_folding:
        _passes.constant_fold(graph)
    _passes.eliminate_dead_code(graph)
    if verbose:
        print(graph)
    ctx = Context(opset)
    if run is not None:
        ctx.calls = run[1]
        if graph.in_spec == "args" and isinstance(model, torch.jit.ScriptModule):
            from torch.onnx._control import ModuleHandle

            ctx.names[graph.inputs[0]] = ModuleHandle(model, "")
            graph.inputs = graph.inputs[1:]
        values = run[0][len(run[0]) - len(graph.inputs) :]
        for v, x in zip(graph.inputs, values):  # non-tensor arguments are constants
            if not isinstance(x, torch.Tensor):
                ctx.names[v] = ctx.const(np.asarray(x, np.int64 if isinstance(x, int) else None))
        graph.inputs = [v for v, x in zip(graph.inputs, values) if isinstance(x, torch.Tensor)]
    inputs, outputs = convert_graph(
        graph,
        ctx,
        list(input_names or []),
        list(output_names or []),
        export_params,
        dynamic_axes,
        params,
    )
    used = {i for n in ctx.nodes for i in n.input} | {i.name for i in inputs}
    inits = [t for t in ctx.initializers if t.name in used]
    g = helper.make_graph(ctx.nodes, "main_graph", inputs, outputs, inits)
    m = helper.make_model(
        g,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="torch-jit",
        producer_version=torch.jit.__version__,
    )
    m.ir_version = min(m.ir_version, 8 if opset == 17 else 9)
    onnx.checker.check_model(m)
    if f is not None:
        data = m.SerializeToString()
        if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
            with open(f, "wb") as fh:
                fh.write(data)
        else:
            f.write(data)
    return m
