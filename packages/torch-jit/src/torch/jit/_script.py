"""``torch.jit.script``: compile a typed subset of Python from its source into the graph IR.

The subset (checked when the function or module is scripted; anything else raises
:class:`NotSupportedError` quoting the offending line):

- arguments annotated ``Tensor``, ``int``, ``float``, ``bool``, ``str``, ``List[T]``,
  ``Tuple[...]``, ``Dict[K, V]``, ``Optional[T]`` (unannotated means ``Tensor``);
- assignments (tuple unpacking, ``x[i] = v``, ``+=``), ``if``/``elif``/``else`` (a tensor
  condition is decided when the graph runs: a ``prim::If`` node), ``for i in range(...)``
  and ``while`` (``prim::Loop``), ``for`` over a ``ModuleList`` or a constant tuple
  (unrolled), ``return`` (also inside branches), ``with torch.no_grad():``, ``raise``,
  ``assert``;
- calls of ``torch.*``, ``torch.nn.functional.*`` and tensor methods, of other scripted
  functions, of submodules and of methods marked ``@torch.jit.export``; ``len``, ``int``,
  ``float``, ``min``, ``max``, ``abs``, ``math.*``; list ``append``;
- module attributes: parameters, buffers and submodules are read when the graph runs;
  other attributes (``Final`` or plain numbers, strings, tuples) are constants.

Lambdas, generators, comprehensions, ``try``, ``with`` blocks other than ``no_grad``,
``break``/``continue``, ``global`` and calls of Python functions that are neither scripted
nor ``@torch.jit.ignore``\\ d are refused.
"""

import ast
import builtins
import inspect
import math
import textwrap
import typing

import torch
from torch.jit import _ops
from torch.jit._ir import Block, Graph, Node, Value

Final = typing.Final
_SCRIPTING = [0]


class NotSupportedError(RuntimeError):
    """A Python construct outside the TorchScript subset (raised when scripting)."""


class FrontendError(NotSupportedError):
    """Any other compile error of the script frontend."""


def is_scripting():
    """True inside code compiled by :func:`script` (the graph never runs Python, so plain
    Python code calling this sees False)."""
    return False


def annotate(the_type, the_value):
    """Declare the type of ``the_value`` for the script compiler; returns ``the_value``."""
    return the_value


def ignore(drop=False, **kwargs):
    """Leave a function or method as Python: scripted code calls it through Python (such
    a module cannot be saved). ``@ignore(drop=True)`` behaves as :func:`unused`."""
    if callable(drop):
        drop._torchscript_modifier = "ignore"
        return drop

    def deco(fn):
        fn._torchscript_modifier = "unused" if drop else "ignore"
        return fn

    return deco


def unused(fn):
    """Mark a method as never called from scripted code: it is not compiled, and a call
    from a graph raises."""
    fn._torchscript_modifier = "unused"
    return fn


def export(fn):
    """Compile this method of a scripted module too (``forward`` always is)."""
    fn._torchscript_modifier = "export"
    return fn


def interface(obj):
    """Accepted for compatibility: returns ``obj``."""
    return obj


class Attribute:
    """``torch.jit.Attribute(value, type)``: an attribute with a declared type; the value."""

    def __new__(cls, value, type=None):
        return value


class CompilationUnit:
    """Compiles the functions in a source string: ``cu = CompilationUnit(src); cu.fn(x)``."""

    def __init__(self, lang=None, _frames_up=0):
        self._functions = {}
        if lang is not None:
            self.define(lang)

    def define(self, src, rcb=None, _frames_up=0):
        namespace = {"torch": torch, "Tensor": torch.Tensor, **typing.__dict__}
        tree = ast.parse(textwrap.dedent(src))
        for fdef in tree.body:
            if isinstance(fdef, ast.FunctionDef):
                from torch.jit._module import ScriptFunction

                lines = textwrap.dedent(src).splitlines()
                graph = _Compiler(fdef, namespace, "<CompilationUnit>", 0, lines).compile()
                fn = ScriptFunction(graph, fdef.name)
                self._functions[fdef.name] = namespace[fdef.name] = fn

    def __getattr__(self, name):
        try:
            return self.__dict__["_functions"][name]
        except KeyError:
            raise AttributeError(name) from None


# ---------------------------------------------------------------- the compiler
_BINOPS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.MatMult: "matmul",
    ast.BitAnd: "and_",
    ast.BitOr: "or_",
}
_CMPOPS = {
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
    ast.Eq: "eq",
    ast.NotEq: "ne",
}
_BUILTINS = {len, int, float, bool, min, max, abs, print, isinstance, str, round}
_REFUSED = {
    ast.Lambda: "Lambda aren't supported",
    ast.GeneratorExp: "Generator expressions aren't supported",
    ast.ListComp: "List comprehensions aren't supported",
    ast.DictComp: "Dict comprehensions aren't supported",
    ast.SetComp: "Set comprehensions aren't supported",
    ast.Try: "try blocks aren't supported",
    ast.Yield: "Generators aren't supported",
    ast.YieldFrom: "Generators aren't supported",
    ast.Await: "Await expressions aren't supported",
    ast.Global: "global variables aren't supported",
    ast.Nonlocal: "nonlocal variables aren't supported",
    ast.Break: "break statements aren't supported",
    ast.Continue: "continue statements aren't supported",
    ast.Delete: "del statements aren't supported",
    ast.ClassDef: "class definitions aren't supported",
    ast.FunctionDef: "nested function definitions aren't supported",
    ast.Set: "set literals aren't supported",
    ast.Starred: "starred expressions aren't supported",
}


