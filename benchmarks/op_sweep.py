"""Time many elementwise, reduction, activation and loss ops under two torches; print one table.

    python benchmarks/op_sweep.py --ours PY --ref PY [--only NAME,...] [--sizes 1K,64K,16M]
        [--modes fwd,bwd] [--json PATH] [--budget SECONDS] [--rounds R] [--timeout SECONDS]

Runs itself with ``--measure`` under each interpreter in turn (never both at once), ``--rounds``
times alternating (default 2; each case keeps its fastest median of the rounds, on both
sides alike, so a change in the machine's load during the sweep skews neither), from a
temporary directory so that a ``torch/`` folder in the cwd cannot shadow the installed package,
then prints a markdown table: one row per (op, dtype, size, mode) with both times and the
speed ratio PyTorch time / our time (> 1 means we are faster).  Goal from the issue: every
case >= 0.8x, the median case >= 1.2x; the cases that miss are listed worst first.

Every unary, binary, reduction, activation and loss op below runs at each size in float32
(the unary ops also in float64).  Mode ``fwd`` times the op alone; ``bwd`` times forward +
``.sum().backward()`` (a loss: its own backward) with the float inputs requiring grad
(losses: the input only), for differentiable ops only.  ``--only`` takes op names or group
names (unary, binary, reduction, activation, loss).  ``--budget`` is the rough time in
seconds spent on the timed repeats of one case (default 0.2); the default sweep takes about
3 minutes per interpreter on 2 cores.  An op that raises is shown as n/a and its error is
listed below the table.  Exits 0 even when the goal is missed.

Self-contained: runs unchanged under our torch and under PyTorch and imports nothing from
our package but ``torch``.
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

from compare import markdown_table  # benchmarks/compare.py, beside this file

# Imported only in --measure mode (the driver needs no torch); the op lambdas below look
# these globals up when they are called.
torch = F = None

MISS, GOAL_MEDIAN = 0.8, 1.2  # targets from the issue, as PyTorch time / our time
GROUPS = ("unary", "binary", "reduction", "activation", "loss")


class Op:
    """One op: fn(*inputs), one domain name per input (see make_input), whether it has a
    backward, which inputs get requires_grad in bwd mode, and the row length for 2-D ops."""

    def __init__(self, group, fn, domains=("any",), grad=True, grad_args=None, cols=None):
        self.group, self.fn, self.domains, self.grad, self.cols = group, fn, domains, grad, cols
        floats = [i for i, d in enumerate(domains) if d != "label"]
        self.grad_args = floats if grad_args is None else grad_args


def _unary(fn, domain="any", grad=True):
    return Op("unary", fn, (domain,), grad)


def _binary(fn, d1="any", d2="any", grad=True):
    return Op("binary", fn, (d1, d2), grad)


def _reduction(fn, domain="any", grad=True):
    return Op("reduction", fn, (domain,), grad)


def _activation(fn, cols=None):
    return Op("activation", fn, ("any",), cols=cols)


def _loss(fn, d1="any", d2="any", cols=None):
    return Op("loss", fn, (d1, d2), grad_args=[0], cols=cols)


OPS = {
    # unary: positive inputs for log/sqrt/reciprocal, (-0.9, 0.9) for asin/acos/erfinv
    "exp": _unary(lambda x: torch.exp(x)),
    "exp2": _unary(lambda x: torch.exp2(x)),
    "log": _unary(lambda x: torch.log(x), "pos"),
    "log2": _unary(lambda x: torch.log2(x), "pos"),
    "log10": _unary(lambda x: torch.log10(x), "pos"),
    "log1p": _unary(lambda x: torch.log1p(x), "pos"),
    "expm1": _unary(lambda x: torch.expm1(x)),
    "sqrt": _unary(lambda x: torch.sqrt(x), "pos"),
    "rsqrt": _unary(lambda x: torch.rsqrt(x), "pos"),
    "sin": _unary(lambda x: torch.sin(x)),
    "cos": _unary(lambda x: torch.cos(x)),
    "tan": _unary(lambda x: torch.tan(x)),
    "asin": _unary(lambda x: torch.asin(x), "unit"),
    "acos": _unary(lambda x: torch.acos(x), "unit"),
    "atan": _unary(lambda x: torch.atan(x)),
    "sinh": _unary(lambda x: torch.sinh(x)),
    "cosh": _unary(lambda x: torch.cosh(x)),
    "tanh": _unary(lambda x: torch.tanh(x)),
    "asinh": _unary(lambda x: torch.asinh(x)),
    "acosh": _unary(lambda x: torch.acosh(x + 1.5), "pos"),
    "atanh": _unary(lambda x: torch.atanh(x), "unit"),
    "sigmoid": _unary(lambda x: torch.sigmoid(x)),
    "erf": _unary(lambda x: torch.erf(x)),
    "erfinv": _unary(lambda x: torch.erfinv(x), "unit"),
    "reciprocal": _unary(lambda x: torch.reciprocal(x), "pos"),
    "abs": _unary(lambda x: torch.abs(x)),
    "neg": _unary(lambda x: torch.neg(x)),
    "sign": _unary(lambda x: torch.sign(x), grad=False),
    "floor": _unary(lambda x: torch.floor(x), grad=False),
    "ceil": _unary(lambda x: torch.ceil(x), grad=False),
    "round": _unary(lambda x: torch.round(x), grad=False),
    "trunc": _unary(lambda x: torch.trunc(x), grad=False),
    "frac": _unary(lambda x: torch.frac(x)),
    # binary: divisors and pow bases kept positive
    "add": _binary(lambda a, b: torch.add(a, b)),
    "sub": _binary(lambda a, b: torch.sub(a, b)),
    "mul": _binary(lambda a, b: torch.mul(a, b)),
    "div": _binary(lambda a, b: torch.div(a, b), d2="pos"),
    "pow": _binary(lambda a, b: torch.pow(a, b), d1="pos"),
    "pow_2.0": Op("binary", lambda x: torch.pow(x, 2.0)),
    "pow_3.0": Op("binary", lambda x: torch.pow(x, 3.0)),
    "pow_1.0": Op("binary", lambda x: torch.pow(x, 1.0)),
    "pow_0.5": Op("binary", lambda x: torch.pow(x, 0.5), ("pos",)),
    "atan2": _binary(lambda a, b: torch.atan2(a, b)),
    "maximum": _binary(lambda a, b: torch.maximum(a, b)),
    "minimum": _binary(lambda a, b: torch.minimum(a, b)),
    "fmod": _binary(lambda a, b: torch.fmod(a, b), d2="pos"),
    "remainder": _binary(lambda a, b: torch.remainder(a, b), d2="pos"),
    "eq": _binary(lambda a, b: torch.eq(a, b), grad=False),
    "lt": _binary(lambda a, b: torch.lt(a, b), grad=False),
    # reductions over the whole 1-D tensor; prod gets inputs near 1 so it stays finite
    "sum": _reduction(lambda x: torch.sum(x)),
    "mean": _reduction(lambda x: torch.mean(x)),
    "prod": _reduction(lambda x: torch.prod(x), "near1"),
    "amax": _reduction(lambda x: torch.amax(x)),
    "amin": _reduction(lambda x: torch.amin(x)),
    "argmax": _reduction(lambda x: torch.argmax(x), grad=False),
    "std": _reduction(lambda x: torch.std(x)),
    "var": _reduction(lambda x: torch.var(x)),
    "norm": _reduction(lambda x: torch.norm(x)),
    "logsumexp": _reduction(lambda x: torch.logsumexp(x, dim=-1)),
    "cumsum": _reduction(lambda x: torch.cumsum(x, dim=0)),
    # activations; softmax and log_softmax over rows of 64
    "relu": _activation(lambda x: torch.relu(x)),
    "gelu": _activation(lambda x: F.gelu(x)),
    "silu": _activation(lambda x: F.silu(x)),
    "softplus": _activation(lambda x: F.softplus(x)),
    "elu": _activation(lambda x: F.elu(x)),
    "leaky_relu": _activation(lambda x: F.leaky_relu(x)),
    "hardtanh": _activation(lambda x: F.hardtanh(x)),
    "softmax": _activation(lambda x: F.softmax(x, dim=-1), cols=64),
    "log_softmax": _activation(lambda x: F.log_softmax(x, dim=-1), cols=64),
    # losses (mean reduction); the classification ones take (N, 10) scores and N labels
    "mse_loss": _loss(lambda x, y: F.mse_loss(x, y)),
    "l1_loss": _loss(lambda x, y: F.l1_loss(x, y)),
    "smooth_l1_loss": _loss(lambda x, y: F.smooth_l1_loss(x, y)),
    "binary_cross_entropy": _loss(lambda p, y: F.binary_cross_entropy(p, y), "prob", "prob"),
    "bce_with_logits": _loss(lambda x, y: F.binary_cross_entropy_with_logits(x, y), d2="prob"),
    "cross_entropy": _loss(lambda x, t: F.cross_entropy(x, t), d2="label", cols=10),
    "nll_loss": _loss(lambda x, t: F.nll_loss(x, t), d2="label", cols=10),
}


# ---------------------------------------------------------------- measuring (one interpreter)


def make_input(domain, dtype, shape):
    """A random tensor valid for `domain`; "label" is int64 class indices, one per row."""
    if domain == "label":
        return torch.randint(0, 10, shape[:1])
    if domain == "any":
        return torch.randn(shape, dtype=dtype)
    lo, hi = {
        "pos": (0.5, 2.0),
        "unit": (-0.9, 0.9),
        "prob": (0.05, 0.95),
        "near1": (0.999, 1.001),
    }[domain]
    return torch.rand(shape, dtype=dtype) * (hi - lo) + lo


def plan(n):
    """(warm-up calls, max timed runs) for n elements: few repeats for big tensors."""
    if n >= 1 << 20:
        return 1, 5
    if n >= 1 << 15:
        return 3, 50
    return 5, 200


def timed(fn, budget, warmup, max_runs, min_runs=3):
    """Median wall time of fn() after warm-up, and the number of timed runs.

    Runs at least min_runs times and until `budget` seconds have passed, but stops after
    max_runs, or after 3 * budget whatever the count; an op whose warm-up alone takes
    3 * budget is not repeated at all.  So a slow op gets fewer runs and the sweep stays
    bounded.
    """
    t0 = time.perf_counter()
    for _ in range(warmup):
        fn()
    if time.perf_counter() - t0 >= 3 * budget:  # too slow to repeat: the warm-up is the figure
        return (time.perf_counter() - t0) / warmup, warmup
    times, start = [], time.perf_counter()
    while len(times) < max_runs:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - start
        if (len(times) >= min_runs and elapsed >= budget) or elapsed >= 3 * budget:
            break
    return statistics.median(times), len(times)


def case_fn(op, inputs, mode):
    """The callable timed for one case: the op alone, or forward + backward."""
    if mode == "fwd":
        return lambda: op.fn(*inputs)
    args = list(inputs)
    leaves = []
    for i in op.grad_args:
        args[i] = inputs[i].detach().requires_grad_()
        leaves.append(args[i])

    def step():
        for leaf in leaves:  # fresh grads each call, so no accumulation is timed
            leaf.grad = None
        out = op.fn(*args)
        (out if out.dim() == 0 else out.sum()).backward()

    return step


def measure(names, sizes, modes, budget, json_path):
    """Time every case under the torch this interpreter imports; write JSON after each op,
    so a crash or timeout still leaves the cases done so far."""
    global torch, F
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    result = {
        "torch_version": getattr(torch, "__version__", "?"),
        "torch_file": getattr(torch, "__file__", None),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "num_threads": torch.get_num_threads(),
        "load_avg": os.getloadavg()[0],  # a busy machine skews the times (threads wait for cores)
        "budget": budget,
        "cases": [],
        "done": False,
    }
    start = time.perf_counter()
    for size_name, n in sizes:
        cache = {}  # inputs per (domain, dtype, shape), shared by the ops of one size
        print(f"[{time.perf_counter() - start:6.1f}s] size {size_name}", file=sys.stderr)
        for name in names:
            op = OPS[name]
            dtypes = ("float32", "float64") if op.group == "unary" else ("float32",)
            for dtype in dtypes:
                shape = (n // op.cols, op.cols) if op.cols else (n,)
                for mode in modes:
                    if mode == "bwd" and not op.grad:
                        continue
                    row = {"op": name, "dtype": dtype, "size": size_name, "mode": mode}
                    try:
                        inputs = []
                        for d in op.domains:
                            key = (d, dtype, shape)
                            if key not in cache:
                                cache[key] = make_input(d, getattr(torch, dtype), shape)
                            inputs.append(cache[key])
                        secs, runs = timed(case_fn(op, inputs, mode), budget, *plan(n))
                        row.update(us=secs * 1e6, runs=runs)
                    except Exception as e:  # record and go on with the other cases
                        row["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
                        print(
                            f"  {name} {dtype} {size_name} {mode}: {row['error']}", file=sys.stderr
                        )
                    result["cases"].append(row)
            write_json(json_path, result)
    result["done"] = True
    result["seconds"] = round(time.perf_counter() - start, 1)
    write_json(json_path, result)


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


# ---------------------------------------------------------------- comparing (the driver)


def run(python, argv, timeout):
    """Run this script with --measure under `python` from a neutral cwd; return its JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [python, os.path.abspath(__file__), "--measure", "--json", out] + argv
        print("running:", " ".join(cmd), file=sys.stderr)
        t0 = time.perf_counter()
        try:
            rc = subprocess.run(cmd, cwd=tmp, timeout=timeout).returncode
            error = None if rc == 0 else f"exited with {rc}"
        except (OSError, subprocess.TimeoutExpired) as e:
            error = f"{type(e).__name__}: {e}"
        result = {"cases": []}
        if os.path.exists(out):
            with open(out) as f:
                result = json.load(f)
        if error:
            result["error"] = error + f" after {len(result['cases'])} cases"
        result["wall"] = round(time.perf_counter() - t0, 1)
        return result


