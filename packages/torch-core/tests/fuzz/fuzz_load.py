"""A seeded, reproducible fuzzer for ``torch.load`` (the default, ``weights_only=True``).

    python fuzz_load.py --inputs 100000 --seed 0 [--workers N]
    python fuzz_load.py --seed 0 --index 4711 [--dump input.pt]   # one input, in this process
    /path/to/pytorch-venv/bin/python fuzz_load.py --write-pytorch-seeds DIR   # seed files

Input ``index`` of seed ``seed`` depends on ``random.Random(f"{seed}:{index}")`` and the seed
corpus alone. The corpus: checkpoints written here with ``torch.save`` (zip format, pickle
protocols 2, 4 and 5) and in the legacy format (packed here the way PyTorch packs it), and
checkpoints written by PyTorch in both formats (``tests/checkpoints/pytorch_*.pt`` and
``fuzz_seed_pytorch_*.pt``, made by ``--write-pytorch-seeds`` under PyTorch). Each input is
one of these mutations (the name is the strategy counted in the report):

``bytes``     1-4 bit flips, interesting bytes or ints written over the file, truncation,
              inserted, deleted or repeated chunks;
``splice``    the head of one file and the tail of another, or a zip record (or the legacy
              object pickle) taken from another checkpoint;
``zip``       a field of a local or central zip header or of the end record (sizes, offsets,
              compression method, name and extra lengths, entry counts) set to an edge value;
``pickle``    the checkpoint's pickle (``data.pkl``, or one of the legacy records) decoded into
              opcodes: ints set to edge values (sizes, strides, offsets, numels), strings
              (storage keys, locations, dtype names) and globals replaced, opcodes deleted,
              repeated, swapped or inserted (including opcodes the loader refuses); re-zipped;
``forge``     a new pickle whose ``_rebuild_tensor_v2`` / ``_rebuild_tensor`` /
              ``_rebuild_parameter*`` calls carry inflated or ill-typed offsets, sizes,
              strides, ``requires_grad``, hooks, metadata and state, over storages whose
              class, numel and record size are forged, in a zip or a legacy file;
``foreign``   globals from outside the allow-list (os.system, eval, getattr, torch internals,
              ...) and allowed ones called with abusive arguments, plus INST, OBJ, EXT, PERSID,
              NEWOBJ and BUILD, placed in ``data.pkl`` or in any legacy record; the ones that
              could run code would create a canary file, which is checked after every input;
``nesting``   lists, tuples, dicts, frozensets, marks and memo chains nested 50 to 100,000
              deep, as the whole pickle, inside a checkpoint, as a dict key, as rebuild
              arguments or in a legacy header record.

Inputs run in worker processes (``OMP_NUM_THREADS=1``, the address space limited to the
worker's start-up size plus 1 GiB, so that an allocation over 1 GB fails and is counted), in
batches. A worker that dies has its batch rerun one input per forked process, so that the
crash is attributed to the input that causes it (its seed and index are printed, with the
command that reproduces it); an input that takes longer than 5 s is a hang. The counts: inputs,
loaded, refused (RuntimeError or pickle.UnpicklingError, the families ``torch.load`` raises),
crashes, hangs, allocations over 1 GB, loaded tensors that reach outside their storage (every
tensor in the result checked with Python ints), other exceptions (any other type, and
RecursionError), and payloads that ran. The run exits with status 1 unless the last six are 0.

``fuzz(inputs, seed)`` runs the same from Python and returns a :class:`Report`.
"""

import argparse
import collections
import io
import itertools
import math
import os
import pickle
import pickletools
import random
import resource
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINTS = os.path.join(os.path.dirname(HERE), "checkpoints")
HANG_S = 5.0  # an input slower than this is a hang
STARTUP_S = 60.0  # a worker's time to import torch and build its corpus
BATCH = 400
MEMORY_LIMIT = 1 << 30  # address space an input may add: more is an allocation over 1 GB
CANARY = "fuzz_load_canary"  # relative: workers run in their own temporary folders
OUTCOMES = ["loaded", "refused", "crash", "hang", "bigalloc", "outside", "other", "payload"]
LABELS = {
    "loaded": "loaded",
    "refused": "refused",
    "crash": "crashes",
    "hang": "hangs",
    "bigalloc": "allocations_over_1GB",
    "outside": "outside_storage",
    "other": "unexpected_exceptions",
    "payload": "payloads_run",
}
BAD = ["crash", "hang", "bigalloc", "outside", "other", "payload"]
STRATEGIES = [("bytes", 30), ("splice", 7), ("zip", 8), ("pickle", 25), ("forge", 17),
              ("foreign", 8), ("nesting", 5)]  # fmt: skip

INTERESTING = [0, 1, 2, 3, 4, 7, 8, 15, 16, 63, 64, 255, 256, 1000, 4096, 65535, 65536,
               2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40, 2**53, 2**61, 2**62, 2**62 - 1000,
               2**63 - 1, 2**63, 2**64, 2**64 + 1, 2**100, -1, -2, -(2**31), -(2**63)]  # fmt: skip
STORAGE_NAMES = ["FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage",
                 "ByteStorage", "CharStorage", "ShortStorage", "IntStorage", "LongStorage",
                 "BoolStorage"]  # fmt: skip
ITEMSIZE = dict(zip(STORAGE_NAMES, [4, 8, 2, 2, 1, 1, 2, 4, 8, 1]))
DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32",
               "int64", "bool"]  # fmt: skip
ALLOWED_GLOBALS = ["collections.OrderedDict", "torch._utils._rebuild_tensor",
                   "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
                   "torch._utils._rebuild_parameter_with_state", "torch.Size", "torch.device",
                   "builtins.set", "builtins.frozenset", "builtins.slice", "builtins.bytearray",
                   "builtins.bytes", "_codecs.encode", "torch.UntypedStorage",
                   "torch.storage.UntypedStorage"] + [f"torch.{n}" for n in STORAGE_NAMES] + [
                   f"torch.{n}" for n in DTYPE_NAMES]  # fmt: skip
FOREIGN_GLOBALS = ["os.system", "posix.system", "builtins.eval", "builtins.exec",
                   "builtins.getattr", "builtins.__import__", "builtins.open", "os.mkdir",
                   "subprocess.Popen", "copyreg._reconstructor", "functools.partial",
                   "operator.attrgetter", "collections.defaultdict", "torch.load",
                   "torch.serialization.load", "torch._C._set_storage", "torch.Tensor",
                   "torch.storage._typed_storage_from_bytes", "torch.storage.TypedStorage",
                   "torch._utils._reduce_tensor", "torch.zeros", "torch.empty",
                   "numpy.core.multiarray._reconstruct", "torch.FakeStorage", "torch.complex64",
                   "torch.nn.parameter.Parameter", "builtins.object", "builtins.type",
                   "__builtin__.eval", "torch._size.Size", "nt.system"]  # fmt: skip


