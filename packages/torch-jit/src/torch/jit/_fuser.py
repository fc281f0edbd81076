"""The fused kernel of a ``prim::FusionGroup``: the group's ops compiled once into a small
register-machine program that the core runs in one pass over memory
(``torch._C._fused_elementwise``, csrc/fused.cpp).

A program is a list of instructions ``(op, dst, a, b, c)``: registers ``0..n-1`` hold the
group's tensor inputs, the others temporaries and the group's outputs; ``c`` is a Python
scalar argument (``x * 0.5``, ``x ** 3.0``). :func:`compile_group` returns ``None`` for a group
with an op or an argument form the kernel lacks; :meth:`Program.run` returns ``None`` when the
inputs at hand do not suit it (not all float32 or all float64 tensors on one CPU or CUDA
device, an output whose shape is not the broadcast shape of all inputs, shapes that do not
broadcast). The caller then runs the ops one by one. On CUDA the core turns the program into
one generated kernel, compiled by NVRTC on first use (csrc/cuda_fused.cpp).

Each op computes what its eager kernel computes, in the same precision and with the same
functions (``x ** 2`` is ``x * x`` as in eager, ``x ** 0.5`` a square root), so a fused group
gives the numbers of the unfused one.
"""

import math

import torch

# The op codes of csrc/fused.cpp (enum FusedOp), in order.
OPS = """add sub mul div maximum minimum
    addc subc rsubc mulc divc rdivc powc leaky_relu clamp_lo clamp_hi
    neg abs relu sigmoid tanh exp log sqrt rsqrt reciprocal erf gelu gelu_tanh silu sin cos
    """.split()
CODE = {name: i for i, name in enumerate(OPS)}
_MAX_REGS = 64  # csrc/fused.cpp's kMaxRegs

_UNARY = {
    "neg": "neg",
    "__neg__": "neg",
    "abs": "abs",
    "relu": "relu",
    "sigmoid": "sigmoid",
    "tanh": "tanh",
    "exp": "exp",
    "log": "log",
    "sqrt": "sqrt",
    "rsqrt": "rsqrt",
    "reciprocal": "reciprocal",
    "erf": "erf",
    "silu": "silu",
    "sin": "sin",
    "cos": "cos",
}
# name -> (op with two registers, op with (register, scalar), op with (scalar, register))
_BINARY = {
    "add": ("add", "addc", "addc"),
    "__add__": ("add", "addc", "addc"),
    "__radd__": ("add", "addc", "addc"),
    "sub": ("sub", "subc", "rsubc"),
    "__sub__": ("sub", "subc", "rsubc"),
    "mul": ("mul", "mulc", "mulc"),
    "__mul__": ("mul", "mulc", "mulc"),
    "__rmul__": ("mul", "mulc", "mulc"),
    "div": ("div", "divc", "rdivc"),
    "true_divide": ("div", "divc", "rdivc"),
    "__truediv__": ("div", "divc", "rdivc"),
    "maximum": ("maximum", None, None),
    "minimum": ("minimum", None, None),
}
# reflected dunders: ``t.__rsub__(s)`` is ``s - t``
_REFLECTED = {"__rsub__": "sub", "__rtruediv__": "div"}

_OK_TYPES = frozenset((torch.Tensor, torch.nn.Parameter))


class _Unsupported(Exception):
    pass


def _number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise _Unsupported
    return float(x)


def _args(node, names, defaults):
    """The node's arguments by name (positional, keyword or default)."""
    if len(node.args) > len(names) or any(k not in names for k in node.kwargs):
        raise _Unsupported
    out = dict(defaults)
    out.update(zip(names, node.args))
    out.update(node.kwargs)
    if any(n not in out for n in names):
        raise _Unsupported
    return [out[n] for n in names]


class _Builder:
    def __init__(self, inputs, value_cls):
        self.value_cls = value_cls
        self.reg_of = {v: i for i, v in enumerate(inputs)}
        self.instrs = []  # (op, dst value or temp key, a, b, c)

    def operand(self, x):
        if isinstance(x, self.value_cls):
            if x not in self.reg_of:
                raise _Unsupported
            return x
        raise _Unsupported

    def emit(self, op, dst, a, b=None, c=0.0):
        self.instrs.append((op, dst, a, b, float(c)))
        self.reg_of.setdefault(dst, None)
        return dst

    def temp(self):
        key = ("tmp", len(self.instrs))
        return key


