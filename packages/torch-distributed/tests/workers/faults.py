"""A job in which rank 1 fails in the given way (argv[1]) after one all_reduce."""

import datetime
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

mode = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=float(sys.argv[2])))
x = torch.ones(1 << 16)
dist.all_reduce(x)
if dist.get_rank() == 1:
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode == "raise":
        raise ValueError("rank 1 fails on purpose")
    elif mode == "stall":
        time.sleep(120)
for _ in range(3):
    dist.all_reduce(x)
print("finished", dist.get_rank(), flush=True)
