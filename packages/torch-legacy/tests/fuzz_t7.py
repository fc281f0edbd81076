"""A seeded, reproducible fuzzer for ``load_lua`` (torch.utils.serialization).

    python fuzz_t7.py --inputs 100000 --seed 1 [--workers N]
    python fuzz_t7.py --seed 1 --index 4711 [--dump input.t7]   # one input, in this process

Every input is derived from (seed, index) alone: a .t7 stream written here with ``save_lua``
or packed by hand (tables, tensors and storages of every type, views, tds, functions, real
``torch.legacy.nn`` modules and criteria, Windows-size longs), mutated by bit flips,
truncation, inserted or deleted bytes, repeated chunks, splices of two streams at object
starts, and edge values (0, -1, 2**31 - 1, ...) written over the ints the reader reads as
type tags, indices, counts, sizes and strides; or a generated file nesting tables, nn
modules, tds.Vec/tds.Hash, tensors, unknown classes and functions to around and far past
the reader's depth limit.

Inputs run in worker processes, in batches. A worker that dies has its batch rerun one input
per process, so that a crash is attributed to the input that causes it (its seed and index
are printed); an input that takes longer than 5 s is a hang. The counts printed are: inputs,
loaded, refused (T7ReaderError), crashes, hangs, other exceptions, and loaded tensors that
reach outside their storage (checked with Python ints on the loaded objects). The run exits
with status 1 unless the last four are 0.
"""

import argparse
import io
import os
import random
import selectors
import struct
import subprocess
import sys
import time
from collections import Counter, deque

HANG_S = 5.0  # an input slower than this is a hang
STARTUP_S = 60.0  # a worker's time to import torch and build its corpus
BATCH = 250
MEMORY_LIMIT = 4 << 30  # address space a worker may add after start-up (bytes)

# edge values written over the ints the reader reads
INTERESTING_32 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, 255, 256, 2**16, 2**24, 2**30]
INTERESTING_32 += [2**31 - 1, -(2**31), 2**31 - 8]
INTERESTING_64 = INTERESTING_32 + [2**32, 2**40, 2**53 + 1, 2**61, 2**62, 2**63 - 1, -(2**63)]

# -- hand-packed torch7 bytes ---------------------------------------------------------------

NIL, NUMBER, STRING, TABLE, TORCH, BOOLEAN = range(6)
FUNCTION, LEGACY_RECUR_FUNCTION, RECUR_FUNCTION = 6, 7, 8


def i32(n):
    return struct.pack("<i", n)


def i64(n):
    return struct.pack("<q", n)


def string(text):
    raw = text.encode() if isinstance(text, str) else text
    return i32(STRING) + i32(len(raw)) + raw


def raw_string(text):  # a string without its type tag (class versions and names)
    return string(text)[4:]


def number(x):
    return i32(NUMBER) + struct.pack("<d", x)


def torch_header(index, name, version="V 1"):
    head = i32(TORCH) + i32(index)
    return head + (raw_string(version) if version is not None else b"") + raw_string(name)


# Object levels each kind of nesting adds (MAX_DEPTH counts these).
LEVELS = {
    "table": 1,
    "nn": 3,  # nn.Sequential, its field table, its modules list
    "tds.Vec": 1,
    "tds.Hash": 1,
    "tensor": 1,  # a tensor whose storage is the next level
    "object": 2,  # an unknown class (unknown_classes=True) and its field table
    "function": 1,  # a function's upvalues
    "function6": 1,  # the plain function tag (no index)
    "function7": 1,  # the legacy recursive function tag
}


def nested(kinds, leaf=None):
    """A stream nesting one object per entry of ``kinds`` (outermost first), each holding the
    next as its last child, around ``leaf`` (default: the number 1)."""
    out = bytearray()
    index = 0

    def new():
        nonlocal index
        index += 1
        return index

    for kind in kinds:
        if kind == "table":
            out += i32(TABLE) + i32(new()) + i32(1) + number(1)
        elif kind == "nn":
            out += torch_header(new(), "nn.Sequential")
            out += i32(TABLE) + i32(new()) + i32(1) + string("modules")
            out += i32(TABLE) + i32(new()) + i32(1) + number(1)
        elif kind == "tds.Vec":
            out += torch_header(new(), "tds.Vec", "V 0") + i64(1)
        elif kind == "tds.Hash":
            out += torch_header(new(), "tds.Hash", "V 0") + i64(1) + number(1)
        elif kind == "tensor":
            out += torch_header(new(), "torch.FloatTensor") + i32(1) + i64(1) + i64(1) + i64(1)
        elif kind == "object":
            out += torch_header(new(), "my.Class")
            out += i32(TABLE) + i32(new()) + i32(1) + string("x")
        elif kind == "function":
            out += i32(RECUR_FUNCTION) + i32(new()) + i32(1) + b"\x1b"
        elif kind == "function6":
            out += i32(FUNCTION) + i32(0)
        elif kind == "function7":
            out += i32(LEGACY_RECUR_FUNCTION) + i32(new()) + i32(0)
        else:
            raise ValueError(kind)
    out += number(1) if leaf is None else leaf
    return bytes(out)