class _Const:
    """A compile-time Python value (a module, a number, a tuple of them...)."""

    def __init__(self, value):
        self.value = value


_KNOWN_TYPES = {"Tensor", "int", "float", "bool", "str", "List", "Tuple", "Dict", "Optional",
                "list", "tuple", "dict", "None", "Any", "Union"}  # fmt: skip


def _type_name(annotation, namespace):
    """The type annotation as a short string ('Tensor', 'int', 'List[int]', ...), or None
    for a type outside the subset."""
    if annotation is None:
        return "Tensor"
    text = ast.unparse(annotation).replace("torch.", "").replace("typing.", "")
    for part in text.replace("|", "[").replace("]", "[").replace(",", "[").split("["):
        part = part.strip()
        if part and part.split(".")[-1] not in _KNOWN_TYPES:
            return None
    if "|" in text:  # (X | None)
        parts = [p.strip() for p in text.split("|") if p.strip() != "None"]
        return f"Optional[{parts[0]}]" if len(parts) == 1 else "Any"
    return text


class _Compiler:
    def __init__(self, fdef, namespace, file, first_line, lines, module=None):
        self.fdef = fdef
        self.ns = namespace
        self.file = file
        self.first_line = first_line
        self.lines = lines
        self.module = module
        self.block = None  # the block being filled
        self.env = {}

    # -------------------------------------------------------------- errors
    def error(self, node, msg, cls=NotSupportedError):
        line = getattr(node, "lineno", 1)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        col = getattr(node, "col_offset", 0)
        end = getattr(node, "end_col_offset", None) or len(text)
        width = (
            max(1, min(end, len(text)) - col) if getattr(node, "end_lineno", line) == line else 1
        )
        where = self.first_line + line
        return cls(
            f'{msg}:\n  File "{self.file}", line {where}\n{text}\n'
            f"{' ' * col}{'~' * width} <--- HERE"
        )

    def source(self, node):
        line = getattr(node, "lineno", 1)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return (self.file, self.first_line + line, text)

    # -------------------------------------------------------------- emission
    def emit(self, kind, args, ast_node, type="Tensor", kwargs=None, attrs=None, n_out=1):
        outs = tuple(Value(type) for _ in range(n_out))
        out = outs[0] if n_out == 1 else outs
        if n_out == 0:
            out = None
        node = Node(kind, args, kwargs or {}, out, attrs=attrs, source=self.source(ast_node))
        self.block.nodes.append(node)
        return out

    def const_value(self, x):
        return x.value if isinstance(x, _Const) else x

    def arg(self, x):
        """A compiled expression as a node argument (constants inline, Python structures
        of values kept as structures)."""
        if isinstance(x, _Const):
            v = x.value
            if isinstance(v, (tuple, list)):
                return type(v)(self.arg(_Const(e) if not isinstance(e, Value) else e) for e in v)
            return v
        if isinstance(x, (tuple, list)):
            return type(x)(self.arg(e) for e in x)
        return x

    # -------------------------------------------------------------- entry
    def compile(self):
        fdef = self.fdef
        args = fdef.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            raise self.error(fdef, "Compiled functions can't take variable number of arguments")
        g = Graph()
        g.in_spec = "args"
        self.block = g
        params = args.args
        defaults = [None] * (len(params) - len(args.defaults)) + list(args.defaults)
        types, names, defs = [], [], []
        for i, (a, d) in enumerate(zip(params, defaults)):
            if i == 0 and self.module is not None:
                v = Value("Module", name="self")
                self.env[a.arg] = v
                g.inputs.append(v)
                continue
            t = _type_name(a.annotation, self.ns)
            if t is None:
                raise self.error(a, f"Unknown type annotation {ast.unparse(a.annotation)!r}")
            v = Value(
                t.split("[")[0]
                if t.split("[")[0] in ("Tensor", "int", "float", "bool", "str")
                else t,
                name=a.arg,
            )
            self.env[a.arg] = v
            g.inputs.append(v)
            types.append(t)
            names.append(a.arg)
            defs.append(_literal(d, self) if d is not None else _NO_DEFAULT)
        g.signature = (names, types, defs)
        self.ret = None
        self.stmts(_strip_docstring(fdef.body))
        g.out = self.env.get("$ret")
        if g.out is None and "$ret" not in self.env:
            g.out = None
        else:
            g.out = self.arg(g.out)
        return g

    # -------------------------------------------------------------- statements
    def stmts(self, body):
        for i, s in enumerate(body):
            if isinstance(s, ast.If) and i + 1 < len(body):
                then_ret, else_ret = _returns(s.body), _returns(s.orelse)
                if then_ret != else_ret:
                    rest = body[i + 1 :]
                    s = ast.If(
                        test=s.test,
                        body=s.body if then_ret else s.body + rest,
                        orelse=s.orelse if else_ret else s.orelse + rest,
                    )
                    ast.copy_location(s, body[i])
                    self.stmt(s)
                    return
            self.stmt(s)
            if isinstance(s, ast.Return):
                return

    def stmt(self, s):
        for bad, msg in _REFUSED.items():
            if isinstance(s, bad):
                raise self.error(s, msg)
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise self.error(s, f"{type(s).__name__} statements aren't supported")
        method(s)

    def stmt_Pass(self, s):
        pass

    def stmt_Expr(self, s):
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return
        self.expr(s.value)

    def stmt_Return(self, s):
        self.env["$ret"] = self.expr(s.value) if s.value is not None else _Const(None)

    def stmt_Assign(self, s):
        value = self.expr(s.value)
        for target in s.targets:
            self.assign(target, value, s)

    def stmt_AnnAssign(self, s):
        if s.value is None:
            return
        self.assign(s.target, self.expr(s.value), s)

    def stmt_AugAssign(self, s):
        op = _BINOPS.get(type(s.op))
        if op is None:
            raise self.error(s, f"augmented assignment {type(s.op).__name__} isn't supported")
        target = s.target
        load = ast.copy_location(
            ast.Name(id=target.id, ctx=ast.Load()) if isinstance(target, ast.Name) else target,
            target,
        )
        self.assign(target, self.binop(op, self.expr(load), self.expr(s.value), s), s)

    def assign(self, target, value, s):
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(value, len(target.elts), s)
            for t, v in zip(target.elts, items):
                self.assign(t, v, s)
        elif isinstance(target, ast.Subscript):
            base = self.expr(target.value)
            index = self.index(target.slice)
            self.emit("Tensor.__setitem__", (base, index, self.arg(value)), s, n_out=0)
        elif isinstance(target, ast.Attribute):
            raise self.error(target, "assigning to attributes isn't supported in scripted code")
        else:
            raise self.error(target, "this assignment target isn't supported")

    def unpack(self, value, n, s):
        if isinstance(value, _Const):
            value = value.value
        if isinstance(value, (tuple, list)):
            if len(value) != n:
                raise self.error(s, f"cannot unpack {len(value)} values into {n} targets",
                                 FrontendError)  # fmt: skip
            return [v if isinstance(v, Value) else _Const(v) for v in value]
        return [self.emit("operator.getitem", (value, i), s, type="Any") for i in range(n)]

    def stmt_Assert(self, s):
        pass  # (asserts document shapes; the graph does not check them)

    def stmt_Raise(self, s):
        msg = ast.unparse(s.exc) if s.exc is not None else "Exception"
        self.emit("prim::RaiseException", (msg,), s, n_out=0)

    def stmt_With(self, s):
        if len(s.items) != 1 or ast.unparse(s.items[0].context_expr) not in (
            "torch.no_grad()", "no_grad()"
        ):  # fmt: skip
            raise self.error(s, "With statements aren't supported (except torch.no_grad())")
        self.sub_block("prim::NoGrad", [s.body], s)

    def stmt_If(self, s):
        cond = self.expr(s.test)
        if isinstance(cond, _Const):  # decided now (Final constants, `is None` on a constant)
            self.stmts(s.body if cond.value else s.orelse)
            return
        self.sub_block("prim::If", [s.body, s.orelse], s, cond=cond)

    def sub_block(self, kind, bodies, s, cond=None):
        outer = self.env
        blocks, envs = [], []
        for body in bodies:
            self.env = dict(outer)
            block = Block()
            saved, self.block = self.block, block
            self.stmts(body)
            self.block = saved
            blocks.append(block)
            envs.append(self.env)
        self.env = outer
        names = []
        for env in envs:
            for k, v in env.items():
                if (outer.get(k) is not v) and k not in names:
                    if all(k in e for e in envs):
                        names.append(k)
        for block, env in zip(blocks, envs):
            block.outputs = [self.arg(env[k]) for k in names]
        outs = tuple(Value(_vtype(envs[0][k])) for k in names)
        args = () if cond is None else (self.arg(cond),)
        node = Node(kind, args, {}, outs, blocks=blocks, source=self.source(s))
        self.block.nodes.append(node)
        for k, v in zip(names, outs):
            self.env[k] = v

    def stmt_While(self, s):
        if s.orelse:
            raise self.error(s, "while ... else isn't supported")
        self.loop(s, None, s.body, cond_expr=s.test)

    def stmt_For(self, s):
        if s.orelse:
            raise self.error(s, "for ... else isn't supported")
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            args = [self.expr(a) for a in it.args]
            if len(args) == 1:
                start, stop, step = _Const(0), args[0], _Const(1)
            elif len(args) in (2, 3):
                start, stop = args[0], args[1]
                step = args[2] if len(args) == 3 else _Const(1)
            else:
                raise self.error(it, "range() takes 1 to 3 arguments")
            if not isinstance(s.target, ast.Name):
                raise self.error(s.target, "the loop variable of a range loop must be a name")
            self.loop(s, (start, stop, step), s.body, target=s.target.id)
            return
        value = self.expr(it)
        items = value.value if isinstance(value, _Const) else value
        if isinstance(items, torch.nn.Module):
            items = list(items.children()) if not isinstance(items, _ModuleRef) else items
        if isinstance(items, _ModuleRef):
            items = items.children()
        if isinstance(items, Value) and isinstance(s.target, ast.Name):
            self.loop(s, ("iter", items), s.body, target=s.target.id)
            return
        if not isinstance(items, (tuple, list)):
            raise self.error(it, "this for loop isn't supported: use range() or a list")
        for item in items:  # unrolled
            self.assign(
                s.target, item if isinstance(item, (Value, _ModuleRef)) else _Const(item), s
            )
            self.stmts(s.body)

    def loop(self, s, rng, body, target=None, cond_expr=None):
        for sub in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(sub, ast.Return):
                raise self.error(sub, "return statements inside loops aren't supported")
        outer = self.env
        # the carried variables: names assigned in the body that exist before the loop
        assigned = _assigned_names(body)
        carried = [k for k in assigned if k in outer]
        trip = None
        over = None
        if rng is not None and rng[0] == "iter":  # over a list/tuple/tensor known at run time
            over = rng[1]
            trip = self.emit("builtins.len", (over,), s, type="int")
        elif rng is not None:
            start, stop, step = rng
            trip = self.range_trip(start, stop, step, s)
        cond0 = _Const(True) if cond_expr is None else self.expr(cond_expr)
        body_block = Block()
        i_val = Value("int")
        carried_in = [Value(_vtype(outer[k])) for k in carried]
        body_block.inputs = [i_val] + carried_in
        self.env = dict(outer)
        for k, v in zip(carried, carried_in):
            self.env[k] = v
        saved, self.block = self.block, body_block
        if over is not None:
            t = "Tensor" if over.type == "Tensor" else _elem_type(over)
            self.env[target] = self.emit("operator.getitem", (over, i_val), s, type=t)
        elif target is not None:
            start, _, step = rng
            idx = i_val
            if not (isinstance(step, _Const) and step.value == 1):
                idx = self.binop("mul", idx, step, s)
            if not (isinstance(start, _Const) and start.value == 0):
                idx = self.binop("add", idx, start, s)
            self.env[target] = idx
        self.stmts(body)
        cond = _Const(True) if cond_expr is None else self.expr(cond_expr)
        body_block.outputs = [self.arg(cond)] + [self.arg(self.env[k]) for k in carried]
        self.block = saved
        self.env = outer
        outs = tuple(Value(v.type) for v in carried_in)
        node = Node(
            "prim::Loop",
            (self.arg(trip) if trip is not None else None, self.arg(cond0))
            + tuple(self.arg(outer[k]) for k in carried),
            {},
            outs,
            blocks=[body_block],
            source=self.source(s),
        )
        self.block.nodes.append(node)
        for k, v in zip(carried, outs):
            self.env[k] = v

    def range_trip(self, start, stop, step, s):
        if all(isinstance(x, _Const) for x in (start, stop, step)):
            return _Const(len(range(start.value, stop.value, step.value)))
        if (
            isinstance(start, _Const)
            and start.value == 0
            and isinstance(step, _Const)
            and (step.value == 1)
        ):
            return stop
        return self.emit("prim::range_len", (self.arg(start), self.arg(stop), self.arg(step)),
                         s, type="int")  # fmt: skip

    # -------------------------------------------------------------- expressions
    def expr(self, e):
        for bad, msg in _REFUSED.items():
            if isinstance(e, bad):
                raise self.error(e, msg)
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise self.error(e, f"{type(e).__name__} expressions aren't supported")
        return method(e)

    def expr_Constant(self, e):
        return _Const(e.value)

    def expr_Name(self, e):
        if e.id in self.env:
            return self.env[e.id]
        if e.id in self.ns:
            return _Const(self.ns[e.id])
        if hasattr(builtins, e.id):
            return _Const(getattr(builtins, e.id))
        raise self.error(e, f"undefined value {e.id}", FrontendError)

    def expr_Tuple(self, e):
        items = [self.expr(x) for x in e.elts]
        if all(isinstance(x, _Const) for x in items):
            return _Const(tuple(x.value for x in items))
        return tuple(items)

    def expr_List(self, e):
        items = [self.arg(self.expr(x)) for x in e.elts]
        return self.emit("prim::list", tuple(items), e, type="List")

    def expr_Dict(self, e):
        keys = [self.arg(self.expr(k)) for k in e.keys]
        vals = [self.arg(self.expr(v)) for v in e.values]
        return self.emit("prim::dict", (tuple(keys), tuple(vals)), e, type="Dict")

    def expr_Attribute(self, e):
        base = self.expr(e.value)
        if isinstance(base, _Const):
            obj = base.value
            if not hasattr(obj, e.attr):
                raise self.error(e, f"{ast.unparse(e.value)} has no attribute {e.attr!r}",
                                 FrontendError)  # fmt: skip
            return _Const(getattr(obj, e.attr))
        if isinstance(base, _ModuleRef):
            return base.attr(self, e.attr, e)
        if isinstance(base, Value) and base.type == "Module":
            return _ModuleRef(self.module, base, "").attr(self, e.attr, e)
        if e.attr == "shape":
            return self.emit("Tensor.size", (self.arg(base),), e, type="Tuple")
        if e.attr in ("dtype", "device", "ndim", "is_cuda", "requires_grad", "T", "mT", "data",
                      "grad", "layout"):  # fmt: skip
            t = "Tensor" if e.attr in ("T", "mT", "data", "grad") else "Any"
            return self.emit("prim::getattr", (self.arg(base), e.attr), e, type=t)
        raise self.error(e, f"the attribute {e.attr!r} isn't supported here")

    def expr_Subscript(self, e):
        base = self.expr(e.value)
        index = self.index(e.slice)
        if isinstance(base, _Const) and not isinstance(index, Value) and not _has_value(index):
            try:
                return _Const(base.value[index])
            except Exception as exc:
                raise self.error(e, f"cannot index a constant: {exc}", FrontendError) from None
        if isinstance(base, _ModuleRef):
            return base.item(self, index, e)
        if isinstance(base, tuple) and isinstance(index, int):
            return base[index]
        if isinstance(base, Value) and base.type == "Tensor":
            return self.emit("Tensor.__getitem__", (base, index), e)
        return self.emit("operator.getitem", (self.arg(base), index), e, type=_elem_type(base))

    def index(self, sl):
        if isinstance(sl, ast.Slice):
            parts = [
                None if p is None else self.arg(self.expr(p)) for p in (sl.lower, sl.upper, sl.step)
            ]
            return slice(*parts)
        if isinstance(sl, ast.Tuple):
            return tuple(self.index(x) for x in sl.elts)
        if isinstance(sl, ast.Constant) and sl.value is Ellipsis:
            return Ellipsis
        return self.arg(self.expr(sl))

    def expr_BinOp(self, e):
        op = _BINOPS.get(type(e.op))
        if op is None:
            raise self.error(e, f"the operator {type(e.op).__name__} isn't supported")
        return self.binop(op, self.expr(e.left), self.expr(e.right), e)

    def binop(self, op, a, b, e):
        if isinstance(a, _Const) and isinstance(b, _Const):
            import operator

            return _Const(getattr(operator, op)(a.value, b.value))
        ta, tb = _vtype(a), _vtype(b)
        if op == "matmul":
            return self.emit("torch.matmul", (self.arg(a), self.arg(b)), e)
        if ta == "Tensor":
            name = "and" if op == "and_" else "or" if op == "or_" else op
            return self.emit(f"Tensor.__{name}__", (self.arg(a), self.arg(b)), e)
        if tb == "Tensor":
            name = "and" if op == "and_" else "or" if op == "or_" else op
            return self.emit(f"Tensor.__r{name}__", (self.arg(b), self.arg(a)), e)
        out = (
            "float"
            if op == "truediv" or "float" in (ta, tb)
            else (ta if ta == tb and ta in ("int", "bool") else "Any")
        )
        return self.emit(f"operator.{op}", (self.arg(a), self.arg(b)), e, type=out)

    def expr_UnaryOp(self, e):
        v = self.expr(e.operand)
        if isinstance(v, _Const):
            return _Const({ast.USub: lambda x: -x, ast.UAdd: lambda x: +x, ast.Not: lambda x: not x,
                           ast.Invert: lambda x: ~x}[type(e.op)](v.value))  # fmt: skip
        if isinstance(e.op, ast.USub):
            if _vtype(v) == "Tensor":
                return self.emit("Tensor.__neg__", (v,), e)
            return self.emit("operator.neg", (self.arg(v),), e, type=_vtype(v))
        if isinstance(e.op, ast.Not):
            return self.emit("operator.not_", (self.arg(v),), e, type="bool")
        if isinstance(e.op, ast.Invert) and _vtype(v) == "Tensor":
            return self.emit("Tensor.__invert__", (v,), e)
        return v

    def expr_BoolOp(self, e):
        vals = [self.expr(v) for v in e.values]
        kind = "prim::and" if isinstance(e.op, ast.And) else "prim::or"
        if all(isinstance(v, _Const) for v in vals):
            fn = all if kind == "prim::and" else any
            return _Const(fn(v.value for v in vals))
        return self.emit(kind, tuple(self.arg(v) for v in vals), e, type="bool")

    def expr_Compare(self, e):
        result = None
        left = self.expr(e.left)
        for op, comp in zip(e.ops, e.comparators):
            right = self.expr(comp)
            r = self.compare(op, left, right, e)
            result = r if result is None else self.expr_bool_and(result, r, e)
            left = right
        return result

    def expr_bool_and(self, a, b, e):
        if isinstance(a, _Const) and isinstance(b, _Const):
            return _Const(a.value and b.value)
        return self.emit("prim::and", (self.arg(a), self.arg(b)), e, type="bool")

    def compare(self, op, a, b, e):
        if isinstance(op, (ast.Is, ast.IsNot)):
            if isinstance(a, _Const) and isinstance(b, _Const):
                same = a.value is b.value
                return _Const(same if isinstance(op, ast.Is) else not same)
            name = "is_" if isinstance(op, ast.Is) else "is_not"
            return self.emit(f"operator.{name}", (self.arg(a), self.arg(b)), e, type="bool")
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(a, _Const) and isinstance(b, _Const):
                inside = a.value in b.value
                return _Const(inside if isinstance(op, ast.In) else not inside)
            v = self.emit("operator.contains", (self.arg(b), self.arg(a)), e, type="bool")
            return v if isinstance(op, ast.In) else self.emit("operator.not_", (v,), e, type="bool")
        name = _CMPOPS[type(op)]
        if isinstance(a, _Const) and isinstance(b, _Const):
            import operator

            return _Const(getattr(operator, name)(a.value, b.value))
        if _vtype(a) == "Tensor":
            return self.emit(f"Tensor.__{name}__", (self.arg(a), self.arg(b)), e)
        if _vtype(b) == "Tensor":
            flipped = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}.get(name, name)
            return self.emit(f"Tensor.__{flipped}__", (self.arg(b), self.arg(a)), e)
        return self.emit(f"operator.{name}", (self.arg(a), self.arg(b)), e, type="bool")

    def expr_IfExp(self, e):
        cond = self.expr(e.test)
        if isinstance(cond, _Const):
            return self.expr(e.body if cond.value else e.orelse)
        values = []
        blocks = []
        for branch in (e.body, e.orelse):
            block = Block()
            saved, self.block = self.block, block
            v = self.expr(branch)
            self.block = saved
            block.outputs = [self.arg(v)]
            blocks.append(block)
            values.append(v)
        out = Value(_vtype(values[0]))
        self.block.nodes.append(
            Node("prim::If", (self.arg(cond),), {}, (out,), blocks=blocks, source=self.source(e))
        )
        return out

    def expr_JoinedStr(self, e):
        return _Const(ast.unparse(e))

    def expr_Call(self, e):
        attr = self._constant_getattr(e)
        if attr is not None:  # getattr(x, "name") is x.name (fx writes getattr(self.seq, "0"))
            return self.expr_Attribute(attr)
        args = [self.expr(a) for a in e.args]
        kwargs = {k.arg: self.expr(k.value) for k in e.keywords}
        if any(k is None for k in kwargs):
            raise self.error(e, "**kwargs in calls aren't supported")
        func = e.func
        # a method call on a value: x.view(...), xs.append(...), self.fc(...)
        if isinstance(func, ast.Attribute):
            base = self.expr(func.value)
            if isinstance(base, Value) and base.type not in ("Module",):
                return self.method_call(base, func.attr, args, kwargs, e)
            if isinstance(base, (_ModuleRef,)) or (
                isinstance(base, Value) and base.type == "Module"
            ):
                ref = base if isinstance(base, _ModuleRef) else _ModuleRef(self.module, base, "")
                if func.attr in ref.obj()._modules:
                    child = ref.attr(self, func.attr, func)
                    return child.call_method(self, "forward", args, kwargs, e, direct=True)
                return ref.call_method(self, func.attr, args, kwargs, e)
            if isinstance(base, _Const):
                target = getattr(base.value, func.attr, None)
                if target is None:
                    raise self.error(func, f"{ast.unparse(func)} is not defined", FrontendError)
                return self.call_object(target, args, kwargs, e, ast.unparse(func))
            raise self.error(e, "this call isn't supported")
        callee = self.expr(func)
        if isinstance(callee, _ModuleRef):
            return callee.call_method(self, "forward", args, kwargs, e, direct=True)
        if isinstance(callee, _Const):
            return self.call_object(callee.value, args, kwargs, e, ast.unparse(func))
        raise self.error(e, "calling a value computed at run time isn't supported")

    def _constant_getattr(self, e):
        """``getattr(x, "name")`` with a string literal as an ``x.name`` node, else None."""
        if not (
            isinstance(e.func, ast.Name)
            and e.func.id == "getattr"
            and len(e.args) == 2
            and not e.keywords
            and isinstance(e.args[1], ast.Constant)
            and isinstance(e.args[1].value, str)
        ):
            return None
        callee = self.expr(e.func)
        if not (isinstance(callee, _Const) and callee.value is builtins.getattr):
            return None
        node = ast.Attribute(value=e.args[0], attr=e.args[1].value, ctx=ast.Load())
        return ast.copy_location(node, e)

    def method_call(self, base, name, args, kwargs, e):
        a = tuple(self.arg(x) for x in args)
        kw = {k: self.arg(v) for k, v in kwargs.items()}
        if base.type == "List" or name in ("append", "extend", "pop", "insert"):
            return self.emit(f"prim::list_{name}", (base,) + a, e, type="Any", kwargs=kw)
        if base.type == "Dict" or name in ("keys", "values", "items", "get"):
            return self.emit(f"prim::dict_{name}", (base,) + a, e, type="Any", kwargs=kw)
        if not hasattr(torch.Tensor, name):
            raise self.error(e, f"Tensor has no method {name!r}", FrontendError)
        t = {"size": "Tuple" if not a else "int", "dim": "int", "numel": "int", "item": "Any",
             "tolist": "List", "ndimension": "int"}.get(name, "Tensor")  # fmt: skip
        if name in ("chunk", "split", "unbind"):
            t = "Tuple"
        return self.emit(f"Tensor.{name}", (base,) + a, e, type=t, kwargs=kw)

    def call_object(self, obj, args, kwargs, e, text):
        a = tuple(self.arg(x) for x in args)
        kw = {k: self.arg(v) for k, v in kwargs.items()}
        all_const = all(isinstance(x, _Const) for x in list(args) + list(kwargs.values()))
        if isinstance(obj, _ScriptedFunction):
            return self.emit("prim::CallFunction", a, e, type="Any", kwargs=kw,
                             attrs={"fn": obj})  # fmt: skip
        if obj is annotate:
            return args[1]
        if obj is is_scripting or (obj is getattr(torch.jit, "is_scripting", None)):
            return _Const(True)
        if obj in (torch.no_grad, torch.enable_grad):
            raise self.error(e, "grad mode may only be used as `with torch.no_grad():`")
        if isinstance(obj, type) and issubclass(obj, Exception):
            return _Const(obj)
        if getattr(obj, "_torchscript_modifier", None) in ("ignore", "unused"):
            if obj._torchscript_modifier == "unused":
                return self.emit("prim::RaiseException", (f"{text} is @torch.jit.unused",), e)
            return self.emit("prim::PythonOp", a, e, type="Any", kwargs=kw, attrs={"fn": obj})
        kind = _op_names().get(id(obj))
        if kind is not None:
            t = (
                "Tuple"
                if kind.partition(".")[2] in ("chunk", "split", "unbind", "lstm")
                else "Tensor"
            )
            return self.emit(kind, a, e, type=t, kwargs=kw)
        if (
            obj in _BUILTINS
            or getattr(obj, "__module__", None) == "math"
            or obj in vars(math).values()
        ):
            if all_const:
                return _Const(
                    obj(*[x.value for x in args], **{k: v.value for k, v in kwargs.items()})
                )
            space = "math" if obj in vars(math).values() else "builtins"
            t = {"len": "int", "int": "int", "float": "float", "bool": "bool"}.get(
                obj.__name__, "Any"
            )
            return self.emit(f"{space}.{obj.__name__}", a, e, type=t, kwargs=kw)
        if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
            raise self.error(e, "creating modules inside scripted code isn't supported")
        raise self.error(
            e,
            f"Python function {text!r} is not supported in TorchScript: script it with "
            "@torch.jit.script or mark it @torch.jit.ignore",
        )


