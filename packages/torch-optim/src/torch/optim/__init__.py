"""torch.optim: optimisers over ``param_groups`` with per-parameter state (the torch-optim wheel).

Filled in by later issues.
"""

__version__ = "0.1.0"
