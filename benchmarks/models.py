"""Whole small-model training steps under two interpreters, printed as one table.

    python benchmarks/models.py --ours PY1 --ref PY2
        [--only NAME,...] [--steps N] [--threads T] [--timeout S] [--json PATH]
    python benchmarks/models.py --measure NAME [--steps N] [--threads T]  # one model, JSON

Models: a character-level GPT, an LSTM language model, the MNIST CNN and a ResNet-18,
trained on random data of the right shapes (made once, before any step).  Every model
runs in a fresh process (so its peak RSS is its own), first under --ours and then under
--ref, never both at once.  Only public PyTorch API is used, so the same code runs under
both.  Threads: torch.get_num_threads() default unless --threads is given.

Per model and interpreter: 20 untimed steps on one fixed batch (a check that the loss is
finite and goes down; also the warm-up), then N timed steps of zero_grad, forward, loss,
backward, (clip,) optimizer step, each on another batch.  steps/s is 1 / the median
per-step time; peak MB is ru_maxrss of the measuring process (interpreter, import and
data included).  Exits 0 even when a model fails: the table shows n/a, the error below.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

from compare import markdown_table  # benchmarks/compare.py, beside this file

CHECK_STEPS = 20  # untimed steps whose losses must be finite and decreasing; also the warm-up
MAX_BATCHES = 64  # distinct random batches the timed steps cycle through

# name -> (description, timed steps by default): about 10-25 s of timed steps per model and
# interpreter on 2 busy cores (0.05-0.5 s a step); the whole comparison takes ~3.5 min there.
MODELS = {
    "char_gpt": ("char GPT 6x6x192, block 64, batch 32, AdamW", 25),
    "lstm_lm": ("LSTM LM 10k vocab, 2x650, seq 35, batch 20, SGD+clip", 15),
    "mnist_cnn": ("MNIST CNN, batch 64, Adadelta", 150),
    "resnet18": ("ResNet-18, 32x32 RGB, batch 32, SGD momentum", 50),
}


# --- the models (built inside functions: compare mode never imports torch) ---------------


def build_char_gpt(n_batches):
    """A small decoder-only transformer over characters (pre-LayerNorm blocks)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    vocab, block, n_layer, n_head, n_embd, batch = 65, 64, 6, 6, 192, 32

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.query = nn.Linear(n_embd, n_embd)
            self.key = nn.Linear(n_embd, n_embd)
            self.value = nn.Linear(n_embd, n_embd)
            self.proj = nn.Linear(n_embd, n_embd)
            self.drop = nn.Dropout(0.0)
            self.register_buffer("mask", torch.tril(torch.ones(block, block)))

        def forward(self, x):
            b, t, c = x.shape
            hs = c // n_head

            def heads(y):  # (b, t, c) -> (b, heads, t, head size)
                return y.view(b, t, n_head, hs).transpose(1, 2)

            q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
            att = att.masked_fill(self.mask[:t, :t] == 0, float("-inf"))
            att = self.drop(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            return self.proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(n_embd)
            self.attn = SelfAttention()
            self.ln2 = nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd),
                nn.GELU(),
                nn.Linear(4 * n_embd, n_embd),
                nn.Dropout(0.0),
            )

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, n_embd)
            self.pos = nn.Embedding(block, n_embd)
            self.blocks = nn.Sequential(*[Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx):
            t = idx.shape[1]
            x = self.tok(idx) + self.pos(torch.arange(t))
            return self.head(self.ln_f(self.blocks(x)))

    model = GPT()
    batches = []
    for _ in range(n_batches):
        text = torch.randint(0, vocab, (batch, block + 1))
        batches.append((text[:, :-1].contiguous(), text[:, 1:].contiguous()))  # next character
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    def loss_fn(x, y):
        return F.cross_entropy(model(x).view(-1, vocab), y.view(-1))

    return model, opt, batches, loss_fn, None


def build_lstm_lm(n_batches):
    """Word-level LSTM language model: embedding, 2-layer LSTM, linear decoder."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    vocab, dim, seq, batch = 10000, 650, 35, 20

    class LSTMLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.lstm = nn.LSTM(dim, dim, num_layers=2)
            self.decoder = nn.Linear(dim, vocab)

        def forward(self, tokens):  # tokens: (seq, batch)
            out, _ = self.lstm(self.embed(tokens))
            return self.decoder(out)

    model = LSTMLM()
    batches = []
    for _ in range(n_batches):
        text = torch.randint(0, vocab, (seq + 1, batch))
        batches.append((text[:-1], text[1:]))  # predict the next word
    opt = torch.optim.SGD(model.parameters(), lr=1.0)

    def loss_fn(x, y):
        return F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))

    return model, opt, batches, loss_fn, 0.25


def build_mnist_cnn(n_batches):
    """The classic two-conv MNIST classifier with dropout."""
    import torch
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
            x = F.relu(self.conv2(F.relu(self.conv1(x))))
            x = self.dropout1(F.max_pool2d(x, 2)).flatten(1)
            x = self.dropout2(F.relu(self.fc1(x)))
            return F.log_softmax(self.fc2(x), dim=1)

    model = Net()
    batches = [(torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))) for _ in range(n_batches)]
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)

    def loss_fn(x, y):
        return F.nll_loss(model(x), y)

    return model, opt, batches, loss_fn, None


def build_resnet18(n_batches):
    """ResNet-18 as in the paper (7x7 stem, max pool, BasicBlocks [2, 2, 2, 2]), 10 classes."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.shortcut = nn.Identity()
            if stride != 1 or cin != cout:  # project the input when the shape changes
                self.shortcut = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + self.shortcut(x))

    def stage(cin, cout, stride):
        return nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1))

    model = nn.Sequential(
        nn.Conv2d(3, 64, 7, 2, 3, bias=False),
        nn.BatchNorm2d(64),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, 1),
        stage(64, 64, 1),
        stage(64, 128, 2),
        stage(128, 256, 2),
        stage(256, 512, 2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(512, 10),
    )
    batches = [(torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))) for _ in range(n_batches)]
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def loss_fn(x, y):
        return F.cross_entropy(model(x), y)

    return model, opt, batches, loss_fn, None