# -- the seed corpus ------------------------------------------------------------------------


def _encoded(obj, long_size=8):
    from torch.utils.serialization import save_lua

    buf = io.BytesIO()
    save_lua(obj, buf, long_size=long_size)
    return buf.getvalue()


def seed_streams():
    """[(stream, long_size)]: one of each payload kind, made the same in every process."""
    import torch
    import torch.legacy.nn as nn
    from torch.utils.serialization import LuaFunction, LuaTable, TdsHash, TdsVec, TorchObject

    torch.manual_seed(0)
    t = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    shared = LuaTable(x=1.5)
    seeds = [
        {"t": t, "view": t.t()[1:], "s": shared, "again": shared, "b": True, "n": None},
        {"text": "abc", "bytes": b"\xff\xfe", "big": 2**53, "inf": float("inf"), 1: -0.5},
        [torch.arange(6, dtype=dtype).reshape(2, 3) for dtype in (torch.uint8, torch.int8)]
        + [torch.arange(4, dtype=dtype) for dtype in (torch.int16, torch.int32, torch.int64)]
        + [torch.ones(2, 2, dtype=torch.float16).t(), torch.zeros(0), torch.tensor(3.0)],
        [torch.tensor([1.0, 2.0]).storage(), torch.Size([2, 3]), t[1], t[:, 2]],
        TdsHash({1: TdsVec([1, "a", t[0]]), "f": LuaFunction(b"\x1bLJ\x01", [1, "up"])}),
        TorchObject("my.Class", LuaTable(a=1, t=t[:2, 1:3], inner=TorchObject("my.Other"))),
    ]
    model = nn.Sequential().add(nn.Linear(3, 4)).add(nn.ReLU()).add(nn.View(2, 2))
    model.add(nn.Narrow(0, 0, 1)).add(nn.Transpose((0, 1))).add(nn.Sum(0)).add(nn.Dropout(0.3))
    seeds.append(model)
    concat = nn.ConcatTable().add(nn.Identity()).add(nn.MulConstant(2.0))
    seeds.append([nn.BatchNormalization(3), nn.SpatialConvolution(1, 2, 3, 3), concat])
    seeds.append([nn.LookupTable(5, 3), nn.JoinTable(0), nn.SelectTable(1), nn.Padding(0, 1)])
    seeds.append([nn.ClassNLLCriterion(torch.ones(3)), nn.MSECriterion(), nn.Max(0)])
    lua = [  # fields as Lua writes them, for the fix-ups
        TorchObject("nn.BatchNormalization", LuaTable(running_std=t[0], eps=0.1), 1),
        TorchObject("nn.SpatialConvolutionMap", LuaTable(connTable=torch.ones(2, 2))),
        TorchObject("nn.PartialLinear", LuaTable(partition=torch.arange(1, 3))),
        TorchObject("nn.View", LuaTable(size=torch.Size([2, 6]), numElements=12)),
        TorchObject("nn.ReLU", LuaTable(val=0, threshold=0)),
        TorchObject("nn.Unsqueeze", LuaTable(pos=2)),
        TorchObject("nn.Parallel", LuaTable(inputDimension=1, outputDimension=2, modules=[])),
    ]
    seeds.append(TorchObject("nn.Sequential", LuaTable(modules=lua)))
    streams = [(_encoded(obj), 8) for obj in seeds]
    streams.append((_encoded({"l": torch.arange(4), "s": torch.Size([3])}, 4), 4))
    streams.append((_encoded(nn.Linear(2, 2), 4), 4))
    # hand-packed: a class without a version, functions of tags 6 and 7, self-references
    storage = torch_header(1, "torch.FloatStorage", None) + i64(2) + struct.pack("<2f", 1, 2)
    streams.append((storage, 8))
    funcs = i32(TABLE) + i32(1) + i32(2) + number(1) + i32(FUNCTION) + i32(2) + b"ab" + i32(NIL)
    funcs += number(2) + i32(LEGACY_RECUR_FUNCTION) + i32(2) + i32(1) + b"c" + number(7)
    streams.append((funcs, 8))
    cycle = i32(TABLE) + i32(1) + i32(2) + i32(TABLE) + i32(1) + i32(TABLE) + i32(1)
    cycle += string("self") + torch_header(2, "my.Class") + i32(TABLE) + i32(3) + i32(1)
    cycle += string("obj") + i32(TORCH) + i32(2)
    streams.append((cycle, 8))
    return streams


