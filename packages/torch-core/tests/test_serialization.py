"""torch.save / torch.load: round trips, sharing, PyTorch's files, safety, corrupt input."""

import collections
import copy
import io
import os
import pathlib
import pickle
import random
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torch

HERE = pathlib.Path(__file__).parent / "checkpoints"
DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32", "int64",
          "bool"]  # fmt: skip


def expected(dtype, shape):
    """The values make_fixtures.py wrote, computed with NumPy (bfloat16 as float32)."""
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    if dtype == "bool":
        return x % 3 == 0
    if dtype in ("uint8", "int8"):
        return (x % 100).astype(dtype)
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
    if t.dtype.is_floating_point:
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


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(st.integers(0, 2**32 - 1))
def test_fuzzed_files_never_crash(seed):
    """Mutated valid checkpoints load or raise an ordinary exception: no crash, no hang."""
    rng = random.Random(seed)
    blob = bytearray(rng.choice(_FUZZ_SEEDS))
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["flip", "cut", "insert", "overwrite"])
        pos = rng.randrange(len(blob)) if blob else 0
        if kind == "flip" and blob:
            blob[pos] ^= 1 << rng.randrange(8)
        elif kind == "cut":
            del blob[pos:]
        elif kind == "insert":
            blob[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif blob:
            blob[pos] = rng.randrange(256)
    try:
        torch.load(io.BytesIO(bytes(blob)))
    except (RuntimeError, pickle.UnpicklingError, NotImplementedError, MemoryError):
        pass


_FUZZ_SEEDS = [
    _saved(),
    _saved({"a": torch.arange(6).reshape(2, 3).t(), "b": [1, "x"], "c": torch.tensor(True)}),
    (HERE / "pytorch_legacy.pt").read_bytes(),
]
