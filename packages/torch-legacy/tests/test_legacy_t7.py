"""torch.utils.serialization: Lua torch7 .t7 files read (load_lua) and written (save_lua).

Oracles: files written by Lua torch7 (tests/fixtures/t7, decodes from its README), bytes
packed here by hand with struct following torch7's File.lua, and NumPy for tensor values.
"""

import hashlib
import io
import math
import struct
import sys
import types
from pathlib import Path

import numpy as np
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

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "t7"  # copies, with their licence


def fixture(name):
    return FIXTURES / name


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    save_lua(obj, buf)
    return load_lua(io.BytesIO(buf.getvalue()), **load_kwargs)


def encoded(obj, long_size=8):
    buf = io.BytesIO()
    save_lua(obj, buf, long_size=long_size)
    return buf.getvalue()


# -- hand-packed torch7 bytes (File.lua's layout) -------------------------------------------


def i32(n):
    return struct.pack("<i", n)


def i64(n):
    return struct.pack("<q", n)


def lua_string(s):
    return i32(len(s)) + s.encode()


def lua_number(x):
    return i32(1) + struct.pack("<d", x)


def torch_header(index, name, version="V 1"):
    return i32(4) + i32(index) + lua_string(version) + lua_string(name)


def float_storage(index, values):
    return (
        torch_header(index, "torch.FloatStorage")
        + i64(len(values))
        + struct.pack(f"<{len(values)}f", *values)
    )


def float_tensor(index, sizes, strides, offset1, storage_bytes):
    head = torch_header(index, "torch.FloatTensor") + i32(len(sizes))
    return head + b"".join(map(i64, (*sizes, *strides, offset1))) + storage_bytes


# -- the fixtures ---------------------------------------------------------------------------


def check_hello(obj):
    assert obj == {"hello": 123} and type(obj["hello"]) is int


def check_list_table(obj):
    assert obj == ["hello", "world", "third item", 123]


def check_map_table1(obj):
    assert isinstance(obj, dict)
    assert obj == {0: "zero", 1: "hello", 2: "world", 3: "third item", 4: 123}


def check_map_table2(obj):
    assert isinstance(obj, dict)
    assert obj == {1: "hello", 2: "world", 3: "third item", 4: 123, "a": "non number key"}


def check_recursive_kv(obj):
    (key,) = obj.keys()
    assert key is obj and obj[key] is obj


def check_custom_class(obj):
    assert isinstance(obj, TorchObject) and obj.torch_typename() == "Blah"
    assert len(obj._fields) == 0 and obj._version == 1


def check_recursive_class(obj):
    assert obj.torch_typename() == "A" and obj.a is obj


def check_doubletensor(obj):
    assert obj.dtype == torch.float64 and obj.shape == (2, 3)
    assert obj.stride() == (3, 1) and obj.storage_offset() == 0
    np.testing.assert_array_equal(obj.numpy(), [[1, 2, 3], [4, 5, 6.9]])


def check_floattensor(obj):
    assert obj.dtype == torch.float32 and obj.shape == (2, 3, 4) and obj.stride() == (12, 4, 1)
    values = obj.numpy().astype(np.float64)
    assert math.isclose(values.sum(), 12.97241666913, abs_tol=1e-5)
    assert math.isclose(values.flat[0], 0.86353117, abs_tol=1e-7)


def check_function(obj):
    assert isinstance(obj, LuaFunction) and len(obj.dumped) == 218
    assert obj.dumped.startswith(b"\x1bLJ")  # LuaJIT bytecode
    assert obj.upvalues == []


def check_function_upvals(obj):
    assert isinstance(obj, LuaFunction) and len(obj.dumped) == 89
    assert obj.upvalues == [{"name": "asdf", "value": 123}]


def check_tds_hash(obj):
    assert isinstance(obj, TdsHash) and obj == {2: 3, 10: 11, 1: 2}


def check_tds_vec(obj):
    assert isinstance(obj, TdsVec) and obj == [123, 456]


def check_nngraph_node(obj):
    assert obj.torch_typename() == "nngraph.Node"
    assert obj.id == 0 and obj.visited is False and obj.marked is False
    assert obj.children == []
    assert obj.data["annotations"]["hello"] == 123
    assert isinstance(obj.data["annotations"]["_debugLabel"], str)
    assert obj.data["mapindex"] == []