def positions(stream, long_size):
    """Where the reader reads ints in ``stream`` ([(offset, size)]) and where objects start."""
    from torch.utils.serialization import read_lua_file

    ints, starts = [], []

    class Recorder(read_lua_file._Reader):
        def read_int(self, what):
            ints.append((self.pos, 4))
            return super().read_int(what)

        def read_long(self, what):
            ints.append((self.pos, self.long_size))
            return super().read_long(what)

        def begin(self):
            starts.append(self.pos)
            return super().begin()

    Recorder(stream, long_size, True, True, True).read_object()
    return ints, starts


def install_fixup_stand_ins():
    """Classes for the nn names whose fields load_lua rewrites but torch.legacy.nn lacks
    (SpatialConvolutionMap, PartialLinear, ...), so that every fix-up is fuzzed. In this
    process only; returns the names added."""
    import torch.legacy.nn as nn
    from torch.utils.serialization.read_lua_file import NN_FIELDS, NN_VERSIONS

    added = [name for name in dict.fromkeys([*NN_FIELDS, *NN_VERSIONS]) if not hasattr(nn, name)]
    for name in added:
        setattr(nn, name, type(name, (nn.Module,), {"__module__": "torch.legacy.nn." + name}))
    return added


class Corpus:
    def __init__(self):
        self.streams = seed_streams()
        self.positions = [positions(s, n) for s, n in self.streams]


def make_input(corpus, seed, index):
    """(stream, load_lua keyword arguments, mutation names) for input ``index`` of ``seed``."""
    rng = random.Random(f"t7 fuzz {seed}:{index}")
    kwargs = {
        "unknown_classes": rng.random() < 0.85,
        "list_heuristic": rng.random() < 0.8,
        "int_heuristic": rng.random() < 0.8,
    }
    if rng.random() < 0.12:
        kinds = list(LEVELS)
        depth = rng.choice([rng.randint(1, 40), rng.randint(80, 300), rng.randint(250, 262)])
        if rng.random() < 0.05:
            depth = rng.randint(1000, 20000)
        same = rng.random() < 0.5
        chain = [rng.choice(kinds)] * depth if same else [rng.choice(kinds) for _ in range(depth)]
        leaf = rng.choice(
            [None, string("leaf"), i32(NIL), i32(TABLE) + i32(1), corpus.streams[0][0]]
        )
        data = nested(chain, leaf)
        kwargs["long_size"] = 8
        names = ["deep"]
        if rng.random() < 0.3:
            data, name = _mutate(data, None, None, rng, corpus)
            names.append(name)
        return data, kwargs, names
    which = rng.randrange(len(corpus.streams))
    data, long_size = corpus.streams[which]
    ints, starts = corpus.positions[which]
    kwargs["long_size"] = long_size if rng.random() < 0.9 else 12 - long_size
    names = []
    for _ in range(rng.choice([1, 1, 1, 1, 2, 3])):
        data, name = _mutate(data, ints, starts, rng, corpus)
        names.append(name)
    return data, kwargs, names


