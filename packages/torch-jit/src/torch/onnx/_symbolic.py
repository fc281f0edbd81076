"""The conversions: one function per recorded op, registered under the op's short name.

A recorded kind maps to a key by dropping its namespace, the dunder marks and the in-place
underscore: ``torch.add``, ``Tensor.add``, ``Tensor.__add__`` and ``Tensor.add_`` are all
"add"; ``Tensor.__radd__`` is "radd"; ``nn.LSTM`` is "LSTM". A conversion takes the
:class:`~torch.onnx._export.Context` and the node and returns the ONNX names of the node's
outputs, shaped like ``node.out``. Sizes traced as ints (``x.size(0)``) are 0-d int64
tensors, so shapes computed from them stay dynamic.
"""

import math

import numpy as np

from torch.jit._ir import Value
from torch.onnx.errors import SymbolicValueError, UnsupportedOperatorError

SYMBOLICS = {}


def op_key(kind):
    name = kind.partition(".")[2] if "." in kind else kind
    if name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
        if name.startswith("i") and name[1:] in ("add", "sub", "mul", "truediv", "and", "or"):
            name = name[1:]
    elif name.endswith("_"):
        name = name[:-1]
    return name


def sym(*names, sig="", min_opset=None):
    def deco(fn):
        def convert(ctx, node):
            return fn(ctx, node, _bind(node, sig))

        convert.min_opset = min_opset
        convert.__name__ = fn.__name__
        for n in names:
            SYMBOLICS[n] = convert
        return fn

    return deco


class _Args(dict):
    def __getattr__(self, k):
        return self.get(k)


def _bind(node, sig):
    out = _Args()
    args = list(node.args)
    for i, n in enumerate(sig.split()):
        if n.startswith("*"):
            rest = args[i:]
            if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
                rest = list(rest[0])
            out[n[1:]] = rest
            break
        if i < len(args):
            out[n] = args[i]
    out.update(node.kwargs)
    return out


def _dtype(v):
    if isinstance(v, Value):
        return "int64" if v.type == "int" else v.dtype
    if isinstance(v, bool):
        return "bool"
    return "int64" if isinstance(v, int) else "float32"


def _rank(v):
    if not isinstance(v, Value) or v.shape is None:
        raise SymbolicValueError("ONNX export: the rank of an argument is unknown")
    return len(v.shape)


def _out_dtype(node):
    outs = node.outputs
    return _dtype(outs[0]) if outs else "float32"


def _cast_to(ctx, arg, dtype):
    """ONNX name of ``arg`` as ``dtype`` (numbers become constants of it)."""
    if isinstance(arg, Value):
        name = ctx.name(arg)
        return name if _dtype(arg) == dtype else ctx.op("Cast", name, to=_onnx_dtype(dtype))
    return ctx.tensor(arg, dtype)


def _onnx_dtype(dtype):
    from torch.onnx._export import onnx_dtype

    return onnx_dtype(dtype)


def _const_int(ctx, arg, what):
    if isinstance(arg, Value):
        arr = ctx.array(arg)
        if arr is None:
            raise SymbolicValueError(f"ONNX export: {what} must be a constant")
        return int(arr)
    return int(arg)


def _dim(d, rank):
    return d + rank if d < 0 else d


# ---------------------------------------------------------------- elementwise
_BINARY = {
    "add": "Add",
    "sub": "Sub",
    "subtract": "Sub",
    "mul": "Mul",
    "multiply": "Mul",
    "div": "Div",
    "divide": "Div",
    "true_divide": "Div",
    "truediv": "Div",
    "pow": "Pow",
    "fmod": "Mod",
    "remainder": "Mod",
}
_COMPARE = {
    "eq": "Equal",
    "lt": "Less",
    "gt": "Greater",
    "le": "LessOrEqual",
    "ge": "GreaterOrEqual",
    "ne": "Equal",
    "logical_and": "And",
    "logical_or": "Or",
    "logical_xor": "Xor",
    "and": "And",
    "or": "Or",
}


def _binary(onnx_op, reverse=False):
    def convert(ctx, node, a):
        x, y = a.input, a.other
        if reverse:
            x, y = y, x
        dt = _out_dtype(node)
        if onnx_op == "Pow":
            base = _cast_to(ctx, x, dt)
            return ctx.op("Pow", base, _cast_to(ctx, y, dt if isinstance(y, Value) else dt))
        if onnx_op == "Mod" and dt.startswith("float"):
            return ctx.op("Mod", _cast_to(ctx, x, dt), _cast_to(ctx, y, dt), fmod=1)
        xs, ys = _cast_to(ctx, x, dt), _cast_to(ctx, y, dt)
        if a.alpha is not None and a.alpha != 1:
            ys = ctx.op("Mul", ys, ctx.scalar(a.alpha, dt))
        if node.kind.endswith(("floor_divide", "floordiv__")):
            return (
                ctx.op("Floor", ctx.op("Div", xs, ys))
                if dt.startswith("float")
                else (ctx.op("Div", xs, ys))
            )
        return ctx.op(onnx_op, xs, ys)

    return convert


