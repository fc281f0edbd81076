"""torch.nn.parallel: running a module over several devices or processes.

This build has only the CPU backend, so there is no device to spread a module over:
:class:`DataParallel` calls its module directly (as PyTorch's does on a machine without a
GPU) and :func:`data_parallel` raises as PyTorch's does there. :class:`DistributedDataParallel`
runs one replica per process and averages gradients over ``torch.distributed`` (the
torch-distributed package, imported when a DDP is constructed).
"""

from torch.nn.parallel.data_parallel import DataParallel, data_parallel
from torch.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
