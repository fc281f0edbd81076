"""torch.nn: neural-network modules, parameters and ``torch.nn.functional`` (the torch-nn wheel).

Filled in by later issues.
"""

__version__ = "0.1.0"