for _name, _op in _BINARY.items():
    sym(_name, sig="input other")(_binary(_op))
    sym("r" + _name, sig="input other")(_binary(_op, reverse=True))
sym("floor_divide", "floordiv", sig="input other")(_binary("Div"))
sym("rfloordiv", sig="input other")(_binary("Div", reverse=True))


def _compare(onnx_op, negate):
    def convert(ctx, node, a):
        x, y = a.input, a.other
        dt = _dtype(x) if isinstance(x, Value) else _dtype(y)
        if onnx_op in ("And", "Or", "Xor"):
            dt = "bool"
        out = ctx.op(onnx_op, _cast_to(ctx, x, dt), _cast_to(ctx, y, dt))
        return ctx.op("Not", out) if negate else out

    return convert


for _name, _op in _COMPARE.items():
    sym(_name, sig="input other")(_compare(_op, _name == "ne"))

_UNARY = {
    "relu": "Relu",
    "sigmoid": "Sigmoid",
    "tanh": "Tanh",
    "exp": "Exp",
    "log": "Log",
    "sqrt": "Sqrt",
    "neg": "Neg",
    "negative": "Neg",
    "abs": "Abs",
    "erf": "Erf",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "floor": "Floor",
    "ceil": "Ceil",
    "round": "Round",
    "reciprocal": "Reciprocal",
    "sign": "Sign",
    "logical_not": "Not",
    "softsign": "Softsign",
    "contiguous": "Identity",
    "detach": "Identity",
    "clone": "Identity",
    "cpu": "Identity",
    "asin": "Asin",
    "acos": "Acos",
    "atan": "Atan",
    "sinh": "Sinh",
    "asinh": "Asinh",
    "acosh": "Acosh",
    "atanh": "Atanh",
    "cosh": "Cosh",
    "isnan": "IsNaN",
}


def _unary(onnx_op):
    def convert(ctx, node, a):
        return ctx.op(onnx_op, ctx.name(a.input))

    return convert


for _name, _op in _UNARY.items():
    sym(_name, sig="input")(_unary(_op))


@sym("addcmul", "addcdiv", sig="input tensor1 tensor2 value")
def _addcmul(ctx, node, a):
    dt = _out_dtype(node)
    op = "Mul" if op_key(node.kind) == "addcmul" else "Div"
    prod = ctx.op(op, _cast_to(ctx, a.tensor1, dt), _cast_to(ctx, a.tensor2, dt))
    if a.value is not None and a.value != 1:
        prod = ctx.op("Mul", prod, _cast_to(ctx, a.value, dt))
    return ctx.op("Add", _cast_to(ctx, a.input, dt), prod)


@sym("rsqrt", sig="input")
def _rsqrt(ctx, node, a):
    return ctx.op("Reciprocal", ctx.op("Sqrt", ctx.name(a.input)))


@sym("log_softmax", "softmax", sig="input dim _stacklevel dtype")
def _softmax(ctx, node, a):
    x = ctx.name(a.input)
    dim = -1 if a.dim is None else a.dim
    if a.dtype is not None:
        x = ctx.op("Cast", x, to=_onnx_dtype(a.dtype))
    op = "LogSoftmax" if op_key(node.kind) == "log_softmax" else "Softmax"
    return ctx.op(op, x, axis=int(dim))


@sym("gelu", sig="input approximate")
def _gelu(ctx, node, a):
    x = ctx.name(a.input)
    dt = _dtype(a.input)
    half = ctx.op("Mul", x, ctx.scalar(0.5, dt))
    if (a.approximate or "none") == "tanh":
        cube = ctx.op("Mul", ctx.op("Mul", x, x), x)
        inner = ctx.op("Add", x, ctx.op("Mul", cube, ctx.scalar(0.044715, dt)))
        t = ctx.op("Tanh", ctx.op("Mul", inner, ctx.scalar(math.sqrt(2 / math.pi), dt)))
    else:
        t = ctx.op("Erf", ctx.op("Mul", x, ctx.scalar(1 / math.sqrt(2), dt)))
    return ctx.op("Mul", half, ctx.op("Add", t, ctx.scalar(1.0, dt)))


@sym("_gelu", "_gelu_tanh", sig="input")
def _core_gelu(ctx, node, a):
    a["approximate"] = "tanh" if node.kind.endswith("_tanh") else "none"
    return _gelu(ctx, node, a)


@sym("silu", "_silu", sig="input inplace")
def _silu(ctx, node, a):
    x = ctx.name(a.input)
    return ctx.op("Mul", x, ctx.op("Sigmoid", x))