def _binary(bld, name, x, y, out):
    both, right, left = _BINARY[name]
    xv, yv = isinstance(x, bld.value_cls), isinstance(y, bld.value_cls)
    if xv and yv:
        return bld.emit(both, out, bld.operand(x), bld.operand(y))
    if xv and right:
        return bld.emit(right, out, bld.operand(x), c=_number(y))
    if yv and left:
        return bld.emit(left, out, bld.operand(y), c=_number(x))
    raise _Unsupported


def _pow(bld, x, e, out):
    """``x ** e`` as eager computes it (csrc/ops.cpp's pow_by_products)."""
    a, e = bld.operand(x), _number(e)
    if e == 2:
        return bld.emit("mul", out, a, a)
    if e == 3:
        t = bld.emit("mul", bld.temp(), a, a)
        return bld.emit("mul", out, t, a)
    if e == -2:
        t = bld.emit("mul", bld.temp(), a, a)
        return bld.emit("reciprocal", out, t)
    simple = {0.5: "sqrt", -0.5: "rsqrt", -1: "reciprocal"}
    if e in simple:
        return bld.emit(simple[e], out, a)
    return bld.emit("powc", out, a, c=e)


def _no_inplace(flag):
    if flag:
        raise _Unsupported


def _add_node(bld, node):
    space, _, name = node.kind.partition(".")
    name = name.rpartition(".")[2]
    outs = node.outputs
    if len(outs) != 1 or space not in ("torch", "Tensor", "F"):
        raise _Unsupported
    out = outs[0]
    if name in _UNARY:
        (x, inplace) = _args(node, ["input", "inplace"], {"inplace": False})
        _no_inplace(inplace)
        return bld.emit(_UNARY[name], out, bld.operand(x))
    if name == "square":
        (x,) = _args(node, ["input"], {})
        a = bld.operand(x)
        return bld.emit("mul", out, a, a)
    if name in _BINARY:
        x, y, alpha = _args(node, ["input", "other", "alpha"], {"alpha": 1})
        if alpha != 1 or (name == "div" and node.kwargs.get("rounding_mode") is not None):
            raise _Unsupported
        return _binary(bld, name, x, y, out)
    if name in _REFLECTED:
        x, y = _args(node, ["input", "other"], {})
        return _binary(bld, _REFLECTED[name], y, x, out)
    if name in ("pow", "__pow__"):
        x, e = _args(node, ["input", "exponent"], {})
        return _pow(bld, x, e, out)
    if name == "gelu":
        x, approximate = _args(node, ["input", "approximate"], {"approximate": "none"})
        if approximate not in ("none", "tanh"):
            raise _Unsupported
        return bld.emit("gelu" if approximate == "none" else "gelu_tanh", out, bld.operand(x))
    if name == "leaky_relu":
        x, slope, inplace = _args(
            node, ["input", "negative_slope", "inplace"], {"negative_slope": 0.01, "inplace": False}
        )
        _no_inplace(inplace)
        return bld.emit("leaky_relu", out, bld.operand(x), c=_number(slope))
    if name == "hardtanh":
        x, lo, hi, inplace = _args(
            node,
            ["input", "min_val", "max_val", "inplace"],
            {"min_val": -1.0, "max_val": 1.0, "inplace": False},
        )
        _no_inplace(inplace)
        lo, hi = _number(lo), _number(hi)
        if not lo < hi:
            raise _Unsupported
        t = bld.emit("clamp_lo", bld.temp(), bld.operand(x), c=lo)
        return bld.emit("clamp_hi", out, t, c=hi)
    raise _Unsupported


