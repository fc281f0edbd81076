"""torch.fx: capture a module's ``forward`` as a graph of Python operations, edit the
graph, and turn it back into a module.

``symbolic_trace(module)`` runs ``forward`` on :class:`Proxy` objects and records what
they see as a :class:`Graph` of :class:`Node` s; :class:`GraphModule` generates Python
from a graph and runs it; :class:`Interpreter` / :class:`Transformer` run or rewrite a
graph node by node; :func:`replace_pattern` swaps matching subgraphs.
"""

from torch.fx import proxy
from torch.fx._symbolic_trace import Tracer, symbolic_trace, wrap
from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.interpreter import Interpreter, Transformer
from torch.fx.node import Node, map_arg
from torch.fx.proxy import Proxy
from torch.fx.subgraph_rewriter import replace_pattern

__all__ = [
    "Graph", "GraphModule", "Interpreter", "Node", "Proxy", "Tracer", "Transformer",
    "map_arg", "proxy", "replace_pattern", "symbolic_trace", "wrap",
]  # fmt: skip
