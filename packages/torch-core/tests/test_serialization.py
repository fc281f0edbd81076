"""torch.save / torch.load: round trips, sharing, PyTorch's files, safety, corrupt input."""

import collections
import copy
import copyreg
import io
import os
import pathlib
import pickle
import pickletools
import random
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

import torch

HERE = pathlib.Path(__file__).parent / "checkpoints"
DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32", "int64",
          "bool", "complex64", "complex128"]  # fmt: skip


def expected(dtype, shape):
    """The values make_fixtures.py wrote, computed with NumPy (bfloat16 as float32)."""
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    if dtype == "bool":
        return x % 3 == 0
    if dtype in ("uint8", "int8"):
        return (x % 100).astype(dtype)
    if dtype.startswith("complex"):
        return (x * 0.5 - 3 + 1j * (x * 0.25)).astype(dtype)
    if dtype.startswith("float") or dtype == "bfloat16":
        return x * 0.5 - 3
    return (x * 7 - 11).astype(dtype)


def as_numpy(t):
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def bits(t):
    """The raw bytes of a tensor's elements, in logical order (for bit-exact checks)."""
    return bytes(memoryview(t.contiguous().untyped_storage()))[: t.numel() * t.element_size()]


def roundtrip(obj, **load_args):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_args)


# ---------------------------------------------------------------- round trips
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips_bit_exactly(dtype):
    t = torch.tensor(expected(dtype, (3, 4)).tolist(), dtype=getattr(torch, dtype))
    if t.dtype.is_floating_point or t.dtype.is_complex:
        t = t / 3  # values that use every mantissa bit
    r = roundtrip(t)
    assert r.dtype == t.dtype and r.shape == t.shape and bits(r) == bits(t)


@pytest.mark.parametrize(
    "make",
    [
        lambda b: b,
        lambda b: b.t(),
        lambda b: b[1:, 2:],
        lambda b: b[:, ::2],
        lambda b: b[2, 3],
        lambda b: b[:0],
        lambda b: b.expand(2, 4, 6),
    ],  # fmt: skip
    ids=["contiguous", "transposed", "offset", "strided", "0-d", "empty", "expanded"],
)
def test_layouts_come_back_with_their_strides(make):
    t = make(torch.arange(24.0).reshape(4, 6))
    r = roundtrip(t)
    assert r.shape == t.shape and r.stride() == t.stride()
    assert r.storage_offset() == t.storage_offset()
    np.testing.assert_array_equal(r.numpy(), t.numpy())


def test_views_share_one_storage_after_loading():
    base = torch.arange(12.0).reshape(3, 4)
    r = roundtrip({"base": base, "row": base[1], "col": base[:, 2], "other": torch.ones(2)})
    r["base"][1, 2] = 100.0
    assert r["row"][2].item() == 100.0 and r["col"][1].item() == 100.0
    assert r["row"].untyped_storage().data_ptr() == r["base"].untyped_storage().data_ptr()
    assert r["other"].untyped_storage().data_ptr() != r["base"].untyped_storage().data_ptr()


def test_shared_storage_is_written_once():
    base = torch.zeros(1000)
    buf1, buf2 = io.BytesIO(), io.BytesIO()
    torch.save([base], buf1)
    torch.save([base, base[10:], base[:5], base], buf2)
    assert len(zipfile.ZipFile(buf2).namelist()) == len(zipfile.ZipFile(buf1).namelist())
    assert abs(len(buf2.getvalue()) - len(buf1.getvalue())) < 1000  # not another 4000 bytes


def test_nested_containers_and_plain_values():
    obj = {
        "sd": collections.OrderedDict(w=torch.ones(2, 2), b=torch.zeros(2)),
        "list": [1, 2.5, "x", None, True, (torch.arange(3), b"raw")],
        "set": {1, 2},
    }
    r = roundtrip(obj)
    assert isinstance(r["sd"], collections.OrderedDict) and list(r["sd"]) == ["w", "b"]
    assert r["list"][:5] == [1, 2.5, "x", None, True] and r["list"][5][1] == b"raw"
    assert r["list"][5][0].tolist() == [0, 1, 2] and r["set"] == {1, 2}


def test_paths_pathlike_and_file_objects(tmp_path):
    t = torch.arange(5)
    torch.save(t, str(tmp_path / "a.pt"))
    torch.save(t, tmp_path / "b.pt")
    with open(tmp_path / "c.pt", "wb") as f:
        torch.save(t, f)

    class NoFileno(io.RawIOBase):  # a stream with read/seek but no fileno
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return True

        def readinto(self, b):
            return self.inner.readinto(b)

        def seek(self, *a):
            return self.inner.seek(*a)

        def tell(self):
            return self.inner.tell()

    for name in "abc":
        assert torch.load(tmp_path / f"{name}.pt").tolist() == [0, 1, 2, 3, 4]
        with open(tmp_path / f"{name}.pt", "rb") as f:
            assert torch.load(f).tolist() == [0, 1, 2, 3, 4]
    data = (tmp_path / "a.pt").read_bytes()
    assert torch.load(NoFileno(data)).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "map_location",
    ["cpu", torch.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage, None],
    ids=["str", "device", "dict", "callable", "none"],
)
def test_map_location_forms(map_location):
    assert roundtrip(torch.arange(3.0), map_location=map_location).tolist() == [0.0, 1.0, 2.0]