def _mutate(data, ints, starts, rng, corpus):
    data = bytearray(data)
    kinds = ["flip", "truncate", "insert", "delete", "repeat", "splice", "int", "int"]
    kind = rng.choice(kinds) if data else "insert"
    if kind == "int" and not ints:
        ints = [(4 * i, 4) for i in range(len(data) // 4)]
    if kind == "flip":
        for _ in range(rng.choice([1, 1, 1, 2, 4, 8])):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(len(data)) :]
    elif kind == "insert":
        i = rng.randrange(len(data) + 1)
        data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif kind == "delete":
        i = rng.randrange(len(data))
        del data[i : i + rng.randint(1, 16)]
    elif kind == "repeat":
        i, j = sorted(rng.randrange(len(data) + 1) for _ in range(2))
        k = rng.randrange(len(data) + 1)
        data[k:k] = data[i:j] * rng.choice([1, 1, 2, 8])
    elif kind == "splice":  # this stream up to an object start, another from one of its own
        other = rng.randrange(len(corpus.streams))
        stream, (_, other_starts) = corpus.streams[other][0], corpus.positions[other]
        cut = rng.choice(starts) if starts else rng.randrange(len(data) + 1)
        begin = rng.choice(other_starts)
        end = rng.choice([len(stream), rng.randint(begin, len(stream))])
        data[cut:] = stream[begin:end] + (data[cut:] if rng.random() < 0.3 else b"")
    elif kind == "int":  # an edge value over an int the reader reads (tag, count, size, ...)
        pos, size = rng.choice(ints)
        if size == 4:
            data[pos : pos + 4] = i32(rng.choice(INTERESTING_32))
        else:
            data[pos : pos + 8] = i64(rng.choice(INTERESTING_64))
    return bytes(data[: 1 << 20]), kind


# -- checking one input ---------------------------------------------------------------------


def outside_storage(obj):
    """The number of tensors and storages in ``obj`` (walked without recursion) that reach
    outside their memory, computed with Python ints; small tensors are also read."""
    import torch
    from torch.utils.serialization import LuaFunction, TorchObject

    bad = 0
    seen = set()
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, torch.Tensor):
            item = o.element_size()
            nbytes = o.untyped_storage().nbytes()
            offset, sizes, strides = o.storage_offset(), list(o.shape), list(o.stride())
            if o.numel() == 0:
                reach = offset * item
            else:
                last = offset + sum((s - 1) * st for s, st in zip(sizes, strides))
                reach = (last + 1) * item
            if offset < 0 or any(st < 0 for st in strides) or reach > nbytes:
                bad += 1
            elif 0 < o.numel() <= 1 << 16:
                o.clone()  # reads every element
        elif isinstance(o, torch.TypedStorage):
            if o.size() * o.element_size() > o.untyped().nbytes():
                bad += 1
        elif isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, TorchObject):
            stack.append(o._fields)
        elif isinstance(o, LuaFunction):
            stack.append(o.upvalues)
        elif type(o).__module__.startswith("torch.legacy.nn"):
            stack.extend(vars(o).values())
    return bad


def run_one(corpus, seed, index):
    """('loaded' | 'refused' | 'outside' | 'other', detail) for one input, in this process."""
    from torch.utils.serialization import T7ReaderError, load_lua

    data, kwargs, _ = make_input(corpus, seed, index)
    try:
        obj = load_lua(io.BytesIO(data), **kwargs)
    except T7ReaderError as e:
        if not str(e).startswith("load_lua: at byte "):
            return "other", f"T7ReaderError without an offset: {str(e)[:200]}"
        return "refused", ""
    except Exception as e:  # every other exception is a finding
        return "other", f"{type(e).__name__}: {str(e)[:200]}"
    try:
        n = outside_storage(obj)
    except Exception as e:
        return "other", f"checking the loaded object: {type(e).__name__}: {str(e)[:200]}"
    return ("outside", f"{n} tensors") if n else ("loaded", "")


# -- worker processes -----------------------------------------------------------------------


def worker_main(seed, crash_at, hang_at):
    """Reads 'first stop' lines, writes 'index result seconds detail' per input."""
    import resource

    import torch  # noqa: F401
    import torch.legacy.nn  # noqa: F401

    install_fixup_stand_ins()
    corpus = Corpus()
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    try:  # a forged size that slips through fails with MemoryError, not by swapping
        if "libasan" not in os.environ.get("LD_PRELOAD", ""):  # ASan caps allocations itself
            resource.setrlimit(resource.RLIMIT_AS, (vm + MEMORY_LIMIT, vm + MEMORY_LIMIT))
    except (ValueError, OSError):
        pass
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        first, stop = map(int, line.split())
        for index in range(first, stop):
            if index in crash_at:
                os.abort()
            if index in hang_at:
                time.sleep(3600)
            began = time.perf_counter()
            result, detail = run_one(corpus, seed, index)
            took = time.perf_counter() - began
            out.write(f"{index} {result} {took:.4f} {detail}\n".replace("\n", " ") + "\n")
            out.flush()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        out.write(f"done {peak}\n")
        out.flush()


