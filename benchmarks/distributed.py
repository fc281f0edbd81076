"""torch.distributed figures, ours (MPI) against PyTorch (gloo), on 2 processes of this machine.

    python benchmarks/distributed.py --ours PY1 --ref PY2 [--nproc 2] [--rounds K] [--json PATH]

Each interpreter runs this same file as the worker, started by its own launcher
(``PY -m torch.distributed.run --nproc-per-node 2``; ours runs its workers under mpiexec),
one interpreter after the other (``--rounds K`` alternates them K times and reports each
figure's median). Figures:

- all_reduce of 64 MB float32: bus bandwidth, 2(n-1)/n x bytes / time (GB/s);
- all_reduce of one float32 (4 bytes): latency (us);
- one DistributedDataParallel training step (forward, backward with gradient averaging,
  SGD step) of the MNIST CNN of examples/mnist, batch 64 per process (steps/s).

Prints a markdown table of the ratios (ours / PyTorch) and whether the targets are met.
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name -> (label, kind, target): "rate" ratio must be >= target, "time" ratio <= target
FIGURES = {
    "allreduce_busbw": ("all_reduce 64 MB f32, bus bandwidth (GB/s)", "rate", 0.8),
    "allreduce_latency": ("all_reduce 4 bytes, latency (us)", "time", 2.0),
    "ddp_step": ("DDP step, MNIST CNN, batch 64/process (steps/s)", "rate", 0.9),
}


def _timed(fn, repeats, inner=1):
    """Median seconds per call of ``fn`` over ``repeats`` runs of ``inner`` calls, the
    ranks started together (a barrier before each run)."""
    import torch.distributed as dist

    times = []
    for _ in range(repeats):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times)


def worker(out):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo")
    n = dist.get_world_size()
    torch.set_num_threads(1)
    figures = {}

    big = torch.ones(16 * 2**20)  # 64 MB
    dist.all_reduce(big)
    t = _timed(lambda: dist.all_reduce(big), repeats=5)
    figures["allreduce_busbw"] = 2 * (n - 1) / n * big.numel() * 4 / t / 1e9

    small = torch.ones(1)
    _timed(lambda: dist.all_reduce(small), repeats=2, inner=200)
    t = _timed(lambda: dist.all_reduce(small), repeats=7, inner=500)
    figures["allreduce_latency"] = t * 1e6

    sys.path.insert(0, os.path.join(ROOT, "examples", "mnist"))
    from main import Net

    torch.manual_seed(0)
    model = DDP(Net())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))

    def step():
        opt.zero_grad()
        F.nll_loss(model(x), y).backward()
        opt.step()

    for _ in range(3):
        step()
    t = _timed(step, repeats=10)
    figures["ddp_step"] = 1 / t

    if dist.get_rank() == 0:
        with open(out, "w") as f:
            json.dump(
                {
                    "torch_version": torch.__version__,
                    "torch_file": os.path.dirname(torch.__file__),
                    "python": platform.python_version(),
                    "figures": figures,
                },
                f,
            )
    dist.destroy_process_group()


def run(python, nproc, timeout=600):
    """Launch the workers under ``python``'s own launcher; their figures (or an error)."""
    if os.sep in python:  # the workers run in a temporary folder
        python = os.path.abspath(python)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [python, "-m", "torch.distributed.run", "--nproc-per-node", str(nproc)]
        cmd += ["--master-port", "29517", os.path.abspath(__file__), "--worker", out]
        print("running:", " ".join(cmd), file=sys.stderr)
        env = dict(os.environ, OMP_NUM_THREADS="1")
        try:
            proc = subprocess.run(cmd, cwd=tmp, timeout=timeout, env=env)
            if proc.returncode == 0 and os.path.exists(out):
                with open(out) as f:
                    return json.load(f)
            error = f"workers exited with {proc.returncode}"
        except (OSError, subprocess.TimeoutExpired) as e:
            error = f"{type(e).__name__}: {e}"
    return {"error": error, "figures": {}}


def _median(results):
    """One result whose figures are the medians over the rounds that succeeded."""
    ok = [r for r in results if "error" not in r] or results[:1]
    merged = dict(ok[0], figures={}, rounds=len(ok))
    for name in ok[0]["figures"]:
        merged["figures"][name] = statistics.median(r["figures"][name] for r in ok)
    return merged


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ours", help="python interpreter that imports our torch")
    p.add_argument("--ref", help="python interpreter that imports PyTorch")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--rounds", type=int, default=1, help="alternate ours/ref K times (median)")
    p.add_argument("--json", metavar="PATH", help="also write the rows as JSON to PATH")
    p.add_argument("--worker", metavar="OUT", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    if not (args.ours and args.ref):
        p.error("--ours and --ref are required")
    sys.path.insert(0, HERE)
    from compare import fmt, markdown_table

    rounds = [(run(args.ours, args.nproc), run(args.ref, args.nproc)) for _ in range(args.rounds)]
    ours, ref = (_median([r[i] for r in rounds]) for i in (0, 1))
    rows = []
    for name, (label, kind, target) in FIGURES.items():
        a, b = ours["figures"].get(name), ref["figures"].get(name)
        ratio = a / b if a is not None and b else None
        met = None if ratio is None else (ratio >= target if kind == "rate" else ratio <= target)
        sign = ">= " if kind == "rate" else "<= "
        rows.append((label, fmt(a), fmt(b), fmt(ratio, ".2f", "x"), f"{sign}{target}x",
                     {True: "yes", False: "NO", None: "n/a"}[met]))  # fmt: skip
    markdown_table(("figure", "ours", "PyTorch", "ratio", "target", "met?"), rows)
    print()
    print(f"machine: {os.cpu_count()} cores, {args.nproc} processes, {platform.machine()}")
    for who, res in (("ours", ours), ("PyTorch", ref)):
        if "error" in res:
            print(f"{who}: FAILED: {res['error']}")
        else:
            print(
                f"{who}: torch {res['torch_version']} ({res['torch_file']}), Python {res['python']}"
            )
    print("ratio = ours / PyTorch: for times lower is better, for rates higher is better.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ours": ours, "ref": ref}, f, indent=1)


if __name__ == "__main__":
    main()
