"""Run benchmarks/run.py under two interpreters and print a comparison table.

    python benchmarks/compare.py --ours PY1 --ref PY2
        [--only NAME ...] [--rounds K] [--stat median|best] [--json [PATH]]

The two runs happen one after the other, never at once.  Exits 0 even when a
target is missed: the table says so.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py")

# name -> (label, kind, target) from the issue.  kind "time": ratio = ours/ref,
# must be <= target.  kind "rate": ratio = ours/ref, must be >= target.  kind "seconds":
# an absolute limit: ours must take <= target seconds (the ratio is shown for reference).
FIGURES = {
    "import": ("import torch (ms)", "time", 0.25),
    "add_small": ("a + b, 4 elements (us/call)", "time", 1.5),
    "add": ("add 16M f32 out= (GB/s)", "rate", 0.9),
    "sum": ("sum 16M f32 (GB/s)", "rate", 0.9),
    "exp": ("exp 16M f32 out= (GB/s)", "rate", 0.8),
    "transpose": ("4096^2 .t().contiguous() (GB/s)", "rate", 1.0),
    "matmul": ("1024^2 matmul (GFLOP/s)", "rate", 0.85),
    "mask_select": ("x[mask] 16M f32, half true (GB/s)", "rate", 0.8),
    "index_select": ("index_select 1M of 4Mx16 (GB/s)", "rate", 0.8),
    "gather": ("gather 1Mx16 of 4Mx16 (GB/s)", "rate", 0.8),
    "sort": ("sort 16M f32 (Melem/s)", "rate", 0.8),
    "topk": ("topk 100 of 16M f32 (Melem/s)", "rate", 0.8),
    "solve": ("solve 1000x16x16 f32 (systems/ms)", "rate", 0.8),
    "svd": ("svd 512x512 f32 (1/s)", "rate", 0.8),
    "save": ("torch.save 200 MB state_dict (MB/s)", "rate", 1.0),
    "load": ("torch.load 200 MB state_dict (MB/s)", "rate", 1.0),
    "mmap_load": ("torch.load(mmap=True) 1 GB (s)", "seconds", 0.1),
    "add_grad": ("a + b, 4 elements, a.requires_grad (us)", "time", 1.5),
    "mlp_step": ("(x @ w).relu().sum() fwd+bwd, 4x8 @ 8x8 (us)", "time", 1.0),
    "chain_backward": ("backward of a 10,000-op chain (ms)", "time", 1.5),
    "rec_view": ("x.view(...), x 32x16x64 requires grad (us)", "time", 1.5),
    "rec_reshape": ("x.reshape(512, 64), requires grad (us)", "time", 1.5),
    "rec_transpose": ("x.transpose(1, 2), requires grad (us)", "time", 1.5),
    "rec_matmul": ("x @ w, 32x16x64 @ 64x64, requires grad (us)", "time", 1.5),
    "rec_softmax": ("x.softmax(-1), requires grad (us)", "time", 1.5),
    "small_step": ("(x@w).tanh().view.transpose.softmax.sum() fwd+bwd (us)", "time", 1.0),
    "conv2d": ("conv2d fwd 64x32x28x28, 64 3x3 filters (GFLOP/s)", "rate", 0.8),
    "mnist_step": ("MNIST CNN train step, batch 64, SGD (steps/s)", "rate", 1.0),
    "mlp_adam": ("784-512-10 MLP train step, Adam (steps/s)", "rate", 1.0),
    "lstm": ("LSTM 2x256, seq 35, batch 20, fwd+bwd (1/s)", "rate", 0.8),
    "mnist_rss": ("peak RSS, MNIST example, 1 epoch (MB)", "time", 0.6),
    "dataloader": ("DataLoader 60000x1x28x28, batch 64, 2 workers (batches/s)", "rate", 1.0),
    "queue_roundtrip": ("64 MB tensor to a child and back via Queue (MB/s)", "rate", 1.0),
}


def run(python, only, stat, timeout):
    """Run run.py under `python` from a neutral cwd; return its JSON (or an error stub)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [python, RUN, "--json", out, "--stat", stat] + [
            a for n in only for a in ("--only", n)
        ]
        print("running:", " ".join(cmd), file=sys.stderr)
        try:
            proc = subprocess.run(cmd, cwd=tmp, timeout=timeout)
            if proc.returncode == 0:
                with open(out) as f:
                    return json.load(f)
            error = f"run.py exited with {proc.returncode}"
        except (OSError, subprocess.TimeoutExpired) as e:
            error = f"{type(e).__name__}: {e}"
    return {"error": error, "figures": {}}


