"""torch.jit's fused elementwise kernel: traced (and torch.compile'd) blocks against eager,
under two interpreters, printed as one table.

    python benchmarks/jit.py --ours PY1 --ref PY2 [--only gelu_mlp,lstm_cell] [--rounds R]
        [--stat median|best] [--threads T] [--json PATH]
    python benchmarks/jit.py --measure [--only ...] [--rounds R]   # one interpreter, JSON

Blocks (float32, forward under ``torch.no_grad()``):

- ``gelu_mlp``: x (4096, 64) -> Linear(64, 256) -> minGPT's NewGELU written with elementwise
  ops, ``0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x**3)))`` -> Linear(256, 64);
- ``lstm_cell`` (batch 1024, input and hidden 256) and ``lstm_cell_h128`` (batch 4096, input
  and hidden 128): ``gates = x @ W_ih.T + b_ih + h @ W_hh.T + b_hh``, ``i, f, g, o =
  gates.chunk(4, 1)``, sigmoid/tanh, ``c' = f*c + i*g``, ``h' = o*tanh(c')``.

For each block: eager, ``torch.jit.trace`` and (ours only) ``torch.compile``, timed in
``--rounds`` interleaved rounds (one call of each per round, after a warm-up), median (or
with ``--stat best`` the fastest call) per variant in ms. The speed-up is eager / variant
time of the same interpreter. Each interpreter runs in its own process (ours first), never
both at once; only public PyTorch API is used. The target (issue 19) is a speed-up >= 1.3x
for our trace and compile.
"""

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time

from compare import markdown_table, run_measure  # benchmarks/compare.py, beside this file

BLOCKS = {
    "gelu_mlp": "GELU MLP x(4096,64) 64-256-64",
    "lstm_cell": "LSTM cell B=1024 I=H=256",
    "lstm_cell_h128": "LSTM cell B=4096 I=H=128",
}
TARGET = 1.3


def _models(torch, name):
    nn = torch.nn

    class GeluMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.proj = nn.Linear(64, 256), nn.Linear(256, 64)

        def forward(self, x):
            h = self.fc(x)
            c = math.sqrt(2.0 / math.pi)
            h = 0.5 * h * (1.0 + torch.tanh(c * (h + 0.044715 * torch.pow(h, 3.0))))
            return self.proj(h)

    class LSTMCell(nn.Module):
        def __init__(self, i, h):
            super().__init__()
            k = 1 / math.sqrt(h)
            self.w_ih = nn.Parameter(torch.rand(4 * h, i) * 2 * k - k)
            self.w_hh = nn.Parameter(torch.rand(4 * h, h) * 2 * k - k)
            self.b_ih = nn.Parameter(torch.rand(4 * h) * 2 * k - k)
            self.b_hh = nn.Parameter(torch.rand(4 * h) * 2 * k - k)

        def forward(self, x, h, c):
            gates = x @ self.w_ih.t() + self.b_ih + h @ self.w_hh.t() + self.b_hh
            i, f, g, o = gates.chunk(4, 1)
            i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
            c = f * c + i * g
            h = o * torch.tanh(c)
            return h, c

    if name == "gelu_mlp":
        return GeluMLP(), (torch.randn(4096, 64),)
    b, n = (1024, 256) if name == "lstm_cell" else (4096, 128)
    return LSTMCell(n, n), (torch.randn(b, n), torch.randn(b, n), torch.randn(b, n))


def _max_diff(torch, a, b):
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    return max(float((x - y).abs().max()) for x, y in zip(a, b))


def measure(args):
    import warnings

    warnings.simplefilter("ignore")
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    # torch.compile: ours only (PyTorch's compiles C++ with inductor, a minute a block)
    ours = hasattr(torch._C, "_fused_elementwise")
    out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "blocks": {}}
    for name in args.only:
        torch.manual_seed(0)
        model, inputs = _models(torch, name)
        model.eval()
        with torch.no_grad():
            variants = {"eager": model, "trace": torch.jit.trace(model, inputs)}
            if ours:
                variants["compile"] = torch.compile(model)
            expected = model(*inputs)
            diffs = {k: _max_diff(torch, f(*inputs), expected) for k, f in variants.items()}
            times = {k: [] for k in variants}
            for _ in range(3):
                for f in variants.values():
                    f(*inputs)
            for _ in range(args.rounds):
                for k, f in variants.items():
                    t0 = time.perf_counter()
                    f(*inputs)
                    times[k].append(time.perf_counter() - t0)
        pick = min if args.stat == "best" else statistics.median
        res = {k: 1000 * pick(v) for k, v in times.items()}
        res["max_abs_diff"] = max(diffs.values())
        out["blocks"][name] = res
    return out


def run_one(python, args):
    cmd = [python, os.path.abspath(__file__), "--measure", "--only", ",".join(args.only),
           "--rounds", str(args.rounds), "--stat", args.stat]  # fmt: skip
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    return run_measure(cmd, args.timeout)


def _ms(x):
    return "n/a" if x is None else f"{x:.2f}"


def _speedup(res, variant):
    e, v = res.get("eager"), res.get(variant)
    return e / v if e and v else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ours")
    p.add_argument("--ref")
    p.add_argument("--measure", action="store_true")
    p.add_argument("--only", default=",".join(BLOCKS))
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--stat", choices=("median", "best"), default="median")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--json")
    args = p.parse_args()
    args.only = [n for n in args.only.split(",") if n]
    unknown = [n for n in args.only if n not in BLOCKS]
    if unknown:
        p.error(f"unknown blocks {unknown}; known: {', '.join(BLOCKS)}")
    if args.measure:
        print(json.dumps(measure(args)))
        return
    if not (args.ours and args.ref):
        p.error("give --ours PY and --ref PY (or --measure)")
    ours, ref = run_one(args.ours, args), run_one(args.ref, args)
    body = []
    for name in args.only:
        a = ours.get("blocks", {}).get(name, {})
        b = ref.get("blocks", {}).get(name, {})
        st, sc, sr = _speedup(a, "trace"), _speedup(a, "compile"), _speedup(b, "trace")
        met = "n/a" if st is None or sc is None else ("yes" if min(st, sc) >= TARGET else "NO")
        body.append((BLOCKS[name], _ms(a.get("eager")), _ms(a.get("trace")),
                     f"{st:.2f}x" if st else "n/a", _ms(a.get("compile")),
                     f"{sc:.2f}x" if sc else "n/a", _ms(b.get("eager")), _ms(b.get("trace")),
                     f"{sr:.2f}x" if sr else "n/a", met))  # fmt: skip
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus; ours torch "
          f"{ours.get('torch', '?')} ({ours.get('threads', '?')} threads), PyTorch "
          f"{ref.get('torch', '?')} ({ref.get('threads', '?')} threads); float32 forward "
          f"under no_grad, {args.stat} of {args.rounds} interleaved rounds, ms")  # fmt: skip
    markdown_table(("block", "ours eager", "ours trace", "trace speed-up", "ours compile",
                    "compile speed-up", "PyTorch eager", "PyTorch trace", "PyTorch trace speed-up",
                    f"met (>= {TARGET}x)?"), body)  # fmt: skip
    for label, res in (("ours", ours), ("PyTorch", ref)):
        if "error" in res:
            print(f"{label} failed: {res['error']}")
        for name, r in res.get("blocks", {}).items():
            if r.get("max_abs_diff", 0) > 1e-4:
                print(f"{label} {name}: traced/compiled output differs from eager by "
                      f"{r['max_abs_diff']:.2e}")  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ours": ours, "ref": ref, "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