@sym("leaky_relu", sig="input negative_slope inplace")
def _leaky_relu(ctx, node, a):
    slope = 0.01 if a.negative_slope is None else a.negative_slope
    return ctx.op("LeakyRelu", ctx.name(a.input), alpha=float(slope))


@sym("elu", sig="input alpha inplace")
def _elu(ctx, node, a):
    return ctx.op("Elu", ctx.name(a.input), alpha=float(1.0 if a.alpha is None else a.alpha))


@sym("softplus", sig="input beta threshold")
def _softplus(ctx, node, a):
    beta = 1.0 if a.beta is None else float(a.beta)
    x = ctx.name(a.input)
    dt = _dtype(a.input)
    if beta == 1.0:
        return ctx.op("Softplus", x)
    scaled = ctx.op("Softplus", ctx.op("Mul", x, ctx.scalar(beta, dt)))
    return ctx.op("Div", scaled, ctx.scalar(beta, dt))


@sym("hardtanh", "clamp", "clip", sig="input min max")
def _clamp(ctx, node, a):
    dt = _dtype(a.input)
    lo, hi = a.min, a.max
    if op_key(node.kind) == "hardtanh":
        lo = -1.0 if lo is None else lo
        hi = 1.0 if hi is None else hi
        lo, hi = a.get("min_val", lo), a.get("max_val", hi)
    return ctx.op(
        "Clip",
        ctx.name(a.input),
        None if lo is None else _cast_to(ctx, lo, dt),
        None if hi is None else _cast_to(ctx, hi, dt),
    )


@sym("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
     sig="input p training inplace")  # fmt: skip
def _dropout(ctx, node, a):
    training = a.training if a.training is not None else a.get("train", True)
    if isinstance(training, bool) and training and (a.p or 0) > 0:
        raise UnsupportedOperatorError(
            f"Exporting {node.kind} in training mode is not supported: export the model in "
            "eval mode (training=torch.onnx.TrainingMode.EVAL)"
        )
    return ctx.op("Identity", ctx.name(a.input))


@sym("where", sig="condition input other")
def _where(ctx, node, a):
    dt = _out_dtype(node)
    return ctx.op(
        "Where", _cast_to(ctx, a.condition, "bool"), _cast_to(ctx, a.input, dt),
        _cast_to(ctx, a.other, dt),
    )  # fmt: skip


@sym("masked_fill", sig="input mask value")
def _masked_fill(ctx, node, a):
    dt = _dtype(a.input)
    return ctx.op(
        "Where", _cast_to(ctx, a.mask, "bool"), _cast_to(ctx, a.value, dt), ctx.name(a.input)
    )


# ---------------------------------------------------------------- linear algebra
@sym("matmul", "mm", "bmm", sig="input other")
def _matmul(ctx, node, a):
    return ctx.op("MatMul", ctx.name(a.input), ctx.name(a.other))


def _transposed(ctx, w):
    """W^T of a 2-D weight: folded into a new initializer when W is one."""
    arr = ctx.array(w)
    if arr is not None and arr.ndim == 2:
        return ctx.const(np.ascontiguousarray(arr.T), "weight_t")
    return ctx.op("Transpose", ctx.name(w), perm=[1, 0])


@sym("linear", sig="input weight bias")
def _linear(ctx, node, a):
    x = ctx.name(a.input)
    if _rank(a.weight) == 1:
        y = ctx.op("MatMul", x, ctx.name(a.weight))
    elif _rank(a.input) == 2 and a.bias is not None:
        return ctx.op("Gemm", x, ctx.name(a.weight), ctx.name(a.bias), transB=1)
    else:
        y = ctx.op("MatMul", x, _transposed(ctx, a.weight))
    return y if a.bias is None else ctx.op("Add", y, ctx.name(a.bias))


@sym("addmm", sig="input mat1 mat2 beta alpha")
def _addmm(ctx, node, a):
    return ctx.op(
        "Gemm", ctx.name(a.mat1), ctx.name(a.mat2), ctx.name(a.input),
        alpha=float(1.0 if a.alpha is None else a.alpha),
        beta=float(1.0 if a.beta is None else a.beta),
    )  # fmt: skip


@sym("t", sig="input")
def _t(ctx, node, a):
    if _rank(a.input) < 2:
        return ctx.op("Identity", ctx.name(a.input))
    return ctx.op("Transpose", ctx.name(a.input), perm=[1, 0])


# ---------------------------------------------------------------- shapes
@sym("size", sig="input dim")
def _size(ctx, node, a):
    shape = ctx.op("Shape", ctx.name(a.input))
    if a.dim is None:
        return shape
    return ctx.op("Gather", shape, ctx.const(np.asarray(int(a.dim), np.int64)), axis=0)


@sym("view", "reshape", sig="input *shape")
def _reshape(ctx, node, a):
    return ctx.op("Reshape", ctx.name(a.input), ctx.ints(a.shape))


