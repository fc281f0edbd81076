"""torch.multiprocessing: ``multiprocessing`` with tensors passed through shared memory.

Shipped by the torch-multiprocessing wheel together with ``torch.utils.data``. For now a plain
re-export of the standard library's ``multiprocessing`` (tensors are pickled by value); the
shared-memory reductions come with issue 7.
"""

import multiprocessing
from multiprocessing import *  # noqa: F403

__version__ = "0.1.0"
__all__ = list(multiprocessing.__all__)
