"""DistributedDataParallel checks on the ranks of one mpiexec job: each rank also trains a
single-process reference on the whole batch and compares."""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import run_checks  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

R = N = None


class Net(nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc1 = nn.Linear(4 * 6 * 6, 16)
        self.fc2 = nn.Linear(16, 3)
        self.unused = nn.Linear(5, 5) if unused else None
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x):
        x = F.relu(self.conv(x)) * self.scale
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def batches(steps, per_rank=4, seed=1):
    g = torch.Generator()
    g.manual_seed(seed)
    for _ in range(steps):
        yield (torch.randn(per_rank * N, 1, 8, 8, generator=g),
               torch.randint(0, 3, (per_rank * N,), generator=g))  # fmt: skip


def mine(t, per_rank=4):
    return t[R * per_rank : (R + 1) * per_rank]


def models(seed=0, **ddp_kwargs):
    torch.manual_seed(seed)
    net = Net(unused=ddp_kwargs.pop("unused", False))
    ref = copy.deepcopy(net)
    if R:  # diverge: construction must broadcast rank 0's parameters
        with torch.no_grad():
            for p in net.parameters():
                p.add_(1.0)
    return DDP(net, **ddp_kwargs), ref


def assert_same(ddp, ref, atol=1e-5):
    for (name, a), b in zip(ddp.module.named_parameters(), ref.parameters()):
        diff = (a - b).abs().max().item()
        assert diff <= atol, f"{name} differs from the single-process run by {diff}"


def train(ddp, ref, steps=20, lr=0.1):
    opt = torch.optim.SGD(ddp.parameters(), lr=lr, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=lr, momentum=0.9)
    for x, y in batches(steps):
        opt.zero_grad()
        F.cross_entropy(ddp(mine(x)), mine(y)).backward()
        opt.step()
        ref_opt.zero_grad()
        F.cross_entropy(ref(x), y).backward()
        ref_opt.step()


def equivalence_20_steps():
    ddp, ref = models()
    assert len(ddp._buckets) == 1
    train(ddp, ref)
    assert_same(ddp, ref)


def equivalence_small_buckets():
    ddp, ref = models(bucket_cap_mb=0.002)
    assert len(ddp._buckets) >= 3, len(ddp._buckets)
    train(ddp, ref)
    assert_same(ddp, ref)


def static_graph():
    ddp, ref = models(static_graph=True, bucket_cap_mb=0.002)
    train(ddp, ref, steps=5)
    assert_same(ddp, ref)


def no_sync_accumulates():
    ddp, ref = models()
    ((x1, y1), (x2, y2)) = batches(2)
    with ddp.no_sync():
        F.cross_entropy(ddp(mine(x1)), mine(y1)).backward()
    local = [p.grad.clone() for p in ddp.parameters()]
    F.cross_entropy(ddp(mine(x2)), mine(y2)).backward()
    F.cross_entropy(ref(x1), y1).backward()
    F.cross_entropy(ref(x2), y2).backward()
    for a, b in zip(ddp.parameters(), ref.parameters()):
        assert torch.allclose(a.grad, b.grad, atol=1e-5), (a.grad - b.grad).abs().max()
    # the no_sync step alone was local: it differs between ranks
    gathered = [None] * N
    dist.all_gather_object(gathered, local[0].sum().item())
    assert len(set(gathered)) == N


def find_unused_parameters():
    ddp, ref = models(unused=True, find_unused_parameters=True, bucket_cap_mb=0.002)
    train(ddp, ref, steps=3)
    assert_same(ddp, ref)
    assert ddp.module.unused.weight.grad is None  # no rank used it


def broadcast_buffers():
    ddp, _ = models()
    with torch.no_grad():
        ddp.module.scale.fill_(2.0 + R)
    ddp(torch.randn(1, 1, 8, 8))
    assert ddp.module.scale.item() == 2.0
    ddp2, _ = models(broadcast_buffers=False)
    with torch.no_grad():
        ddp2.module.scale.fill_(2.0 + R)
    ddp2(torch.randn(1, 1, 8, 8))
    assert ddp2.module.scale.item() == 2.0 + R


def module_and_state_dict():
    ddp, ref = models()
    assert isinstance(ddp.module, Net)
    keys = list(ddp.state_dict())
    assert keys == ["module." + k for k in ref.state_dict()], keys
    with torch.no_grad():
        out = ddp(torch.randn(2, 1, 8, 8))
    assert out.shape == (2, 3)


def unused_without_flag_raises():
    ddp, _ = models(unused=True)
    x, y = next(batches(1))
    F.cross_entropy(ddp(mine(x)), mine(y)).backward()
    try:
        ddp(mine(x))
    except RuntimeError as e:
        assert "find_unused_parameters=True" in str(e) and "unused.weight" in str(e), str(e)
    else:
        raise AssertionError("an unused parameter without find_unused_parameters did not raise")


CHECKS = [(f.__name__, f) for f in (
    equivalence_20_steps, equivalence_small_buckets, static_graph, no_sync_accumulates,
    find_unused_parameters, broadcast_buffers, module_and_state_dict, unused_without_flag_raises,
)]  # fmt: skip


def main():
    global R, N
    dist.init_process_group("gloo")
    R, N = dist.get_rank(), dist.get_world_size()
    run_checks(R, CHECKS)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