@sym("view_as", "reshape_as", "expand_as", sig="input other")
def _view_as(ctx, node, a):
    op = "Expand" if op_key(node.kind) == "expand_as" else "Reshape"
    return ctx.op(op, ctx.name(a.input), ctx.op("Shape", ctx.name(a.other)))


@sym("flatten", sig="input start_dim end_dim")
def _flatten(ctx, node, a):
    rank = _rank(a.input)
    start = _dim(a.start_dim or 0, rank)
    end = _dim(-1 if a.end_dim is None else a.end_dim, rank)
    x = ctx.name(a.input)
    if rank == 0:
        return ctx.op("Reshape", x, ctx.i64([1]))
    if end == rank - 1 and start == 1:
        return ctx.op("Flatten", x, axis=1)
    shape = ctx.op("Shape", x)
    parts = []
    if start > 0:
        parts.append(ctx.op("Slice", shape, ctx.i64([0]), ctx.i64([start])))
    parts.append(ctx.i64([-1]))
    if end < rank - 1:
        parts.append(ctx.op("Slice", shape, ctx.i64([end + 1]), ctx.i64([rank])))
    new = parts[0] if len(parts) == 1 else ctx.op("Concat", *parts, axis=0)
    return ctx.op("Reshape", x, new)


@sym("transpose", "swapaxes", sig="input dim0 dim1")
def _transpose(ctx, node, a):
    rank = _rank(a.input)
    perm = list(range(rank))
    d0, d1 = _dim(a.dim0, rank), _dim(a.dim1, rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return ctx.op("Transpose", ctx.name(a.input), perm=perm)


@sym("permute", sig="input *dims")
def _permute(ctx, node, a):
    rank = _rank(a.input)
    return ctx.op("Transpose", ctx.name(a.input), perm=[_dim(int(d), rank) for d in a.dims])


@sym("unsqueeze", sig="input dim")
def _unsqueeze(ctx, node, a):
    d = _dim(a.dim, _rank(a.input) + 1)
    return ctx.op("Unsqueeze", ctx.name(a.input), ctx.i64([d]))


@sym("squeeze", sig="input dim")
def _squeeze(ctx, node, a):
    rank = _rank(a.input)
    if a.dim is None:
        dims = [i for i, s in enumerate(a.input.shape) if s == 1]
    else:
        dims = [a.dim] if isinstance(a.dim, int) else list(a.dim)
        dims = [_dim(d, rank) for d in dims if a.input.shape[_dim(d, rank)] == 1]
    if not dims:
        return ctx.op("Identity", ctx.name(a.input))
    return ctx.op("Squeeze", ctx.name(a.input), ctx.i64(dims))


@sym("expand", sig="input *size")
def _expand(ctx, node, a):
    sizes = [1 if (isinstance(s, int) and s == -1) else s for s in a.size]
    return ctx.op("Expand", ctx.name(a.input), ctx.ints(sizes))


@sym("cat", "concat", "concatenate", sig="tensors dim")
def _cat(ctx, node, a):
    ts = [t for t in a.tensors if not (isinstance(t, Value) and t.shape == (0,))]
    dim = a.dim or 0
    rank = _rank(ts[0])
    return ctx.op("Concat", *(ctx.name(t) for t in ts), axis=_dim(dim, rank))


@sym("stack", sig="tensors dim")
def _stack(ctx, node, a):
    rank = _rank(a.tensors[0]) + 1
    d = _dim(a.dim or 0, rank)
    parts = [ctx.op("Unsqueeze", ctx.name(t), ctx.i64([d])) for t in a.tensors]
    return ctx.op("Concat", *parts, axis=d)


def _split_sizes(node, x, dim):
    return [v.shape[dim] for v in node.outputs]


@sym("chunk", "split", "unbind", "tensor_split", sig="input arg dim")
def _split(ctx, node, a):
    key = op_key(node.kind)
    rank = _rank(a.input)
    dim = a.dim
    if dim is None:
        dim = a.get("split_size_or_sections") is not None and 0 or 0
        if key == "unbind" and isinstance(a.arg, int):
            dim = a.arg
    dim = _dim(dim, rank)
    sizes = _split_sizes(node, a.input, dim)
    outs = ctx.op("Split", ctx.name(a.input), ctx.i64(sizes), axis=dim, outputs=len(sizes))
    outs = [outs] if len(sizes) == 1 else outs
    if key == "unbind":
        outs = [ctx.op("Squeeze", o, ctx.i64([dim])) for o in outs]
    return type(node.out)(outs)


@sym("getitem", sig="input index")
def _getitem(ctx, node, a):
    x = ctx.name(a.input)
    idx = a.index if isinstance(a.index, tuple) else (a.index,)
    rank = _rank(a.input)
    if any(i is Ellipsis for i in idx):
        k = idx.index(Ellipsis)
        fill = rank - (len(idx) - 1 - sum(i is None for i in idx))
        idx = idx[:k] + (slice(None),) * fill + idx[k + 1 :]
    dim = 0
    starts, ends, axes, steps = [], [], [], []
    gathers, unsqueeze = [], []
    out_dim = 0
    for i in idx:
        if i is None:
            unsqueeze.append(out_dim)
            out_dim += 1
            continue
        if isinstance(i, slice):
            if (i.start, i.stop, i.step) != (None, None, None):
                starts.append(0 if i.start is None else i.start)
                ends.append(2**62 if i.stop is None else i.stop)
                axes.append(dim)
                steps.append(1 if i.step is None else i.step)
            out_dim += 1
        elif isinstance(i, (int, Value)) and (not isinstance(i, Value) or i.type == "int"):
            gathers.append((dim, i))
        elif isinstance(i, Value):
            gathers.append((dim, i))
            out_dim += _rank(i)
        else:
            raise UnsupportedOperatorError(f"ONNX export: unsupported index {i!r}")
        dim += 1
    if axes:
        x = ctx.op("Slice", x, ctx.ints(starts), ctx.ints(ends), ctx.i64(axes), ctx.ints(steps))
    removed = 0
    for d, i in gathers:
        if isinstance(i, Value) and i.type == "Tensor":
            ind = ctx.name(i)
            if i.dtype == "bool":
                raise UnsupportedOperatorError("ONNX export: boolean mask indexing")
            x = ctx.op("Gather", x, ind, axis=d - removed)
        else:
            ind = ctx.tensor(i, "int64")
            x = ctx.op("Gather", x, ind, axis=d - removed)
            removed += 1
    if unsqueeze:
        x = ctx.op("Unsqueeze", x, ctx.i64(unsqueeze))
    return x


@sym("narrow", sig="input dim start length")
def _narrow(ctx, node, a):
    d = _dim(a.dim, _rank(a.input))
    start = ctx.ints([a.start])
    end = ctx.op("Add", start, ctx.ints([a.length]))
    return ctx.op("Slice", ctx.name(a.input), start, end, ctx.i64([d]))


@sym("select", sig="input dim index")
def _select(ctx, node, a):
    d = _dim(a.dim, _rank(a.input))
    return ctx.op("Gather", ctx.name(a.input), ctx.tensor(a.index, "int64"), axis=d)


@sym("index_select", sig="input dim index")
def _index_select(ctx, node, a):
    d = _dim(a.dim, _rank(a.input))
    return ctx.op("Gather", ctx.name(a.input), ctx.name(a.index), axis=d)


# ---------------------------------------------------------------- dtypes, creation
_DTYPE_METHODS = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "bool": "bool",
    "short": "int16",
    "byte": "uint8",
}


