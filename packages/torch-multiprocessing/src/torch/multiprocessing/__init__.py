"""torch.multiprocessing: ``multiprocessing`` with tensors passed through shared memory.

Shipped by the torch-multiprocessing wheel together with ``torch.utils.data``. For now a
re-export of the standard library's ``multiprocessing`` plus ``Tensor.share_memory_``'s
storage move; the reductions that send shared tensors between processes come with issue 7.
"""

import mmap
import multiprocessing
import os
from multiprocessing import *  # noqa: F403

__version__ = "0.1.0"
__all__ = list(multiprocessing.__all__)


class _SharedSegment(mmap.mmap):
    """An anonymous shared-memory mapping (memfd) that a storage lives in."""


def _share_storage(storage):
    """Move `storage` into a new shared-memory segment (Tensor.share_memory_)."""
    if _is_shared(storage):
        return
    fd = os.memfd_create("torch-shared", os.MFD_CLOEXEC)
    try:
        size = max(storage.nbytes(), 1)
        os.ftruncate(fd, size)
        segment = _SharedSegment(fd, size)
    finally:
        os.close(fd)
    storage._move_into(segment)


def _is_shared(storage):
    return isinstance(storage._buffer_owner(), _SharedSegment)