BUILDERS = {
    "char_gpt": build_char_gpt,
    "lstm_lm": build_lstm_lm,
    "mnist_cnn": build_mnist_cnn,
    "resnet18": build_resnet18,
}


# --- measure mode: one model, this interpreter ---------------------------------------------


def peak_rss_mb():
    """Peak RSS of this process in MB.  The compare-mode parent never imports torch, so the
    high-water mark a child inherits from it across fork+exec is small and cannot dominate."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def measure(name, steps, threads=None):
    """Build the model, check its loss, time `steps` steps; return a JSON-able dict."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    result = {
        "model": name,
        "torch_version": getattr(torch, "__version__", "?"),
        "torch_file": getattr(torch, "__file__", None),
        "python": platform.python_version(),
        "num_threads": torch.get_num_threads(),
        "steps": steps,
    }
    try:
        torch.manual_seed(0)
        # batches[0] is for the loss check; the timed steps each get another batch, so that
        # they time ordinary training rather than a memorised batch with a loss near 0.
        n_timed = min(steps, MAX_BATCHES)
        model, opt, batches, loss_fn, clip = BUILDERS[name](1 + n_timed)
        model.train()
        torch.manual_seed(1)  # dropout masks that do not depend on how many batches were made

        def step(batch):
            opt.zero_grad()
            loss = loss_fn(*batch)
            loss.backward()
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            return loss

        # Untimed: the loss on the fixed batch must be finite and go down.  Doubles as warm-up.
        losses = [float(step(batches[0]).item()) for _ in range(CHECK_STEPS)]
        result["losses"] = [round(v, 4) for v in losses]
        tail = statistics.mean(losses[-5:])  # mean of the last 5: dropout makes single steps noisy
        if not all(math.isfinite(v) for v in losses):
            result["warning"] = f"non-finite loss in the first {CHECK_STEPS} steps"
        elif not tail < losses[0]:
            result["warning"] = (
                f"loss did not decrease over the first {CHECK_STEPS} steps "
                f"({losses[0]:.4g} -> mean of the last 5 {tail:.4g})"
            )

        times = []
        for i in range(steps):
            batch = batches[1 + i % n_timed]
            t0 = time.perf_counter()
            step(batch)
            times.append(time.perf_counter() - t0)
        result["steps_per_s"] = 1.0 / statistics.median(times)
        result["total_s"] = sum(times)
    except Exception as e:  # a bug for whichever implementation raised: report it
        # The tail of the traceback, without the ^^^ marker lines, to keep it short.
        tb = [t for t in traceback.format_exc().strip().splitlines() if t.strip(" ^~")]
        result["error"] = f"{type(e).__name__}: {e}"
        result["traceback"] = "\n".join(tb[-10:])
    result["peak_mb"] = peak_rss_mb()
    return result


# --- compare mode ---------------------------------------------------------------------------


def run_one(python, name, steps, threads, timeout):
    """Run `python models.py --measure name` in a fresh process from a neutral cwd."""
    cmd = [python, os.path.abspath(__file__), "--measure", name]
    if steps is not None:
        cmd += ["--steps", str(steps)]
    if threads:
        cmd += ["--threads", str(threads)]
    print("running:", " ".join(cmd), file=sys.stderr, flush=True)
    # cwd is a temp dir so that a torch/ folder in the current directory cannot shadow torch.
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=tmp, timeout=timeout, capture_output=True, text=True)
        except (OSError, subprocess.TimeoutExpired) as e:
            return {"model": name, "error": f"{type(e).__name__}: {e}"}
    wall = time.perf_counter() - t0
    lines = proc.stdout.strip().splitlines()
    try:
        res = json.loads(lines[-1])
    except (IndexError, ValueError):  # crashed before printing (e.g. a segfault)
        err = proc.stderr.strip().splitlines()
        res = {
            "model": name,
            "error": f"process exited with {proc.returncode} and no result",
            "traceback": "\n".join(err[-8:]),
        }
    res["wall_s"] = round(wall, 1)
    return res