def test_mmap_maps_the_file_and_copies_on_write(tmp_path):
    path = tmp_path / "m.pt"
    base = torch.arange(1000.0)
    torch.save({"a": base, "b": base[500:]}, path)
    r = torch.load(path, mmap=True)
    assert r["a"].tolist() == base.tolist()
    r["a"][600] = -1.0
    assert r["b"][100].item() == -1.0  # still one storage
    assert torch.load(path)["a"][600].item() == 600.0  # the file is unchanged


def test_pickle_and_deepcopy_of_a_tensor():
    t = torch.arange(6.0).reshape(2, 3).t()
    for r in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert r.tolist() == t.tolist() and r.dtype == t.dtype
        assert r.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()


# ---------------------------------------------------------------- PyTorch's files
def test_loads_pytorch_dtypes():
    r = torch.load(HERE / "pytorch_dtypes.pt")
    assert list(r) == DTYPES
    for name, t in r.items():
        assert t.dtype == getattr(torch, name)
        np.testing.assert_array_equal(as_numpy(t), expected(name, (3, 4)))


@pytest.mark.parametrize("name", ["pytorch_views.pt", "pytorch_legacy.pt"])
def test_loads_pytorch_views_with_sharing(name):
    r = torch.load(HERE / name)
    base = expected("float32", (4, 6))
    for key, ref in [("base", base), ("transposed", base.T), ("offset", base[1:, 2:]),
                     ("strided", base[:, ::2])]:  # fmt: skip
        np.testing.assert_array_equal(r[key].numpy(), ref)
    assert r["transposed"].stride() == (1, 6) and r["offset"].storage_offset() == 8
    assert r["scalar"].item() == 2.5 and r["empty"].shape == (0, 3)
    r["base"][1, 2] = 99.0
    assert r["offset"][0, 0].item() == 99.0 and r["transposed"][2, 1].item() == 99.0


def test_loads_pytorch_nested():
    r = torch.load(HERE / "pytorch_nested.pt")
    np.testing.assert_array_equal(r["state"]["weight"].numpy(), expected("float32", (2, 3)))
    assert r["state"]["step"] == 7 and r["none"] is None
    assert r["list"][0].tolist() == expected("int64", (4,)).tolist() and r["list"][1:] == [
        "text", 3.25, (1, 2)]  # fmt: skip


def test_mmap_of_a_pytorch_file():
    r = torch.load(HERE / "pytorch_views.pt", mmap=True)
    np.testing.assert_array_equal(r["offset"].numpy(), expected("float32", (4, 6))[1:, 2:])


# ---------------------------------------------------------------- safety
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + os.environ.get("EVIL_MARK", "/nonexistent/x"),))


class Custom:
    def __init__(self, v):
        self.v = v


def _pickle_in_zip(obj):
    data = io.BytesIO()
    pickle.dump(obj, data, protocol=2)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", data.getvalue())
    buf.seek(0)
    return buf


def test_weights_only_refuses_a_malicious_pickle_and_runs_nothing(tmp_path, monkeypatch):
    mark = tmp_path / "pwned"
    monkeypatch.setenv("EVIL_MARK", str(mark))
    with pytest.raises(pickle.UnpicklingError, match="system"):
        torch.load(_pickle_in_zip({"x": Evil()}))
    assert not mark.exists()


