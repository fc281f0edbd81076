"""GPU figures under this project's torch and under PyTorch, in one table.

    python benchmarks/gpu.py [--ours-python PY] [--ours-path DIR] [--ref-python PY]
        [--only NAME ...] [--timeout S] [--budget S] [--json PATH] [--markdown PATH]
    python benchmarks/gpu.py --case NAME    # one case in this interpreter: JSON on stdout

Every case runs in a fresh process of each interpreter, ours (``--ours-python`` with
``PYTHONPATH=--ours-path``) and then PyTorch (``--ref-python`` without PYTHONPATH), never
both at once; the runner itself never imports torch. A case that is not implemented in
ours, raises, crashes or outlives ``--timeout`` leaves its rows with the error instead of
a number, and the table is still printed. Exits 0 even when a target is missed (or there
is no GPU): the table says so.

Timing: inputs are made first, then a warm-up, then batches of calls between two
``torch.cuda.synchronize()`` (each batch at least ~20 ms of wall time) timed with
``time.perf_counter``; the figure is the median per-call time over the batches.
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from compare import markdown_table  # benchmarks/compare.py, beside this file

# GPU_BENCH_DEVICE=cpu runs every case on the CPU with small sizes: a check of this script
# on a machine without a GPU, not a figure.
DEVICE = os.environ.get("GPU_BENCH_DEVICE", "cuda")
SMALL = DEVICE != "cuda"
N_BIG = (1 if SMALL else 256) * 1024 * 1024  # elements of the big 1-D float32 tensors (1 GiB)
N_MATMUL = 512 if SMALL else 8192
ROWS = 256 if SMALL else 16384  # softmax rows of 4096
BATCH_S = 0.02  # minimum wall time of one timed batch
REPEATS = 7  # timed batches per figure (fewer when a call is slow)
FIGURE_BUDGET_S = 4.0  # rough cap on the timed part of one figure

# name -> (label, unit, kind, target, case). kind "rate": ratio = ours/ref must be >=
# target; "time": ratio must be <= target; "min"/"max": an absolute bound on ours, in the
# figure's unit (the ratio is shown for reference). The targets are the figures.
FIGURES = {
    "add": ("a + b, 256M f32 (GB/s, 3x4 B/elem)", "GB/s", "rate", 0.9, "add"),
    "copy": ("dst.copy_(src), 256M f32 (GB/s, 2x4 B/elem)", "GB/s", "rate", 0.9, "add"),
    "add_vs_copy": ("add bandwidth / copy bandwidth (same run)", "x", "min", 0.9, "add"),
    "sum": ("a.sum(), 256M f32 (GB/s)", "GB/s", "rate", 0.9, "sum"),
    "softmax": (
        "softmax(dim=-1), 16384x4096 f32 (GB/s, 2x4 B/elem)",
        "GB/s",
        "rate",
        0.9,
        "softmax",
    ),
    "matmul_f32": ("matmul 8192^2 f32, TF32 off (TFLOP/s)", "TFLOP/s", "rate", 0.95, "matmul"),
    "matmul_tf32": ("matmul 8192^2 f32, TF32 on (TFLOP/s)", "TFLOP/s", "rate", 0.95, "matmul"),
    "matmul_bf16": ("matmul 8192^2 bf16 (TFLOP/s)", "TFLOP/s", "rate", 0.95, "matmul"),
    "conv2d": (
        "conv2d fwd+bwd 64x256x14x14, 256 3x3 (TFLOP/s)",
        "TFLOP/s",
        "rate",
        0.9,
        "conv2d",
    ),
    "mnist_step": (
        "MNIST CNN train step, batch 64, SGD (steps/s)",
        "steps/s",
        "rate",
        1.0,
        "mnist_step",
    ),
    "lstm_lm_step": (
        "2-layer LSTM LM step, 256, seq 35, batch 20 (steps/s)",
        "steps/s",
        "rate",
        0.8,
        "lstm_lm_step",
    ),
    "add_small": ("a + b, 4-element CUDA tensors (us/call)", "us", "time", 1.5, "add_small"),
    "first_add_cold": (
        "first CUDA add, empty kernel cache (ms)",
        "ms",
        "max",
        1000.0,
        "first_add",
    ),
    "first_add_warm": ("first CUDA add, warm kernel cache (ms)", "ms", "max", 50.0, "first_add"),
}
SLOW_CASES = {"matmul": 2, "first_add": 2}  # these get this many times --timeout


# ---------------------------------------------------------------- the cases (in a child)


def _sync():
    import torch

    if DEVICE == "cuda":
        torch.cuda.synchronize()


def gpu_time(fn, warmup=2):
    """Median seconds per call of fn() (GPU work included), after warm-up."""
    t0 = time.perf_counter()
    fn()
    _sync()
    first = time.perf_counter() - t0
    for _ in range(warmup - 1 if first < 0.5 else 0):
        fn()
    _sync()
    n = 1
    while True:  # calls per batch: enough for BATCH_S
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        _sync()
        dt = time.perf_counter() - t0
        if dt >= BATCH_S or n >= 1 << 20:
            break
        n *= min(100, max(2, int(BATCH_S / max(dt, 1e-7) * 1.5)))
    times, start = [dt / n], time.perf_counter()
    while len(times) < REPEATS and time.perf_counter() - start < FIGURE_BUDGET_S:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        _sync()
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


def cuda_randn(*shape, dtype=None, requires_grad=False):
    """Random normal numbers on the GPU (made on the CPU if the GPU generator is missing)."""
    import torch

    dtype = dtype or torch.float32
    try:
        t = torch.randn(*shape, device=DEVICE, dtype=dtype)
    except NotImplementedError:
        t = torch.randn(*shape).to(DEVICE).to(dtype)
        NOTES.append("inputs made on the CPU (no CUDA randn)")
    return t.requires_grad_() if requires_grad else t


NOTES = []  # remarks a case adds to its figures (shown below the table)


def case_add():
    import torch

    a, b = cuda_randn(N_BIG), cuda_randn(N_BIG)
    dst = torch.empty_like(a)
    got = {}

    def add():
        got["add"] = 3 * 4 * N_BIG / gpu_time(lambda: a + b) / 1e9
        return got["add"]

    def copy():
        got["copy"] = 2 * 4 * N_BIG / gpu_time(lambda: dst.copy_(b)) / 1e9
        return got["copy"]

    def fraction():
        if "add" not in got or "copy" not in got:
            raise RuntimeError("needs both the add and the copy figure")
        return got["add"] / got["copy"]

    yield "add", add
    yield "copy", copy
    yield "add_vs_copy", fraction


def case_sum():
    a = cuda_randn(N_BIG)
    yield "sum", lambda: 4 * N_BIG / gpu_time(lambda: a.sum()) / 1e9


def case_softmax():
    import torch

    x = cuda_randn(ROWS, 4096)
    yield "softmax", lambda: 2 * 4 * x.numel() / gpu_time(lambda: torch.softmax(x, dim=-1)) / 1e9


def case_matmul():
    import torch

    n = N_MATMUL
    a, b = cuda_randn(n, n), cuda_randn(n, n)

    def tflops(x, y, tf32=None):
        if tf32 is not None:
            torch.backends.cuda.matmul.allow_tf32 = tf32
        return 2 * n**3 / gpu_time(lambda: x @ y) / 1e12

    yield "matmul_f32", lambda: tflops(a, b, tf32=False)
    yield "matmul_tf32", lambda: tflops(a, b, tf32=True)
    a, b = a.to(torch.bfloat16), b.to(torch.bfloat16)
    yield "matmul_bf16", lambda: tflops(a, b)


def case_conv2d():
    """One 3x3 layer of ResNet-50's conv4 stage: input and weight gradients."""
    import torch.nn.functional as F

    x = cuda_randn(64, 256, 14, 14, requires_grad=True)
    w = cuda_randn(256, 256, 3, 3, requires_grad=True)
    gy = cuda_randn(64, 256, 14, 14)

    def step():
        x.grad = w.grad = None
        F.conv2d(x, w, padding=1).backward(gy)

    fwd = 2 * 64 * 256 * 14 * 14 * 256 * 9
    yield "conv2d", lambda: 3 * fwd / gpu_time(step) / 1e12