def best_of(results):
    """One result from several runs under one interpreter: each case's fastest median (an
    error only where no run timed it), the first run's details, the runs' summed wall time
    and highest load average."""
    merged = dict(results[0], cases=[], rounds=len(results))
    merged["wall"] = round(sum(r["wall"] for r in results), 1)
    loads = [r["load_avg"] for r in results if "load_avg" in r]
    if loads:
        merged["load_avg"] = max(loads)
    cases = {}
    for res in results:
        for c in res["cases"]:
            key = (c["op"], c["dtype"], c["size"], c["mode"])
            old, us = cases.get(key), c.get("us")
            if old is None or (us is not None and (old.get("us") is None or us < old["us"])):
                cases[key] = c
    merged["cases"] = list(cases.values())
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        merged["error"] = "; ".join(errors)
    else:
        merged.pop("error", None)
    return merged


def compare(ours, ref):
    """Rows in sweep order (op, dtype, size, mode) with both times and ref/ours ratio; a case
    missing on one side (that run crashed or timed out) shows as n/a there."""
    key = ("op", "dtype", "size", "mode")
    by = [{tuple(c[k] for k in key): c for c in res["cases"]} for res in (ours, ref)]
    rows = []
    for case in dict.fromkeys([*by[0], *by[1]]):
        a, b = (side.get(case, {}) for side in by)
        rows.append(
            dict(
                zip(key, case),
                ours=a.get("us"),
                ref=b.get("us"),
                ratio=b["us"] / a["us"] if a.get("us") and b.get("us") else None,
                ours_error=a.get("error"),
                ref_error=b.get("error"),
            )
        )
    order = {name: i for i, name in enumerate(OPS)}
    sizes = list(dict.fromkeys(r["size"] for r in rows))  # in sweep order
    rows.sort(
        key=lambda r: (order[r["op"]], r["dtype"], sizes.index(r["size"]), r["mode"] != "fwd")
    )
    return rows


