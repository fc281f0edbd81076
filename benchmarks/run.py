"""Measure a few figures with whatever ``torch`` is importable; print JSON.

Runs unchanged under this project's ``torch`` and under PyTorch.  Only uses
API both have: torch.rand/randn/empty, torch.add(out=), torch.exp(out=),
.sum(), .t().contiguous(), @, .relu(), .requires_grad_(), .backward(),
torch.get_num_threads(), and for the training figures torch.nn / torch.optim and
examples/mnist.

    python benchmarks/run.py [--only NAME ...] [--stat median|best] [--json PATH]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

N = 16 * 1024 * 1024  # elements of the big 1-D tensors
BUDGET_S = 6.0  # rough cap on the timed repeats of one figure
STAT = statistics.median  # how repeats are summarised; --stat best uses min


def timed(fn, warmup=3, min_runs=15, min_s=1.0, max_runs=200):
    """Median (or best, with --stat best) wall time of fn() after warm-up.

    Repeats at least min_runs times and for at least min_s seconds (for a
    stable median on a noisy machine), but stops after max_runs or BUDGET_S.
    """
    for _ in range(warmup):
        fn()
    times, start = [], time.perf_counter()
    while len(times) < max_runs:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - start
        if (len(times) >= min_runs and elapsed >= min_s) or (
            len(times) >= 3 and elapsed >= BUDGET_S
        ):
            break
    return STAT(times)


def bench_import():
    """Wall time (ms) of `python -c "import torch"` in a fresh process; median (or best) of 7."""
    cmd = [sys.executable, "-c", "import torch"]
    cwd = tempfile.gettempdir()  # so a torch/ folder in the cwd cannot shadow the installed one
    times = []
    for i in range(8):  # the first run only warms the file cache
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True)
        if i:
            times.append(time.perf_counter() - t0)
    return STAT(times) * 1e3


def bench_add_small():
    """Per-call time (µs) of `a + b` on two 4-element float32 tensors."""
    import torch

    a, b = torch.rand(4), torch.rand(4)
    timer = timeit.Timer("a + b", globals={"a": a, "b": b})
    number, _ = timer.autorange()  # loops taking >= 0.2 s
    runs = timer.repeat(repeat=7, number=number)
    return STAT(runs) / number * 1e6


def bench_add():
    """torch.add(a, b, out=c), 16M float32: GB/s counting 3 x 4 bytes/element."""
    import torch

    a, b, c = torch.rand(N), torch.rand(N), torch.empty(N)
    return 3 * 4 * N / timed(lambda: torch.add(a, b, out=c)) / 1e9


def bench_sum():
    """a.sum(), 16M float32: GB/s counting 4 bytes/element read."""
    import torch

    a = torch.rand(N)
    return 4 * N / timed(lambda: a.sum()) / 1e9


def bench_exp():
    """torch.exp(a, out=c), 16M float32: GB/s counting 2 x 4 bytes/element."""
    import torch

    a, c = torch.randn(N), torch.empty(N)
    return 2 * 4 * N / timed(lambda: torch.exp(a, out=c)) / 1e9


def bench_transpose():
    """x.t().contiguous(), 4096x4096 float32: GB/s counting 2 x 4 bytes/element."""
    import torch

    x = torch.rand(4096, 4096)
    return 2 * 4 * x.numel() / timed(lambda: x.t().contiguous()) / 1e9


def bench_matmul():
    """a @ b, 1024x1024 float32: GFLOP/s counting 2 n^3 flops."""
    import torch

    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    return 2 * n**3 / timed(lambda: a @ b) / 1e9


def bench_mask_select():
    """x[mask], 16M float32 with half the mask true: GB/s counting 4 + 1 bytes/element read."""
    import torch

    x = torch.rand(N)
    mask = torch.rand(N) < 0.5
    return 5 * N / timed(lambda: x[mask]) / 1e9


TABLE_ROWS, PICKED = 4 * 1024 * 1024, 1024 * 1024  # a 4M x 16 table, 1M rows picked


def bench_index_select():
    """torch.index_select(table, 0, idx) of 1M rows of a 4M x 16 float32 table: GB/s written."""
    import torch

    table = torch.rand(TABLE_ROWS, 16)
    idx = torch.randint(0, TABLE_ROWS, (PICKED,))
    return PICKED * 16 * 4 / timed(lambda: torch.index_select(table, 0, idx)) / 1e9


def bench_gather():
    """torch.gather(table, 0, idx) with idx of shape (1M, 16) into a 4M x 16 table: GB/s written."""
    import torch

    table = torch.rand(TABLE_ROWS, 16)
    idx = torch.randint(0, TABLE_ROWS, (PICKED, 1)).expand(PICKED, 16).contiguous()
    return PICKED * 16 * 4 / timed(lambda: torch.gather(table, 0, idx)) / 1e9


def bench_sort():
    """torch.sort of 16M float32 (values and indices): million elements per second."""
    import torch

    x = torch.rand(N)
    return N / timed(lambda: torch.sort(x), min_runs=5) / 1e6


def bench_topk():
    """torch.topk(x, 100) of 16M float32: million elements scanned per second."""
    import torch

    x = torch.rand(N)
    return N / timed(lambda: torch.topk(x, 100), min_runs=5) / 1e6


def bench_solve():
    """torch.linalg.solve of 1000 batched 16x16 float32 systems: systems per millisecond."""
    import torch

    a = torch.randn(1000, 16, 16) + 16 * torch.eye(16)
    b = torch.randn(1000, 16, 1)
    return 1000 / timed(lambda: torch.linalg.solve(a, b)) / 1e3


def bench_svd():
    """torch.linalg.svd of a 512x512 float32 matrix: decompositions per second."""
    import torch

    a = torch.randn(512, 512)
    return 1 / timed(lambda: torch.linalg.svd(a), min_runs=5)


STATE_MB = 200


def _state_dict():
    """About 200 MB of float32 tensors of mixed sizes, like a model's state_dict."""
    import torch

    sizes, sd, total, i = [1 << 20, 1 << 18, 1 << 16, 1 << 12, 1 << 10], {}, 0, 0
    while total < STATE_MB * (1 << 20):
        n = sizes[i % len(sizes)]
        sd[f"layer{i}.weight"] = torch.rand(n)
        total, i = total + 4 * n, i + 1
    return sd, total