def _train_rate(model, optimizer, loss_fn, x, y):
    def step():
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()

    return 1.0 / gpu_time(step, warmup=3)


def case_mnist_step():
    """The classic MNIST CNN (examples/mnist/main.py), batch 64, SGD with momentum."""
    from run import _mnist_net  # benchmarks/run.py, beside this file

    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    model = _mnist_net().to(DEVICE)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.rand(64, 1, 28, 28).to(DEVICE)
    y = torch.randint(0, 10, (64,)).to(DEVICE)
    yield "mnist_step", lambda: _train_rate(model, optimizer, F.nll_loss, x, y)


def case_lstm_lm_step():
    """Word-level language model: embedding 256, 2-layer LSTM 256, decoder to a 10,000-word
    vocabulary, sequence 35, batch 20, cross-entropy, SGD."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    vocab, width, seq, batch = 10000, 256, 35, 20

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.lstm = nn.LSTM(width, width, num_layers=2)
            self.decode = nn.Linear(width, vocab)

        def forward(self, tokens):
            out, _ = self.lstm(self.embed(tokens))
            return self.decode(out).view(-1, vocab)

    torch.manual_seed(0)
    model = LM().to(DEVICE)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    x = torch.randint(0, vocab, (seq, batch)).to(DEVICE)
    y = torch.randint(0, vocab, (seq * batch,)).to(DEVICE)
    yield "lstm_lm_step", lambda: _train_rate(model, optimizer, F.cross_entropy, x, y)


def case_add_small():
    import torch

    a = torch.rand(4).to(DEVICE)
    b = torch.rand(4).to(DEVICE)
    yield "add_small", lambda: gpu_time(lambda: a + b, warmup=100) * 1e6


FIRST_ADD = """
import json, sys, time, torch
device = sys.argv[1]
sync = torch.cuda.synchronize if device == "cuda" else lambda: None
a = torch.tensor([1.0, 2.0, 3.0, 4.0]).to(device)
b = torch.tensor([4.0, 3.0, 2.0, 1.0]).to(device)
sync()
t0 = time.perf_counter()
c = a + b
sync()
dt = time.perf_counter() - t0
assert c.cpu().tolist() == [5.0] * 4
print(json.dumps(dt * 1e3))
"""


def case_first_add():
    """The first a + b of a fresh process (CUDA already started by the copies to the GPU):
    with an empty kernel cache ($TORCH_CUDA_KERNEL_CACHE) it includes compiling the kernel
    (NVRTC); with a warm one, loading it. Best of two processes each."""

    def first_add_ms(cache):
        env = dict(os.environ, TORCH_CUDA_KERNEL_CACHE=cache)
        cmd = [sys.executable, "-c", FIRST_ADD, DEVICE]
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=25)
        except subprocess.TimeoutExpired:
            raise RuntimeError("the first-add process timed out after 25 s") from None
        if done.returncode:
            raise RuntimeError(_last_line(done.stderr) or f"exit {done.returncode}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    with tempfile.TemporaryDirectory() as tmp:
        cold = [os.path.join(tmp, f"cold{i}") for i in range(2)]
        yield "first_add_cold", lambda: min([first_add_ms(d) for d in cold])
        # the cold runs filled cold[0]
        yield "first_add_warm", lambda: min([first_add_ms(cold[0]) for _ in range(2)])


CASES = {
    "add": case_add,
    "sum": case_sum,
    "softmax": case_softmax,
    "matmul": case_matmul,
    "conv2d": case_conv2d,
    "mnist_step": case_mnist_step,
    "lstm_lm_step": case_lstm_lm_step,
    "add_small": case_add_small,
    "first_add": case_first_add,
}


def _last_line(text):
    lines = [x for x in (text or "").strip().splitlines() if x.strip()]
    return lines[-1].strip() if lines else ""


def describe_error(e):
    first = (str(e).strip().splitlines() or [""])[0]
    if isinstance(e, NotImplementedError):
        return f"not implemented: {first}"
    return f"{type(e).__name__}: {first}"


def run_case(name):
    """In the child: run one case, print {"info": ..., "figures": {name: {value|error}}}."""
    import warnings

    warnings.simplefilter("ignore")
    import torch

    info = {"torch_version": torch.__version__, "torch_file": torch.__file__}
    result = {"info": info, "figures": {}}
    wanted = [f for f, spec in FIGURES.items() if spec[4] == name]
    try:
        available = torch.cuda.is_available()
    except Exception as e:
        available, info["cuda_error"] = False, describe_error(e)
    if available or DEVICE != "cuda":
        try:
            info["device"] = torch.cuda.get_device_name(0) if available else f"{DEVICE} (small)"
        except Exception as e:
            info["device"] = describe_error(e)
        t0 = time.perf_counter()
        gen = CASES[name]()  # yields (figure, its measurement); the code between makes inputs
        while True:
            try:
                fig, measure = next(gen)
            except StopIteration:
                break
            except Exception as e:  # making inputs failed: the case's other figures too
                for f in wanted:
                    result["figures"].setdefault(f, {"error": describe_error(e)})
                break
            try:
                result["figures"][fig] = {"value": measure()}
            except Exception as e:
                result["figures"][fig] = {"error": describe_error(e)}
        info["seconds"] = round(time.perf_counter() - t0, 2)
    else:
        for f in wanted:
            result["figures"][f] = {"error": "no GPU: torch.cuda.is_available() is False"}
    if NOTES:
        info["notes"] = sorted(set(NOTES))
    print(json.dumps(result))


# ---------------------------------------------------------------- the runner


RUNNING = []  # case processes started (each leads its own process group)


def _end_cases(signum, frame):
    """SIGTERM/SIGINT to the runner (e.g. a time limit) ends the running case's group too."""
    for proc in RUNNING:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
    sys.exit(128 + signum)