EXPECTED = {
    "hello=123.t7": check_hello,
    "list_table.t7": check_list_table,
    "map_table1.t7": check_map_table1,
    "map_table2.t7": check_map_table2,
    "recursive_kv_table.t7": check_recursive_kv,
    "custom_class.t7": check_custom_class,
    "recursive_class.t7": check_recursive_class,
    "doubletensor.t7": check_doubletensor,
    "floattensor.t7": check_floattensor,
    "function.t7": check_function,
    "function_upvals.t7": check_function_upvals,
    "tds_hash.t7": check_tds_hash,
    "tds_vec.t7": check_tds_vec,
    "nngraph_node.t7": check_nngraph_node,
}


def test_every_fixture_has_an_expected_decode():
    assert FIXTURES.is_dir(), f"fixtures not found at {FIXTURES}"
    assert {p.name for p in FIXTURES.glob("*.t7")} == set(EXPECTED)


def test_fixtures_match_readme_sha256():
    readme = (FIXTURES / "README.md").read_text()
    for name in EXPECTED:
        digest = hashlib.sha256(fixture(name).read_bytes()).hexdigest()
        assert f"{digest}  {name}" in readme


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_decodes_as_readme_says(name):
    EXPECTED[name](load_lua(fixture(name), unknown_classes=True))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_reencodes_byte_for_byte(name):
    # save_lua writes what Lua's torch.save wrote: same tags, indices, order and payloads
    data = fixture(name).read_bytes()
    assert encoded(load_lua(io.BytesIO(data), unknown_classes=True)) == data


def test_path_and_file_object_give_the_same():
    with open(fixture("map_table2.t7"), "rb") as f:
        assert load_lua(f) == load_lua(str(fixture("map_table2.t7")))


def test_heuristics_can_be_turned_off():
    plain = load_lua(fixture("list_table.t7"), list_heuristic=False, int_heuristic=False)
    assert isinstance(plain, LuaTable)
    assert plain == {1.0: "hello", 2.0: "world", 3.0: "third item", 4.0: 123.0}
    assert type(plain[4]) is float


@pytest.mark.parametrize("name", ["custom_class.t7", "recursive_class.t7", "nngraph_node.t7"])
def test_unknown_class_names_the_class(name):
    with pytest.raises(T7ReaderError, match="unknown_classes=True") as e:
        load_lua(fixture(name))
    assert repr(load_lua(fixture(name), unknown_classes=True).torch_typename()) in str(e.value)


# -- hand-packed streams ----------------------------------------------------------------------


def test_tensor_with_storage_offset_and_strides():
    values = [float(v) for v in range(10)]
    # size (2,2), stride (1,3), 1-based offset 3: elements 2,5 / 3,6 of the storage
    data = float_tensor(1, (2, 2), (1, 3), 3, float_storage(2, values))
    t = load_lua(io.BytesIO(data))
    expected = np.lib.stride_tricks.as_strided(np.array(values, np.float32)[2:], (2, 2), (4, 12))
    np.testing.assert_array_equal(t.numpy(), expected)
    assert t.storage_offset() == 2 and t.stride() == (1, 3)


def test_tensors_sharing_a_storage_index_are_views_of_one_storage():
    storage = float_storage(3, [1.0, 2.0, 3.0, 4.0])
    a = float_tensor(2, (4,), (1,), 1, storage)
    b = float_tensor(4, (2,), (2,), 2, i32(4) + i32(3))  # a reference to storage index 3
    data = i32(3) + i32(1) + i32(2) + lua_number(1) + a + lua_number(2) + b
    x, y = load_lua(io.BytesIO(data))
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    x[1] = 20.0
    assert y[0].item() == 20.0
    assert x.untyped_storage()._key() == y.untyped_storage()._key()


def test_cuda_classes_read_as_cpu_tensors():
    storage = torch_header(2, "torch.CudaStorage") + i64(2) + struct.pack("<2f", 1.5, 2.5)
    data = torch_header(1, "torch.CudaTensor") + i32(1) + i64(2) + i64(1) + i64(1) + storage
    t = load_lua(io.BytesIO(data))
    assert t.dtype == torch.float32 and t.tolist() == [1.5, 2.5]


def test_class_without_version_string_is_version_0():
    # files older than versioning start directly with the class name
    data = i32(4) + i32(1) + lua_string("torch.IntStorage") + i64(2) + i32(7) + i32(-8)
    s = load_lua(io.BytesIO(data))
    assert isinstance(s, torch.IntStorage) and s.tolist() == [7, -8]