def test_safe_globals_allow_a_class():
    buf = io.BytesIO()
    torch.save({"c": Custom(3)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Custom"):
        torch.load(buf)
    buf.seek(0)
    assert torch.load(buf, weights_only=False)["c"].v == 3
    with torch.serialization.safe_globals([Custom]):
        buf.seek(0)
        assert torch.load(buf)["c"].v == 3
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(buf)


# Payloads: pickles that run `touch <marker>` when unpickled by pickle itself. Each is a
# whole pickle; body() strips its PROTO and STOP, leaving opcodes that push the payload's
# result, which splice() puts into another pickle where a value is expected.
PLACEHOLDER = "@@payload@@"
EXT_CODE = 0xF0  # a copyreg extension code registered for os.system while a test runs


def payloads(marker):
    cmd = f"touch {marker}"
    quoted = repr(cmd).encode()

    class Run:
        def __reduce__(self):
            return (os.system, (cmd,))

    return {
        "reduce": pickle.dumps(Run(), protocol=2),
        "stack_global": pickle.dumps(Run(), protocol=4),
        "inst": b"(S" + quoted + b"\nios\nsystem\n.",
        "obj": b"(cos\nsystem\nS" + quoted + b"\no.",
        "ext": b"\x80\x02\x82" + bytes([EXT_CODE]) + pickle.dumps((cmd,), 2)[2:-1] + b"R.",
        "newobj": b"\x80\x02cos\nsystem\n" + pickle.dumps((cmd,), 2)[2:-1] + b"\x81.",
    }


def body(payload):
    """The opcodes of a whole pickle that push its value (PROTO and STOP removed)."""
    start = 2 if payload[:1] == b"\x80" else 0
    assert payload.endswith(b".")
    return payload[start:-1]


def splice(template, payload):
    """``template`` (a pickle holding the string PLACEHOLDER once) with the payload's opcodes
    where the string was."""
    text = PLACEHOLDER.encode()
    opcode = b"X" + len(text).to_bytes(4, "little") + text
    assert template.count(opcode) == 1
    return template.replace(opcode, body(payload))


class _Pid:
    """Stands for a storage in a pickle: the persistent id is ``pid``."""

    def __init__(self, pid):
        self.pid = pid


class _Rebuild:
    """Pickles as ``func(*args)`` (default: _rebuild_tensor_v2), then BUILD ``state`` if any."""

    def __init__(self, *args, func=None, state=None):
        self.func = func or torch._utils._rebuild_tensor_v2
        self.args = args
        self.state = state

    def __reduce__(self):
        if self.state is None:
            return (self.func, self.args)
        return (self.func, self.args, self.state)


def _checkpoint(obj, records=(), protocol=2):
    """A zip checkpoint of ``obj``, where _Pid objects become their persistent ids; records:
    (name, bytes) pairs added under ``archive/``."""
    data = io.BytesIO()

    class Pickler(pickle.Pickler):
        def persistent_id(self, o):
            return o.pid if isinstance(o, _Pid) else None

    Pickler(data, protocol=protocol).dump(obj)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", data.getvalue())
        zf.writestr("archive/version", b"3\n")
        for name, payload in records:
            zf.writestr(f"archive/{name}", payload)
    return buf.getvalue()


def _replace_pickle(checkpoint, name, pickled):
    """The zip checkpoint with record ``name`` replaced."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(checkpoint)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, pickled if info.filename == name else src.read(info))
    return out.getvalue()


LEGACY_RECORDS = ["magic", "protocol", "sys_info", "object", "keys"]


def split_legacy(data):
    """A legacy checkpoint's five pickles (as LEGACY_RECORDS) and the storage bytes after."""
    f = io.BytesIO(data)
    records = []
    for _ in LEGACY_RECORDS:
        start = f.tell()
        for _op in pickletools.genops(f):
            pass
        records.append(data[start : f.tell()])
    return records, data[f.tell() :]


def legacy_with(**replaced):
    """PyTorch's legacy fixture with some of its pickles replaced."""
    records, tail = split_legacy((HERE / "pytorch_legacy.pt").read_bytes())
    for name, pickled in replaced.items():
        records[LEGACY_RECORDS.index(name)] = pickled
    return b"".join(records) + tail


@pytest.fixture
def marker(tmp_path):
    """The file a payload would create; PyTorch warns about the protocol 4 payloads."""
    copyreg.add_extension("os", "system", EXT_CODE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield tmp_path / "pwned"
    finally:
        copyreg.remove_extension("os", "system", EXT_CODE)


def _refused_and_not_run(data, marker):
    with pytest.raises(pickle.UnpicklingError):
        torch.load(io.BytesIO(data))
    assert not marker.exists(), "the payload ran"


def _legacy_cases(marker):
    """(legacy file) for each payload in each record, whole and spliced inside plain data."""
    records, _ = split_legacy((HERE / "pytorch_legacy.pt").read_bytes())
    sys_info = pickle.loads(records[2])
    keys = pickle.loads(records[4])
    inside = {
        "sys_info": pickle.dumps({**sys_info, "extra": PLACEHOLDER}, protocol=2),
        "keys": pickle.dumps([*keys, PLACEHOLDER], protocol=2),
        "magic": pickle.dumps([PLACEHOLDER], protocol=2),
    }
    for kind, payload in payloads(marker).items():
        for record in LEGACY_RECORDS:
            yield f"{kind}-whole-{record}", legacy_with(**{record: payload})
        for record, template in inside.items():
            yield f"{kind}-inside-{record}", legacy_with(**{record: splice(template, payload)})


@pytest.mark.parametrize("weights_only", [True, None])
def test_legacy_header_payloads_are_refused_and_never_run(marker, weights_only):
    """Every pickle of the legacy format goes through the restricted unpickler: the magic
    number, protocol, system info and storage keys records as well as the object."""
    for name, data in _legacy_cases(marker):
        with pytest.raises(pickle.UnpicklingError):
            torch.load(io.BytesIO(data), weights_only=weights_only)
        assert not marker.exists(), f"the payload ran ({name})"


@pytest.mark.ours_only
def test_legacy_header_records_refuse_globals_even_when_weights_only_is_false(marker):
    """The header records are plain data in every file; they never need a global."""
    for record in ("magic", "protocol", "sys_info", "keys"):
        data = legacy_with(**{record: payloads(marker)["reduce"]})
        with pytest.raises(pickle.UnpicklingError):
            torch.load(io.BytesIO(data), weights_only=False)
        assert not marker.exists()


def test_zip_payloads_are_refused_and_never_run(marker):
    pid = ("storage", torch.FloatStorage, "0", "cpu", 4)
    record = [("data/0", b"\0" * 16)]
    templates = {
        "top": _checkpoint(PLACEHOLDER),
        "in_dict": _checkpoint(
            {"w": _Rebuild(_Pid(pid), 0, (4,), (1,), False, {}), "x": PLACEHOLDER}, record
        ),  # fmt: skip
        "storage_key": _checkpoint(_Pid(("storage", torch.FloatStorage, PLACEHOLDER, "cpu", 4))),
        "storage_type": _checkpoint(_Pid(("storage", PLACEHOLDER, "0", "cpu", 4)), record),
        "rebuild_size": _checkpoint(_Rebuild(_Pid(pid), 0, PLACEHOLDER, (1,), False, {}), record),
        "hooks": _checkpoint(_Rebuild(_Pid(pid), 0, (4,), (1,), False, PLACEHOLDER), record),
    }
    for kind, payload in payloads(marker).items():
        for where, template in templates.items():
            data = _replace_pickle(
                template, "archive/data.pkl", splice(_data_pkl(template), payload)
            )
            with pytest.raises(pickle.UnpicklingError):
                torch.load(io.BytesIO(data))
            assert not marker.exists(), f"the payload ran ({kind} in {where})"


def _data_pkl(checkpoint):
    with zipfile.ZipFile(io.BytesIO(checkpoint)) as zf:
        return zf.read("archive/data.pkl")


def test_pytorch_zip_fixture_with_a_payload_runs_nothing(marker):
    checkpoint = (HERE / "pytorch_views.pt").read_bytes()
    with zipfile.ZipFile(io.BytesIO(checkpoint)) as zf:
        name = next(n for n in zf.namelist() if n.endswith("data.pkl"))
    for payload in payloads(marker).values():
        _refused_and_not_run(_replace_pickle(checkpoint, name, payload), marker)


@pytest.mark.ours_only  # PyTorch refuses its own b""
@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_everything_save_writes_loads_under_the_default(protocol):
    """The allow-list covers what torch.save writes: torch.Size, bytes (empty too), sets,
    dtypes, devices, a state dict's _metadata (a BUILD on its OrderedDict)..."""
    state = collections.OrderedDict(w=torch.ones(2))
    state._metadata = {"": {"version": 1}}
    obj = {"state": state, "size": torch.Size([2, 3]), "b": b"\x00\xff", "e": b"",
           "ba": bytearray(b"q"), "set": {1, 2}, "fs": frozenset([3]), "dtype": torch.float16,
           "dev": torch.device("cpu"), "big": 2**100}  # fmt: skip
    try:
        obj["rg"] = torch.ones(2, requires_grad=True)
    except RuntimeError:  # torch-core alone: requires_grad needs torch-autograd
        pass
    buf = io.BytesIO()
    torch.save(obj, buf, pickle_protocol=protocol)
    buf.seek(0)
    loaded = torch.load(buf)
    assert loaded["state"]._metadata == {"": {"version": 1}}
    assert loaded["size"] == (2, 3) and isinstance(loaded["size"], torch.Size)
    for key in ("b", "e", "ba", "set", "fs", "dtype", "dev", "big"):
        assert loaded[key] == obj[key]
    assert "rg" not in obj or loaded["rg"].requires_grad


@pytest.mark.ours_only
def test_build_on_a_state_dict_cannot_hide_its_methods():
    for state in ({"keys": 1}, (None, {"items": 1}), {"__class__": 1}, {7: 1}):
        pickled = _raw(_global("collections.OrderedDict"), b")R", _emit_state(state), b"b")
        with pytest.raises(pickle.UnpicklingError, match="BUILD may not set"):
            torch.load(io.BytesIO(_zip_of(pickled)))
    pickled = _raw(_global("collections.OrderedDict"), b")R", _emit_state({"_metadata": 1}), b"b")
    assert torch.load(io.BytesIO(_zip_of(pickled)))._metadata == 1


def _emit_state(state):
    return pickle.dumps(state, protocol=2)[2:-1]


# ---------------------------------------------------------------- what a load validates
PID4 = ("storage", torch.FloatStorage, "0", "cpu", 4)
FOUR_FLOATS = [("data/0", b"\0" * 16)]


def _load_tensor(*args, pid=PID4, records=FOUR_FLOATS, **kwargs):
    rebuild = _Rebuild(_Pid(pid), *args, **kwargs)
    return torch.load(io.BytesIO(_checkpoint({"t": rebuild}, records)))


@pytest.mark.ours_only
@pytest.mark.parametrize(
    "args, message",
    [
        ((0, (2, 2), (1000, 2**62 - 1000), False, {}), "overflow"),
        ((0, (3,), (2**61,), False, {}), "overflow"),
        ((2**62, (1,), (1,), False, {}), "overflow"),
        ((1, (2, 2), (2, 1), False, {}), "out of bounds"),
        ((0, (5,), (1,), False, {}), "out of bounds"),
        ((4, (1,), (1,), False, {}), "out of bounds"),
        ((-1, (2,), (1,), False, {}), "negative"),
        ((0, (-1,), (1,), False, {}), "negative"),
        ((0, (2,), (-1,), False, {}), "negative"),
        ((0, (2**62, 4, 0), (1, 1, 1), False, {}), "numel: integer multiplication overflow"),
        ((0, (2.0,), (1,), False, {}), "ints"),
        ((0, ("2",), (1,), False, {}), "ints"),
        ((None, (2,), (1,), False, {}), "ints"),
        ((0, (2,), (1, 1), False, {}), "1 sizes but 2 strides"),
        ((0, 2, (1,), False, {}), "tuples"),
        ((0, (2,), (1,), 1, {}), "requires_grad must be a bool"),
        ((0, (2,), (1,), "yes", {}), "requires_grad must be a bool"),
        ((0, (2,), (1,), False, [1]), "backward_hooks must be a dict"),
        ((0, (2,), (1,), False, {}, "meta"), "metadata must be a dict"),
    ],
)
def test_forged_tensor_layouts_are_refused_before_a_tensor_exists(args, message):
    with pytest.raises(RuntimeError, match=message):
        _load_tensor(*args)


def test_the_layouts_at_the_edge_of_the_storage_load():
    assert _load_tensor(0, (2, 2), (2, 1), False, {})["t"].tolist() == [[0, 0], [0, 0]]
    assert _load_tensor(3, (1,), (1,), False, {})["t"].tolist() == [0.0]
    assert _load_tensor(0, (2, 2), (0, 3), False, {})["t"].shape == (2, 2)
    assert _load_tensor(0, (0, 5), (5, 1), False, {})["t"].shape == (0, 5)
    assert _load_tensor(4, (0,), (1,), False, {})["t"].shape == (0,)


@pytest.mark.ours_only
def test_rebuild_takes_only_a_storage():
    for storage in (7, "s", [1.0] * 4, torch.zeros(4)):
        with pytest.raises(RuntimeError, match="expected a storage"):
            torch._utils._rebuild_tensor_v2(storage, 0, (1,), (1,), False, {})


@pytest.mark.ours_only
def test_parameter_rebuilds_check_their_arguments():
    param = torch._utils._rebuild_parameter
    with_state = torch._utils._rebuild_parameter_with_state
    t = torch.ones(2)
    with pytest.raises(RuntimeError, match="expected a tensor"):
        param([1.0], False, {})
    with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
        param(t, "no", {})
    for state in ([("a", 1)], {"__class__": dict}, {1: 2}):
        with pytest.raises(RuntimeError, match="state"):
            with_state(t, False, {}, state)
    with pytest.raises(RuntimeError, match="may not set 'data'"):
        with_state(t, False, {}, ({}, {"data": torch.zeros(3)}))
    p = with_state(t, False, {}, {"note": "kept"})
    assert p.note == "kept" and p.tolist() == [1.0, 1.0]


@pytest.mark.ours_only
@pytest.mark.parametrize(
    "pid, error",
    [
        (("storage", torch.FloatStorage, "0", "cpu", -1), pickle.UnpicklingError),
        (("storage", torch.FloatStorage, "0", "cpu", 4.0), pickle.UnpicklingError),
        (("storage", torch.FloatStorage, "0", "cpu", 2**62), pickle.UnpicklingError),
        (("storage", torch.FloatStorage, 0, "cpu", 4), pickle.UnpicklingError),
        (("storage", torch.FloatStorage, "0", None, 4), pickle.UnpicklingError),
        (("storage", torch.float32, "0", "cpu", 4), pickle.UnpicklingError),
        (("storage", collections.OrderedDict, "0", "cpu", 4), pickle.UnpicklingError),
        (("module", torch.FloatStorage, "0", "cpu", 4), pickle.UnpicklingError),
        (("storage", torch.FloatStorage, "0", "cpu", 4, (1, 2, 3)), RuntimeError),
        (("storage", torch.FloatStorage, "0", "cpu", 8), RuntimeError),  # record: 16 bytes
        (("storage", torch.FloatStorage, "0", "cuda:0", 4), RuntimeError),
    ],
)
def test_forged_persistent_ids_are_refused(pid, error):
    with pytest.raises(error):
        _load_tensor(0, (1,), (1,), False, {}, pid=pid)


@pytest.mark.ours_only
def test_untyped_storage_ids_load():
    """PyTorch names a saved UntypedStorage ``torch.storage.UntypedStorage``."""
    pid = ("storage", torch.UntypedStorage, "0", "cpu", 16)
    data = _checkpoint({"s": _Pid(pid)}, [("data/0", bytes(range(16)))])
    loaded = torch.load(io.BytesIO(data))["s"]
    assert isinstance(loaded, torch.UntypedStorage) and bytes(memoryview(loaded)) == bytes(
        range(16)
    )


def _raw(*ops):
    """A protocol-2 pickle from raw opcode bytes."""
    return b"\x80\x02" + b"".join(ops) + b"."


def _global(name):
    module, _, attr = name.rpartition(".")
    return b"c" + module.encode() + b"\n" + attr.encode() + b"\n"


def _str(text):
    raw = text.encode()
    return b"X" + len(raw).to_bytes(4, "little") + raw


def _zip_of(pickled, records=()):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickled)
        zf.writestr("archive/version", b"3\n")
        for name, payload in records:
            zf.writestr(f"archive/{name}", payload)
    return buf.getvalue()


@pytest.mark.ours_only
def test_build_cannot_change_an_allowed_global():
    """BUILD on a class the allow-list names would change it for every later load."""
    state = b"N}" + _str("dtype") + _global("torch.float64") + b"s\x86"  # (None, {dtype: ..})
    for target in ("torch.FloatStorage", "torch.Size", "torch._utils._rebuild_tensor_v2"):
        with pytest.raises(pickle.UnpicklingError, match="BUILD"):
            torch.load(io.BytesIO(_zip_of(_raw(_global(target), state, b"b"))))
    assert torch.FloatStorage.dtype == torch.float32
    # ... or a loaded tensor (its setters are not a file's to call)
    for state in ({"x": 1}, (None, {"requires_grad": True})):
        with pytest.raises(pickle.UnpicklingError, match="BUILD"):
            _load_tensor(0, (1,), (1,), False, {}, state=state)


@pytest.mark.ours_only
@pytest.mark.parametrize(
    "pickled, message",
    [
        (_raw(_global("builtins.bytearray"), b"J\x00\x00\x00\x40\x85R"), "refuses the arguments"),
        (_raw(_global("torch.FloatStorage"), b"J\x00\x00\x00\x40\x85R"), "not call"),
        (_raw(_global("torch.FloatStorage"), b")\x81"), "NEWOBJ"),
        (_raw(_global("torch.device"), b")\x81"), "NEWOBJ"),
        (_raw(_global("torch.float32"), b")R"), "not call"),
        (_raw(_global("builtins.set"), b"K\x05\x85R"), "refuses the arguments"),
        (_raw(_global("torch.Size"), b"]]a\x85R"), "refuses the arguments"),
        (_raw(_global("_codecs.encode"), _str("x"), _str("rot13"), b"\x86R"), "latin1"),
        (_raw(b"K\x01K\x02a"), "APPEND"),
        (_raw(_global("torch.float32"), b"K\x01K\x02s"), "SETITEM"),
        (_raw(b"\x8f(]\x90"), "unhashable"),
        (_raw(b"K\x01\x85Q"), "persistent id"),
        (_raw(b"h\x05"), "memo"),
        (_raw(b"\x97"), "NEXT_BUFFER"),
        (b"\x80\x09N.", "protocol"),
        (_raw(b"("), "malformed"),
    ],
)
def test_the_restricted_unpickler_refuses_more_than_globals(pickled, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        torch.load(io.BytesIO(_zip_of(pickled)))


@pytest.mark.ours_only  # PyTorch takes encoding= with weights_only=False only
def test_python2_strings_follow_encoding():
    pickled = _zip_of(_raw(b"U\x02\xe9t"))  # a Python 2 str: b"\xe9t"
    assert torch.load(io.BytesIO(pickled), encoding="latin1") == "\xe9t"
    assert torch.load(io.BytesIO(pickled), encoding="bytes") == b"\xe9t"
    with pytest.raises(pickle.UnpicklingError):
        torch.load(io.BytesIO(pickled))  # not utf-8


@pytest.mark.ours_only
def test_a_forged_memo_index_costs_nothing():
    assert torch.load(io.BytesIO(_zip_of(_raw(b"K\x07r\xff\xff\xff\x7fj\xff\xff\xff\x7f")))) == 7


@pytest.mark.ours_only
@pytest.mark.parametrize(
    "pickled",
    [
        _raw(b"]" * 5000 + b"a" * 4999),  # lists
        _raw(b"}" + b")" + b"\x85" * 200_000 + b"K\x01s"),  # a tuple as a dict key: hashing
        _raw(b"(" * 3000 + b"t" * 3000),  # tuples of marks
        _raw(b"]q\x00q\x02" + b"]q\x01h\x00h\x01ah\x01q\x00" * 3000 + b"h\x02"),  # via memo
    ],
    ids=["lists", "tuple-key", "marks", "memo"],
)
def test_absurd_nesting_is_an_unpickling_error(pickled):
    """Refused before a deep tuple is hashed as a dict key (which overflows the C stack) and
    before any caller could recurse through the result."""
    code = (
        "import io, pickle, sys, torch\n"
        "try:\n    torch.load(io.BytesIO(sys.stdin.buffer.read()))\n"
        "except pickle.UnpicklingError as e:\n    print('refused', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=_zip_of(pickled), capture_output=True)
    assert out.returncode == 0, out.stderr[-2000:].decode()
    assert out.stdout.startswith(b"refused") and b"deeper than" in out.stdout


def test_nesting_that_pickle_itself_writes_loads():
    lists, tuples, shared = [], (), []
    for _ in range(300):
        lists, tuples = [lists], (tuples,)
    for _ in range(200):  # 2**200 paths through 400 objects: measured once each
        shared = [shared, (shared,)]
    loaded = roundtrip({"lists": lists, "tuples": tuples, "shared": shared})
    assert loaded["lists"] == lists and loaded["tuples"] == tuples
    assert loaded["shared"][0] is loaded["shared"][1][0]


@pytest.mark.ours_only
def test_restricted_unpickler_agrees_with_pickle_on_plain_data():
    rng = random.Random(0)
    from torch.serialization import _allowed_globals, _WeightsOnlyUnpickler

    def plain(depth=0):
        kind = rng.randrange(12 if depth < 4 else 6)
        if kind == 0:
            return rng.randrange(-(2**70), 2**70)
        if kind == 1:
            return rng.choice([0.5, -0.0, float("inf"), 1e300])
        if kind == 2:
            return "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(5)))
        if kind == 3:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(300)))
        if kind == 4:
            return rng.choice([None, True, False, 255, 256, 65536, 2**31, -(2**31), b""])
        if kind == 5:
            return bytearray(b"ab")
        if kind == 6:
            return [plain(depth + 1) for _ in range(rng.randrange(4))]
        if kind == 7:
            return tuple(plain(depth + 1) for _ in range(rng.randrange(5)))
        if kind == 8:
            return {rng.randrange(50): plain(depth + 1) for _ in range(rng.randrange(4))}
        if kind == 9:
            return ({rng.randrange(50) for _ in range(3)}, frozenset([rng.random()]), slice(1, 2))
        if kind == 10:
            return collections.OrderedDict((str(i), plain(depth + 1)) for i in range(2))
        shared = [plain(depth + 1)]
        return [shared, shared, (shared,)]

    for _ in range(400):
        obj = plain()
        for protocol in range(6):
            data = pickle.dumps(obj, protocol=protocol)
            got = _WeightsOnlyUnpickler(data, _allowed_globals()).load()
            assert got == pickle.loads(data), (protocol, obj)
    cyclic = []
    cyclic.append(cyclic)
    for protocol in range(6):
        got = _WeightsOnlyUnpickler(pickle.dumps(cyclic, protocol), _allowed_globals()).load()
        assert got[0] is got


@pytest.mark.ours_only
def test_legacy_keys_must_cover_every_storage():
    """A storage that the keys record leaves out would expose uninitialised memory."""
    records, _ = split_legacy((HERE / "pytorch_legacy.pt").read_bytes())
    for keys in ([], pickle.loads(records[4]) * 2, ["1"]):
        data = legacy_with(keys=pickle.dumps(keys, protocol=2))
        with pytest.raises(RuntimeError, match="storage keys"):
            torch.load(io.BytesIO(data))


@pytest.mark.ours_only
def test_legacy_storages_larger_than_the_file_are_refused_before_allocation():
    class Many:
        def __reduce__(self):
            pids = [_Pid(("storage", torch.FloatStorage, str(i), "cpu", 300, None)) for i in
                    range(20)]  # fmt: skip
            return (collections.OrderedDict, ([(i, p) for i, p in enumerate(pids)],))

    obj = io.BytesIO()

    class Pickler(pickle.Pickler):
        def persistent_id(self, o):
            return o.pid if isinstance(o, _Pid) else None

    Pickler(obj, protocol=2).dump(Many())
    data = legacy_with(object=obj.getvalue()) + b"\0" * 2000  # each fits, all do not
    with pytest.raises(RuntimeError, match="larger than the file"):
        torch.load(io.BytesIO(data))


def _central_entries(data):
    """Offsets of the central directory's file headers in a zip."""
    found, at = [], data.find(b"PK\x01\x02")
    while at >= 0:
        found.append(at)
        at = data.find(b"PK\x01\x02", at + 4)
    return found


@pytest.mark.ours_only
def test_overlapping_records_do_not_multiply_memory():
    """Forty central directory entries that all point at one record's bytes."""
    n = 40
    pids = [_Pid(("storage", torch.ByteStorage, str(i), "cpu", 4000)) for i in range(n)]
    records = [(f"data/{i}", b"\0" * (4000 if i == 0 else 0)) for i in range(n)]
    data = bytearray(_checkpoint(pids, records))
    entries = _central_entries(bytes(data))[1:]  # after data.pkl's
    first_offset = data[entries[0] + 42 : entries[0] + 46]
    for at in entries[1:]:
        data[at + 20 : at + 28] = (4000).to_bytes(4, "little") * 2  # sizes
        data[at + 42 : at + 46] = first_offset
    assert len(data) < 10_000
    with pytest.raises(RuntimeError, match="overlapping"):
        torch.load(io.BytesIO(bytes(data)))


@pytest.mark.ours_only
def test_a_deflate_bomb_is_refused_before_inflating():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("archive/data.pkl", pickle.dumps([1, 2], protocol=2))
    data = bytearray(buf.getvalue())
    at = _central_entries(bytes(data))[0]
    data[at + 24 : at + 28] = (2**32 - 2).to_bytes(4, "little")  # uncompressed size: 4 GB
    with pytest.raises(RuntimeError, match="more than deflate can expand to"):
        torch.load(io.BytesIO(bytes(data)))


# ---------------------------------------------------------------- corrupt input
def _saved(obj=None):
    buf = io.BytesIO()
    torch.save({"w": torch.arange(16.0)} if obj is None else obj, buf)
    return buf.getvalue()


def test_truncated_file_is_an_error():
    data = _saved()
    for cut in (10, len(data) // 2, len(data) - 10):
        with pytest.raises((RuntimeError, pickle.UnpicklingError)):
            torch.load(io.BytesIO(data[:cut]))


def test_not_a_checkpoint_is_an_error():
    for junk in (b"", b"hello world", b"PK\x03\x04garbage", pickle.dumps([1, 2])):
        with pytest.raises((RuntimeError, pickle.UnpicklingError)):
            torch.load(io.BytesIO(junk))


def _rezip(data, drop=None, replace=None):
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename == drop:
                continue
            body = replace[1] if replace and info.filename == replace[0] else src.read(info)
            dst.writestr(info.filename, body)
    out.seek(0)
    return out


def test_missing_data_record_is_named():
    with pytest.raises(RuntimeError, match="archive/data/0"):
        torch.load(_rezip(_saved(), drop="archive/data/0"))


def test_record_of_the_wrong_size_is_named():
    with pytest.raises(RuntimeError, match="archive/data/0.*60 bytes.*64"):
        torch.load(_rezip(_saved(), replace=("archive/data/0", b"\0" * 60)))


def test_forged_huge_size_is_refused_before_allocation():
    class Forged:  # a pickle whose storage claims 2^60 elements
        def __reduce__(self):
            return (torch._utils._rebuild_tensor_v2, (_Pid(), 0, (2**60,), (1,), False, {}))

    class _Pid:
        pass

    data = io.BytesIO()

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            forged = ("storage", torch.FloatStorage, "0", "cpu", 2**60)
            return forged if isinstance(obj, _Pid) else None

    P(data, protocol=2).dump(Forged())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", data.getvalue())
        zf.writestr("archive/data/0", b"\0" * 16)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="archive/data/0"):
        torch.load(buf)


def test_mmap_load_of_an_unaligned_record_gives_aligned_tensors(tmp_path):
    """A record torch.save did not align (written by another zip writer) is copied, not
    mapped: elements must sit at their natural alignment (UBSan found a misaligned load)."""
    src = io.BytesIO()
    torch.save({"x": torch.arange(5, dtype=torch.int64)}, src)
    src.seek(0)
    for pad in range(8):  # shifts the records after it: some land off any 8-byte boundary
        path = tmp_path / f"plain{pad}.pt"
        with zipfile.ZipFile(src) as zin, zipfile.ZipFile(path, "w") as zout:
            zout.writestr("archive/pad", b"p" * pad)
            for info in zin.infolist():
                zout.writestr(info.filename, zin.read(info))  # no alignment padding
        x = torch.load(path, mmap=True)["x"]
        assert x.tolist() == [0, 1, 2, 3, 4]
        assert x.untyped_storage().data_ptr() % 8 == 0


@pytest.mark.parametrize("mmap", [False, True])
def test_bool_bytes_from_a_file_are_made_valid_bools(tmp_path, mmap):
    """A byte other than 0 or 1 in a bool storage is not a valid C++ bool (UBSan found the
    load); the loader turns it into True."""
    path = tmp_path / "m.pt"
    torch.save({"m": torch.tensor([True, False, True, False])}, path)
    raw = bytearray(path.read_bytes())
    at = raw.find(bytes([1, 0, 1, 0]))
    raw[at], raw[at + 1] = 190, 0
    path.write_bytes(bytes(raw))
    m = torch.load(path, mmap=mmap)["m"]
    assert m.tolist() == [True, False, True, False]
    assert m.to(torch.uint8).tolist() == [1, 0, 1, 0]


@pytest.mark.parametrize("numel", [10, 3 << 20], ids=["small", "over-8MB"])
def test_records_checksums_and_alignment(tmp_path, numel):
    """Every record's CRC-32 matches its bytes (the large save computes them on a second
    thread) and every tensor's data starts at a multiple of 64 in the file, as PyTorch's
    loader with mmap expects."""
    import struct
    import zipfile
    import zlib

    sd = {"a": torch.arange(numel, dtype=torch.float32), "b": torch.arange(7, dtype=torch.int64)}
    path = tmp_path / "sd.pt"
    torch.save(sd, path)
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        for info in zf.infolist():
            body = zf.read(info)
            assert zlib.crc32(body) == info.CRC
            if "/data/" in info.filename:
                name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26 :][:4])
                start = info.header_offset + 30 + name_len + extra_len
                assert start % 64 == 0
                assert raw[start : start + len(body)] == body
    r = torch.load(path)
    assert torch.equal(r["a"], sd["a"]) and torch.equal(r["b"], sd["b"])


def test_save_to_an_unseekable_stream():
    class WriteOnly(io.RawIOBase):  # a pipe or socket: no seek, no tell
        def __init__(self):
            self.chunks = []

        def writable(self):
            return True

        def write(self, b):
            self.chunks.append(bytes(b))
            return len(b)

    out = WriteOnly()
    t = torch.arange(100_000, dtype=torch.float64)
    torch.save({"t": t}, out)
    data = b"".join(out.chunks)
    assert torch.equal(torch.load(io.BytesIO(data))["t"], t)
