"""Fuzzing load_lua: mutated .t7 streams either decode or raise T7ReaderError, quickly, and
never crash, hang, or raise anything else."""

import io
import random
import struct
import sys
import time
import types
from pathlib import Path

import pytest

import torch
import torch.legacy
from torch.utils.serialization import (
    LuaFunction,
    LuaTable,
    T7ReaderError,
    TdsHash,
    TdsVec,
    TorchObject,
    load_lua,
    save_lua,
)
from torch.utils.serialization.read_lua_file import NN_FIELDS, NN_VERSIONS

FIXTURES = Path(__file__).resolve().parents[3].parent / "shared" / "fixtures" / "t7"
INPUTS = 12_000
# int32 values that steer a reader into its edge cases: tags, indices, counts, signs
INTERESTING = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 2**31 - 1, -(2**31), 2**16, 255]


def encoded(obj, long_size=8):
    buf = io.BytesIO()
    save_lua(obj, buf, long_size=long_size)
    return buf.getvalue()


def seeds():
    """Lua's own files plus streams written here that reach every payload kind."""
    files = [p.read_bytes() for p in sorted(FIXTURES.glob("*.t7"))]
    t = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    shared = LuaTable(x=1.5)
    files.append(encoded({"t": t, "view": t.t()[1:], "s": shared, "again": shared}))
    files.append(
        encoded([torch.arange(6, dtype=dtype) for dtype in (torch.uint8, torch.int16, torch.int64)])
    )
    files.append(encoded(TdsHash({1: TdsVec([1, "a"]), "f": LuaFunction(b"\x1bLJ", [1])})))
    narrow = TorchObject("nn.Narrow", LuaTable(dimension=2, index=1, length=1, out=t))
    modules = [narrow, TorchObject("nn.Transpose", LuaTable(permutations=[[1, 2]]))]
    modules.append(TorchObject("nn.BatchNormalization", LuaTable(running_std=t[0], eps=0.1)))
    modules.append(TorchObject("nn.View", LuaTable(size=torch.Size([2, 6]))))
    files.append(encoded(TorchObject("nn.Sequential", LuaTable(modules=modules))))
    files.append(encoded({"l": torch.arange(4)}, long_size=4))
    return files


def mutate(data, rng):
    data = bytearray(data)
    kind = rng.randrange(5) if data else 2
    if kind == 0:  # bit flips
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncation
        del data[rng.randrange(len(data)) :]
    elif kind == 2:  # inserted bytes
        i = rng.randrange(len(data) + 1)
        data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    elif kind == 3:  # an aligned int32 overwritten with an edge value
        i = 4 * rng.randrange(max(1, len(data) // 4))
        data[i : i + 4] = struct.pack("<i", rng.choice(INTERESTING))
    else:  # a chunk repeated elsewhere
        i, j = sorted(rng.randrange(len(data) + 1) for _ in range(2))
        k = rng.randrange(len(data) + 1)
        data[k:k] = data[i:j]
    return bytes(data)


@pytest.fixture
def stand_in_legacy_nn(monkeypatch):
    """torch.legacy.nn with a plain class for each module whose fields load_lua rewrites,
    so that mutated nn objects exercise the fix-ups."""
    nn = types.ModuleType("torch.legacy.nn")
    for name in [*NN_FIELDS, *NN_VERSIONS, "View", "Sequential", "Linear", "DepthConcat"]:
        setattr(nn, name, type(name, (), {"__module__": "torch.legacy.nn." + name}))
    monkeypatch.setitem(sys.modules, "torch.legacy.nn", nn)
    monkeypatch.setattr(torch.legacy, "nn", nn, raising=False)


@pytest.mark.slow
def test_mutated_streams_decode_or_raise_t7readererror(stand_in_legacy_nn):
    rng = random.Random(1234)
    corpus = seeds()
    decoded = refused = 0
    slowest = 0.0
    start = time.perf_counter()
    for n in range(INPUTS):
        data = mutate(rng.choice(corpus), rng)
        kwargs = {"unknown_classes": n % 3 != 0, "long_size": 4 if n % 7 == 0 else 8}
        began = time.perf_counter()
        try:
            load_lua(io.BytesIO(data), **kwargs)
            decoded += 1
        except T7ReaderError as e:
            assert "load_lua: at byte" in str(e)
            refused += 1
        slowest = max(slowest, time.perf_counter() - began)
    assert decoded + refused == INPUTS
    assert decoded > INPUTS // 20 and refused > INPUTS // 2  # the mutations reach both paths
    assert slowest < 1.0, f"one input took {slowest:.2f} s"
    assert time.perf_counter() - start < 60