def test_plain_function_tag_has_no_index():
    data = i32(6) + lua_string("\x1bLJbytes") + i32(3) + i32(1) + i32(0)
    f = load_lua(io.BytesIO(data))
    assert isinstance(f, LuaFunction) and f.dumped == b"\x1bLJbytes" and f.upvalues == []


def test_boolean_and_nil_and_strings():
    data = (
        i32(3) + i32(1) + i32(3)
        + lua_number(1) + i32(5) + i32(1)
        + lua_number(2) + i32(5) + i32(0)
        + lua_number(3) + i32(2) + i32(2) + b"\xff\xfe"
    )  # fmt: skip
    assert load_lua(io.BytesIO(data)) == [True, False, b"\xff\xfe"]  # non-UTF-8 stays bytes
    assert load_lua(io.BytesIO(i32(0))) is None


def test_long_size_4_files():
    data = torch_header(1, "torch.LongTensor") + i32(2)
    data += b"".join(map(i32, (2, 2, 2, 1, 1)))  # sizes, strides and offset as 4-byte longs
    data += torch_header(2, "torch.LongStorage") + i32(4) + struct.pack("<4i", 1, -2, 3, 2**31 - 1)
    t = load_lua(io.BytesIO(data), long_size=4)
    assert t.dtype == torch.int64 and t.tolist() == [[1, -2], [3, 2**31 - 1]]
    assert encoded(t, long_size=4) == data
    assert roundtrip(t).tolist() == t.tolist()
    with pytest.raises(ValueError, match="long_size"):
        load_lua(io.BytesIO(data), long_size=2)


# -- round trips ------------------------------------------------------------------------------

DTYPES = [
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float32,
    torch.float64,
    torch.float16,
]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_tensor_roundtrip_every_type(dtype):
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6) * 3 - 7
    if dtype == torch.uint8:
        base = base.abs()
    t = base.to(dtype)
    view = t.t()[1:, ::2]  # strided, with an offset
    loaded_t, loaded_view = roundtrip([t, view])
    for orig, got in ((t, loaded_t), (view, loaded_view)):
        assert got.dtype == dtype and got.shape == orig.shape and got.stride() == orig.stride()
        assert got.storage_offset() == orig.storage_offset()
        np.testing.assert_array_equal(got.numpy(), orig.numpy())
    loaded_view[0, 0] = 99  # still a view of the one loaded storage
    assert loaded_t[0, 1].item() == 99


def test_storage_is_written_once_for_all_its_tensors():
    t = torch.arange(12, dtype=torch.float32)
    data = encoded(
        {"a": t[:6], "b": t.view(3, 4), "c": torch.FloatStorage(wrap_storage=t.untyped_storage())}
    )
    assert data.count(b"torch.FloatStorage") == 1
    out = roundtrip({"a": t[:6], "s": torch.FloatStorage(wrap_storage=t.untyped_storage())})
    assert out["a"].untyped_storage()._key() == out["s"].untyped()._key()
    assert out["s"].tolist() == t.tolist()


def test_tables_keep_sharing_and_cycles():
    shared = {"x": 1.5}
    top = {"first": shared, "second": shared, "nums": [1, 2, 3]}
    top["self"] = top
    out = roundtrip(top)
    assert out["first"] is out["second"] and out["first"] == {"x": 1.5}
    assert out["self"] is out and out["nums"] == [1, 2, 3]


def test_list_containing_itself_stays_a_table():
    lst = [1]
    lst.append(lst)
    out = roundtrip(lst)
    # it is read as a table, then referenced from inside: it stays the one LuaTable
    assert isinstance(out, LuaTable) and out[1] == 1 and out[2] is out


def test_table_keys_that_are_tables():
    key = LuaTable(k=1)  # a LuaTable hashes by identity, as Lua tables do
    out = roundtrip({key: "v", "again": key})
    (k,) = (k for k in out if k != "again")
    assert k == {"k": 1} and out[k] == "v" and out["again"] is k


def test_none_values_are_written_as_nil():
    # table 1 with one pair: the string "a", then nil. Lua's reader assigns t.a = nil (no
    # entry); load_lua keeps the key with None
    assert encoded({"a": None}) == i32(3) + i32(1) + i32(1) + i32(2) + lua_string("a") + i32(0)
    assert roundtrip({"a": None, "b": 2}) == {"a": None, "b": 2}
    assert roundtrip([1, None, 3]) == [1, None, 3]


def test_scalar_and_empty_tensors():
    assert roundtrip(torch.tensor(2.5)).tolist() == [2.5]
    empty = roundtrip(torch.zeros(0, 3, dtype=torch.int32))
    assert empty.dtype == torch.int32 and empty.numel() == 0


