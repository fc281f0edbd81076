"""One process, no mpiexec: init with world_size=1 through each init_method."""

import sys

import torch
import torch.distributed as dist

dist.init_process_group("mpi", init_method=sys.argv[1], rank=0, world_size=1)
assert dist.get_rank() == 0 and dist.get_world_size() == 1 and dist.get_backend() == "mpi"
t = torch.arange(4.0)
dist.all_reduce(t, op=dist.ReduceOp.AVG)
out = [torch.zeros(4)]
dist.all_gather(out, t)
assert out[0].tolist() == [0.0, 1.0, 2.0, 3.0]
dist.barrier()
dist.destroy_process_group()
print("SINGLE OK")
