"""A torchrun worker: all-reduce its rank and write the launcher's environment to a file."""

import json
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank())])
dist.all_reduce(t)
keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "GROUP_RANK", "TORCHELASTIC_RUN_ID"]  # fmt: skip
report = {k: os.environ.get(k) for k in keys}
report.update(rank=dist.get_rank(), world=dist.get_world_size(), total=t.item(), argv=sys.argv[1:])
with open(os.path.join(os.environ["CHECK_DIR"], f"rank{dist.get_rank()}.json"), "w") as f:
    json.dump(report, f)
dist.destroy_process_group()