def bench_save():
    """torch.save of a 200 MB state_dict (mixed tensor sizes) to a file: MB/s."""
    import torch

    sd, total = _state_dict()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sd.pt")
        return total / 1e6 / timed(lambda: torch.save(sd, path), warmup=1, min_runs=5)


def bench_load():
    """torch.load of that 200 MB state_dict from a file (in the page cache): MB/s."""
    import torch

    sd, total = _state_dict()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sd.pt")
        torch.save(sd, path)
        del sd
        return total / 1e6 / timed(lambda: torch.load(path), warmup=1, min_runs=5)


def _rss_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def bench_mmap_load():
    """torch.load(mmap=True) of a 1 GB checkpoint, tensors untouched: seconds (RSS growth
    in MB is reported alongside, in `extra`)."""
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.pt")
        torch.save({f"t{i}": torch.zeros(1 << 24) for i in range(16)}, path)  # 16 x 64 MB
        before = _rss_mb()
        t0 = time.perf_counter()
        sd = torch.load(path, mmap=True)
        seconds = time.perf_counter() - t0
        bench_mmap_load.extra = f"RSS growth {_rss_mb() - before:.1f} MB"
        del sd
        return seconds


def bench_add_grad():
    """Per-call time (µs) of `a + b` on 4-element float32 tensors where a.requires_grad."""
    import torch

    a, b = torch.rand(4).requires_grad_(), torch.rand(4)
    timer = timeit.Timer("a + b", globals={"a": a, "b": b})
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=7, number=number)
    return STAT(runs) / number * 1e6


def bench_mlp_step():
    """Time (µs) of forward + backward of `(x @ w).relu().sum()`, x 4x8, w 8x8."""
    import torch

    x, w = torch.rand(4, 8), torch.rand(8, 8).requires_grad_()

    def step():
        (x @ w).relu().sum().backward()

    timer = timeit.Timer(step)
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=7, number=number)
    return STAT(runs) / number * 1e6


def _per_call_us(stmt, **names):
    timer = timeit.Timer(stmt, globals=names)
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=7, number=number)
    return STAT(runs) / number * 1e6


