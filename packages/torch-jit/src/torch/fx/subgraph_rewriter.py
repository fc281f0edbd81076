"""``replace_pattern``: find a traced pattern in a GraphModule and splice in a replacement.

The pattern and the replacement are functions (or GraphModules) with the same inputs.
A match is a set of nodes of the module's graph with the pattern's ops, targets and data
flow, ending in the node the pattern returns; pattern inputs match any value. Matches do
not overlap, and one whose inner values are read outside it is skipped. Each match is
replaced by a copy of the replacement graph, inserted before the match's last node.
"""

from typing import NamedTuple

from torch.fx._symbolic_trace import symbolic_trace
from torch.fx.graph_module import GraphModule
from torch.fx.node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    anchor: Node  # the node of the module's graph the pattern's output matched
    nodes_map: dict  # pattern node -> module graph node


def _graph_of(fn):
    if isinstance(fn, GraphModule):
        return fn.graph
    return symbolic_trace(fn).graph


def _match(pn, gn, nodes_map):
    if pn in nodes_map:
        return nodes_map[pn] is gn
    if pn.op == "placeholder":
        nodes_map[pn] = gn
        return True
    if not isinstance(gn, Node) or pn.op != gn.op or pn.target != gn.target:
        return False
    if len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
        return False
    nodes_map[pn] = gn
    pairs = list(zip(pn.args, gn.args)) + [(pn.kwargs[k], gn.kwargs[k]) for k in pn.kwargs]
    if all(_match_arg(a, b, nodes_map) for a, b in pairs):
        return True
    del nodes_map[pn]
    return False


def _match_arg(pa, ga, nodes_map):
    if isinstance(pa, Node):
        return _match(pa, ga, nodes_map)
    if isinstance(pa, (list, tuple)):
        return (
            isinstance(ga, (list, tuple))
            and len(pa) == len(ga)
            and all(_match_arg(a, b, nodes_map) for a, b in zip(pa, ga))
        )
    return not isinstance(ga, Node) and type(pa) is type(ga) and pa == ga


def replace_pattern(gm, pattern, replacement):
    """Replace every non-overlapping match of ``pattern`` in ``gm`` with ``replacement``;
    returns the list of :class:`Match` es and recompiles ``gm``."""
    p_graph, r_graph = _graph_of(pattern), _graph_of(replacement)
    p_out = next(n for n in p_graph.nodes if n.op == "output")
    anchor = p_out.args[0]
    if not isinstance(anchor, Node):
        raise ValueError("replace_pattern: the pattern must return one traced value")
    p_inputs = [n for n in p_graph.nodes if n.op == "placeholder"]
    graph = gm.graph
    taken, matches = set(), []
    for gn in list(graph.nodes):
        if gn in taken or gn.op in ("placeholder", "output"):
            continue
        nodes_map = {}
        if not _match(anchor, gn, nodes_map):
            continue
        inner = {nodes_map[p] for p in nodes_map if p.op != "placeholder"}
        if inner & taken:
            continue
        if any(u not in inner for n in inner if n is not gn for u in n.users):
            continue  # an intermediate value is read outside the match
        taken |= inner
        matches.append(Match(gn, nodes_map))

    for m in matches:
        val_map = {}
        r_inputs = [n for n in r_graph.nodes if n.op == "placeholder"]
        for r, p in zip(r_inputs, p_inputs):
            val_map[r] = m.nodes_map[p]
        with graph.inserting_before(m.anchor):
            out = graph.graph_copy(r_graph, val_map)
        if isinstance(out, (list, tuple)):
            out = out[0]
        m.anchor.replace_all_uses_with(out)
        inner = [
            m.nodes_map[p]
            for p in reversed(list(p_graph.nodes))
            if p in m.nodes_map and p.op != "placeholder"
        ]
        for n in inner:
            if not n.users and not n._erased:
                graph.erase_node(n)
    gm.recompile()
    return matches