@sym(*_DTYPE_METHODS, "to", "type", "type_as", sig="input *rest")
def _cast(ctx, node, a):
    target = _out_dtype(node)
    if _dtype(a.input) == target:
        return ctx.op("Identity", ctx.name(a.input))
    return ctx.op("Cast", ctx.name(a.input), to=_onnx_dtype(target))


def _fill(ctx, node, shape_name, value):
    from onnx import helper

    dt = _out_dtype(node)
    tensor = helper.make_tensor("value", _onnx_dtype(dt), [1], [value])
    return ctx.op("ConstantOfShape", shape_name, value=tensor)


@sym("zeros", "ones", "full", "empty", sig="*size")
def _zeros(ctx, node, a):
    key = op_key(node.kind)
    size = a.size
    value = {"zeros": 0, "ones": 1, "empty": 0}.get(key)
    if key == "full":
        size, value = a.size[0], (a.size[1] if len(a.size) > 1 else a.fill_value)
    if value is None:
        value = a.fill_value
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = size[0]
    dt = _out_dtype(node)
    return _fill(ctx, node, ctx.ints(size), np.asarray(value).astype(_np(dt)).item())


def _np(dt):
    from torch.onnx._export import np_dtype

    return np_dtype(dt)


@sym("zeros_like", "ones_like", "full_like", "empty_like", sig="input fill_value")
def _zeros_like(ctx, node, a):
    key = op_key(node.kind)
    value = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(key, a.fill_value)
    dt = _out_dtype(node)
    return _fill(
        ctx, node, ctx.op("Shape", ctx.name(a.input)), np.asarray(value).astype(_np(dt)).item()
    )


@sym("arange", sig="*args")
def _arange(ctx, node, a):
    args = list(a.args)
    if "end" in a:
        args = [a.get("start", 0), a.end] + ([a.step] if "step" in a else [])
    if len(args) == 1:
        args = [0] + args
    if len(args) == 2:
        args = args + [1]
    dt = _out_dtype(node)
    parts = [_cast_to(ctx, v, dt) for v in args]
    return ctx.op("Range", *parts)


