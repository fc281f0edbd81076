"""torch.multiprocessing: ``multiprocessing`` with tensors passed through shared memory.

Shipped by the torch-multiprocessing wheel together with ``torch.utils.data``. Filled in by
later issues.
"""

__version__ = "0.1.0"
