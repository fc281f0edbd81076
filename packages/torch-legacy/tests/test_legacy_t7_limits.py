"""load_lua on hostile input: nesting depth, class versions and names, and every size,
count and offset from the file checked before it is used.

Streams are packed by hand (fuzz_t7's helpers, following torch7's File.lua) or written with
save_lua; nothing is read from outside this repository.
"""

import contextlib
import io
import math
import random
import struct
import sys

import numpy as np
import pytest
from fuzz_t7 import LEVELS, i32, i64, nested, number, positions, string, torch_header

import torch
import torch.legacy.nn as legacy_nn
from torch.utils.serialization import (
    LuaTable,
    T7ReaderError,
    TorchObject,
    load_lua,
    read_lua_file,
    save_lua,
)
from torch.utils.serialization.read_lua_file import MAX_DEPTH, MAX_TENSOR_DIMS, legacy_nn_classes


def load(data, **kwargs):
    return load_lua(io.BytesIO(data), **kwargs)


def encoded(obj, long_size=8):
    buf = io.BytesIO()
    save_lua(obj, buf, long_size=long_size)
    return buf.getvalue()


def frames():
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


@contextlib.contextmanager
def head_room(n):
    """Python's recursion limit set to allow only ``n`` more frames."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(frames() + n)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def depth_of(obj):
    """How many containers deep ``obj`` goes, walked without recursion."""
    deepest, stack = 0, [(obj, 0)]
    while stack:
        o, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(o, dict):
            stack += [(v, d + 1) for v in o.values()]
        elif isinstance(o, list):
            stack += [(v, d + 1) for v in o]
        elif isinstance(o, TorchObject):
            stack.append((o._fields, d + 1))
        elif isinstance(o, legacy_nn.Module):
            stack.append((vars(o), d + 1))
        elif hasattr(o, "upvalues"):
            stack.append((o.upvalues, d + 1))
    return deepest


# -- 1. nesting depth -----------------------------------------------------------------------

STORAGE_LEAF = torch_header(10**6, "torch.FloatStorage") + i64(1) + struct.pack("<f", 2.0)


@pytest.mark.parametrize("room", [25, 200, None])
@pytest.mark.parametrize("kind", sorted(LEVELS))
def test_each_kind_of_nesting_up_to_and_past_the_limit(kind, room):
    """MAX_DEPTH object levels load; one more, or 100,000 more, raise T7ReaderError naming
    the depth, whatever head-room Python's recursion limit leaves."""
    most = MAX_DEPTH // LEVELS[kind]
    leaf = STORAGE_LEAF if kind == "tensor" else None
    guard = (lambda: head_room(room)) if room else contextlib.nullcontext
    for n in (1, most - 1, most):
        with guard():
            if kind == "tensor":  # a tensor's storage cannot be a tensor: refused, not deep
                if n == 1:
                    assert load(nested([kind] * n, leaf)).tolist() == [2.0]
                else:
                    with pytest.raises(T7ReaderError, match="expected the FloatStorage"):
                        load(nested([kind] * n, leaf))
                continue
            obj = load(nested([kind] * n, leaf), unknown_classes=True)
        assert depth_of(obj) >= n
    for n in (most + 1, most + 2, 100_000):
        data = nested([kind] * n, leaf)
        with guard(), pytest.raises(T7ReaderError, match=f"nested deeper than {MAX_DEPTH} levels"):
            load(data, unknown_classes=True)


def test_mixed_nesting_is_counted_per_object_level():
    rng = random.Random(7)
    kinds = sorted(k for k in LEVELS if k != "tensor")
    for _ in range(60):
        chain = [rng.choice(kinds) for _ in range(rng.randint(60, 200))]
        levels = sum(LEVELS[k] for k in chain)
        data = nested(chain)
        with head_room(40):
            if levels <= MAX_DEPTH:
                load(data, unknown_classes=True)
            else:
                with pytest.raises(T7ReaderError, match=r"level 257 starts here"):
                    load(data, unknown_classes=True)