@sym("triu", "tril", sig="input diagonal")
def _trilu(ctx, node, a):
    k = ctx.const(np.asarray(int(a.diagonal or 0), np.int64))
    return ctx.op("Trilu", ctx.name(a.input), k, upper=int(op_key(node.kind) == "triu"))


# ---------------------------------------------------------------- reductions
@sym("mean", "sum", sig="input dim keepdim dtype")
def _reduce(ctx, node, a):
    key = op_key(node.kind)
    x = ctx.name(a.input)
    keep = int(bool(a.keepdim))
    if a.dim is None:
        axes = None
        keep = 0
    else:
        dims = [a.dim] if isinstance(a.dim, int) else list(a.dim)
        axes = [_dim(d, _rank(a.input)) for d in dims]
    return _reduce_axes(ctx, "ReduceMean" if key == "mean" else "ReduceSum", x, axes, keep)


def _reduce_axes(ctx, op, x, axes, keep):
    """A Reduce* node; its axes are an attribute up to opset 17 and an input from 18 (sum
    takes them as an input since 13)."""
    if op == "ReduceSum" or ctx.opset >= 18:
        return ctx.op(op, x, None if axes is None else ctx.i64(axes), keepdims=keep)
    return ctx.op(op, x, axes=axes, keepdims=keep)


@sym("amax", "amin", "prod", "max", "min", sig="input dim keepdim")
def _reduce_max(ctx, node, a):
    key = op_key(node.kind)
    x = ctx.name(a.input)
    if isinstance(a.dim, Value) and a.dim.type == "Tensor":  # max(a, b): elementwise
        dt = _out_dtype(node)
        op = "Max" if key == "max" else "Min"
        return ctx.op(op, _cast_to(ctx, a.input, dt), _cast_to(ctx, a.dim, dt))
    op = {"amax": "ReduceMax", "max": "ReduceMax", "amin": "ReduceMin", "min": "ReduceMin",
          "prod": "ReduceProd"}[key]  # fmt: skip
    keep = int(bool(a.keepdim))
    if a.dim is None or (isinstance(a.dim, (list, tuple)) and not a.dim):
        return _reduce_axes(ctx, op, x, None, 0)
    dims = [a.dim] if isinstance(a.dim, int) else list(a.dim)
    axes = [_dim(d, _rank(a.input)) for d in dims]
    values = _reduce_axes(ctx, op, x, axes, keep)
    if key in ("max", "min"):  # (values, indices)
        arg = "ArgMax" if key == "max" else "ArgMin"
        return (values, ctx.op(arg, x, axis=axes[0], keepdims=keep))
    return values


@sym("maximum", "minimum", sig="input other")
def _maximum(ctx, node, a):
    dt = _out_dtype(node)
    op = "Max" if op_key(node.kind) == "maximum" else "Min"
    return ctx.op(op, _cast_to(ctx, a.input, dt), _cast_to(ctx, a.other, dt))


@sym("argmax", "argmin", sig="input dim keepdim")
def _argmax(ctx, node, a):
    op = "ArgMax" if op_key(node.kind) == "argmax" else "ArgMin"
    x = ctx.name(a.input)
    if a.dim is None:
        x = ctx.op("Reshape", x, ctx.i64([-1]))
        return ctx.op(op, x, axis=0, keepdims=0)
    return ctx.op(op, x, axis=_dim(a.dim, _rank(a.input)), keepdims=int(bool(a.keepdim)))


@sym("cumsum", sig="input dim")
def _cumsum(ctx, node, a):
    axis = ctx.const(np.asarray(_dim(a.dim, _rank(a.input)), np.int64))
    return ctx.op("CumSum", ctx.name(a.input), axis)


@sym("repeat", sig="input *sizes")
def _repeat(ctx, node, a):
    x = ctx.name(a.input)
    extra = len(a.sizes) - _rank(a.input)
    if extra > 0:
        x = ctx.op("Reshape", x, ctx.i64([1] * extra + list(a.input.shape)))
    return ctx.op("Tile", x, ctx.ints(a.sizes))