# -- writing pickles by hand ---------------------------------------------------------------
class G:
    """A global ``module.name`` in a hand-written pickle."""

    def __init__(self, name):
        self.name = name


class Call:
    """``func(*args)`` (REDUCE), then BUILD ``state`` when it is not None."""

    def __init__(self, func, args, state=None):
        self.func, self.args, self.state = func, args, state


class Pid:
    """A persistent id (BINPERSID) with these fields."""

    def __init__(self, fields):
        self.fields = fields


class Raw:
    """Opcodes that push one value, written as they are."""

    def __init__(self, ops):
        self.ops = ops


def p_int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if 0 <= v < 65536:
        return b"M" + struct.pack("<H", v)
    if -(2**31) <= v < 2**31:
        return b"J" + struct.pack("<i", v)
    raw = pickle.encode_long(v)
    return b"\x8a" + bytes([len(raw)]) + raw


def p_str(s):
    raw = s.encode("utf-8", "surrogatepass")
    return b"X" + struct.pack("<I", len(raw)) + raw


def p_global(name):
    module, _, attr = name.rpartition(".")
    return b"c" + module.encode() + b"\n" + attr.encode() + b"\n"


def emit(v):
    """The opcodes (protocol 2, no memo) that push ``v``."""
    if v is None:
        return b"N"
    if v is True:
        return b"\x88"
    if v is False:
        return b"\x89"
    if isinstance(v, int):
        return p_int(v)
    if isinstance(v, float):
        return b"G" + struct.pack(">d", v)
    if isinstance(v, str):
        return p_str(v)
    if isinstance(v, bytes):
        return p_global("_codecs.encode") + emit((v.decode("latin1"), "latin1")) + b"R"
    if isinstance(v, tuple):
        return b"(" + b"".join(emit(x) for x in v) + b"t" if v else b")"
    if isinstance(v, list):
        return b"](" + b"".join(emit(x) for x in v) + b"e" if v else b"]"
    if isinstance(v, dict):
        items = b"".join(emit(k) + emit(x) for k, x in v.items())
        return b"}(" + items + b"u" if v else b"}"
    if isinstance(v, G):
        return p_global(v.name)
    if isinstance(v, Call):
        func = v.func if isinstance(v.func, G) else G(v.func)
        ops = emit(func) + emit(tuple(v.args)) + b"R"
        return ops if v.state is None else ops + emit(v.state) + b"b"
    if isinstance(v, Pid):
        return emit(tuple(v.fields)) + b"Q"
    if isinstance(v, Raw):
        return v.ops
    raise TypeError(type(v))


def whole(v):
    return b"\x80\x02" + emit(v) + b"."


def odict(pairs=()):
    return Call("collections.OrderedDict", [list(pairs)] if pairs else [])


# -- the two container formats -------------------------------------------------------------
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
SYS_INFO = {"protocol_version": 1001, "little_endian": True,
            "type_sizes": {"short": 2, "int": 4, "long": 4}}  # fmt: skip


