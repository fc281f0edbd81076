"""Where a CUDA training step's time goes: host time to queue one step, GPU time of one
step (CUDA events), and steps/s; for ours and PyTorch alike (run under each).
    python tools/gpu_step_profile.py   # the MNIST CNN step of benchmarks/gpu.py"""

import sys
import time

sys.path.insert(0, "benchmarks")
from run import _mnist_net  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.manual_seed(0)
model = _mnist_net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.rand(64, 1, 28, 28).cuda()
y = torch.randint(0, 10, (64,)).cuda()


def step():
    opt.zero_grad()
    F.nll_loss(model(x), y).backward()
    opt.step()


def parts():
    t = {}
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    opt.zero_grad()
    out = model(x)
    t["fwd"] = time.perf_counter() - t0
    loss = F.nll_loss(out, y)
    t1 = time.perf_counter()
    loss.backward()
    t["bwd"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    opt.step()
    t["opt"] = time.perf_counter() - t2
    t["host"] = time.perf_counter() - t0
    torch.cuda.synchronize()
    t["synced"] = time.perf_counter() - t0
    return t


for _ in range(20):
    step()
torch.cuda.synchronize()
rows = [parts() for _ in range(50)]
med = {k: sorted(r[k] for r in rows)[len(rows) // 2] * 1e3 for k in rows[0]}
e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
gpu = []
for _ in range(30):
    e0.record()
    step()
    e1.record()
    e1.synchronize()
    gpu.append(e0.elapsed_time(e1))
n = 300
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(n):
    step()
torch.cuda.synchronize()
rate = n / (time.perf_counter() - t0)
print(
    f"{torch.__version__}: host enqueue ms fwd {med['fwd']:.3f} bwd {med['bwd']:.3f} "
    f"opt {med['opt']:.3f} total {med['host']:.3f}; step synced {med['synced']:.3f} ms; "
    f"GPU (events) {sorted(gpu)[15]:.3f} ms; {rate:.0f} steps/s"
)