# Autograd's cost of recording one op on a realistic shape (issue 16): x is (32, 16, 64)
# float32 with requires_grad, as in a small transformer's attention.
def _rec_inputs():
    import torch

    torch.manual_seed(0)
    return torch.randn(32, 16, 64, requires_grad=True), torch.randn(64, 64, requires_grad=True)


def bench_rec_view():
    """Per-call time (µs) of x.view(32, 16, 4, 16), x (32, 16, 64) requiring grad."""
    x, _ = _rec_inputs()
    return _per_call_us("x.view(32, 16, 4, 16)", x=x)


def bench_rec_reshape():
    """Per-call time (µs) of x.reshape(512, 64), x (32, 16, 64) requiring grad."""
    x, _ = _rec_inputs()
    return _per_call_us("x.reshape(512, 64)", x=x)


def bench_rec_transpose():
    """Per-call time (µs) of x.transpose(1, 2), x (32, 16, 64) requiring grad."""
    x, _ = _rec_inputs()
    return _per_call_us("x.transpose(1, 2)", x=x)


def bench_rec_matmul():
    """Per-call time (µs) of x @ w, x (32, 16, 64) and w (64, 64) requiring grad."""
    x, w = _rec_inputs()
    return _per_call_us("x @ w", x=x, w=w)


def bench_rec_softmax():
    """Per-call time (µs) of x.softmax(-1), x (32, 16, 64) requiring grad."""
    x, _ = _rec_inputs()
    return _per_call_us("x.softmax(-1)", x=x)


def bench_small_step():
    """Time (µs) of ((x @ w).tanh().view(32, 16, 4, 16).transpose(1, 2).softmax(-1).sum())
    .backward(), x (32, 16, 64), w (64, 64) requiring grad."""
    x, w = _rec_inputs()

    def step():
        ((x @ w).tanh().view(32, 16, 4, 16).transpose(1, 2).softmax(-1).sum()).backward()

    return _per_call_us("step()", step=step)


def bench_chain_backward():
    """Time (ms) of backward through a chain of 10,000 elementwise ops (forward not timed)."""
    import torch

    def once():
        x = torch.rand(4).requires_grad_()
        y = x
        for _ in range(10_000):
            y = y * 1.0001
        loss = y.sum()
        t0 = time.perf_counter()
        loss.backward()
        return time.perf_counter() - t0

    once()
    return STAT([once() for _ in range(7)]) * 1e3


def bench_conv2d():
    """conv2d forward, input 64x32x28x28, 64 filters 3x3, padding 1: GFLOP/s."""
    import torch
    import torch.nn.functional as F

    x, w = torch.rand(64, 32, 28, 28), torch.rand(64, 32, 3, 3)
    with torch.no_grad():
        seconds = timed(lambda: F.conv2d(x, w, padding=1), min_runs=5)
    return 2 * 64 * 64 * 32 * 9 * 28 * 28 / seconds / 1e9


def _mnist_net():
    """The classic MNIST CNN (examples/mnist/main.py), built here so both libraries run it."""
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
            x = self.dropout1(x).flatten(1)
            x = self.dropout2(F.relu(self.fc1(x)))
            return F.log_softmax(self.fc2(x), dim=1)

    return Net()


def _steps_per_second(model, optimizer, x, y, loss_fn):
    def step():
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()

    return 1.0 / timed(step, min_runs=10)


def bench_mnist_step():
    """Training steps per second of the MNIST CNN, batch 64, SGD with momentum."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    model = _mnist_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.rand(64, 1, 28, 28), torch.randint(0, 10, (64,))
    return _steps_per_second(model, optimizer, x, y, F.nll_loss)


def bench_mlp_adam():
    """Training steps per second of a 784-512-10 MLP with Adam, batch 64."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10))
    optimizer = torch.optim.Adam(model.parameters())
    x, y = torch.rand(64, 784), torch.randint(0, 10, (64,))
    return _steps_per_second(model, optimizer, x, y, F.cross_entropy)


def bench_lstm():
    """Forward+backward per second of an LSTM: 2 layers, hidden 256, seq 35, batch 20."""
    import torch
    import torch.nn as nn

    torch.manual_seed(0)
    lstm = nn.LSTM(256, 256, num_layers=2)
    x = torch.rand(35, 20, 256)

    def step():
        out, _ = lstm(x)
        out.sum().backward()

    return 1.0 / timed(step, min_runs=5)