def spawn(python, path, case, timeout):
    """Run one case in a fresh process; its result, or every figure's error."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if path:
        env["PYTHONPATH"] = path
    cmd = [python, os.path.abspath(__file__), "--case", case]
    wanted = [f for f, spec in FIGURES.items() if spec[4] == case]
    t0 = time.perf_counter()
    error = None
    with tempfile.TemporaryDirectory() as tmp:  # a neutral cwd: no torch/ folder to shadow
        try:
            # its own process group: a timeout ends the case's children too
            proc = subprocess.Popen(
                cmd,
                cwd=tmp,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        except OSError as e:
            error = f"{type(e).__name__}: {e}"
        else:
            RUNNING.append(proc)
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                error = f"timed out after {timeout:.0f} s"
            else:
                if proc.returncode:
                    code = proc.returncode
                    how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
                    error = f"crashed ({how})"
                    if _last_line(stderr):
                        error += f": {_last_line(stderr)}"
                else:
                    try:
                        result = json.loads(stdout.strip().splitlines()[-1])
                    except (ValueError, IndexError):
                        error = f"no result: {_last_line(stderr) or _last_line(stdout)}"
    seconds = time.perf_counter() - t0
    if error:
        result = {"info": {}, "figures": {f: {"error": error} for f in wanted}}
    result["info"]["wall_seconds"] = round(seconds, 2)
    return result


def compare(ours, ref, names):
    rows = []
    for name in names:
        label, unit, kind, target, _ = FIGURES[name]
        a, b = ours.get(name, {}), ref.get(name, {})
        va, vb = a.get("value"), b.get("value")
        ratio = va / vb if va is not None and vb else None
        if kind in ("rate", "time"):
            met = (
                None if ratio is None else (ratio >= target if kind == "rate" else ratio <= target)
            )
            shown = (">= " if kind == "rate" else "<= ") + f"{target}x"
        else:
            met = None if va is None else (va >= target if kind == "min" else va <= target)
            shown = (">= " if kind == "min" else "<= ") + f"{target:g}"
            shown += "" if unit == "x" else f" {unit}"
        rows.append(
            dict(
                figure=name,
                label=label,
                ours=va,
                ref=vb,
                ours_error=a.get("error"),
                ref_error=b.get("error"),
                ratio=ratio,
                target=shown,
                met=met,
            )
        )
    return rows


def fmt(x, spec=".3g", suffix=""):
    return "n/a" if x is None else format(x, spec) + suffix


def cell(value, error, width=60):
    if value is not None:
        return fmt(value)
    text = error or "n/a"
    return text if len(text) <= width else text[: width - 3] + "..."


def print_table(rows, sides, out):
    head = ("figure", "ours", "PyTorch", "ratio", "target", "met?")
    body = [
        (
            r["label"],
            cell(r["ours"], r["ours_error"]),
            cell(r["ref"], r["ref_error"]),
            fmt(r["ratio"], ".2f", "x"),
            r["target"],
            {True: "yes", False: "NO", None: "n/a"}[r["met"]],
        )
        for r in rows
    ]
    markdown_table(head, body, out)
    print(file=out)
    for who, side in sides.items():
        info = side["info"]
        print(
            f"{who}: torch {info.get('torch_version', '?')} ({info.get('torch_file', '?')}), "
            f"device: {info.get('device', 'none')}, python {side['python']}"
            + (f", PYTHONPATH={side['path']}" if side["path"] else ""),
            file=out,
        )
        for case in side["seconds"]:
            notes = side["notes"].get(case)
            if notes:
                print(f"  {who} {case}: {'; '.join(notes)}", file=out)
    for r in rows:
        for who, err in (("ours", r["ours_error"]), ("PyTorch", r["ref_error"])):
            if err and len(err) > 60:
                print(f"  {who} {r['figure']}: {err}", file=out)
    print(
        "ratio = ours / PyTorch: for times (us, ms) lower is better, for rates higher is "
        "better; absolute targets (<=/>= with a unit) apply to ours alone.",
        file=out,
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", choices=sorted(CASES), help="run one case here (internal)")
    p.add_argument("--ours-python", default=sys.executable, help="interpreter for ours")
    p.add_argument("--ours-path", default="", help="PYTHONPATH that makes it import ours")
    p.add_argument("--ref-python", default=sys.executable, help="interpreter with PyTorch")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="only these figures or cases (repeatable or comma-separated): "
        + ", ".join(list(FIGURES) + [c for c in CASES if c not in FIGURES]),
    )
    p.add_argument("--timeout", type=float, default=60, help="seconds per case and side")
    p.add_argument(
        "--budget",
        type=float,
        default=0,
        help="stop starting cases after this many seconds (0: no limit); the rest read n/a",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON here")
    p.add_argument("--markdown", metavar="PATH", help="also write the table here")
    args = p.parse_args(argv)
    if args.case:
        run_case(args.case)
        return

    signal.signal(signal.SIGTERM, _end_cases)
    signal.signal(signal.SIGINT, _end_cases)
    wanted = [n for o in args.only for n in o.split(",") if n]
    unknown = [n for n in wanted if n not in FIGURES and n not in CASES]
    if unknown:
        p.error("unknown figure(s): " + ", ".join(unknown))
    names = [f for f, spec in FIGURES.items() if not wanted or f in wanted or spec[4] in wanted]
    cases = list(dict.fromkeys(FIGURES[f][4] for f in names))
    sides = {
        "ours": {"python": args.ours_python, "path": args.ours_path},
        "PyTorch": {"python": args.ref_python, "path": ""},
    }
    for side in sides.values():
        side.update(figures={}, info={}, seconds={}, notes={})
    start = time.perf_counter()
    for case in cases:
        for who, side in sides.items():
            left = args.budget - (time.perf_counter() - start) if args.budget else None
            if left is not None and left < 5:
                result = {"info": {}, "figures": {}}
                for f, spec in FIGURES.items():
                    if spec[4] == case:
                        result["figures"][f] = {"error": "skipped: out of time (--budget)"}
            else:
                timeout = args.timeout * SLOW_CASES.get(case, 1)
                result = spawn(side["python"], side["path"], case, min(timeout, left or timeout))
            side["figures"].update(result["figures"])
            info = result["info"]
            for key in ("torch_version", "torch_file", "device"):
                if key in info:
                    side["info"].setdefault(key, info[key])
            side["seconds"][case] = info.get("wall_seconds")
            side["notes"][case] = info.get("notes", [])
            shown = {f: v.get("value", v.get("error")) for f, v in result["figures"].items()}
            print(f"{who} {case} ({info.get('wall_seconds')} s): {shown}", file=sys.stderr)

    rows = compare(sides["ours"]["figures"], sides["PyTorch"]["figures"], names)
    print_table(rows, sides, sys.stdout)
    print(f"benchmark wall time: {time.perf_counter() - start:.0f} s")
    if args.markdown:
        with open(args.markdown, "w") as f:
            print_table(rows, sides, f)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "sides": sides}, f, indent=2)


if __name__ == "__main__":
    main()