def fmt_us(us):
    return "n/a" if us is None else f"{us:.1f}" if us < 100 else f"{us:.0f}"


def print_table(rows, ours, ref, out=sys.stdout):
    head = ("op", "dtype", "size", "mode", "ours µs", "PyTorch µs", "speed (PyTorch/ours)")
    body = [
        (
            r["op"],
            r["dtype"],
            r["size"],
            r["mode"],
            fmt_us(r["ours"]),
            fmt_us(r["ref"]),
            "n/a"
            if r["ratio"] is None
            else f"{r['ratio']:.2f}x" + (" *" if r["ratio"] < MISS else ""),
        )
        for r in rows
    ]
    markdown_table(head, body, out)
    print(file=out)
    print("speed = PyTorch time / our time: > 1 means we are faster; * marks a miss.", file=out)
    print(f"machine: {os.cpu_count()} cores, {platform.machine()} {platform.system()}", file=out)
    for who, res in (("ours", ours), ("PyTorch", ref)):
        if "torch_version" in res:
            print(
                f"{who}: torch {res['torch_version']} ({res['torch_file']}), "
                f"Python {res['python']}, torch.get_num_threads()={res['num_threads']}, "
                f"median of repeats, budget {res['budget']} s/case, "
                f"best of {res.get('rounds', 1)} alternating runs, wall {res['wall']} s, "
                f"highest load average at a run's start {res['load_avg']:.2f}",
                file=out,
            )
        if "error" in res:
            print(f"{who}: FAILED: {res['error']}", file=out)

    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    misses = sorted(
        (r for r in rows if r["ratio"] is not None and r["ratio"] < MISS), key=lambda r: r["ratio"]
    )
    median = statistics.median(ratios) if ratios else None
    print(file=out)
    print(f"cases: {len(rows)} ({len(ratios)} timed under both)", file=out)
    print(
        "median speed: "
        + ("n/a" if median is None else f"{median:.2f}x")
        + f" (goal >= {GOAL_MEDIAN}x: {'met' if median and median >= GOAL_MEDIAN else 'NOT met'})",
        file=out,
    )
    print(f"misses (< {MISS}x): {len(misses)}", file=out)
    for r in misses:
        print(f"  {r['ratio']:.2f}x  {r['op']} {r['dtype']} {r['size']} {r['mode']}", file=out)
    for who, field in (("ours", "ours_error"), ("PyTorch", "ref_error")):
        errors = {}  # error message -> cases, so one bug is listed once
        for r in rows:
            if r[field]:
                errors.setdefault((r["op"], r[field]), []).append(
                    f"{r['dtype']} {r['size']} {r['mode']}"
                )
        if errors:
            print(f"raised under {who}:", file=out)
            for (op, msg), cases in errors.items():
                print(f"  {op} ({', '.join(cases)}): {msg}", file=out)