def fmt(x, spec=".3g", suffix=""):
    return "n/a" if x is None else format(x, spec) + suffix


def ratio(a, b):
    return a / b if a is not None and b else None


def print_table(names, ours, ref, out=sys.stdout):
    head = (
        "model",
        "ours steps/s",
        "PyTorch steps/s",
        "ratio (higher better)",
        "ours peak MB",
        "PyTorch peak MB",
        "ratio (lower better)",
    )
    body = []
    for n in names:
        o, r = ours[n], ref[n]
        os_, rs = o.get("steps_per_s"), r.get("steps_per_s")
        # A failed run's peak is not the model's: show n/a.
        om = None if o.get("error") else o.get("peak_mb")
        rm = None if r.get("error") else r.get("peak_mb")
        body.append(
            (
                f"{n}: {MODELS[n][0]}",
                fmt(os_),
                fmt(rs),
                fmt(ratio(os_, rs), ".2f", "x"),
                fmt(om, ".0f"),
                fmt(rm, ".0f"),
                fmt(ratio(om, rm), ".2f", "x"),
            )
        )
    markdown_table(head, body, out)
    print(file=out)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"machine: {os.cpu_count()} cores, {platform.machine()} {platform.system()}, "
        f"load average at the end {load} (other work on the machine skews both columns)",
        file=out,
    )
    print(
        f"steps/s = 1 / median per-step time over the timed steps, after {CHECK_STEPS} untimed "
        "steps; peak MB = ru_maxrss of a fresh process per model (import and data included).",
        file=out,
    )
    for who, res in (("ours", ours), ("PyTorch", ref)):
        info = next((v for v in res.values() if "torch_file" in v), None)
        if info:
            print(
                f"{who}: torch {info['torch_version']} ({info['torch_file']}), "
                f"Python {info['python']}, torch.get_num_threads()={info['num_threads']}",
                file=out,
            )
        else:
            print(f"{who}: no model ran", file=out)
        for n in names:
            v = res[n]
            losses = v.get("losses")
            extra = (
                f"loss {losses[0]:.4g} -> {losses[-1]:.4g} over {len(losses)} steps; "
                if losses
                else ""
            )
            if "total_s" in v:
                extra += f"{v['steps']} timed steps in {v['total_s']:.1f} s; "
            print(f"  {who} {n}: {extra}process wall {v.get('wall_s', '?')} s", file=out)
            if v.get("warning"):
                print(f"  WARNING {who} {n}: {v['warning']}", file=out)
            if v.get("error"):
                print(f"  ERROR {who} {n}: {v['error']}", file=out)
                for tb_line in v.get("traceback", "").splitlines():
                    print(f"      {tb_line}", file=out)
    print(
        "ratio = ours / PyTorch: higher is better for steps/s, lower is better for memory.",
        file=out,
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ours", help="python interpreter that imports our torch")
    p.add_argument("--ref", help="python interpreter that imports PyTorch")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only these models (repeatable or comma-separated): " + ", ".join(MODELS),
    )
    p.add_argument("--steps", type=int, help="timed steps per model (default: per model)")
    p.add_argument(
        "--threads",
        type=int,
        help="torch.set_num_threads(T) in every run (default: each library's own default)",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument(
        "--timeout", type=float, default=300, help="seconds allowed per model and interpreter"
    )
    p.add_argument("--measure", metavar="NAME", help=argparse.SUPPRESS)  # internal: one model
    args = p.parse_args(argv)

    if args.steps is not None and args.steps < 1:
        p.error("--steps must be at least 1")
    if args.measure:
        if args.measure not in MODELS:
            p.error(f"unknown model: {args.measure}")
        steps = args.steps if args.steps is not None else MODELS[args.measure][1]
        print(json.dumps(measure(args.measure, steps, args.threads)))
        return

    if not args.ours or not args.ref:
        p.error("--ours and --ref are required (or --measure NAME)")
    names = [n for o in args.only for n in o.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        p.error("unknown model(s): " + ", ".join(unknown))

    # One model at a time, ours then PyTorch: a slow drift in machine load hits both alike.
    ours, ref = {}, {}
    for n in names:
        ours[n] = run_one(args.ours, n, args.steps, args.threads, args.timeout)
        ref[n] = run_one(args.ref, n, args.steps, args.threads, args.timeout)
    print_table(names, ours, ref)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu_count": os.cpu_count(), "ours": ours, "ref": ref}, f, indent=2)


if __name__ == "__main__":
    main()