def bench_mnist_rss():
    """Peak resident memory (MB) of examples/mnist/main.py training one epoch.

    Reads VmHWM (this process's own peak): getrusage's ru_maxrss would also count the
    benchmark process it was forked from, whose memory a child inherits until exec.
    """
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "mnist")
    code = (
        f"import sys; sys.path.insert(0, {script!r}); import main; "
        "main.main(['--epochs', '1', '--save-model', '']); "
        "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tempfile.gettempdir(), check=True, capture_output=True
    )
    return int(out.stdout.split()[-1]) / 1024


def bench_queue_roundtrip():
    from bench_mp import bench_queue_roundtrip as bench

    return bench()


def bench_dataloader():
    from bench_data import bench_dataloader as bench

    return bench()


# name -> (function, unit)
FIGURES = {
    "import": (bench_import, "ms"),
    "add_small": (bench_add_small, "us"),
    "add": (bench_add, "GB/s"),
    "sum": (bench_sum, "GB/s"),
    "exp": (bench_exp, "GB/s"),
    "transpose": (bench_transpose, "GB/s"),
    "matmul": (bench_matmul, "GFLOP/s"),
    "mask_select": (bench_mask_select, "GB/s"),
    "index_select": (bench_index_select, "GB/s"),
    "gather": (bench_gather, "GB/s"),
    "sort": (bench_sort, "Melem/s"),
    "topk": (bench_topk, "Melem/s"),
    "solve": (bench_solve, "systems/ms"),
    "svd": (bench_svd, "1/s"),
    "save": (bench_save, "MB/s"),
    "load": (bench_load, "MB/s"),
    "mmap_load": (bench_mmap_load, "s"),
    "add_grad": (bench_add_grad, "us"),
    "mlp_step": (bench_mlp_step, "us"),
    "chain_backward": (bench_chain_backward, "ms"),
    "rec_view": (bench_rec_view, "us"),
    "rec_reshape": (bench_rec_reshape, "us"),
    "rec_transpose": (bench_rec_transpose, "us"),
    "rec_matmul": (bench_rec_matmul, "us"),
    "rec_softmax": (bench_rec_softmax, "us"),
    "small_step": (bench_small_step, "us"),
    "conv2d": (bench_conv2d, "GFLOP/s"),
    "mnist_step": (bench_mnist_step, "steps/s"),
    "mlp_adam": (bench_mlp_adam, "steps/s"),
    "lstm": (bench_lstm, "steps/s"),
    "mnist_rss": (bench_mnist_rss, "MB"),
    "dataloader": (bench_dataloader, "batches/s"),
    "queue_roundtrip": (bench_queue_roundtrip, "MB/s"),
}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only these figures (repeatable or comma-separated): " + ", ".join(FIGURES),
    )
    p.add_argument("--json", metavar="PATH", help="write the JSON here instead of stdout")
    p.add_argument(
        "--stat",
        choices=("median", "best"),
        default="median",
        help="summarise repeats by their median (default) or best time",
    )
    args = p.parse_args(argv)
    global STAT
    STAT = min if args.stat == "best" else statistics.median
    names = [n for o in args.only for n in o.split(",") if n] or list(FIGURES)
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        p.error("unknown figure(s): " + ", ".join(unknown))

    import torch

    result = {
        "torch_version": getattr(torch, "__version__", "?"),
        "torch_file": getattr(torch, "__file__", None),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "num_threads": torch.get_num_threads(),
        "stat": args.stat,
        "figures": {},
    }
    for name in names:
        fn, unit = FIGURES[name]
        t0 = time.perf_counter()
        try:
            value, error = fn(), None
        except Exception as e:  # report and carry on with the other figures
            value, error = None, f"{type(e).__name__}: {e}"
        result["figures"][name] = {
            "value": value,
            "unit": unit,
            "error": error,
            "extra": getattr(fn, "extra", None),
            "seconds": round(time.perf_counter() - t0, 2),
        }
        print(f"{name}: {value} {unit} {error or ''}", file=sys.stderr)

    text = json.dumps(result, indent=2)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
