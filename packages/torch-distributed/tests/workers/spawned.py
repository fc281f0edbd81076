"""PyTorch's DDP-tutorial pattern: torch.multiprocessing.spawn + tcp:// (or env://) init."""

import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def work(rank, world_size, init_method):
    if init_method == "env://":
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = sys.argv[2]
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world_size)
    t = torch.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [world_size] * 2
    dist.destroy_process_group()


if __name__ == "__main__":
    method = sys.argv[1]
    init = {"tcp": f"tcp://127.0.0.1:{sys.argv[2]}", "env": "env://"}.get(method)
    if method == "file":
        init = f"file://{sys.argv[3]}"
    try:
        mp.spawn(work, args=(2, init), nprocs=2)
        print("SPAWN OK")
    except Exception as e:
        print("SPAWN FAILED:", e)