_NO_DEFAULT = object()


def _literal(node, comp):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise comp.error(node, "default arguments must be literals") from None


def _strip_docstring(body):
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[1:]
    return body


def _returns(body):
    return bool(body) and (
        isinstance(body[-1], ast.Return)
        or (isinstance(body[-1], ast.If) and _returns(body[-1].body) and _returns(body[-1].orelse))
        or isinstance(body[-1], ast.Raise)
    )


def _assigned_names(body):
    names = []
    for node in body:
        for sub in ast.walk(node):
            targets = []
            if isinstance(sub, ast.Assign):
                targets = sub.targets
            elif isinstance(sub, (ast.AugAssign, ast.AnnAssign, ast.For)):
                targets = [sub.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and n.id not in names:
                        names.append(n.id)
    return names


def _vtype(x):
    if isinstance(x, Value):
        return x.type
    if isinstance(x, _Const):
        v = x.value
        return "Tensor" if isinstance(v, torch.Tensor) else type(v).__name__
    if isinstance(x, tuple):
        return "Tuple"
    return "Any"


def _elem_type(base):
    t = _vtype(base)
    if t.startswith("List[") or t.startswith("Tuple["):
        inner = t[t.index("[") + 1 : -1].split(",")[0].strip()
        return inner if inner in ("Tensor", "int", "float", "bool", "str") else "Any"
    return "Tensor" if t in ("Tuple",) else "Any"


def _has_value(obj):
    from torch.jit._ir import values_in

    return any(True for _ in values_in(obj))


_OP_NAMES = {}


def _op_names():
    """id(callable) -> op name, for every op the tracer knows (and Tensor's methods)."""
    if not _OP_NAMES:
        for space, _, ops in _ops.namespaces():
            for name, kind in ops.items():
                obj = vars(space).get(name)
                if obj is not None:
                    _OP_NAMES.setdefault(id(obj), kind)
                    wrapped = getattr(obj, "__wrapped__", None)
                    if wrapped is not None:
                        _OP_NAMES.setdefault(id(wrapped), kind)
        _OP_NAMES.setdefault(id(torch.Tensor), "torch.tensor")
    return _OP_NAMES


class _ModuleRef:
    """A submodule (or an attribute path inside ``self``) during compilation."""

    def __init__(self, module, self_value, path):
        self.module = module
        self.self_value = self_value
        self.path = path

    def obj(self):
        return self.module.get_submodule(self.path) if self.path else self.module

    def children(self):
        mod = self.obj()
        return [
            _ModuleRef(self.module, self.self_value, _join(self.path, n))
            for n, _ in mod.named_children()
        ]

    def value(self, comp, e):
        if not self.path:
            return self.self_value
        return comp.emit("prim::GetAttr", (self.self_value, self.path), e, type="Module")

    def item(self, comp, index, e):
        mod = self.obj()
        if isinstance(index, int) and isinstance(mod, (torch.nn.ModuleList, torch.nn.Sequential)):
            name = list(mod._modules)[index]
            return _ModuleRef(self.module, self.self_value, _join(self.path, name))
        if isinstance(index, str) and isinstance(mod, torch.nn.ModuleDict):
            return _ModuleRef(self.module, self.self_value, _join(self.path, index))
        raise comp.error(e, "indexing a module needs a constant index")

    def attr(self, comp, name, e):
        mod = self.obj()
        full = _join(self.path, name)
        if name in mod._modules:
            return _ModuleRef(self.module, self.self_value, full)
        if name in mod._parameters or name in mod._buffers:
            return comp.emit("prim::GetAttr", (self.self_value, full), e)
        if name == "training":
            return comp.emit("prim::GetAttr", (self.self_value, full), e, type="bool")
        if not hasattr(mod, name):
            raise comp.error(e, f"Module '{type(mod).__name__}' has no attribute '{name}'",
                             FrontendError)  # fmt: skip
        value = getattr(mod, name)
        if inspect.ismethod(value):
            return _Const(value)
        if isinstance(value, torch.Tensor):
            return comp.emit("prim::GetAttr", (self.self_value, full), e)
        return _Const(value)

    def call_method(self, comp, name, args, kwargs, e, direct=False):
        mod = self.obj()
        a = tuple(comp.arg(x) for x in args)
        kw = {k: comp.arg(v) for k, v in kwargs.items()}
        method = getattr(type(mod), name, None) if not direct else None
        modifier = getattr(method, "_torchscript_modifier", None)
        if modifier == "unused":
            return comp.emit("prim::RaiseException", (f"{name} is @torch.jit.unused",), e)
        if not direct and name != "forward" and mod is comp.module and modifier != "ignore":
            _compile_method(comp.module, name)  # a helper method of the module being compiled
            return comp.emit(
                "prim::CallMethod", (self.value(comp, e), name) + a, e, type="Any", kwargs=kw
            )
        target = self.value(comp, e)
        return comp.emit("prim::CallMethod", (target, name) + a, e, type="Any", kwargs=kw)


def _join(a, b):
    return f"{a}.{b}" if a else b


# ---------------------------------------------------------------- entry points
class _ScriptedFunction:
    """Marker base for compiled functions (see ``_module.ScriptFunction``)."""


def _parse(fn):
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise FrontendError(
            f"torch.jit.script: cannot get the source of {getattr(fn, '__qualname__', fn)!r} "
            f"({e}); scripting needs the source code"
        ) from None
    src = textwrap.dedent("".join(lines))
    tree = ast.parse(src)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise FrontendError(f"torch.jit.script: {fn!r} is not a function definition")
    file = inspect.getsourcefile(fn) or "<unknown>"
    return fdef, file, first - 1, src.splitlines()


def _namespace(fn):
    ns = dict(getattr(fn, "__globals__", {}))
    closure = getattr(fn, "__closure__", None)
    if closure:
        for name, cell in zip(fn.__code__.co_freevars, closure):
            try:
                ns[name] = cell.cell_contents
            except ValueError:
                pass
    return ns


def compile_function(fn, module=None):
    """The graph of a Python function (a method when ``module`` is given)."""
    from torch.jit import _passes
    from torch.jit._trace import rename

    fdef, file, first, lines = _parse(fn)
    fdef.decorator_list = []
    _refuse_anywhere(fdef, file, first, lines, fn, module)
    graph = _Compiler(fdef, _namespace(fn), file, first, lines, module).compile()
    _passes.eliminate_dead_code(graph)
    rename(graph)
    return graph


def _refuse_anywhere(fdef, file, first, lines, fn, module):
    comp = _Compiler(fdef, {}, file, first, lines, module)
    for node in ast.walk(fdef):
        if node is fdef:
            continue
        for bad, msg in _REFUSED.items():
            if isinstance(node, bad):
                raise comp.error(node, msg)


def _compile_method(module, name):

    graphs = module.__dict__.setdefault("_jit_pending_graphs", {})
    if name in graphs:
        return graphs[name]
    graphs[name] = None  # (recursion guard)
    fn = getattr(type(module), name)
    graphs[name] = compile_function(fn, module)
    return graphs[name]


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Compile a function or ``nn.Module`` from its source.

    A function becomes a :class:`~torch.jit.ScriptFunction`; a module becomes a
    :class:`~torch.jit.ScriptModule` sharing its parameters, buffers and submodules, with
    ``forward`` and the methods marked :func:`export` compiled (submodules are called as
    they are: a scripted submodule runs its graph). Control flow on tensor values is kept
    in the graph (``prim::If``/``prim::Loop``). Compile errors raise
    :class:`NotSupportedError` quoting the source line."""
    from torch.jit._module import ScriptFunction, ScriptModule

    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, torch.nn.Module):
        return _script_module(obj)
    if inspect.isclass(obj):
        raise NotSupportedError(
            "torch.jit.script on a class: script an instance of an nn.Module subclass instead"
        )
    if not callable(obj):
        raise RuntimeError(f"torch.jit.script: expected a function or nn.Module, got {obj!r}")
    graph = compile_function(obj)
    sf = ScriptFunction(graph, obj.__name__, obj)
    return sf


def _script_module(mod):
    from torch.jit._module import ScriptModule

    mod.__dict__.pop("_jit_pending_graphs", None)
    names = ["forward"]
    for name in dir(type(mod)):
        fn = getattr(type(mod), name, None)
        if getattr(fn, "_torchscript_modifier", None) == "export" and name not in names:
            names.append(name)
    for name in names:
        _compile_method(mod, name)
    graphs = mod.__dict__.pop("_jit_pending_graphs")
    sm = ScriptModule(graphs, mod)
    sm._scripted = True
    _script_children(sm)
    return sm


_CONTAINERS = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict)


def _script_children(mod):
    """Compile the user-defined submodules (inside torch.nn containers too, which are
    copied so that the original model is left alone); torch.nn's layers run as they are."""
    import copy

    for name, child in list(mod._modules.items()):
        if child is None:
            continue
        if not type(child).__module__.startswith("torch."):
            mod._modules[name] = script(child)
        elif isinstance(child, _CONTAINERS):
            twin = copy.copy(child)
            twin.__dict__["_modules"] = dict(child._modules)
            _script_children(twin)
            mod._modules[name] = twin
