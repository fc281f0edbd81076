"""torch.jit.save / torch.jit.load: a zip archive of a JSON graph and the tensors.

Layout (all under ``<name>/``)::

    version        "1"
    model.json     {"kind": "module"|"function", "name", "training", "methods":
                    {method: graph}, "parameters": {name: requires_grad}, "buffers": [...]}
    tensors.pt     torch.save of {parameter/buffer name or "constants.<k>": tensor}

A graph is ``{"values": [...], "inputs", "params", "nodes", "out", "in_spec"}``: every value
is listed once (type, shape, dtype) and referenced by index; node arguments are JSON with
tagged objects for what JSON lacks ({"$v": i} a value, {"$t": key} a constant tensor,
{"$tuple": [...]}, {"$dtype": "float32"}, {"$slice": [...]}, ...). Loading reads the JSON and
``torch.load(..., weights_only=True)`` for the tensors: no pickle of arbitrary objects, no
code from the file, and op names are resolved only in the torch namespaces.
"""

import io
import json
import os
import zipfile

import torch
from torch import nn
from torch.jit import _script, _trace
from torch.jit._ir import Block, Graph, Node, Value
from torch.jit._module import ScriptFunction, ScriptModule
from torch.jit._ops import allowed

_VERSION = "1"


_STRUCTURAL = ("prim::Constant", "prim::If", "prim::Loop", "prim::FusionGroup", "prim::NoGrad")


class _Writer:
    def __init__(self, tensors, functions):
        self.tensors = tensors
        self.functions = functions  # name -> graph JSON of called script functions
        self.values = {}
        self.table = []

    def vid(self, v):
        i = self.values.get(v)
        if i is None:
            i = self.values[v] = len(self.table)
            self.table.append(
                {"type": v.type, "shape": v.shape, "dtype": v.dtype, "param": v.param,
                 "name": v.name}
            )  # fmt: skip
        return i

    def enc(self, obj):
        if isinstance(obj, Value):
            return {"$v": self.vid(obj)}
        if isinstance(obj, _trace._Leaf):
            return {"$leaf": int(obj)}
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if isinstance(obj, torch.Tensor):
            key = f"constants.{len(self.tensors)}"
            self.tensors[key] = obj.detach()
            return {"$t": key}
        if isinstance(obj, tuple):
            return {"$tuple": [self.enc(o) for o in obj]}
        if isinstance(obj, list):
            return [self.enc(o) for o in obj]
        if isinstance(obj, dict):
            if not all(isinstance(k, str) for k in obj):
                raise RuntimeError("torch.jit.save: dicts with non-str keys cannot be saved")
            return {"$dict": {k: self.enc(o) for k, o in obj.items()}}
        if isinstance(obj, slice):
            return {"$slice": [self.enc(o) for o in (obj.start, obj.stop, obj.step)]}
        if obj is Ellipsis:
            return {"$ellipsis": True}
        if isinstance(obj, torch.dtype):
            return {"$dtype": str(obj).replace("torch.", "")}
        if isinstance(obj, torch.device):
            return {"$device": str(obj)}
        if isinstance(obj, torch.memory_format):
            return {"$memory_format": str(obj).replace("torch.", "")}
        if obj is _script._NO_DEFAULT:
            return {"$nodefault": True}
        if isinstance(obj, ScriptFunction):
            key = f"{obj.name}.{id(obj)}"
            if key not in self.functions:
                self.functions[key] = None
                self.functions[key] = _Writer(self.tensors, self.functions).graph(obj.graph)
            return {"$fn": key}
        kind = _script._op_names().get(id(obj)) if callable(obj) else None
        if kind is not None:
            return {"$op": kind}
        raise RuntimeError(
            f"torch.jit.save: cannot save a graph argument of type {type(obj).__name__}"
        )

    def node(self, n):
        if n.kind == "prim::PythonOp":
            fn = n.attrs.get("fn")
            raise RuntimeError(
                f"torch.jit.save: the graph calls the Python function "
                f"{getattr(fn, '__qualname__', fn)!r} (@torch.jit.ignore), which an archive "
                "cannot hold"
            )
        return {
            "kind": n.kind,
            "args": self.enc(n.args),
            "kwargs": self.enc(n.kwargs),
            "out": self.enc(n.out),
            "attrs": self.enc(n.attrs),
            "blocks": [self.block(b) for b in n.blocks],
            "source": list(n.source) if n.source else None,
        }

    def block(self, b):
        return {
            "inputs": [self.vid(v) for v in b.inputs],
            "nodes": [self.node(n) for n in b.nodes],
            "outputs": [self.enc(v) for v in b.outputs],
        }

    def graph(self, g):
        body = {
            "inputs": [self.vid(v) for v in g.inputs],
            "params": {k: self.vid(v) for k, v in g.params.items()},
            "nodes": [self.node(n) for n in g.nodes],
            "out": self.enc(g.out),
            "in_spec": self.enc(g.in_spec),
            "signature": self.enc(g.signature),
        }
        body["values"] = self.table
        return body


