"""Op registry entries for shape ops; joined into ``_op_registry.OPS``.

Entries use the helpers of ``torch.testing._op_registry`` (OpInfo, T, S, on, fixed, ...).
"""

OPS = []
