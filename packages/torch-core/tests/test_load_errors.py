"""torch.load of empty, truncated and garbage files: each error is of the exception family
PyTorch 2.13 raises for that file (EOFError, pickle.UnpicklingError or RuntimeError, as
recorded from PyTorch below) and also a RuntimeError, with our message."""

import io
import pickle
import random

import pytest

import torch

STATE = {"a": torch.arange(10.0), "b": [1, 2]}


def zip_bytes():
    buf = io.BytesIO()
    torch.save(STATE, buf)
    return buf.getvalue()


def legacy_bytes():
    """A legacy-format file as PyTorch writes it: magic, protocol and system info records,
    then the object pickle (here one without storages), then the storage keys (none)."""
    out = io.BytesIO()
    for record in (0x1950A86A20F9469CFC6C, 1001, {"little_endian": True}, {"a": [1, 2, 3]}, []):
        pickle.dump(record, out, protocol=2)
    return out.getvalue()


def garbage():
    rng = random.Random(0)
    return bytes(rng.randrange(256) for _ in range(1000))


# file -> the exception classes PyTorch 2.13 raises for it (weights_only True and False)
CASES = {
    "empty": (b"", (EOFError,)),
    "one byte": (b"\x80", (pickle.UnpicklingError,)),
    "truncated legacy": (legacy_bytes()[:-9], (pickle.UnpicklingError, EOFError)),
    "legacy header cut": (legacy_bytes()[:3], (pickle.UnpicklingError,)),
    "random bytes": (garbage(), (pickle.UnpicklingError,)),
    "text": (b"hello world\nthis is text\n", (pickle.UnpicklingError,)),
    "json": (b'{"a": 1}', (pickle.UnpicklingError,)),
    "truncated zip": (zip_bytes()[: len(zip_bytes()) // 2], (RuntimeError,)),
    "zip head only": (zip_bytes()[:10], (RuntimeError,)),
}


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("name", list(CASES))
def test_exception_family(tmp_path, name, weights_only):
    data, families = CASES[name]
    path = tmp_path / "f.pt"
    path.write_bytes(data)
    with pytest.raises(RuntimeError) as info:
        torch.load(path, weights_only=weights_only)
    for family in families:
        assert isinstance(info.value, family), (name, type(info.value).__mro__)
    assert str(info.value).startswith("load:")


def test_empty_file_names_the_problem(tmp_path):
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    with pytest.raises(EOFError, match="empty"):
        torch.load(path)
    with pytest.raises(torch.serialization.LoadEOFError):
        torch.load(io.BytesIO(b""))


def test_classes():
    assert issubclass(torch.serialization.LoadError, RuntimeError)
    assert issubclass(torch.serialization.LoadError, pickle.UnpicklingError)
    assert issubclass(torch.serialization.LoadEOFError, torch.serialization.LoadError)
    assert issubclass(torch.serialization.LoadEOFError, EOFError)


def test_good_files_still_load():
    assert torch.load(io.BytesIO(zip_bytes()))["b"] == [1, 2]
    assert torch.load(io.BytesIO(legacy_bytes())) == {"a": [1, 2, 3]}