@sym("pad", sig="input pad mode value")
def _pad(ctx, node, a):
    mode = a.mode or "constant"
    rank = _rank(a.input)
    pads = list(a.pad)
    begins, ends = [0] * rank, [0] * rank
    for i in range(len(pads) // 2):  # (last dim first, begin/end pairs)
        begins[rank - 1 - i], ends[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
    onnx_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}.get(mode)
    if onnx_mode is None:
        raise UnsupportedOperatorError(f"ONNX export: pad mode {mode!r}")
    value = None
    if onnx_mode == "constant":
        value = _cast_to(ctx, 0.0 if a.value is None else a.value, _dtype(a.input))
    return ctx.op("Pad", ctx.name(a.input), ctx.i64(begins + ends), value, mode=onnx_mode)


@sym("hardsigmoid", "hardswish", "relu6", sig="input inplace")
def _hard(ctx, node, a):
    key = op_key(node.kind)
    x = ctx.name(a.input)
    if key == "relu6":
        dt = _dtype(a.input)
        return ctx.op("Clip", x, ctx.scalar(0, dt), ctx.scalar(6, dt))
    if key == "hardswish":
        return ctx.op("HardSwish", x)
    return ctx.op("HardSigmoid", x, alpha=1 / 6, beta=0.5)


# ---------------------------------------------------------------- nn kernels
def _pair(v, n):
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return [int(v)] * n


@sym("conv1d", "conv2d", "conv3d", sig="input weight bias stride padding dilation groups")
def _conv(ctx, node, a):
    n = _rank(a.weight) - 2
    pads = a.padding if a.padding is not None else 0
    attrs = {
        "strides": _pair(1 if a.stride is None else a.stride, n),
        "dilations": _pair(1 if a.dilation is None else a.dilation, n),
        "group": int(a.groups or 1),
        "kernel_shape": list(a.weight.shape[2:]),
    }
    if isinstance(pads, str):
        if pads == "same":
            attrs["auto_pad"] = "SAME_UPPER"
        elif pads != "valid":
            raise SymbolicValueError(f"conv: unknown padding {pads!r}")
    else:
        attrs["pads"] = _pair(pads, n) * 2
    inputs = [ctx.name(a.input), ctx.name(a.weight)]
    if a.bias is not None:
        inputs.append(ctx.name(a.bias))
    return ctx.op("Conv", *inputs, **attrs)


def _pool_args(a, n):
    k = _pair(a.kernel_size, n)
    stride = a.stride if a.stride not in (None, [], ()) else k
    return {
        "kernel_shape": k,
        "strides": _pair(stride, n),
        "pads": _pair(a.padding or 0, n) * 2,
        "ceil_mode": int(bool(a.ceil_mode)),
    }


@sym("max_pool1d", "max_pool2d", "max_pool3d",
     sig="input kernel_size stride padding dilation ceil_mode return_indices")  # fmt: skip
def _max_pool(ctx, node, a):
    n = int(node.kind[-2])
    if a.return_indices:
        raise UnsupportedOperatorError("ONNX export: max_pool with return_indices")
    attrs = _pool_args(a, n)
    attrs["dilations"] = _pair(a.dilation or 1, n)
    return ctx.op("MaxPool", ctx.name(a.input), **attrs)


_AVG_POOL_SIG = "input kernel_size stride padding ceil_mode count_include_pad divisor_override"


@sym("avg_pool1d", "avg_pool2d", "avg_pool3d", sig=_AVG_POOL_SIG)
def _avg_pool(ctx, node, a):
    n = int(node.kind[-2])
    attrs = _pool_args(a, n)
    attrs["count_include_pad"] = int(a.count_include_pad is None or bool(a.count_include_pad))
    return ctx.op("AveragePool", ctx.name(a.input), **attrs)


@sym("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", sig="input output_size")
def _adaptive_avg_pool(ctx, node, a):
    out = a.output_size
    sizes = out if isinstance(out, (list, tuple)) else [out]
    if all(s == 1 for s in sizes):
        return ctx.op("GlobalAveragePool", ctx.name(a.input))
    in_sizes = a.input.shape[2:]
    if len(sizes) == 1:
        sizes = sizes * len(in_sizes)
    if any(s is None or i % s for i, s in zip(in_sizes, sizes)):
        raise UnsupportedOperatorError(
            "ONNX export: adaptive_avg_pool with an output size that does not divide the input"
        )
    k = [i // s for i, s in zip(in_sizes, sizes)]
    return ctx.op("AveragePool", ctx.name(a.input), kernel_shape=k, strides=k)


@sym("batch_norm", sig="input running_mean running_var weight bias training momentum eps")
def _batch_norm(ctx, node, a):
    if a.training:
        raise UnsupportedOperatorError(
            "Exporting batch_norm in training mode is not supported: export in eval mode"
        )
    c = a.input.shape[1]
    dt = _dtype(a.input)
    w = ctx.name(a.weight) if a.weight is not None else ctx.const(np.ones(c, _np(dt)))
    b = ctx.name(a.bias) if a.bias is not None else ctx.const(np.zeros(c, _np(dt)))
    return ctx.op(
        "BatchNormalization", ctx.name(a.input), w, b, ctx.name(a.running_mean),
        ctx.name(a.running_var), epsilon=float(1e-5 if a.eps is None else a.eps),
    )  # fmt: skip


@sym("layer_norm", sig="input normalized_shape weight bias eps")
def _layer_norm(ctx, node, a):
    shape = a.normalized_shape
    shape = [shape] if isinstance(shape, int) else list(shape)
    dt = _dtype(a.input)
    w = ctx.name(a.weight) if a.weight is not None else ctx.const(np.ones(shape, _np(dt)))
    b = ctx.name(a.bias) if a.bias is not None else ctx.const(np.zeros(shape, _np(dt)))
    return ctx.op(
        "LayerNormalization", ctx.name(a.input), w, b, axis=-len(shape),
        epsilon=float(1e-5 if a.eps is None else a.eps),
    )  # fmt: skip


@sym("embedding", sig="input weight padding_idx max_norm norm_type scale_grad_by_freq sparse")
def _embedding(ctx, node, a):
    if a.max_norm is not None:
        raise UnsupportedOperatorError("ONNX export: embedding with max_norm")
    return ctx.op("Gather", ctx.name(a.weight), ctx.name(a.input), axis=0)


# ---------------------------------------------------------------- recurrent layers
_GATES = {"LSTM": (4, [0, 3, 1, 2]), "GRU": (3, [1, 0, 2]), "RNN": (1, [0])}


def _gate_order(arr, mode, hidden):
    n, order = _GATES[mode]
    chunks = [arr[i * hidden : (i + 1) * hidden] for i in range(n)]
    return np.concatenate([chunks[i] for i in order], axis=0)


@sym("LSTM", "GRU", "RNN", sig="input hx")
def _rnn(ctx, node, a):
    mode = op_key(node.kind)
    cfg = node.attrs["config"]
    H, layers = cfg["hidden_size"], cfg["num_layers"]
    nd = 2 if cfg.get("bidirectional") else 1
    if cfg.get("proj_size"):
        raise UnsupportedOperatorError("ONNX export: LSTM with proj_size")
    if _rank(a.input) != 3:
        raise UnsupportedOperatorError(f"ONNX export: {mode} with unbatched input")
    weights = node.kwargs["weights"]
    x = ctx.name(a.input)
    if cfg.get("batch_first"):
        x = ctx.op("Transpose", x, perm=[1, 0, 2])
    hx = a.hx
    h0 = c0 = None
    if mode == "LSTM" and hx is not None:
        h0, c0 = (ctx.name(t) for t in hx)
    elif hx is not None:
        h0 = ctx.name(hx)
    hs, cs = [], []
    for layer in range(layers):
        W, R, B = [], [], []
        for d in range(nd):
            sfx = f"_l{layer}" + ("_reverse" if d else "")

            def get(name, sfx=sfx):
                v = weights.get(name + sfx)
                if v is None:
                    return None
                arr = ctx.array(v)
                if arr is None:
                    raise SymbolicValueError(
                        f"ONNX export: {mode} weights must be parameters exported with "
                        "export_params=True"
                    )
                return arr

            wi, wh = get("weight_ih"), get("weight_hh")
            W.append(_gate_order(wi, mode, H))
            R.append(_gate_order(wh, mode, H))
            bi, bh = get("bias_ih"), get("bias_hh")
            g = _GATES[mode][0] * H
            bi = np.zeros(g, wi.dtype) if bi is None else _gate_order(bi, mode, H)
            bh = np.zeros(g, wi.dtype) if bh is None else _gate_order(bh, mode, H)
            B.append(np.concatenate([bi, bh]))
        ins = [
            x,
            ctx.const(np.stack(W), "W"),
            ctx.const(np.stack(R), "R"),
            ctx.const(np.stack(B), "B"),
            None,
        ]
        lo, hi = ctx.i64([layer * nd]), ctx.i64([(layer + 1) * nd])
        axis0 = ctx.i64([0])
        ins.append(None if h0 is None else ctx.op("Slice", h0, lo, hi, axis0))
        attrs = {"hidden_size": H, "direction": "bidirectional" if nd == 2 else "forward"}
        if mode == "LSTM":
            ins.append(None if c0 is None else ctx.op("Slice", c0, lo, hi, axis0))
            y, yh, yc = ctx.op("LSTM", *ins, outputs=3, **attrs)
            cs.append(yc)
        elif mode == "GRU":
            y, yh = ctx.op("GRU", *ins, outputs=2, linear_before_reset=1, **attrs)
        else:
            act = "Relu" if cfg.get("nonlinearity") == "relu" else "Tanh"
            y, yh = ctx.op("RNN", *ins, outputs=2, activations=[act] * nd, **attrs)
        hs.append(yh)
        if nd == 1:
            x = ctx.op("Squeeze", y, ctx.i64([1]))
        else:
            x = ctx.op("Reshape", ctx.op("Transpose", y, perm=[0, 2, 1, 3]), ctx.i64([0, 0, -1]))
    out = ctx.op("Transpose", x, perm=[1, 0, 2]) if cfg.get("batch_first") else x
    h_n = hs[0] if len(hs) == 1 else ctx.op("Concat", *hs, axis=0)
    if mode == "LSTM":
        c_n = cs[0] if len(cs) == 1 else ctx.op("Concat", *cs, axis=0)
        return (out, (h_n, c_n))
    return (out, h_n)
