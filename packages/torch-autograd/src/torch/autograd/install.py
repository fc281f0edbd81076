"""Fills the core's grad gates with the formulas and registers the recorder.

torch-core puts every op that can carry a gradient behind a ``_C._GradGate`` with an empty
formula slot when it loads, and names the gates in ``_C._grad_gates`` ("add",
"Tensor.add", ...); ops bound with ``nograd`` (bool or integer results, creation, queries) have
none. Importing torch-autograd fills each slot with the formula that names the op and registers
:func:`torch.autograd.graph.record`; nothing else is replaced.
"""

from torch import _C
from torch.autograd import graph
from torch.autograd.formulas import all_formulas


def install():
    """Fill every gate a formula names; returns {name: gate} (raises on an unknown name)."""
    gates = _C._grad_gates
    installed = {}
    for cls in all_formulas():
        for names, inplace in ((cls.names, False), (cls.inplace_names, True)):
            for name in names:
                found = [g for g in (gates.get(name), gates.get("Tensor." + name)) if g]
                if not found:
                    raise RuntimeError(f"{cls.__name__} names {name!r}, which has no grad gate")
                for gate in found:
                    if gate.formula is None:  # aliases (subtract, sub) share a gate
                        spec = gate.formula = graph.OpSpec(cls, name, inplace)
                        gate.view = bool(cls.view) and not inplace
                        if spec.record_kind:  # the gate records such calls itself
                            gate.node_type, gate.record_kind = cls, spec.record_kind
                    installed[name] = gate
    _C._set_grad_recorder(graph.record, graph.recorder_helpers())
    _C._set_autograd_missing(None)
    return installed


def unfilled():
    """Gates whose op no formula names (calling them with a gradient raises)."""
    return sorted(name for name, gate in _C._grad_gates.items() if gate.formula is None)
