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

from torch.distributed._store import FileStore, Store, TCPStore
from torch.distributed.distributed_c10d import (
    Backend,
    DistBackendError,
    GroupMember,
    ProcessGroup,
    ReduceOp,
    Work,
    all_gather,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    broadcast_object_list,
    destroy_process_group,
    gather,
    gather_object,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    irecv,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    isend,
    new_group,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    scatter_object_list,
    send,
)

group = GroupMember  # torch.distributed.group.WORLD

__all__ = [
    "Backend",
    "DistBackendError",
    "FileStore",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Store",
    "TCPStore",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "isend",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]