class Worker:
    def __init__(self, seed, crash_at, hang_at):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--seed", str(seed)]
        cmd += [f"--crash-at={i}" for i in crash_at] + [f"--hang-at={i}" for i in hang_at]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.buffer = b""
        self.ready = False
        self.batch = None  # (first, stop) being run
        self.pending = deque()  # its indices without a result yet
        self.results = {}  # index -> result, for the batch
        self.deadline = time.monotonic() + STARTUP_S + HANG_S

    def send(self, first, stop):
        self.batch = (first, stop)
        self.pending = deque(range(first, stop))
        self.results = {}
        try:
            self.proc.stdin.write(f"{first} {stop}\n".encode())
            self.proc.stdin.flush()
        except BrokenPipeError:  # it died: its output ends, and that is handled there
            pass
        if self.ready:
            self.deadline = time.monotonic() + HANG_S

    def lines(self):
        """The complete lines read so far, or None at end of file."""
        try:
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        except BlockingIOError:
            return []
        if not chunk:
            return None
        self.buffer += chunk
        *complete, self.buffer = self.buffer.split(b"\n")
        return [line.decode() for line in complete]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


class Run:
    def __init__(self, inputs, seed, workers, crash_at=(), hang_at=(), log=print):
        self.inputs, self.seed, self.nworkers = inputs, seed, max(1, workers)
        self.crash_at, self.hang_at, self.log = set(crash_at), set(hang_at), log
        self.counts = Counter()
        self.findings = []  # (kind, index or batch, detail)
        self.slowest = (0.0, None)
        self.peak_kib = 0  # the largest resident memory of a worker

    def record(self, index, result, took, detail):
        self.counts[result] += 1
        if took > self.slowest[0]:
            self.slowest = (took, index)
        if took > HANG_S and result != "hang":
            self.counts["hang"] += 1
            self.findings.append(("hang", index, f"took {took:.1f} s"))
        if result in ("other", "outside", "crash", "hang"):
            self.findings.append((result, index, detail))

    def progress(self):
        done = sum(self.counts.values())
        if done % 20_000 == 0:
            found = len(self.findings)
            self.log(f"  {done} inputs, {self.counts['loaded']} loaded, {found} findings")

    def run(self):
        queue = deque((i, min(i + BATCH, self.inputs)) for i in range(0, self.inputs, BATCH))
        selector = selectors.DefaultSelector()
        workers = []

        def start():
            worker = Worker(self.seed, self.crash_at, self.hang_at)
            selector.register(worker.proc.stdout, selectors.EVENT_READ, worker)
            workers.append(worker)
            return worker

        def stop(worker):
            selector.unregister(worker.proc.stdout)
            workers.remove(worker)
            worker.kill()

        for _ in range(min(self.nworkers, len(queue))):
            start().send(*queue.popleft())
        while workers:
            timeout = max(0.0, min(w.deadline for w in workers) - time.monotonic())
            for key, _ in selector.select(timeout):
                worker = key.data
                lines = worker.lines()
                if lines is None:  # the worker died
                    stop(worker)
                    self.attribute_crash(worker)
                    if len(worker.pending) > 1:
                        queue.appendleft((worker.pending[1], worker.batch[1]))
                    if queue:
                        start().send(*queue.popleft())
                    continue
                for line in lines:
                    if line == "ready":
                        worker.ready = True
                        worker.deadline = time.monotonic() + HANG_S
                    elif line.startswith("done"):
                        self.peak_kib = max(self.peak_kib, int(line.split()[1]))
                        if queue:
                            worker.send(*queue.popleft())
                        else:
                            stop(worker)
                    else:
                        index, result, took, detail = (line.split(" ", 3) + [""])[:4]
                        worker.pending.popleft()
                        worker.results[int(index)] = result
                        worker.deadline = time.monotonic() + HANG_S
                        self.record(int(index), result, float(took), detail)
                        self.progress()
            for worker in [w for w in workers if time.monotonic() > w.deadline]:
                batch, pending = worker.batch, list(worker.pending)
                stop(worker)
                if not worker.ready:
                    raise RuntimeError("a fuzz worker did not start")
                self.record(pending[0], "hang", HANG_S, f"no result in {HANG_S:.0f} s")
                if pending[1:]:
                    queue.appendleft((pending[1], batch[1]))
                if queue:
                    start().send(*queue.popleft())
        selector.close()
        return self.counts

    def alone(self, index):
        """(result, detail) of input ``index`` run in a process of its own: a result of the
        worker, 'crash' or 'hang'."""
        worker = Worker(self.seed, self.crash_at, self.hang_at)
        try:
            worker.send(index, index + 1)
            os.set_blocking(worker.proc.stdout.fileno(), True)
            try:
                out, _ = worker.proc.communicate(timeout=STARTUP_S + HANG_S)
            except subprocess.TimeoutExpired:
                return "hang", f"no result in {HANG_S:.0f} s, alone"
            for line in out.decode().splitlines():
                if line.startswith(f"{index} "):
                    _, result, _, detail = (line.split(" ", 3) + [""])[:4]
                    return result, detail
            return "crash", f"the process died (exit status {worker.proc.returncode}), alone"
        finally:
            worker.kill()

    def attribute_crash(self, worker):
        """``worker`` died: find the input of its batch that crashes in a process of its own,
        the one it was running first."""
        first, stop = worker.batch
        if not worker.ready:
            raise RuntimeError("a fuzz worker died before it started")
        if not worker.pending:
            self.counts["crash"] += 1
            self.findings.append(("crash", f"batch {first}..{stop - 1}", "died after its inputs"))
            return
        suspect = worker.pending[0]
        self.log(f"  a worker died in batch {first}..{stop - 1}: rerunning its inputs alone")
        for index in [suspect, *range(first, suspect)]:
            result, detail = self.alone(index)
            if index != suspect and result not in ("crash", "hang"):
                continue
            if index != suspect:  # counted when its batch ran it
                self.counts[worker.results[index]] -= 1
            self.record(index, result, 0.0, detail)
            if result in ("crash", "hang"):
                return
        self.counts["crash"] += 1
        batch = f"batch {first}..{stop - 1}"
        self.findings.append(("crash", batch, "no input of the batch crashes alone"))

    def report(self, seconds):
        c = self.counts
        inputs = sum(c[k] for k in ("loaded", "refused", "crash", "hang", "other", "outside"))
        rows = [
            ("inputs", inputs),
            ("loaded", c["loaded"] + c["outside"]),
            ("refused (T7ReaderError)", c["refused"]),
            ("crashes", c["crash"]),
            (f"hangs (> {HANG_S:.0f} s)", c["hang"]),
            ("other exceptions", c["other"]),
            ("tensors outside storage", c["outside"]),
        ]
        lines = [f"fuzz_t7: seed {self.seed}, {self.nworkers} workers, {seconds:.1f} s"]
        lines += [f"  {name:<24}{value:>9}" for name, value in rows]
        took, index = self.slowest
        lines.append(f"  slowest input: {took * 1000:.1f} ms (index {index})")
        lines.append(f"  peak worker memory: {self.peak_kib / 1024:.0f} MiB")
        for kind, where, detail in self.findings[:50]:
            again = f"python fuzz_t7.py --seed {self.seed} --index {where}"
            lines.append(f"  {kind} at {where}: {detail}  [reproduce: {again}]")
        return "\n".join(lines)


def fuzz(inputs, seed, workers=None, crash_at=(), hang_at=(), log=None):
    """Runs the fuzzer; returns (counts, findings, report text)."""
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    run = Run(inputs, seed, workers or os.cpu_count() or 1, crash_at, hang_at, log)
    began = time.monotonic()
    run.run()
    return run.counts, run.findings, run.report(time.monotonic() - began)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--index", type=int, help="run this one input here and print it")
    parser.add_argument("--dump", help="with --index: write the input's bytes to this file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--crash-at", type=int, action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--hang-at", type=int, action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(args.seed, set(args.crash_at), set(args.hang_at))
        return 0
    if args.index is not None:
        install_fixup_stand_ins()
        corpus = Corpus()
        data, kwargs, names = make_input(corpus, args.seed, args.index)
        print(f"input {args.index} of seed {args.seed}: {len(data)} bytes, {names}, {kwargs}")
        if args.dump:
            with open(args.dump, "wb") as f:
                f.write(data)
        print(*run_one(corpus, args.seed, args.index))
        return 0
    counts, findings, text = fuzz(args.inputs, args.seed, args.workers, args.crash_at, args.hang_at)
    print(text)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