def test_real_nested_containers_load_to_the_limit():
    """Containers written by save_lua: each nn.Sequential is three levels (the module, its
    field table, its modules list)."""
    model = legacy_nn.Identity()
    for _ in range(MAX_DEPTH // 3 - 1):
        model = legacy_nn.Sequential().add(model)
    data = encoded(model)
    loaded = load(data)
    for _ in range(MAX_DEPTH // 3 - 1):
        assert type(loaded) is legacy_nn.Sequential
        loaded = loaded.modules[0]
    assert type(loaded) is legacy_nn.Identity
    with pytest.raises(T7ReaderError, match="nested deeper"):
        load(nested(["nn"] * (MAX_DEPTH // 3 + 1)))


# -- 2. class versions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "version",
    ["V " + "9" * 4400, "V " + "9" * 10, "V \u0661", "V 1e5", "V -1", "V ", "V  1", "V 1 "],
)
def test_malformed_class_versions_are_refused(version):
    data = torch_header(1, "nn.Linear", version) + i32(0)
    with pytest.raises(T7ReaderError, match="at byte 8: expected a class version 'V <n>'"):
        load(data, unknown_classes=True)


def test_largest_class_version_is_read():
    fields = i32(3) + i32(2) + i32(1) + string("a") + number(1)
    obj = load(torch_header(1, "my.Class", "V 999999999") + fields, unknown_classes=True)
    assert obj._version == 999_999_999 and obj.a == 1


# -- 3. which nn classes map ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["__class__", "__dict__", "__loader__", "__spec__", "__builtins__", "_importlib", "_tables"],
)
def test_nn_names_that_are_not_module_classes_are_unknown(name):
    fields = i32(3) + i32(2) + i32(1) + string("x") + number(1)
    data = torch_header(1, "nn." + name) + fields
    with pytest.raises(T7ReaderError, match="torch.legacy.nn has no such Module or Criterion"):
        load(data)
    obj = load(data, unknown_classes=True)
    assert type(obj) is TorchObject and obj.torch_typename() == "nn." + name and obj.x == 1


def test_every_exported_module_and_criterion_maps():
    classes = legacy_nn_classes()
    assert set(classes) == set(legacy_nn.__all__)
    for name, cls in classes.items():
        assert cls is getattr(legacy_nn, name)
        assert issubclass(cls, (legacy_nn.Module, legacy_nn.Criterion))
    assert {"Linear", "Sequential", "ClassNLLCriterion", "Module", "Criterion"} <= set(classes)


# -- 4. sizes, counts and views -------------------------------------------------------------


class AllocationSpy:
    """Stands in for ``torch`` inside the reader, recording the storages and empty tensors it
    asks for."""

    def __init__(self):
        self.storage_bytes = []
        self.empty_sizes = []

    def __getattr__(self, name):
        return getattr(torch, name)

    def UntypedStorage(self, nbytes):  # noqa: N802 (torch's name)
        self.storage_bytes.append(nbytes)
        return torch.UntypedStorage(nbytes)

    def empty(self, *sizes, **kwargs):
        one = len(sizes) == 1 and isinstance(sizes[0], (list, tuple))
        self.empty_sizes.append(tuple(sizes[0]) if one else sizes)
        return torch.empty(*sizes, **kwargs)


def seed_streams():
    t = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    lua_bn = TorchObject("nn.BatchNormalization", LuaTable(running_std=t[0], eps=0.1), 1)
    objs = [
        ({"t": t, "v": t.t()[1:], "s": [t[1], "x", 2.5, True]}, 8),
        ([torch.arange(5, dtype=torch.int64), torch.ones(2, 3, dtype=torch.float16)], 4),
        (legacy_nn.Sequential().add(legacy_nn.Linear(2, 3)).add(legacy_nn.View(3)), 8),
        (TorchObject("nn.Sequential", LuaTable(modules=[lua_bn])), 8),
    ]
    return [(encoded(obj, n), n) for obj, n in objs]


EDGES_32 = [-1, -(2**31), 2**31 - 1, 2**30, 65]
EDGES_64 = EDGES_32 + [2**40, 2**62, 2**63 - 1, -(2**63)]


def test_forged_ints_never_size_an_allocation_past_the_file(monkeypatch):
    """Every int the reader reads (tags, indices, counts, lengths, sizes, strides, offsets) of
    a few streams overwritten with edge values: each load decodes or raises T7ReaderError,
    and no storage or storage-less tensor it allocates is larger than the file allows."""
    spy = AllocationSpy()
    monkeypatch.setattr(read_lua_file, "torch", spy)
    tried = 0
    for data, long_size in seed_streams():
        ints, _ = positions(data, long_size)
        for pos, size in ints:
            for value in EDGES_32 if size == 4 else EDGES_64:
                forged = bytearray(data)
                forged[pos : pos + size] = i32(value) if size == 4 else i64(value)
                spy.storage_bytes.clear()
                spy.empty_sizes.clear()
                try:
                    load(bytes(forged), long_size=long_size, unknown_classes=True)
                except T7ReaderError:
                    pass
                # 8-byte longs from a file of 4-byte ones are the only growth
                assert all(n <= 2 * len(forged) for n in spy.storage_bytes), (pos, value)
                assert all(math.prod(s) == 0 for s in spy.empty_sizes), (pos, value)
                tried += 1
    assert tried > 1000


def float_tensor(sizes, strides, offset, storage):
    """A torch.FloatTensor (index 1) with these fields (offset 1-based) and storage bytes."""
    head = torch_header(1, "torch.FloatTensor") + i32(len(sizes))
    return head + b"".join(map(i64, [*sizes, *strides, offset])) + storage


def float_storage(n, values=None, index=2):
    values = list(range(n)) if values is None else values
    return torch_header(index, "torch.FloatStorage") + i64(n) + struct.pack(f"<{n}f", *values)


@pytest.mark.parametrize(
    "sizes, strides, offset, n, message",
    [
        ((3,), (2,), 2, 5, "inside its storage of 5"),  # reaches element 5: past it
        ((4,), (1,), 3, 5, "inside its storage of 5"),
        ((2, 2), (2**61, 2**61), 1, 5, "inside its storage"),  # reach past 2**62
        ((0,), (1,), 7, 5, "inside its storage of 5"),  # empty, starting past the end
        ((2**62,), (0,), 1, 1, "sizes and strides"),
        ((2**31, 2**31), (0, 0), 1, 1, "sizes and strides"),  # 2**62 elements
        ((3,), (2**62,), 1, 5, "sizes and strides"),
        ((3,), (-1,), 3, 5, "sizes and strides"),  # torch has no negative strides
        ((-3,), (1,), 1, 5, "sizes and strides"),
        ((2,), (1,), 0, 5, "1-based storage offset"),
        ((2,), (1,), -(2**63), 5, "1-based storage offset"),
        ((2,), (1,), 2**63 - 1, 5, "1-based storage offset"),
    ],
)
def test_views_outside_their_storage_are_refused(sizes, strides, offset, n, message):
    data = float_tensor(sizes, strides, offset, float_storage(n))
    with pytest.raises(T7ReaderError, match=message):
        load(data)


def test_views_at_the_edges_of_their_storage():
    assert load(float_tensor((3,), (2,), 1, float_storage(5))).tolist() == [0.0, 2.0, 4.0]
    assert load(float_tensor((2,), (1,), 4, float_storage(5))).tolist() == [3.0, 4.0]
    empty_at_end = load(float_tensor((0,), (1,), 6, float_storage(5)))
    assert empty_at_end.shape == (0,) and empty_at_end.storage_offset() == 5
    expanded = load(float_tensor((4, 3), (0, 1), 3, float_storage(5)))
    np.testing.assert_array_equal(expanded.numpy(), [[2.0, 3.0, 4.0]] * 4)
    assert expanded.stride() == (0, 1)


def test_storage_less_tensors_must_be_empty_with_a_small_extent():
    # size-0 dimensions count as 1 in the extent the core computes strides from
    huge = float_tensor((0, 2**40, 2**40), (1, 1, 1), 1, i32(0))
    with pytest.raises(T7ReaderError, match="sizes and strides"):
        load(huge)
    assert load(float_tensor((0, 2**20), (1, 1), 1, i32(0))).shape == (0, 2**20)
    with pytest.raises(T7ReaderError, match="expected the FloatStorage"):
        load(float_tensor((2,), (1,), 1, i32(0)))


def test_dimension_count_is_capped():
    ones = [1] * MAX_TENSOR_DIMS
    assert load(float_tensor(ones, ones, 1, float_storage(1))).dim() == MAX_TENSOR_DIMS
    ones.append(1)
    with pytest.raises(T7ReaderError, match=f"at most {MAX_TENSOR_DIMS} dimensions, got 65"):
        load(float_tensor(ones, ones, 1, float_storage(1)))


@pytest.mark.parametrize("count", [2**40, 2**62, 2**63 - 1, -1])
@pytest.mark.parametrize("name", ["torch.FloatStorage", "torch.LongStorage", "torch.ByteStorage"])
def test_storage_counts_past_the_file_are_refused(name, count):
    data = torch_header(1, name) + i64(count) + bytes(64)
    with pytest.raises(T7ReaderError, match="element count of a storage"):
        load(data)


@pytest.mark.parametrize(
    "data, message",
    [
        (torch_header(1, "tds.Hash", "V 0") + i64(2**62), "entry count of a tds.Hash"),
        (torch_header(1, "tds.Vec", "V 0") + i64(-1), "length of a tds.Vec"),
        (i32(3) + i32(1) + i32(-(2**31)), "pair count of a table"),
        (i32(2) + i32(2**31 - 1), "length of a string"),
        (i32(4) + i32(1) + i32(2**31 - 1), "length of a class version"),
        (i32(6) + i32(2**30), "bytecode"),
        (torch_header(1, "torch.FloatTensor") + i32(-1), "dimension count of a tensor"),
    ],
)
def test_forged_counts_are_refused(data, message):
    with pytest.raises(T7ReaderError, match=message):
        load(data)


@pytest.fixture
def conv_map(monkeypatch):
    """A stand-in nn.SpatialConvolutionMap (torch.legacy.nn has none) to reach its fix-up."""
    cls = type("SpatialConvolutionMap", (legacy_nn.Module,), {})
    monkeypatch.setattr(legacy_nn, "SpatialConvolutionMap", cls, raising=False)
    return cls


def expanded_tensor(n, index):
    """A FloatTensor of n elements viewing a 1-element storage with stride 0."""
    head = torch_header(index, "torch.FloatTensor") + i32(1)
    return head + i64(n) + i64(0) + i64(1) + float_storage(1, [2.0], index + 1)


def lua_object(name, fields, version=1):
    """nn.<name> (index 1) whose field table (index 2) holds these (key, value bytes)."""
    body = b"".join(string(k) + v for k, v in fields)
    return torch_header(1, "nn." + name, f"V {version}") + i32(3) + i32(2) + i32(len(fields)) + body


def test_fixups_refuse_expanded_tensors(conv_map):
    """A fix-up computes with the tensor: an expanded view must not make it allocate 2**40
    elements."""
    data = lua_object("SpatialConvolutionMap", [("connTable", expanded_tensor(2**40, 3))])
    message = "'connTable' of nn.SpatialConvolutionMap has 1099511627776 elements"
    with pytest.raises(T7ReaderError, match=message):
        load(data)
    small = lua_object("SpatialConvolutionMap", [("connTable", expanded_tensor(1, 3))])
    assert load(small).connTable.tolist() == [1.0]
    bn = lua_object("BatchNormalization", [("running_std", expanded_tensor(2**40, 3))], 1)
    with pytest.raises(T7ReaderError, match="running_std"):
        load(bn)


def test_batchnorm_eps_must_be_a_number():
    std = torch_header(3, "torch.FloatTensor") + i32(1) + i64(1) + i64(1) + i64(1)
    std += float_storage(1, [0.5], 4)
    eps = torch_header(5, "torch.FloatTensor") + i32(2) + i64(2**20) + i64(1) + i64(0) + i64(0)
    eps += i64(1) + float_storage(1, [0.1], 6)
    data = lua_object("BatchNormalization", [("running_std", std), ("eps", eps)], 1)
    with pytest.raises(T7ReaderError, match="eps of nn.BatchNormalization must be a number"):
        load(data)