def zip_pack(records, prefix="archive"):
    """A zip of stored records [(name, bytes)], the same bytes every time."""
    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        warnings.simplefilter("ignore")  # duplicate names are wanted here
        for name, data in records:
            zf.writestr(zipfile.ZipInfo(f"{prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0)), data)
    return out.getvalue()


def zip_records(data):
    """[(name without the top folder, bytes)] of a zip checkpoint."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [(i.filename.split("/", 1)[-1], zf.read(i)) for i in zf.infolist()]


def legacy_pack(obj_pickle, keys, storages, header=None):
    """A legacy checkpoint: magic, protocol, sys info, object and keys pickles, then each
    storage as (element count, bytes). ``header`` replaces records by name."""
    header = header or {}
    records = [
        header.get("magic", pickle.dumps(LEGACY_MAGIC, protocol=2)),
        header.get("protocol", pickle.dumps(1001, protocol=2)),
        header.get("sys_info", pickle.dumps(SYS_INFO, protocol=2)),
        obj_pickle,
        header.get("keys", pickle.dumps(list(keys), protocol=2)),
    ]
    tail = b"".join(struct.pack("<q", count) + data for count, data in storages)
    return b"".join(records) + tail


def split_pickles(data, count=5):
    """The first ``count`` pickles of ``data`` and the bytes after them."""
    f = io.BytesIO(data)
    parts = []
    for _ in range(count):
        start = f.tell()
        for _op in pickletools.genops(f):
            pass
        parts.append(data[start : f.tell()])
    return parts, data[f.tell() :]


# -- the seed corpus -----------------------------------------------------------------------
def seed_objects(torch):
    """The objects this project's torch.save writes into the corpus (also what
    --write-pytorch-seeds makes PyTorch write)."""
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    dtypes = collections.OrderedDict(
        (name, torch.arange(12).reshape(3, 4).to(getattr(torch, name))) for name in DTYPE_NAMES
    )
    views = {"base": base, "t": base.t(), "offset": base[1:, 2:], "strided": base[:, ::2],
             "expanded": torch.ones(3).expand(2, 3), "scalar": torch.tensor(2.5),
             "empty": torch.zeros(0, 3), "long_view": torch.arange(10)[2::3],
             "big": torch.arange(1000, dtype=torch.float64)}  # fmt: skip
    state = collections.OrderedDict(weight=torch.ones(3, 2), bias=torch.zeros(3))
    state._metadata = collections.OrderedDict({"": {"version": 1}})
    misc = {"state": state, "b": b"bytes\x00\xff", "e": b"", "set": {1, 2}, "fs": frozenset([3]),
            "size": torch.Size([2, 3]), "dev": torch.device("cpu"), "dtype": torch.float16,
            "big": 2**100, "inf": float("inf"), "text": "ünïcode", "nested": [1, (2, [3, {4: 5}])],
            "shared": [base[0], base[1]], "none": None}  # fmt: skip
    return {"dtypes": dtypes, "views": views, "misc": misc}


def legacy_of(torch, obj):
    """``obj`` in the legacy format, written the way PyTorch writes it."""
    from torch.storage import TypedStorage

    keys, storages = {}, []

    class Pickler(pickle.Pickler):
        def persistent_id(self, o):
            if not isinstance(o, TypedStorage):
                return None
            untyped = o.untyped()
            key = keys.get(untyped._key())
            if key is None:
                key = keys[untyped._key()] = str(len(keys))
                storages.append((o.size(), bytes(memoryview(untyped))))
            return ("storage", type(o), key, "cpu", o.size(), None)

    data = io.BytesIO()
    Pickler(data, protocol=2).dump(obj)
    return legacy_pack(data.getvalue(), list(keys.values()), storages)


class Seed:
    def __init__(self, name, data):
        self.name, self.data = name, data
        self.legacy = not data.startswith(b"PK\x03\x04")
        if self.legacy:
            self.pickles, self.tail = split_pickles(data)
        else:
            self.records = zip_records(data)
            self.prefix = zipfile.ZipFile(io.BytesIO(data)).namelist()[0].split("/")[0]
        self._tokens = {}

    def pickle_at(self, which):
        """(bytes of pickle ``which``: 'data.pkl' or a legacy record index)."""
        if self.legacy:
            return self.pickles[which]
        return dict(self.records)[which]

    def tokens(self, which):
        """[(opcode name, arg, raw bytes)] of a pickle of this seed (cached)."""
        if which not in self._tokens:
            data = self.pickle_at(which)
            ops = list(pickletools.genops(data))
            ends = [pos for _, _, pos in ops[1:]] + [len(data)]
            self._tokens[which] = [
                (op.name, arg, data[pos:end]) for (op, arg, pos), end in zip(ops, ends)
            ]
        return self._tokens[which]

    def with_pickle(self, which, new):
        """This seed's file with pickle ``which`` replaced."""
        if self.legacy:
            pickles = list(self.pickles)
            pickles[which] = new
            return b"".join(pickles) + self.tail
        records = [(n, new if n == which else d) for n, d in self.records]
        return zip_pack(records, self.prefix)


class Corpus:
    def __init__(self):
        import torch

        self.torch = torch
        objects = seed_objects(torch)
        seeds = []
        for name, obj in objects.items():
            for protocol in (2, 4, 5) if name == "misc" else (2,):
                buf = io.BytesIO()
                torch.save(obj, buf, pickle_protocol=protocol)
                seeds.append(Seed(f"ours-{name}-p{protocol}", buf.getvalue()))
            seeds.append(Seed(f"ours-{name}-legacy", legacy_of(torch, obj)))
        for fname in sorted(os.listdir(CHECKPOINTS)):
            if fname.endswith(".pt") and ("pytorch" in fname):
                with open(os.path.join(CHECKPOINTS, fname), "rb") as f:
                    seeds.append(Seed(fname, f.read()))
        self.seeds = seeds
        self.zips = [s for s in seeds if not s.legacy]
        self.legacies = [s for s in seeds if s.legacy]


# -- mutations -----------------------------------------------------------------------------
def edge_int(rng, near=None):
    if near is not None and rng.random() < 0.4:
        return near + rng.choice([-2, -1, 1, 2, near, -near])
    if rng.random() < 0.15:
        return rng.randrange(-10, 100)
    return rng.choice(INTERESTING)


def mutate_bytes(rng, data):
    blob = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not blob:
            blob += bytes([rng.randrange(256)])
        kind = rng.randrange(8)
        pos = rng.randrange(len(blob))
        if kind <= 1:
            blob[pos] ^= 1 << rng.randrange(8)
        elif kind == 2:
            blob[pos] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        elif kind == 3:
            width = rng.choice([2, 4, 8])
            value = edge_int(rng) % (1 << (8 * width))
            blob[pos : pos + width] = value.to_bytes(width, "little")
        elif kind == 4:
            del blob[pos:]
        elif kind == 5:
            blob[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif kind == 6:
            del blob[pos : pos + rng.randint(1, 64)]
        else:
            chunk = blob[pos : pos + rng.randint(1, 256)]
            blob[pos:pos] = chunk * rng.randint(1, 4)
    return bytes(blob)


def mutate_splice(rng, corpus):
    a, b = rng.choice(corpus.seeds), rng.choice(corpus.seeds)
    kind = rng.randrange(3)
    if kind == 0 or (a.legacy != b.legacy):
        return a.data[: rng.randrange(len(a.data) + 1)] + b.data[rng.randrange(len(b.data) + 1) :]
    if a.legacy:  # another file's object pickle (its storages do not match the keys)
        return a.with_pickle(3, b.pickles[3])
    name, data = rng.choice(b.records)
    target = rng.choice(a.records)[0] if rng.random() < 0.7 else name
    records = [(n, data if n == target else d) for n, d in a.records]
    if target not in dict(a.records):
        records.append((target, data))
    return zip_pack(records, a.prefix)


LOCAL_FIELDS = [(4, 2), (6, 2), (8, 2), (14, 4), (18, 4), (22, 4), (26, 2), (28, 2)]
CENTRAL_FIELDS = [(6, 2), (8, 2), (10, 2), (20, 4), (24, 4), (28, 2), (30, 2), (32, 2), (34, 2),
                  (42, 4)]  # fmt: skip
END_FIELDS = [(4, 2), (6, 2), (8, 2), (10, 2), (12, 4), (16, 4), (20, 2)]


def mutate_zip(rng, corpus):
    seed = rng.choice(corpus.zips)
    blob = bytearray(seed.data)
    for _ in range(rng.randint(1, 2)):
        spots = []
        for sig, fields in ((b"PK\x03\x04", LOCAL_FIELDS), (b"PK\x01\x02", CENTRAL_FIELDS),
                            (b"PK\x05\x06", END_FIELDS)):  # fmt: skip
            at = blob.find(sig)
            while at >= 0:
                spots += [(at + off, width) for off, width in fields]
                at = blob.find(sig, at + 4)
        pos, width = rng.choice(spots)
        if rng.random() < 0.3:
            value = rng.choice([8, 12, 14, 99])  # compression methods: deflate, bzip2, lzma, ?
        else:
            old = int.from_bytes(blob[pos : pos + width], "little")
            value = edge_int(rng, old)
        blob[pos : pos + width] = (value % (1 << (8 * width))).to_bytes(width, "little")
    return bytes(blob)


STRINGS = ["", "0", "1", "2", "cpu", "cuda:0", "cpu:0", "meta", "storage", "module", "data.pkl",
           "../0", "0\x00", "\udcff", "x" * 300, "torch", "latin1", "FloatStorage"]  # fmt: skip
INSERTED = [b"(", b"0", b"1", b"2", b"N", b"\x88", b")", b"]", b"}", b"\x85", b"\x86", b"\x87",
            b"a", b"s", b"e", b"u", b"t", b"R", b"b", b"\x81", b"Q", b".", b"h\x00", b"h\x01",
            b"q\x00", b"q\x07", b"\x94", b"\x8f", b"\x90", b"\x91", b"\x93", b"K\x00",
            b"J\xff\xff\xff\xff", b"(ios\nsystem\n", b"o", b"\x82\x01", b"Pfoo\n", b"\x97",
            b"\x98", b"\x95" + b"\xff" * 8, b"\x80\x05", b"d", b"l",
            b"r\xff\xff\xff\x7f", b"j\xff\xff\xff\x7f", b"X\xff\xff\xff\x7f"]  # fmt: skip


def encode_int_op(value):
    return p_int(value)


def mutate_tokens(rng, tokens):
    """A mutated copy of a pickle given as tokens."""
    raw = [t[2] for t in tokens]
    names = [t[0] for t in tokens]
    args = [t[1] for t in tokens]
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(10)
        ints = [i for i, n in enumerate(names) if n in ("BININT", "BININT1", "BININT2", "LONG1",
                                                          "INT", "LONG", "LONG4")]  # fmt: skip
        strs = [i for i, n in enumerate(names) if n in ("BINUNICODE", "SHORT_BINUNICODE")]
        globs = [i for i, n in enumerate(names) if n == "GLOBAL"]
        if kind <= 3 and ints:
            i = rng.choice(ints)
            old = args[i] if isinstance(args[i], int) else 0
            raw[i] = encode_int_op(edge_int(rng, old))
        elif kind == 4 and strs:
            i = rng.choice(strs)
            raw[i] = p_str(rng.choice(STRINGS + [str(edge_int(rng))]))
        elif kind == 5 and globs:
            i = rng.choice(globs)
            pool = ALLOWED_GLOBALS if rng.random() < 0.6 else FOREIGN_GLOBALS
            raw[i] = p_global(rng.choice(pool))
        elif kind == 6 and len(raw) > 2:
            del raw[rng.randrange(1, len(raw) - 1)]
        elif kind == 7 and len(raw) > 2:
            i = rng.randrange(1, len(raw) - 1)
            raw.insert(i, raw[i])
        elif kind == 8 and len(raw) > 3:
            i = rng.randrange(1, len(raw) - 2)
            raw[i], raw[i + 1] = raw[i + 1], raw[i]
        else:
            raw.insert(rng.randrange(1, max(2, len(raw))), rng.choice(INSERTED))
        names = [None] * len(raw)  # after a structural change, only raw bytes stay valid
    return b"".join(raw)


def mutate_pickle(rng, corpus):
    seed = rng.choice(corpus.seeds)
    if seed.legacy:
        which = 3 if rng.random() < 0.7 else rng.choice([0, 1, 2, 4])
    else:
        which = "data.pkl"
    return seed.with_pickle(which, mutate_tokens(rng, seed.tokens(which)))


def forged_layout(rng, numel):
    """(offset, sizes, strides) at or near the edge of a storage of ``numel`` elements: a
    layout that fits, then (half the time) one field pushed to an edge value or ill-typed."""
    ndim = rng.choice([0, 1, 1, 2, 2, 3, 4] + ([rng.randint(5, 40)] if rng.random() < 0.05 else []))
    sizes = [rng.choice([0, 1, 1, 2, 2, 3, 5]) for _ in range(ndim)]
    if rng.random() < 0.5:  # contiguous
        strides, step = [], 1
        for n in reversed(sizes):
            strides.insert(0, step)
            step *= max(n, 1)
    else:
        strides = [rng.choice([0, 1, 2, 3, 7]) for _ in range(ndim)]
    extent = sum((n - 1) * st for n, st in zip(sizes, strides) if n) + 1
    while extent > numel and any(n > 1 for n in sizes):  # shrink until it fits
        i = max(range(ndim), key=lambda d: sizes[d])
        sizes[i] -= 1
        extent = sum((n - 1) * st for n, st in zip(sizes, strides) if n) + 1
    offset = rng.randrange(max(numel - extent + 1, 1))
    if rng.random() < 0.5:
        part = rng.randrange(3)
        if part == 0 or not ndim:
            offset = edge_int(rng, offset)
        elif part == 1:
            i = rng.randrange(ndim)
            sizes[i] = edge_int(rng, sizes[i])
        else:
            i = rng.randrange(ndim)
            strides[i] = edge_int(rng, strides[i])
    if rng.random() < 0.03:  # ill-typed
        wild = [1.5, "2", None, True, [1], (2,), 2**200]
        choice = rng.randrange(3)
        if choice == 0 or not ndim:
            offset = rng.choice(wild)
        elif choice == 1:
            sizes[rng.randrange(ndim)] = rng.choice(wild)
        else:
            strides[rng.randrange(ndim)] = rng.choice(wild)
    if rng.random() < 0.03 and sizes:
        strides = strides[:-1]
    return offset, tuple(sizes), tuple(strides)


def forge(rng, corpus):
    """A checkpoint whose tensors and storages are described by forged numbers."""
    storages = []  # (pid fields, key, record bytes, element count written in legacy files)
    for k in range(rng.randint(1, 3)):
        name = rng.choice(STORAGE_NAMES)
        cls = G(f"torch.{name}")
        itemsize = ITEMSIZE[name]
        if rng.random() < 0.05:
            odd = [G("torch.float32"), G("torch.UntypedStorage"), G("collections.OrderedDict")]
            cls, itemsize = rng.choice(odd + ["FloatStorage", 7]), 1
        numel = rng.choice([rng.randint(0, 32), rng.randint(0, 300)])
        nbytes = numel * itemsize
        if rng.random() < 0.1:
            numel = edge_int(rng, numel)
        if rng.random() < 0.1:
            nbytes = max(0, edge_int(rng, nbytes)) % (1 << 16)
        key = str(k) if rng.random() > 0.05 else rng.choice(STRINGS + [k, None])
        location = "cpu" if rng.random() > 0.05 else rng.choice(STRINGS + [None, 0])
        fields = ["storage", cls, key, location, numel]
        if rng.random() < 0.04:
            fields[0] = rng.choice(["module", b"storage", "Storage"])
        storages.append((fields, key, bytes(nbytes), numel))
    legacy = rng.random() < 0.3
    tensors = []
    for _ in range(rng.randint(1, 4)):
        fields, _, data, numel = rng.choice(storages)
        if legacy:
            fields = fields + [None if rng.random() > 0.05 else (fields[2], 0, 1)]
        pid = Pid(fields)
        offset, sizes, strides = forged_layout(rng, numel if isinstance(numel, int) else 0)
        requires_grad = rng.random() < 0.1
        if rng.random() < 0.03:
            requires_grad = rng.choice([1, None, "yes", 0.5, []])
        hooks = odict() if rng.random() > 0.05 else rng.choice([{}, None, [], 5, {1: 2}, "h"])
        func = rng.choice(
            ["torch._utils._rebuild_tensor_v2"] * 6 + ["torch._utils._rebuild_tensor"]
        )
        args = [pid, offset, sizes, strides]
        if func.endswith("_v2"):
            args += [requires_grad, hooks]
            if rng.random() < 0.05:
                args.append(rng.choice([None, {}, {"x": 1}, 3, "m"]))
        if rng.random() < 0.05:
            args = args[: rng.randrange(len(args))] + ([1] if rng.random() < 0.5 else [])
        tensor = Call(func, args)
        if rng.random() < 0.15:
            tensor = Call("torch._utils._rebuild_parameter", [tensor, requires_grad, odict()])
        elif rng.random() < 0.05:
            state = rng.choice(
                [{"note": 1}, {"__class__": 1}, ({}, {"grad": 1}), [1], None, {1: 2}]
            )
            tensor = Call("torch._utils._rebuild_parameter_with_state",
                          [tensor, requires_grad, odict(), state])  # fmt: skip
        if rng.random() < 0.03:
            tensor = Call(tensor.func, tensor.args, state=rng.choice([{"x": 1}, (None, {"a": 1})]))
        tensors.append(tensor)
    obj = {f"t{i}": t for i, t in enumerate(tensors)}
    if rng.random() < 0.2:
        obj = odict(obj.items())
    body = whole(obj)
    if not legacy:
        records = [("data.pkl", body), ("version", b"3\n")]
        for _fields, key, data, _ in storages:
            name = f"data/{key}".encode("utf-8", "replace").decode()  # a lone surrogate: '?'
            records.append((name, data))
        if rng.random() < 0.05:
            records.append(("byteorder", rng.choice([b"little", b"big", b"", b"x"])))
        return zip_pack(records, rng.choice(["archive"] * 9 + ["x"]))
    keys, packed = [], []
    for _fields, key, data, numel in storages:
        if key in keys:
            continue
        keys.append(key)
        count = (
            numel if rng.random() > 0.1 else edge_int(rng, numel if isinstance(numel, int) else 0)
        )
        packed.append((count % (1 << 63) if isinstance(count, int) else 0, data))
    if rng.random() < 0.1:
        keys = rng.choice([keys[:-1], keys * 2, keys + ["99"], [1], "0"])
    return legacy_pack(body, keys, packed, header={"keys": pickle.dumps(keys, protocol=2)})


def foreign_value(rng):
    """A value that calls something the default load must refuse (most would create the
    canary file if they ran)."""
    cmd = f"touch {CANARY}"
    code = f"open({CANARY!r}, 'w').close()"
    kind = rng.randrange(12)
    if kind == 0:
        return Call(rng.choice(["os.system", "posix.system", "nt.system"]), [cmd])
    if kind == 1:
        return Call(rng.choice(["builtins.eval", "builtins.exec", "__builtin__.eval"]), [code])
    if kind == 2:
        return Call("os.mkdir", [CANARY])
    if kind == 3:  # synchronous: a payload must have finished when the canary is looked for
        return Call("subprocess.check_call", [["touch", CANARY]])
    if kind == 4:  # opcodes outside the allow-list
        quoted = repr(cmd).encode()
        return Raw(rng.choice([b"(S" + quoted + b"\nios\nsystem\n",
                               b"(cos\nsystem\nS" + quoted + b"\no",
                               b"\x82\x01", b"\x83\x01\x00", b"\x84\x01\x00\x00\x00",
                               b"P" + CANARY.encode() + b"\n", b"\x97", b"\x98"]))  # fmt: skip
    if kind == 5:  # NEWOBJ of classes it must not build
        cls = rng.choice(["subprocess.Popen", "torch.FloatStorage", "torch.device",
                          "torch.Tensor", "torch.UntypedStorage", "collections.OrderedDict",
                          "builtins.object"])  # fmt: skip
        return Raw(p_global(cls) + emit(tuple([rng.choice(INTERESTING)])) + b"\x81")
    if kind == 6:  # BUILD on allowed globals, which would change them for every later load
        target = rng.choice(["torch.FloatStorage", "torch.Size", "torch.float32",
                             "torch._utils._rebuild_tensor_v2",
                             "collections.OrderedDict"])  # fmt: skip
        state = rng.choice([{"dtype": G("torch.float64")}, (None, {"dtype": G("torch.float64")}),
                            (None, {"__call__": G("os.system")}), {"itemsize": 100}])  # fmt: skip
        return Raw(p_global(target) + emit(state) + b"b")
    if kind == 7:  # allowed globals with abusive arguments
        return rng.choice([
            Call("builtins.bytearray", [rng.choice([2**40, 2**31, 2**62])]),
            Call(f"torch.{rng.choice(STORAGE_NAMES)}", [rng.choice([2**40, 2**33])]),
            Call("torch.UntypedStorage", [2**40]), Call("builtins.set", [5]),
            Call("torch.Size", [[[1]]]), Call("torch.device", ["cuda:" + "9" * 30]),
            Call("_codecs.encode", ["x", "utf-16"]), Call("builtins.slice", [1.5, [], {}]),
            Call("torch.float32", []), Call("builtins.bytes", [2**40]),
        ])  # fmt: skip
    if kind == 8:
        return Call(rng.choice(FOREIGN_GLOBALS), [rng.choice([CANARY, 1, "x", ()])])
    if kind == 9:  # a getattr chain: builtins.getattr(torch, "load")
        return Call("builtins.getattr", [G("torch.Tensor"), "__init__"])
    if kind == 10:  # a persistent id that names a foreign storage type
        return Pid(["storage", G(rng.choice(FOREIGN_GLOBALS)), "0", "cpu", 1])
    return Call("torch._utils._rebuild_tensor_v2",
                [Pid(["storage", G("torch.FloatStorage"), "0", "cpu", 4]), 0, (1,), (1,),
                 False, Call("collections.defaultdict", [G("os.system")])])  # fmt: skip


def place(rng, corpus, value):
    """A checkpoint with ``value`` as (part of) its object or as one of its legacy records."""
    where = rng.randrange(4)
    if where == 0:  # the whole data.pkl
        return zip_pack([("data.pkl", whole(value)), ("version", b"3\n")])
    if where == 1:  # inside a seed's object, next to real tensors
        seed = rng.choice(corpus.seeds)
        wrapped = b"\x80\x02" + body_of(seed.pickle_at(3 if seed.legacy else "data.pkl"))
        wrapped += emit(value) + b"\x86."
        return seed.with_pickle(3 if seed.legacy else "data.pkl", wrapped)
    if where == 2:  # a legacy header record
        seed = rng.choice(corpus.legacies)
        record = rng.choice([0, 1, 2, 4])
        return seed.with_pickle(record, whole(rng.choice([value, [value], {"v": value}])))
    seed = rng.choice(corpus.legacies)
    return seed.with_pickle(3, whole(value))


def body_of(pickled):
    """A whole pickle's opcodes that push its value (PROTO and STOP removed)."""
    start = 2 if pickled[:1] == b"\x80" else 0
    return pickled[start:-1]


def nested_ops(rng, depth):
    kind = rng.randrange(7)
    if kind == 0:
        return b"]" * depth + b"a" * (depth - 1)
    if kind == 1:
        return b")" + b"\x85" * depth
    if kind == 2:  # a deep tuple as a dict key: hashing it recurses in C
        return b"}" + b")" + b"\x85" * depth + b"K\x01s"
    if kind == 3:
        return b"}" + b"K\x00}" * depth + b"s" * depth
    if kind == 4:
        return b"(" * depth + b"t" * depth
    if kind == 5:
        return b"(" * depth + b"\x91" * depth
    # a chain made through the memo after the lists were created (8 opcodes a level)
    return b"]q\x00q\x02" + b"]q\x01h\x00h\x01ah\x01q\x00" * (depth // 4 + 1) + b"h\x02"


def nesting(rng, corpus):
    depth = int(math.exp(rng.uniform(math.log(50), math.log(100_000))))
    return place(rng, corpus, Raw(nested_ops(rng, depth)))


def make_input(corpus, seed, index):
    """(strategy, bytes, mmap) of input ``index`` of ``seed``."""
    rng = random.Random(f"{seed}:{index}")
    strategy = rng.choices([s for s, _ in STRATEGIES], [w for _, w in STRATEGIES])[0]
    if strategy == "bytes":
        data = mutate_bytes(rng, rng.choice(corpus.seeds).data)
    elif strategy == "splice":
        data = mutate_splice(rng, corpus)
    elif strategy == "zip":
        data = mutate_zip(rng, corpus)
    elif strategy == "pickle":
        data = mutate_pickle(rng, corpus)
    elif strategy == "forge":
        data = forge(rng, corpus)
    elif strategy == "foreign":
        data = place(rng, corpus, foreign_value(rng))
    else:
        data = nesting(rng, corpus)
    mmap = data.startswith(b"PK\x03\x04") and rng.random() < 0.1
    return strategy, data, mmap


# -- running one input ---------------------------------------------------------------------
def children(obj):
    if isinstance(obj, (str, bytes, bytearray, int, float, type(None))):
        return ()
    parts = []
    if isinstance(obj, dict):
        parts += [obj.keys(), obj.values()]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        parts.append(obj)
    attrs = getattr(obj, "__dict__", None)
    if isinstance(attrs, dict) and not isinstance(obj, type):
        parts.append(attrs.values())
    return itertools.chain(*parts)


def tensors_in(root, torch):
    """Every tensor and storage reachable from ``root`` (iteratively; each object once)."""
    seen, todo = set(), [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (torch.Tensor, torch.UntypedStorage)):
            yield obj
        todo.extend(children(obj))


def reaches_outside(t):
    """A description of how tensor ``t`` reaches outside its storage, or None."""
    sizes, strides = list(t.size()), list(t.stride())
    offset, itemsize = t.storage_offset(), t.element_size()
    nbytes = t.untyped_storage().nbytes()
    numel = math.prod(sizes)
    if numel == 0:
        return None
    if offset < 0 or min(strides, default=0) < 0:
        return f"negative offset or stride: {offset}, {strides}"
    end = (offset + sum((n - 1) * s for n, s in zip(sizes, strides)) + 1) * itemsize
    if end > nbytes:
        return f"sizes {sizes} strides {strides} offset {offset} reach byte {end} of {nbytes}"
    return None


def classify(exc):
    if isinstance(exc, MemoryError) or (
        isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc)
    ):
        return "bigalloc"
    if isinstance(exc, RecursionError):
        return "other"
    if isinstance(exc, (RuntimeError, pickle.UnpicklingError)):
        return "refused"
    return "other"


INJECTED = {"crash": set(), "hang": set()}  # indices that crash or hang on purpose (tests)


def run_one(corpus, seed, index):
    """(result, strategy, detail) of loading input ``index``."""
    torch = corpus.torch
    if index in INJECTED["crash"]:
        os.kill(os.getpid(), signal.SIGSEGV)
    if index in INJECTED["hang"]:
        time.sleep(3600)
    strategy, data, mmap = make_input(corpus, seed, index)
    result, detail = "loaded", ""
    try:
        if mmap:
            with open("input.pt", "wb") as f:
                f.write(data)
            loaded = torch.load("input.pt", mmap=True)
        else:
            loaded = torch.load(io.BytesIO(data))
    except BaseException as e:  # noqa: BLE001 - every exception is classified
        if isinstance(e, KeyboardInterrupt):
            raise
        result = classify(e)
        if result != "refused":
            detail = f"{type(e).__name__}: {str(e)[:200]}"
    else:
        try:
            for t in tensors_in(loaded, torch):
                if isinstance(t, torch.Tensor):
                    problem = reaches_outside(t)
                    if problem:
                        result, detail = "outside", problem
                        break
                    if 0 < t.numel() <= 1 << 16:
                        t.clone()  # read every element: a bad layout would show here
        except Exception as e:
            result, detail = "other", f"checking the result: {type(e).__name__}: {str(e)[:200]}"
        del loaded
    if os.path.lexists(CANARY):
        result, detail = "payload", "the canary file was created"
        if os.path.isdir(CANARY) and not os.path.islink(CANARY):
            shutil.rmtree(CANARY, ignore_errors=True)
        else:
            os.unlink(CANARY)
    return result, strategy, detail


# -- worker processes ----------------------------------------------------------------------
def prepare_worker(parent):
    """Imports torch, builds the corpus, moves into a new folder in ``parent`` (the run's,
    which the run removes, even after a worker was killed) and caps memory."""
    corpus = Corpus()
    folder = tempfile.mkdtemp(prefix="worker_", dir=parent)
    os.chdir(folder)
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    try:
        if "libasan" not in os.environ.get("LD_PRELOAD", ""):  # ASan caps allocations itself
            resource.setrlimit(resource.RLIMIT_AS, (vm + MEMORY_LIMIT, vm + MEMORY_LIMIT))
    except (ValueError, OSError):
        pass
    return corpus, folder


def line(index, result, strategy, took, detail):
    return f"{index} {result} {strategy} {took:.4f} {detail}".replace("\n", " ") + "\n"


def worker_main(seed, parent):
    """Reads 'first stop' lines; writes one line per input, then 'done'."""
    corpus, folder = prepare_worker(parent)
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    try:
        for request in sys.stdin:
            first, stop = map(int, request.split())
            for index in range(first, stop):
                began = time.perf_counter()
                result, strategy, detail = run_one(corpus, seed, index)
                out.write(line(index, result, strategy, time.perf_counter() - began, detail))
                out.flush()
            out.write("done\n")
            out.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def isolate_main(seed, indices, parent):
    """Runs each input in its own forked process: a crash or a hang is that input's."""
    corpus, folder = prepare_worker(parent)
    try:
        for index in indices:
            strategy = make_input(corpus, seed, index)[0]
            read_end, write_end = os.pipe()
            began = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                os.close(read_end)
                try:
                    result, strategy, detail = run_one(corpus, seed, index)
                    text = line(index, result, strategy, time.perf_counter() - began, detail)
                    os.write(write_end, text.encode())
                finally:
                    os._exit(0)
            os.close(write_end)
            deadline = time.monotonic() + HANG_S
            status = None
            while status is None and time.monotonic() < deadline:
                done, status_word = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = status_word
                else:
                    time.sleep(0.005)
            with os.fdopen(read_end, "rb") as r:
                if status is None:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    text = line(index, "hang", strategy, time.perf_counter() - began, "")
                elif os.WIFSIGNALED(status):
                    sig = signal.Signals(os.WTERMSIG(status)).name
                    text = line(index, "crash", strategy, 0.0, f"killed by {sig}")
                else:
                    text = r.read().decode() or line(index, "crash", strategy, 0.0, "no result")
            sys.stdout.write(text)
            sys.stdout.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def worker_command(seed, *extra):
    cmd = [sys.executable, os.path.abspath(__file__), "--seed", str(seed), *extra]
    for kind, indices in INJECTED.items():
        cmd += [f"--{kind}-at={i}" for i in sorted(indices)]
    return cmd


def worker_env():
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONFAULTHANDLER="")
    return env


class Worker:
    def __init__(self, seed, folder):
        self.stderr = tempfile.TemporaryFile(dir=folder)  # the last words of one that dies
        self.proc = subprocess.Popen(
            worker_command(seed, "--worker", "--tmp", folder),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=worker_env(),
        )
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.buffer = b""
        self.last_words = ""  # the end of its stderr, once it is gone
        self.ready = False
        self.batch = None
        self.pending = collections.deque()
        self.deadline = time.monotonic() + STARTUP_S

    def send(self, first, stop):
        self.batch = (first, stop)
        self.pending = collections.deque(range(first, stop))
        try:
            self.proc.stdin.write(f"{first} {stop}\n".encode())
            self.proc.stdin.flush()
        except BrokenPipeError:  # it died: its end of output says so
            pass
        if self.ready:
            self.deadline = time.monotonic() + HANG_S

    def lines(self):
        """Complete lines read so far ([] if none yet), or None at end of output."""
        try:
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        except BlockingIOError:
            return []
        if not chunk:
            return None
        self.buffer += chunk
        *complete, self.buffer = self.buffer.split(b"\n")
        return [c.decode() for c in complete]

    def kill(self, wait=0.0):
        if wait and self.proc.poll() is None:
            try:  # at end of input it cleans up and exits
                self.proc.stdin.close()
                self.proc.wait(wait)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if not self.stderr.closed:
            self.stderr.seek(0, io.SEEK_END)
            self.stderr.seek(max(0, self.stderr.tell() - 300))
            text = self.stderr.read().decode(errors="replace").strip().replace("\n", " | ")
            self.stderr.close()
            self.last_words = f"; stderr: ...{text}" if text else ""


class Report:
    """What a run found: ``counts`` (outcome -> inputs), ``by_strategy``, ``findings``."""

    def __init__(self, inputs, seed, workers):
        self.inputs, self.seed, self.workers = inputs, seed, workers
        self.counts = collections.Counter({k: 0 for k in OUTCOMES})
        self.by_strategy = collections.defaultdict(collections.Counter)
        self.findings = []  # (outcome, index or None, detail)
        self.slowest = (0.0, None)
        self.seconds = 0.0

    def record(self, index, result, strategy, took, detail):
        if took > HANG_S and result != "hang":
            detail = f"took {took:.1f} s (result: {result} {detail})"
            result = "hang"
        self.counts[result] += 1
        self.by_strategy[strategy][result] += 1
        if took > self.slowest[0]:
            self.slowest = (took, index)
        if result in BAD:
            self.findings.append((result, index, detail))

    @property
    def ok(self):
        return all(self.counts[k] == 0 for k in BAD)

    def format(self):
        out = [f"fuzz_load: seed {self.seed}, {self.workers} workers, {self.seconds:.1f} s"]
        out.append(f"inputs {sum(self.counts.values())}")
        out += [f"{LABELS[k]} {self.counts[k]}" for k in OUTCOMES]
        parts = []
        for strategy, _ in STRATEGIES:
            c = self.by_strategy.get(strategy, {})
            parts.append(f"{strategy} {sum(c.values())} ({c.get('loaded', 0)} loaded)")
        out.append("by strategy: " + ", ".join(parts))
        if self.slowest[1] is not None:
            out.append(f"slowest input: {self.slowest[1]} ({self.slowest[0]:.2f} s)")
        for kind in BAD:  # ten of each kind, the worst kinds first
            found = [f for f in self.findings if f[0] == kind]
            for _, index, detail in found[:10]:
                where = f"index {index}" if index is not None else "batch"
                again = f" [python {os.path.basename(__file__)} --seed {self.seed} --index {index}]"
                out.append(f"  {LABELS[kind]}: seed {self.seed} {where}: {detail}"
                           + (again if index is not None else ""))  # fmt: skip
            if len(found) > 10:
                out.append(f"  ... and {len(found) - 10} more {LABELS[kind]}")
        return "\n".join(out)


class Run:
    def __init__(self, inputs, seed, workers, log, folder):
        self.inputs, self.seed, self.nworkers, self.log = inputs, seed, max(1, workers), log
        self.folder = folder  # the workers' temporary folders go in here
        self.report = Report(inputs, seed, self.nworkers)

    def parse(self, worker, text):
        if text == "ready":
            worker.ready = True
            worker.deadline = time.monotonic() + HANG_S
            return
        if text == "done":
            worker.batch = None
            return
        index, result, strategy, took, *detail = text.split(" ", 4)
        index, took, detail = int(index), float(took), " ".join(detail)
        if worker.pending and worker.pending[0] == index:
            worker.pending.popleft()
        if took > HANG_S:  # slow in a busy worker: a hang only if it is slow alone too
            result, strategy, took, detail = self.confirm_hang(index, took, (result, detail))
        self.report.record(index, result, strategy, took, detail)
        worker.deadline = time.monotonic() + HANG_S
        done = sum(self.report.counts.values())
        if done % 20_000 == 0:
            self.log(f"  {done} inputs, {self.report.counts['loaded']} loaded, "
                     f"{len(self.report.findings)} findings")  # fmt: skip

    def isolate(self, indices):
        """{index: (result, strategy, took, detail)} with each input in its own process."""
        if not indices:
            return {}
        cmd = worker_command(self.seed, "--isolate", ",".join(map(str, indices)))
        cmd += ["--tmp", self.folder]
        limit = STARTUP_S + (HANG_S + 2) * len(indices)
        try:
            out = subprocess.run(cmd, capture_output=True, timeout=limit, env=worker_env())
            text = out.stdout.decode()
        except subprocess.TimeoutExpired as e:
            text = (e.stdout or b"").decode()
        found = {}
        for row in text.splitlines():
            index, result, strategy, took, *detail = row.split(" ", 4)
            found[int(index)] = (result, strategy, float(took), " ".join(detail))
        return found

    def confirm_hang(self, index, took, outcome):
        """(result, strategy, took, detail) of an input that took ``took`` s in its worker."""
        result, strategy, alone, detail = self.isolate([index]).get(
            index, ("crash", "?", 0.0, "no result")
        )
        if result == "hang" or alone > HANG_S:
            return "hang", strategy, max(alone, HANG_S), f"{took:.1f} s in its worker, {detail}"
        self.log(f"  input {index} took {took:.1f} s in its worker but {alone:.2f} s alone")
        return result, strategy, alone, detail

    def lost(self, worker, queue, hung):
        """A worker died or hung: attribute its in-flight input, requeue the rest."""
        worker.kill()
        if worker.batch is None and not worker.pending:
            if not worker.ready:  # it never started: that is a crash of the harness itself
                self.report.record(None, "crash", "?", 0.0, "a worker died while starting")
            return
        first, stop = worker.batch
        pending = list(worker.pending)
        if not pending:
            return
        culprit = pending[0]
        if len(pending) > 1:
            queue.appendleft((pending[1], stop))
        alone = self.isolate(list(range(first, culprit + 1)))
        result, strategy, took, detail = alone.get(culprit, ("crash", "?", 0.0, "no result"))
        if hung:
            if result != "hang" and took <= HANG_S:
                self.log(
                    f"  input {culprit} took over {HANG_S} s in its worker, {took:.2f} s alone"
                )
                self.report.record(culprit, result, strategy, took, detail)
            else:
                detail = f"over {HANG_S} s in its worker and alone"
                self.report.record(culprit, "hang", strategy, max(took, HANG_S), detail)
            return
        code = worker.proc.returncode
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        how += worker.last_words
        if result == "crash":
            self.report.record(culprit, "crash", strategy, took, f"worker: {how}; alone: {detail}")
        else:
            others = [i for i in range(first, culprit) if alone.get(i, ("crash",))[0] == "crash"]
            blame = f"inputs {others} crash alone" if others else "no input crashes alone"
            self.report.record(None, "crash", strategy, took,
                               f"worker died ({how}) at index {culprit} of batch {first}-{stop}; "
                               f"{blame}; that input alone: {result}")  # fmt: skip

    def run(self):
        began = time.monotonic()
        queue = collections.deque(
            (i, min(i + BATCH, self.inputs)) for i in range(0, self.inputs, BATCH)
        )
        selector = selectors.DefaultSelector()
        workers = []

        def start():
            w = Worker(self.seed, self.folder)
            selector.register(w.proc.stdout, selectors.EVENT_READ, w)
            workers.append(w)

        def retire(w, hung):
            selector.unregister(w.proc.stdout)
            workers.remove(w)
            self.lost(w, queue, hung)
            if queue:
                start()

        for _ in range(min(self.nworkers, len(queue))):
            start()
        try:
            while workers:
                for w in list(workers):
                    if w.batch is None and w.ready:
                        if queue:
                            w.send(*queue.popleft())
                        else:
                            selector.unregister(w.proc.stdout)
                            workers.remove(w)
                            w.kill(wait=5.0)
                for key, _ in selector.select(timeout=0.2):
                    w = key.data
                    if w not in workers:
                        continue
                    rows = w.lines()
                    if rows is None:
                        retire(w, hung=False)
                        continue
                    for row in rows:
                        self.parse(w, row)
                now = time.monotonic()
                for w in list(workers):
                    if now > w.deadline and (w.batch is not None or not w.ready):
                        retire(w, hung=w.ready)
        finally:
            for w in workers:
                w.kill()
        self.report.seconds = time.monotonic() - began
        return self.report


def fuzz(inputs, seed, workers=None, log=None, crash_at=(), hang_at=()):
    """Runs ``inputs`` inputs of ``seed`` in worker processes; returns a :class:`Report`.
    ``crash_at`` and ``hang_at``: indices made to crash or hang, to test the harness."""
    workers = workers or os.cpu_count() or 1
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    INJECTED["crash"], INJECTED["hang"] = set(crash_at), set(hang_at)
    folder = tempfile.mkdtemp(prefix="fuzz_load_")
    try:
        return Run(inputs, seed, workers, log, folder).run()
    finally:
        INJECTED["crash"], INJECTED["hang"] = set(), set()
        shutil.rmtree(folder, ignore_errors=True)


# -- seeds written by PyTorch --------------------------------------------------------------
def write_pytorch_seeds(folder):
    """Run under PyTorch: writes the corpus objects in both of PyTorch's formats."""
    import torch

    objects = seed_objects(torch)
    both = {"views": objects["views"], "misc": objects["misc"],
            "param": torch.nn.Parameter(torch.arange(6.0).reshape(2, 3))}  # fmt: skip
    torch.save(both, os.path.join(folder, "fuzz_seed_pytorch_zip.pt"))
    torch.save(both, os.path.join(folder, "fuzz_seed_pytorch_legacy.pt"),
               _use_new_zipfile_serialization=False)  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--index", type=int, default=None, help="run this input here")
    parser.add_argument("--dump", default=None, help="with --index: write the input to a file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--isolate", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tmp", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--write-pytorch-seeds", default=None, metavar="DIR")
    parser.add_argument("--crash-at", type=int, action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--hang-at", type=int, action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    INJECTED["crash"], INJECTED["hang"] = set(args.crash_at), set(args.hang_at)
    if args.write_pytorch_seeds:
        write_pytorch_seeds(args.write_pytorch_seeds)
        return 0
    if args.worker:
        worker_main(args.seed, args.tmp)
        return 0
    if args.isolate is not None:
        isolate_main(args.seed, [int(i) for i in args.isolate.split(",") if i], args.tmp)
        return 0
    if args.index is not None:
        corpus = Corpus()
        strategy, data, mmap = make_input(corpus, args.seed, args.index)
        print(f"input {args.index} of seed {args.seed}: {strategy}, {len(data)} bytes, mmap={mmap}")
        if args.dump:
            with open(args.dump, "wb") as f:
                f.write(data)
        folder = tempfile.mkdtemp(prefix="fuzz_load_")
        os.chdir(folder)
        try:
            print(*run_one(corpus, args.seed, args.index))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return 0
    report = fuzz(args.inputs, args.seed, args.workers, None, args.crash_at, args.hang_at)
    print(report.format())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
