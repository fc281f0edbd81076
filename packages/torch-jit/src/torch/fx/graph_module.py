"""``GraphModule``: an ``nn.Module`` whose ``forward`` is generated from a Graph."""

import copy
import linecache

import torch
from torch.fx.graph import Graph

__all__ = ["GraphModule"]

_count = [0]


def _copy_attr(src, dst, path):
    *prefix, field = path.split(".")
    for part in prefix:
        s = getattr(src, part)
        d = getattr(dst, part, None)
        if d is None:
            d = torch.nn.Module()
            setattr(dst, part, d)
        src, dst = s, d
    value = getattr(src, field)
    if (
        isinstance(value, torch.Tensor)
        and not isinstance(value, torch.nn.Parameter)
        and field in getattr(src, "_buffers", {})
    ):
        dst.register_buffer(field, value)
    else:
        setattr(dst, field, value)


class GraphModule(torch.nn.Module):
    """A module running ``graph``; ``root`` (a module, or a dict of path -> object) supplies
    the submodules, parameters and buffers the ``get_attr``/``call_module`` nodes name.

    Each instance gets its own class, so :meth:`recompile` can set ``forward`` on it."""

    def __new__(cls, *args, **kwargs):
        if not getattr(cls, "_fx_own_class", False):
            cls = type(cls.__name__, (cls,), {"_fx_own_class": True})
        return super().__new__(cls)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        type(self).__name__ = type(self).__qualname__ = class_name
        if isinstance(root, torch.nn.Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(
                            f"Node {node} target {node.target} is missing from the root dict"
                        )
                    *prefix, field = node.target.split(".")
                    owner = self
                    for part in prefix:
                        if not hasattr(owner, part):
                            setattr(owner, part, torch.nn.Module())
                        owner = getattr(owner, part)
                    setattr(owner, field, root[node.target])
        else:
            raise RuntimeError(
                f"GraphModule: root must be an nn.Module or a dict, not {type(root).__name__}"
            )
        self.graph = graph

    @property
    def graph(self):
        """The Graph this module runs; setting it recompiles ``forward``."""
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"GraphModule.graph must be a torch.fx.Graph, not {type(g).__name__}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of the generated ``forward``."""
        return self.__dict__["_code"]

    def recompile(self):
        """Regenerate ``forward`` from ``self.graph``; call after editing the graph."""
        pc = self.graph.python_code(root_module="self")
        self.__dict__["_code"] = pc.src
        _count[0] += 1
        filename = f"<eval_with_key>.{_count[0]}"
        linecache.cache[filename] = (len(pc.src), None, pc.src.splitlines(True), filename)
        g = dict(pc.globals)
        exec(compile(pc.src, filename, "exec"), g)
        type(self).forward = g["forward"]
        return pc

    def print_readable(self, print_output=True):
        text = f"class {type(self).__name__}(torch.nn.Module):{self.code}"
        if print_output:
            print(text)
        return text

    def __deepcopy__(self, memo):
        res = torch.nn.Module.__new__(torch.nn.Module)
        memo[id(self)] = res
        state = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        res.__dict__ = copy.deepcopy(state, memo)
        return GraphModule(res, copy.deepcopy(self.graph, memo), type(self).__name__)

    def __copy__(self):
        res = torch.nn.Module.__new__(torch.nn.Module)
        res.__dict__ = self.__dict__.copy()
        return GraphModule(res, self.graph, type(self).__name__)

    def __str__(self):
        return super().__str__() + "\n\n" + self.code.strip("\n")