def test_size_is_a_long_storage():
    out = roundtrip(torch.Size([2, 3]))
    assert isinstance(out, torch.LongStorage) and out.tolist() == [2, 3]


def test_tds_and_functions_roundtrip():
    h = TdsHash({1: "a", "b": TdsVec([1, 2])})
    out = roundtrip([h, LuaFunction(b"\x1bLJcode", [7])])
    assert isinstance(out[0], TdsHash) and out[0] == {1: "a", "b": [1, 2]}
    assert isinstance(out[0]["b"], TdsVec)
    assert out[1].dumped == b"\x1bLJcode" and out[1].upvalues == [7]


def test_save_to_path(tmp_path):
    save_lua({"w": torch.ones(2)}, tmp_path / "m.t7")
    assert load_lua(tmp_path / "m.t7")["w"].tolist() == [1.0, 1.0]


def test_unwritable_objects_raise():
    with pytest.raises(TypeError, match="torch.bool"):
        save_lua(torch.ones(2, dtype=torch.bool), io.BytesIO())
    with pytest.raises(TypeError, match="set"):
        save_lua({1, 2}, io.BytesIO())
    with pytest.raises(ValueError, match="Lua number"):
        save_lua(2**60 + 1, io.BytesIO())
    with pytest.raises(ValueError, match="long"):
        save_lua(torch.tensor([2**40]), io.BytesIO(), long_size=4)


def test_unwritable_field_of_a_torch_object_is_skipped_with_a_warning():
    obj = TorchObject("my.Class", LuaTable({"keep": 1, "drop": object()}))
    with pytest.warns(UserWarning, match="'drop' of my.Class"):
        out = roundtrip(obj, unknown_classes=True)
    assert out._fields == {"keep": 1}


# -- nn objects ---------------------------------------------------------------------------------


@pytest.fixture
def fake_legacy_nn(monkeypatch):
    """A stand-in torch.legacy.nn holding plain classes, to test the class mapping and the
    index fix-ups apart from the modules' own behaviour."""
    nn = types.ModuleType("torch.legacy.nn")
    nn.Module = type("Module", (), {"__module__": "torch.legacy.nn.Module"})
    for name in ("Narrow", "JoinTable", "Transpose", "ReLU", "Sequential", "BatchNormalization"):
        setattr(nn, name, type(name, (nn.Module,), {"__module__": "torch.legacy.nn." + name}))
    nn.helper = lambda: None  # exported, but neither a Module nor a Criterion
    monkeypatch.setitem(sys.modules, "torch.legacy.nn", nn)
    monkeypatch.setattr(torch.legacy, "nn", nn, raising=False)
    return nn


def lua_module(name, version=1, **fields):
    """The bytes Lua writes for nn.<name> with these (Lua-side) fields."""
    return encoded(TorchObject("nn." + name, LuaTable(fields), version))


@pytest.mark.parametrize(
    "name, lua_fields, python_fields",
    [
        ("Narrow", {"dimension": 2, "index": 3, "length": 1}, {"dimension": 1, "index": 2}),
        ("JoinTable", {"dimension": 2, "nInputDims": 1}, {"dimension": 1}),
        ("JoinTable", {"dimension": -1}, {"dimension": -1}),  # negative: counted from the end
        ("Transpose", {"permutations": [[1, 2], [3, 4]]}, {"permutations": [[0, 1], [2, 3]]}),
        ("ReLU", {"val": 0, "threshold": 0}, {"value": 0}),
    ],
)
def test_nn_fields_become_0_based_and_back(fake_legacy_nn, name, lua_fields, python_fields):
    lua_bytes = lua_module(name, **lua_fields)
    module = load_lua(io.BytesIO(lua_bytes))
    assert type(module) is getattr(fake_legacy_nn, name)
    for key, value in python_fields.items():
        assert getattr(module, key) == value
    assert encoded(module) == lua_bytes  # written back 1-based, with Lua's names


def test_nn_container_keeps_shared_children(fake_legacy_nn):
    weight = torch.ones(2, 2)
    narrow = TorchObject("nn.Narrow", LuaTable(dimension=1, index=1, length=1, w=weight))
    seq = TorchObject("nn.Sequential", LuaTable(modules=[narrow, narrow], w=weight))
    model = load_lua(io.BytesIO(encoded(seq)))
    first, second = model.modules
    assert first is second and type(first) is fake_legacy_nn.Narrow and first.dimension == 0
    assert first.w.untyped_storage()._key() == model.w.untyped_storage()._key()