class _Reader:
    def __init__(self, table, tensors, functions=None):
        self.tensors = tensors
        self.functions = functions if functions is not None else {}
        self.values = []
        for d in table:
            v = Value(d["type"], d["shape"], d["dtype"], name=str(d["name"]), param=d["param"])
            self.values.append(v)

    def dec(self, obj):
        if isinstance(obj, list):
            return [self.dec(o) for o in obj]
        if not isinstance(obj, dict):
            return obj
        ((tag, val),) = obj.items()
        if tag == "$v":
            return self.values[int(val)]
        if tag == "$leaf":
            return _trace._Leaf(int(val))
        if tag == "$t":
            if val not in self.tensors:
                raise RuntimeError(f"torch.jit.load: the archive lacks the tensor {val!r}")
            return self.tensors[val]
        if tag == "$tuple":
            return tuple(self.dec(o) for o in val)
        if tag == "$dict":
            return {k: self.dec(o) for k, o in val.items()}
        if tag == "$slice":
            return slice(*(self.dec(o) for o in val))
        if tag == "$ellipsis":
            return Ellipsis
        if tag == "$dtype":
            dt = getattr(torch, str(val), None)
            if not isinstance(dt, torch.dtype):
                raise RuntimeError(f"torch.jit.load: unknown dtype {val!r}")
            return dt
        if tag == "$device":
            return torch.device(val)
        if tag == "$memory_format":
            fmt = getattr(torch, str(val), None)
            if not isinstance(fmt, torch.memory_format):
                raise RuntimeError(f"torch.jit.load: unknown memory format {val!r}")
            return fmt
        if tag == "$nodefault":
            return _script._NO_DEFAULT
        if tag == "$fn":
            return self.functions[val]
        if tag == "$op":
            from torch.jit._ops import resolve

            if not allowed(str(val)) or str(val).startswith("prim::"):
                raise RuntimeError(f"torch.jit.load: unknown op {val!r}")
            return resolve(Node(str(val)), cache=False)
        raise RuntimeError(f"torch.jit.load: unknown tag {tag!r} in the graph")

    def node(self, d):
        kind = d["kind"]
        if not isinstance(kind, str) or not (allowed(kind) or kind in _STRUCTURAL):
            raise RuntimeError(f"torch.jit.load: unknown op {kind!r} in the graph")
        if kind == "prim::PythonOp":
            raise RuntimeError("torch.jit.load: the graph calls Python code (prim::PythonOp)")
        n = Node(
            kind,
            self.dec(d["args"]),
            self.dec(d["kwargs"]),
            self.dec(d["out"]),
            self.dec(d["attrs"]),
            [self.block(b) for b in d["blocks"]],
            tuple(d["source"]) if d["source"] else None,
        )
        return n

    def block(self, d):
        return Block(
            [self.values[i] for i in d["inputs"]],
            [self.node(n) for n in d["nodes"]],
            [self.dec(o) for o in d["outputs"]],
        )

    def graph(self, d):
        g = Graph()
        g.inputs = [self.values[i] for i in d["inputs"]]
        g.params = {k: self.values[i] for k, i in d["params"].items()}
        g.nodes = [self.node(n) for n in d["nodes"]]
        g.out = self.dec(d["out"])
        g.in_spec = self.dec(d["in_spec"])
        sig = self.dec(d.get("signature"))
        g.signature = None if sig is None else tuple(sig)
        return g


def save(m, f, _extra_files=None):
    """Save a ScriptModule or ScriptFunction to ``f`` (a path or a binary file object).

    The archive holds the graph(s) and the tensors; :func:`load` rebuilds a runnable
    module from it without the original Python class."""
    if not isinstance(m, (ScriptModule, ScriptFunction)):
        raise TypeError(
            f"torch.jit.save: expected a ScriptModule or ScriptFunction (use torch.jit.trace or "
            f"torch.jit.script first), got {type(m).__name__}"
        )
    tensors = {}
    if isinstance(m, ScriptModule):
        params = dict(m.named_parameters())
        buffers = dict(m.named_buffers())
        tensors.update({k: v.detach() for k, v in buffers.items()})
        tensors.update({k: v.detach() for k, v in params.items()})
        graphs = m._graphs
        meta = {
            "kind": "module",
            "name": m.original_name,
            "training": m.training,
            "parameters": {k: bool(v.requires_grad) for k, v in params.items()},
            "buffers": list(buffers),
            "scripted": bool(getattr(m, "_scripted", False)),
        }
    else:
        graphs = {m.name: m.graph}
        meta = {"kind": "function", "name": m.name}
    functions = {}
    meta["methods"] = {name: _Writer(tensors, functions).graph(g) for name, g in graphs.items()}
    if isinstance(m, ScriptModule):
        meta["modules"] = _modules_meta(m, tensors, functions)
    meta["functions"] = functions
    if _extra_files:
        meta["extra_files"] = sorted(_extra_files)
    buf = io.BytesIO()
    torch.save(tensors, buf)
    own = isinstance(f, (str, bytes)) or hasattr(f, "__fspath__")
    fh = open(f, "wb") if own else f  # noqa: SIM115
    try:
        with zipfile.ZipFile(fh, "w") as z:
            z.writestr("archive/version", _VERSION)
            z.writestr("archive/model.json", json.dumps(meta))
            z.writestr("archive/tensors.pt", buf.getvalue())
            for name, data in (_extra_files or {}).items():
                z.writestr("archive/extra/" + name, data)
    finally:
        if own:
            fh.close()