class Program:
    """A fusion group's compiled program (see the module docstring)."""

    def __init__(self, n_inputs, code, consts, outputs):
        self.n_inputs = n_inputs
        self.code = code
        self.consts = consts
        self.outputs = outputs

    def run(self, inputs):
        """The group's outputs, or ``None`` when these inputs need the op-by-op path."""
        for x in inputs:  # (subclasses may override the ops: theirs run one by one)
            if x.__class__ not in _OK_TYPES:
                return None
        try:  # (None: an output would be smaller than the inputs' broadcast shape)
            return torch._C._fused_elementwise(self.code, self.consts, inputs, self.outputs)
        except TypeError:  # not all float32 or all float64 tensors on one CPU or CUDA device
            return None
        except RuntimeError:  # shapes that do not broadcast: the op-by-op path says which op
            return None

    def run_linear(self, x, w, b, others, slot, then=None):
        """The group's outputs with input ``slot`` taken as ``F.linear(x, w, b)``, made in
        row chunks under the program (csrc/fused.cpp's Note [Epilogue fusion]); with
        ``then = (w2, b2)``, ``[F.linear(the one output, w2, b2)]`` made the same way. ``None``
        when these tensors need the products and the group apart: an input other than the
        product's size, a bias or weight of another form, not all float32 or float64 CPU."""
        w2, b2 = then if then is not None else (None, None)
        tensors = [x, w, *others] + [t for t in (b, w2, b2) if t is not None]
        if any(t.__class__ not in _OK_TYPES for t in tensors):
            return None
        if x.dim() < 2 or w.dim() != 2 or (b is not None and b.dim() != 1):
            return None
        if then is not None and (w2.dim() != 2 or (b2 is not None and b2.dim() != 1)):
            return None
        lead, n = tuple(x.shape[:-1]), w.shape[0]
        full, m = (*lead, n), math.prod(lead)
        ins = []
        for t in others:  # (each as a 2-D (m, n) operand, or one that broadcasts along rows)
            if t.dim() <= 1 or (x.dim() == 2 and t.dim() == 2):
                ins.append(t)
            elif tuple(t.shape) == full:
                ins.append(t.reshape(m, n))
            else:
                return None
        ins.insert(slot, None)
        b, w2, b2 = (t.contiguous() if t is not None else None for t in (b, w2, b2))
        try:
            outs = torch._C._fused_linear_elementwise(
                x.reshape(m, x.shape[-1]).contiguous(),
                w.contiguous(),
                b,
                self.code,
                self.consts,
                ins,
                slot,
                self.outputs,
                w2,
                b2,
            )
        except (TypeError, RuntimeError):  # dtypes or shapes that F.linear itself must judge
            return None
        if outs is None:
            return None
        return [o.view(*lead, o.shape[-1]) for o in outs]


def compile_group(node):
    """The :class:`Program` of fusion group ``node``, or ``None`` when it has an op (or an
    argument form) the fused kernel lacks."""
    from torch.jit._ir import Value

    block = node.blocks[0]
    inputs = list(block.inputs)
    if not inputs or not block.outputs or len(inputs) >= _MAX_REGS:
        return None
    bld = _Builder(inputs, Value)
    try:
        for n in block.nodes:
            _add_node(bld, n)
    except _Unsupported:
        return None
    outs = [v for v in block.outputs]
    if any(not isinstance(v, Value) or v not in bld.reg_of or v in inputs for v in outs):
        return None
    if len(set(outs)) != len(outs):
        return None
    return _allocate(bld, len(inputs), inputs, outs)


def _allocate(bld, n_inputs, inputs, outs):
    """Registers for the instructions: inputs first, then each result in a register freed by
    a value read for the last time (never one of the instruction's own sources)."""
    instrs = bld.instrs
    last = {}
    for i, (_, _, a, b, _) in enumerate(instrs):
        last[a] = i
        if b is not None:
            last[b] = i
    keep = set(outs)
    reg = {v: i for i, v in enumerate(inputs)}
    free, top = [], n_inputs
    code, consts = [], []
    for i, (op, dst, a, b, c) in enumerate(instrs):
        if dst in reg:  # (SSA: a value is made once)
            return None
        if free:
            r = free.pop()
        else:
            r, top = top, top + 1
            if top > _MAX_REGS:
                return None
        ra, rb = reg[a], reg[b] if b is not None else 0
        code += [CODE[op], r, ra, rb]
        consts.append(c)
        reg[dst] = r
        for v in {a, b}:
            if v is not None and last.get(v) == i and v not in keep and reg[v] >= n_inputs:
                free.append(reg[v])
        if last.get(dst) is None and dst not in keep:
            free.append(r)  # (a result nobody reads)
    return Program(n_inputs, code, consts, [reg[v] for v in outs])