def test_batchnorm_version_1_running_std_becomes_running_var(fake_legacy_nn):
    std = torch.tensor([0.5, 2.0], dtype=torch.float64)
    data = lua_module("BatchNormalization", version=1, running_std=std, eps=0.1)
    bn = load_lua(io.BytesIO(data))
    np.testing.assert_allclose(bn.running_var.numpy(), 1 / np.array([0.5, 2.0]) ** 2 - 0.1)
    assert not hasattr(bn, "running_std")
    assert b"V 2" in encoded(bn)  # written at Lua's current version


def test_nn_class_missing_from_legacy_nn(fake_legacy_nn):
    data = lua_module("NoSuchModule", foo=1)
    with pytest.raises(T7ReaderError, match="'nn.NoSuchModule'.*torch.legacy.nn has no"):
        load_lua(io.BytesIO(data))
    obj = load_lua(io.BytesIO(data), unknown_classes=True)
    assert obj.torch_typename() == "nn.NoSuchModule" and obj.foo == 1


@pytest.mark.parametrize("name", ["helper", "Module", "__class__", "__dict__"])
def test_only_module_subclasses_map(fake_legacy_nn, name):
    data = lua_module(name, foo=1)
    if name == "Module":  # the base class is a Module too
        assert type(load_lua(io.BytesIO(data))) is fake_legacy_nn.Module
        return
    with pytest.raises(T7ReaderError, match="has no such Module or Criterion"):
        load_lua(io.BytesIO(data))


def test_refused_nn_class(fake_legacy_nn):
    with pytest.raises(T7ReaderError, match="SpatialContrastiveNormalization"):
        load_lua(io.BytesIO(lua_module("SpatialContrastiveNormalization")), unknown_classes=True)


# -- bad input ----------------------------------------------------------------------------------


def test_every_truncation_names_the_offset():
    data = fixture("floattensor.t7").read_bytes()
    for n in range(len(data)):
        with pytest.raises(T7ReaderError, match=r"at byte \d+: expected"):
            load_lua(io.BytesIO(data[:n]))


@pytest.mark.parametrize(
    "data, message",
    [
        (i32(9), r"at byte 0: expected a type tag \(0 to 8\), got 9"),
        (i32(5) + i32(7), "expected a boolean"),
        (i32(2) + i32(-1), r"expected the length of a string from 0 to 0 \(0 bytes left\), got -1"),
        (
            i32(2) + i32(2**31 - 1) + b"ab",
            r"string from 0 to 2 \(2 bytes left\), got 2147483647",
        ),
        (i32(3) + i32(1) + i32(2**31 - 1), "pair count of a table from 0 to 0 .*got 2147483647"),
        (torch_header(1, "torch.FloatStorage") + i64(2**60), "element count of a storage"),
        (torch_header(1, "torch.FloatTensor") + i32(2**30), "dimension count of a tensor"),
        (torch_header(1, "tds.Vec", "V 0") + i64(2**40), "length of a tds.Vec"),
        (i32(8) + i32(1) + i32(10**6), "bytecode"),
    ],
)
def test_forged_counts_raise_before_allocating(data, message):
    with pytest.raises(T7ReaderError, match=message):
        load_lua(io.BytesIO(data))


def test_tensor_reaching_past_its_storage():
    data = float_tensor(1, (3,), (2,), 1, float_storage(2, [1.0, 2.0, 3.0]))
    with pytest.raises(T7ReaderError, match="expected a torch.FloatTensor inside its storage of 3"):
        load_lua(io.BytesIO(data))
    huge = float_tensor(1, (2**40, 2**40), (0, 0), 1, float_storage(2, [1.0]))
    with pytest.raises(T7ReaderError, match=r"at byte 40: expected the sizes and strides"):
        load_lua(io.BytesIO(huge))


def test_empty_tensor_with_a_forged_size():
    data = float_tensor(1, (2**60, 0), (1, 1), 1, i32(0))  # no elements, no storage
    t = load_lua(io.BytesIO(data))  # an empty tensor may have huge dims, as in PyTorch
    assert t.shape == (2**60, 0) and t.numel() == 0
    data = float_tensor(1, (2**62, 4, 0), (1, 1, 1), 1, i32(0))  # the count overflows int64
    with pytest.raises(T7ReaderError):
        load_lua(io.BytesIO(data))


