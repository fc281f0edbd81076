"""torch.distributed (the torch-distributed wheel): collectives between processes over MPI.

Every CPU backend name runs on one engine, MPI through mpi4py (the ``mpich`` wheel by
default): ``"gloo"`` (PyTorch's CPU default) and ``"mpi"`` behave the same. ``"nccl"`` needs
CUDA tensors and raises. Start the processes with ``torchrun --nproc-per-node N script.py``
(which runs them under ``mpiexec``), ``mpiexec -n N python script.py``, or
``torch.multiprocessing.spawn`` with ``init_method="tcp://..."``/``"env://"``; see
``docs/distributed.rst``.

Importing this package does not initialise MPI; ``init_process_group`` does.
"""

__version__ = "0.1.0"

from torch.distributed import distributed_c10d as _c10d
from torch.distributed._store import FileStore, Store, TCPStore  # noqa: F401  (in __all__)
from torch.distributed.distributed_c10d import *  # noqa: F403  (its __all__: the API)

group = _c10d.GroupMember  # torch.distributed.group.WORLD

__all__ = sorted([*_c10d.__all__, "FileStore", "Store", "TCPStore", "group"])