def merge(results):
    """Combine several rounds of run.py output: median value per figure."""
    ok = [r for r in results if "error" not in r] or results[:1]
    merged = dict(ok[0], figures={}, rounds=len(ok))
    for name, fig in ok[0]["figures"].items():
        values = [
            r["figures"][name]["value"]
            for r in ok
            if r["figures"].get(name, {}).get("value") is not None
        ]
        merged["figures"][name] = dict(fig, value=statistics.median(values) if values else None)
    return merged


def compare(ours, ref, names):
    rows = []
    for name in names:
        label, kind, target = FIGURES[name]
        a = ours["figures"].get(name, {}).get("value")
        b = ref["figures"].get(name, {}).get("value")
        ratio = a / b if a is not None and b else None
        if kind == "seconds":
            met = None if a is None else a <= target
        else:
            met = (
                None if ratio is None else (ratio <= target if kind == "time" else ratio >= target)
            )
        rows.append(
            {
                "figure": name,
                "label": label,
                "ours": a,
                "ref": b,
                "ratio": ratio,
                "target": f"<= {target} s"
                if kind == "seconds"
                else ("<= " if kind == "time" else ">= ") + f"{target}x",
                "met": met,
            }
        )
    return rows


def fmt(x, spec=".3g", suffix=""):
    return "n/a" if x is None else format(x, spec) + suffix


def run_measure(cmd, timeout):
    """Run a benchmark script's ``--measure`` command; its JSON (the last line on stdout), or
    {"error": the last line of stderr} when it fails."""
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def markdown_table(head, body, out=sys.stdout):
    """Print rows of cells as a markdown table with padded columns (also used by
    op_sweep.py and models.py)."""
    widths = [max(len(str(c)) for c in col) for col in zip(head, *body)]

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

    print(line(head), file=out)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|", file=out)
    for cells in body:
        print(line(cells), file=out)


def print_table(rows, ours, ref, out=sys.stdout):
    head = ("figure", "ours", "PyTorch", "ratio", "target", "met?")
    body = [
        (
            r["label"],
            fmt(r["ours"]),
            fmt(r["ref"]),
            fmt(r["ratio"], ".2f", "x"),
            r["target"],
            {True: "yes", False: "NO", None: "n/a"}[r["met"]],
        )
        for r in rows
    ]
    markdown_table(head, body, out)
    print(file=out)
    print(f"machine: {os.cpu_count()} cores, {platform.machine()} {platform.system()}", file=out)
    for who, res in (("ours", ours), ("PyTorch", ref)):
        if "error" in res:
            print(f"{who}: FAILED: {res['error']}", file=out)
        else:
            print(
                f"{who}: torch {res['torch_version']} ({res['torch_file']}), "
                f"Python {res['python']}, torch.get_num_threads()={res['num_threads']}, "
                f"{res['stat']} of repeats, rounds={res['rounds']}",
                file=out,
            )
        for name, fig in res["figures"].items():
            if fig.get("error"):
                print(f"  {who} {name}: {fig['error']}", file=out)
            if fig.get("extra"):
                print(f"  {who} {name}: {fig['extra']}", file=out)
    print(
        "ratio = ours / PyTorch: for times lower is better, for rates higher is better.", file=out
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ours", required=True, help="python interpreter that imports our torch")
    p.add_argument("--ref", required=True, help="python interpreter that imports PyTorch")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only these figures (repeatable or comma-separated): " + ", ".join(FIGURES),
    )
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="also write the table as JSON to PATH; with no PATH print JSON instead of the table",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="alternate ours/ref this many times and take the median of each figure",
    )
    p.add_argument(
        "--stat",
        choices=("median", "best"),
        default="median",
        help="summarise repeats by median (default) or best time (steadier on a busy machine)",
    )
    p.add_argument(
        "--timeout", type=float, default=600, help="seconds allowed per run.py (default 600)"
    )
    args = p.parse_args(argv)
    names = [n for o in args.only for n in o.split(",") if n] or list(FIGURES)
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        p.error("unknown figure(s): " + ", ".join(unknown))

    # Alternate ours/ref so that a slow drift in machine load hits both alike.
    runs = [
        (
            run(args.ours, names, args.stat, args.timeout),
            run(args.ref, names, args.stat, args.timeout),
        )
        for _ in range(args.rounds)
    ]
    ours, ref = merge([o for o, _ in runs]), merge([r for _, r in runs])
    rows = compare(ours, ref, names)
    report = {"cpu_count": os.cpu_count(), "ours": ours, "ref": ref, "rows": rows}
    if args.json == "-":
        print(json.dumps(report, indent=2))
        return
    print_table(rows, ours, ref)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
