"""PyTorch's DDP tutorial, as written there: mp.spawn, env:// init, DDP; optionally rank 1
fails (argv[3]) to check that the job ends within the timeout."""

import datetime
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def work(rank, world_size, port, mode):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    timeout = datetime.timedelta(seconds=3)
    dist.init_process_group("gloo", rank=rank, world_size=world_size, timeout=timeout)
    torch.manual_seed(rank)  # different initial weights: DDP broadcasts rank 0's
    model = DDP(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        if mode == "raise" and rank == 1 and step == 1:
            raise RuntimeError("rank 1 fails on purpose")
        if mode == "kill" and rank == 1 and step == 1:
            os.kill(os.getpid(), 9)
        opt.zero_grad()
        model(torch.randn(8, 4) + rank).sum().backward()
        opt.step()
    weights = [None] * world_size
    dist.all_gather_object(weights, model.module.weight.detach().numpy().tolist())
    assert all(w == weights[0] for w in weights), "replicas differ"
    dist.destroy_process_group()


if __name__ == "__main__":
    n, port, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    start = time.monotonic()
    try:
        mp.spawn(work, args=(n, port, mode), nprocs=n)
        print("SPAWN OK", flush=True)
    except Exception as e:
        print(f"SPAWN FAILED after {time.monotonic() - start:.1f} s: {e}", flush=True)