# ---------------------------------------------------------------- command line


def parse_size(text):
    """'1K' -> 1024, '16M' -> 16 * 2**20, '500' -> 500."""
    scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ours", help="python interpreter that imports our torch")
    p.add_argument("--ref", help="python interpreter that imports PyTorch")
    p.add_argument(
        "--only",
        default="",
        metavar="NAME,...",
        help="op or group names (" + ", ".join(GROUPS) + "); default: all ops",
    )
    p.add_argument("--sizes", default="1K,64K,16M", help="element counts (default 1K,64K,16M)")
    p.add_argument("--modes", default="fwd,bwd", help="fwd and/or bwd (default fwd,bwd)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument(
        "--budget", type=float, default=0.2, help="seconds of timed repeats per case (default 0.2)"
    )
    p.add_argument(
        "--timeout", type=float, default=600, help="seconds allowed per interpreter (default 600)"
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="runs per interpreter, alternating; each case keeps its fastest (default 2)",
    )
    p.add_argument("--measure", action="store_true", help="internal: time under this interpreter")
    args = p.parse_args(argv)

    names = []
    for word in filter(None, args.only.split(",")):
        if word in GROUPS:
            names += [n for n, op in OPS.items() if op.group == word]
        elif word in OPS:
            names.append(word)
        else:
            p.error(f"unknown op or group: {word}")
    names = list(dict.fromkeys(names)) or list(OPS)
    sizes = [(s, parse_size(s)) for s in filter(None, args.sizes.split(","))]
    modes = [m for m in args.modes.split(",") if m]
    if set(modes) - {"fwd", "bwd"}:
        p.error("--modes takes fwd and/or bwd")

    if args.measure:
        if not args.json:
            p.error("--measure needs --json PATH")
        measure(names, sizes, modes, args.budget, args.json)
        return
    if not (args.ours and args.ref):
        p.error("--ours and --ref are required")

    # Forward the selection as given, so both interpreters sweep the same cases.
    sub = ["--sizes", args.sizes, "--modes", args.modes, "--budget", str(args.budget)]
    sub += ["--only", args.only] if args.only else []
    # Rounds alternate between the interpreters (ours, PyTorch, ours, ...), so a change in the
    # machine's state during the sweep (other jobs, clock) weighs on both sides alike.
    runs = {"ours": [], "ref": []}
    for _ in range(args.rounds):
        runs["ours"].append(run(args.ours, sub, args.timeout))
        runs["ref"].append(run(args.ref, sub, args.timeout))
    ours, ref = best_of(runs["ours"]), best_of(runs["ref"])
    rows = compare(ours, ref)
    print_table(rows, ours, ref)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ours": ours, "ref": ref, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