def load(f, map_location=None, _extra_files=None):
    """Load what :func:`save` wrote: a ScriptModule (its parameters, buffers and graphs) or
    a ScriptFunction. Tensors are read with ``torch.load(weights_only=True)``."""
    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise ValueError(f"The provided filename {f} does not exist")
    with zipfile.ZipFile(f) as z:
        names = z.namelist()
        prefix = next((n[: -len("version")] for n in names if n.endswith("/version")), None)
        if prefix is None:
            raise RuntimeError("torch.jit.load: not an archive written by torch.jit.save")
        meta = json.loads(z.read(prefix + "model.json"))
        tensors = torch.load(
            io.BytesIO(z.read(prefix + "tensors.pt")), map_location=map_location,
            weights_only=True,
        )  # fmt: skip
        if _extra_files is not None:
            for name in _extra_files:
                member = prefix + "extra/" + name
                if member in names:
                    _extra_files[name] = z.read(member)
    functions = _read_functions(meta.get("functions", {}), tensors)
    graphs = _read_graphs(meta["methods"], tensors, functions)
    if meta["kind"] == "function":
        return ScriptFunction(graphs[meta["name"]], meta["name"])
    root = ScriptModule(graphs, None, meta.get("name"))
    for path, info in meta.get("modules", {}).items():
        parent, attr = _owner(root, path)
        parent.add_module(attr, _rebuild_module(info, tensors, functions))
    for name, requires_grad in meta["parameters"].items():
        owner, attr = _owner(root, name)
        owner.register_parameter(attr, nn.Parameter(tensors[name], requires_grad=requires_grad))
    for name in meta["buffers"]:
        owner, attr = _owner(root, name)
        owner.register_buffer(attr, tensors[name])
    root.train(bool(meta.get("training", False)))
    root._scripted = bool(meta.get("scripted", False))
    return root


def _owner(root, dotted):
    *path, attr = dotted.split(".")
    mod = root
    for p in path:
        if p not in mod._modules:
            mod.add_module(p, nn.Module())
        mod = mod._modules[p]
    return mod, attr


def _read_graphs(methods, tensors, functions):
    return {
        name: _Reader(body["values"], tensors, functions).graph(body)
        for name, body in methods.items()
    }


def _read_functions(table, tensors):
    """The called script functions (a function may call one listed before or after it)."""
    functions = {}
    for key in table:
        functions[key] = ScriptFunction(Graph(), key.rsplit(".", 1)[0])
    for key, body in table.items():
        g = _Reader(body["values"], tensors, functions).graph(body)
        functions[key].graph = g
    return functions


_SKIP_ATTRS = ("_parameters", "_buffers", "_modules", "_non_persistent_buffers_set", "training")


def _modules_meta(root, tensors, functions):
    """{dotted path: how to rebuild it} for every submodule, parents first: a scripted one
    by its graphs, a torch.nn layer by its class name and plain attributes, any other as an
    empty container (a traced graph never calls it)."""
    out = {}
    for path, mod in root.named_modules():
        if not path:
            continue
        info = {"training": mod.training}
        if isinstance(mod, ScriptModule):
            info["kind"] = "script"
            info["name"] = mod.original_name
            info["methods"] = {
                k: _Writer(tensors, functions).graph(g) for k, g in mod._graphs.items()
            }
        elif type(mod).__module__.startswith("torch.nn.") and getattr(root, "_scripted", False):
            info["kind"] = "nn"
            info["class"] = type(mod).__name__
            attrs = {}
            for k, v in vars(mod).items():
                if k in _SKIP_ATTRS or "hook" in k:
                    continue
                try:
                    attrs[k] = _Writer(tensors, functions).enc(v)
                except RuntimeError:
                    continue
            info["attrs"] = attrs
        else:
            info["kind"] = "plain"
        out[path] = info
    return out


def _rebuild_module(info, tensors, functions):
    kind = info.get("kind")
    if kind == "script":
        mod = ScriptModule(_read_graphs(info["methods"], tensors, functions), None, info["name"])
    elif kind == "nn":
        cls = getattr(nn, str(info["class"]), None)
        if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
            raise RuntimeError(f"torch.jit.load: unknown torch.nn class {info['class']!r}")
        mod = cls.__new__(cls)
        nn.Module.__init__(mod)
        reader = _Reader([], tensors, functions)
        for k, v in info["attrs"].items():
            object.__setattr__(mod, k, reader.dec(v))
    else:
        mod = nn.Module()
    mod.training = bool(info.get("training", False))
    return mod