def test_tensor_with_a_storage_of_another_type():
    storage = torch_header(2, "torch.IntStorage") + i64(1) + i32(1)
    data = torch_header(1, "torch.FloatTensor") + i32(1) + i64(1) + i64(1) + i64(1) + storage
    with pytest.raises(T7ReaderError, match="expected the FloatStorage of a torch.FloatTensor"):
        load_lua(io.BytesIO(data))


def test_deep_nesting_is_refused_not_a_recursion_error():
    depth = 5000
    data = b"".join(i32(3) + i32(i + 1) + i32(1) + lua_number(1) for i in range(depth)) + i32(0)
    with pytest.raises(T7ReaderError, match="nested deeper"):
        load_lua(io.BytesIO(data))


# -- real torch.legacy.nn modules -------------------------------------------------------------


def test_legacy_sequential_roundtrip_computes_the_same():
    import torch.legacy.nn as nn

    torch.manual_seed(0)
    model = nn.Sequential().add(nn.Linear(4, 6)).add(nn.ReLU()).add(nn.View(2, 3))
    model.add(nn.Narrow(1, 1, 2)).add(nn.Transpose((0, 1))).add(nn.Sum(0)).add(nn.Dropout(0.3))
    model.evaluate()
    x = torch.randn(4)
    model.forward(x)
    loaded = roundtrip(model)
    assert loaded.output is loaded.modules[-1].output  # Sequential's alias survives
    assert [type(m) for m in loaded.modules] == [type(m) for m in model.modules]
    np.testing.assert_allclose(loaded.forward(x).numpy(), model.forward(x).numpy())
    linear = loaded.modules[0]
    np.testing.assert_array_equal(linear.weight.numpy(), model.modules[0].weight.numpy())


def test_lua_written_linear_loads_as_legacy_linear():
    import torch.legacy.nn as nn

    weight = torch.arange(6, dtype=torch.float64).reshape(2, 3) / 10
    bias = torch.tensor([0.5, -1.0], dtype=torch.float64)
    fields = LuaTable(
        weight=weight,
        bias=bias,
        gradWeight=torch.zeros(2, 3, dtype=torch.float64),
        gradBias=torch.zeros(2, dtype=torch.float64),
        output=torch.zeros(0, dtype=torch.float64),
        gradInput=torch.zeros(0, dtype=torch.float64),
        _type="torch.DoubleTensor",
    )
    linear = load_lua(io.BytesIO(encoded(TorchObject("nn.Linear", fields))))
    assert type(linear) is nn.Linear
    x = np.array([1.0, 2.0, -3.0])
    out = linear.forward(torch.from_numpy(x))
    np.testing.assert_allclose(out.numpy(), weight.numpy() @ x + bias.numpy())
    # Lua leaves out a nil bias: the loaded module has bias None and still works
    del fields["bias"], fields["gradBias"]
    no_bias = load_lua(io.BytesIO(encoded(TorchObject("nn.Linear", fields))))
    assert no_bias.bias is None
    np.testing.assert_allclose(no_bias.forward(torch.from_numpy(x)).numpy(), weight.numpy() @ x)


def test_lua_written_sequential_with_lua_field_names():
    import torch.legacy.nn as nn

    def lua(name, **fields):
        empty = torch.zeros(0, dtype=torch.float64)
        fields.update(output=empty, gradInput=empty, _type="torch.DoubleTensor")
        return TorchObject("nn." + name, LuaTable(fields))

    weight = torch.arange(12, dtype=torch.float64).reshape(6, 2) / 10 - 0.5
    linear = lua("Linear", weight=weight, bias=torch.zeros(6, dtype=torch.float64))
    relu = lua("ReLU", threshold=0, val=0, inplace=False)  # Lua's field names
    view = lua("View", size=torch.Size([3, 2]), numElements=6)  # size: a LongStorage
    narrow = lua("Narrow", dimension=2, index=2, length=1)  # 1-based: the second column
    seq = lua("Sequential", modules=[linear, relu, view, narrow], train=False)
    model = load_lua(io.BytesIO(encoded(seq)))
    assert [type(m) for m in model.modules] == [nn.Linear, nn.ReLU, nn.View, nn.Narrow]
    assert model.modules[2].size == (3, 2) and model.modules[3].index == 1
    x = np.array([1.0, -2.0])
    expected = np.maximum(weight.numpy() @ x, 0).reshape(3, 2)[:, 1:2]
    np.testing.assert_allclose(model.forward(torch.from_numpy(x)).numpy(), expected)
