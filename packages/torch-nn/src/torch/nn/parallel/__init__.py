"""torch.nn.parallel: running a module over several devices.

This build has only the CPU backend, so there is nothing to spread a module over:
:class:`DataParallel` calls its module directly (as PyTorch's does on a machine without a
GPU), :func:`data_parallel` raises as PyTorch's does there, and
:class:`DistributedDataParallel`, which needs ``torch.distributed``'s process group, raises
when it is constructed.
"""

from torch.nn.parallel.data_parallel import DataParallel, data_parallel
from torch.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
