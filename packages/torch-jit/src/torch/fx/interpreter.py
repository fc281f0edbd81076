"""``Interpreter`` runs a GraphModule node by node; ``Transformer`` rewrites it the same way.

Override the per-op methods (``call_function``, ``call_method``, ``call_module``,
``get_attr``, ``placeholder``, ``output``) or ``run_node`` to change what each node does.
"""

from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.node import map_aggregate, map_arg
from torch.fx.proxy import Proxy, TracerBase

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Execute ``module.graph`` one node at a time: ``Interpreter(gm).run(*inputs)``."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.graph = graph if graph is not None else module.graph
        self.submodules = dict(module.named_modules())
        self.env = {}
        self.garbage_collect_values = garbage_collect_values
        self.user_to_last_uses = {}
        last = {}
        for node in self.graph.nodes:
            for inp in node.all_input_nodes:
                last[inp] = node
        for value, user in last.items():
            self.user_to_last_uses.setdefault(user, []).append(value)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on ``args`` and return what its output node returns."""
        self.env = dict(initial_env or {})
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if not getattr(e, "_fx_noted", False):
                    msg = f"While executing {node.format_node()}"
                    if hasattr(e, "add_note"):
                        e.add_note(msg)
                    e._fx_noted = True
                raise
            if self.garbage_collect_values:
                for dead in self.user_to_last_uses.get(node, ()):
                    self.env.pop(dead, None)
            if node.op == "output":
                return self.env[node]
        return None

    def run_node(self, n):
        """Run one node: fetch its arguments from the environment and call the op method."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    def fetch_args_kwargs_from_env(self, n):
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        def load(a):
            if a not in self.env:
                raise RuntimeError(
                    f"Node {n} referenced nonexistent value {a}! Run Graph.lint() to diagnose"
                )
            return self.env[a]

        return map_arg(args, load)

    def fetch_attr(self, target):
        """The object at the dotted path ``target`` of the module."""
        obj = self.module
        for i, part in enumerate(target.split(".")):
            if not hasattr(obj, part):
                raise RuntimeError(
                    f"Node referenced nonexistent target {'.'.join(target.split('.')[: i + 1])}"
                )
            obj = getattr(obj, part)
        return obj

    # ---------------------------------------------------------------- one method per op
    def placeholder(self, target, args, kwargs):
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(  # noqa: B904 (the StopIteration is not the cause)
                f"Expected positional argument for parameter {target}, but one was not passed in!"
            )

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]


class _TransformerTracer(TracerBase):
    def __init__(self, graph, root):
        self.graph = graph
        self.root = root

    def is_leaf_module(self, m, qualname):
        return True


class Transformer(Interpreter):
    """Build a new GraphModule by running the old one on proxies: each op method returns
    a proxy of the node it adds. ``Transformer(gm).transform()`` copies ``gm``."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph, module)

    def placeholder(self, target, args, kwargs):
        default = args if args else ()
        return Proxy(self.new_graph.create_node("placeholder", target, default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target, args, kwargs):
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def transform(self):
        """Run the transformation and return the new GraphModule."""
        result = self.run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(
                map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a)
            )
        return GraphModule(self.module, self.new_graph)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        self.args_iter = iter(())
        self.env = dict(initial_env or {})
        for node in self.graph.nodes:
            self.env[node] = self.run_node(node)
            if node.op == "output":
                return self.env[node]
        return None
