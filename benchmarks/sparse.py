"""Sparse-tensor figures under two interpreters, printed as one table of ratios.

    python benchmarks/sparse.py --ours PY1 --ref PY2 [--n N] [--density D] [--repeats R]
        [--threads T] [--json PATH]
    python benchmarks/sparse.py --measure [--n N] ...   # one interpreter, JSON on stdout

Figures (each the median of ``--repeats`` timed runs after one untimed warm-up):

- ``spmm``: a random COO matrix N x N at ``density`` (default 20000 x 20000 at 1%: 4M
  nonzeros, float32) times a dense N x 64 matrix (ms per product);
- ``csr_mm``: the same product with the matrix in CSR (ms);
- ``coalesce``: coalescing that matrix built with its entries in random order (ms);
- ``embbag_step``: a training step of ``EmbeddingBag(1_000_000, 64, mode="sum",
  sparse=True)`` on 1024 bags of 20 indices: zero_grad, forward, loss, backward, SGD step
  (ms per step).

Each interpreter runs in its own process (ours first), never both at once; only public
PyTorch API is used, so the same code runs under both. Ratio = ours / PyTorch time (lower
is better for us).

``--n 100000`` is the size the sparse-performance issue names (100M nonzeros): each copy of
the indices takes 1.6 GB, and each process peaks at about 9-10 GB (the random, coalesced
and CSR matrices, plus coalesce's temporaries), so check ``free -g`` first; on 2 cores the
whole comparison takes about 10-15 minutes, most of it PyTorch's coalesce.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

from compare import markdown_table, run_measure  # benchmarks/compare.py, beside this file

FIGURES = {
    "spmm": "COO {n}x{n} @ {density:.0%} x dense {n}x64, f32 (ms)",
    "csr_mm": "CSR {n}x{n} @ {density:.0%} x dense {n}x64, f32 (ms)",
    "coalesce": "coalesce {nnz} random COO entries (ms)",
    "embbag_step": "EmbeddingBag 1M x 64 sparse, SGD step, 1024 bags x 20 (ms)",
}


def _median_ms(fn, repeats):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def measure(args):
    import warnings

    warnings.simplefilter("ignore")  # PyTorch warns that CSR is beta, and about invariants
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    n = args.n
    nnz = int(n * n * args.density)
    idx = torch.randint(0, n, (2, nnz))
    vals = torch.randn(nnz)
    s = torch.sparse_coo_tensor(idx, vals, (n, n)).coalesce()
    dense = torch.randn(n, 64)
    csr = s.to_sparse_csr()
    out = {"nnz": s._nnz()}
    out["spmm"] = _median_ms(lambda: torch.sparse.mm(s, dense), args.repeats)
    out["csr_mm"] = _median_ms(lambda: csr @ dense, args.repeats)
    raw = torch.sparse_coo_tensor(idx, vals, (n, n))
    out["coalesce"] = _median_ms(lambda: raw.coalesce(), args.repeats)

    bag = torch.nn.EmbeddingBag(1_000_000, 64, mode="sum", sparse=True)
    opt = torch.optim.SGD(bag.parameters(), lr=0.01)
    batches = [torch.randint(0, 1_000_000, (1024, 20)) for _ in range(8)]
    target = torch.randn(1024, 64)
    k = [0]

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(bag(batches[k[0] % 8]), target)
        loss.backward()
        opt.step()
        k[0] += 1

    out["embbag_step"] = _median_ms(step, args.repeats * 3)
    out["torch"] = torch.__version__
    return out


def run_one(python, args):
    cmd = [python, os.path.abspath(__file__), "--measure", "--n", str(args.n),
           "--density", str(args.density), "--repeats", str(args.repeats)]  # fmt: skip
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    return run_measure(cmd, args.timeout)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ours")
    p.add_argument("--ref")
    p.add_argument("--measure", action="store_true")
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--density", type=float, default=0.01)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--json")
    args = p.parse_args()
    if args.measure:
        print(json.dumps(measure(args)))
        return
    if not (args.ours and args.ref):
        p.error("give --ours PY and --ref PY (or --measure)")
    ours, ref = run_one(args.ours, args), run_one(args.ref, args)
    nnz = ours.get("nnz") or ref.get("nnz") or "?"
    body = []
    for key, label in FIGURES.items():
        a, b = ours.get(key), ref.get(key)
        ratio = f"{a / b:.2f}" if a and b else "n/a"
        body.append((label.format(n=args.n, density=args.density, nnz=nnz),
                     f"{a:.1f}" if a else "n/a", f"{b:.1f}" if b else "n/a", ratio))  # fmt: skip
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus; ours torch "
          f"{ours.get('torch', '?')}, PyTorch {ref.get('torch', '?')}")  # fmt: skip
    markdown_table(("figure", "ours", "PyTorch", "ours / PyTorch"), body)
    for name, res in (("ours", ours), ("PyTorch", ref)):
        if "error" in res:
            print(f"{name} failed: {res['error']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ours": ours, "ref": ref, "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
