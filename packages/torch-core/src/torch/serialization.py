"""torch.save / torch.load in PyTorch's checkpoint format (see docs/serialization.rst).

A checkpoint is a zip archive (stored, not compressed) with one top-level folder:
``data.pkl`` is a pickle of the object in which every storage is a persistent id
``('storage', torch.FloatStorage, key, location, numel)``; the bytes of storage ``key``
are the record ``data/<key>``, aligned to 64 bytes in the file so that it can be mapped.
Loading is safe by default: ``weights_only=True`` lets the pickle name only the globals
that rebuild tensors and containers (and those added with :func:`add_safe_globals`).
"""

import _compat_pickle
import collections
import contextlib
import io
import mmap as mmap_module
import os
import pickle
import pickletools
import struct
import sys
import zipfile
import zlib

from torch import _C
from torch.storage import LEGACY_CLASSES, TypedStorage, UntypedStorage

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals"]  # fmt: skip

DEFAULT_PROTOCOL = 2
ALIGNMENT = 64
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001
_STORAGE_CLASSES = {cls.__name__: cls for cls in LEGACY_CLASSES.values()}


# ---------------------------------------------------------------- save
def _open_for(f, mode):
    if isinstance(f, (str, os.PathLike)):
        return open(f, mode)
    return contextlib.nullcontext(f)


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):  # fmt: skip
    """Saves ``obj`` (tensors, state_dicts, containers, numbers, strings) to a path or a binary
    file object, in PyTorch's zip format. Tensors that share a storage are written once and
    share it again after :func:`load`."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("save: only the zip format is written (load reads both)")
    storages = {}  # key -> UntypedStorage
    keys = {}  # storage identity -> key

    class Pickler(pickle_module.Pickler):
        def persistent_id(self, o):
            if not isinstance(o, TypedStorage):
                return None
            untyped = o.untyped()
            key = keys.setdefault(untyped._key(), str(len(keys)))
            storages[key] = untyped
            location = str(untyped.device)
            return ("storage", LEGACY_CLASSES[o.dtype], key, location, o.size())

    data = io.BytesIO()
    Pickler(data, protocol=pickle_protocol).dump(obj)
    with _open_for(f, "wb") as out:
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            _write_record(zf, "archive/data.pkl", data.getbuffer())
            _write_record(zf, "archive/.format_version", b"1")
            _write_record(zf, "archive/.storage_alignment", str(ALIGNMENT).encode())
            if not _disable_byteorder_record:
                _write_record(zf, "archive/byteorder", sys.byteorder.encode())
            for key in sorted(storages, key=int):
                _write_record(zf, f"archive/data/{key}", memoryview(storages[key]))
            _write_record(zf, "archive/version", b"3\n")


def _write_record(zf, name, data):
    """One stored record whose data starts at a multiple of ALIGNMENT in the file."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = info.compress_size = len(data)
    info.CRC = 0  # the header written first is patched with the real CRC after the data
    zip64 = info.file_size > zipfile.ZIP64_LIMIT
    start = zf.start_dir + len(info.FileHeader(zip64)) + 4  # +4: the padding field's header
    pad = -start % ALIGNMENT
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    with zf.open(info, "w", force_zip64=zip64) as w:
        w.write(data)


# ---------------------------------------------------------------- safe globals
_SAFE_GLOBALS = {}  # "module.name" -> object, added by users


def add_safe_globals(safe_globals):
    """Allows ``weights_only`` loads to use these classes/functions (or ``(obj, "module.name")``
    pairs) from a file."""
    for g in safe_globals:
        obj, name = g if isinstance(g, tuple) else (g, f"{g.__module__}.{g.__qualname__}")
        _SAFE_GLOBALS[name] = obj


def get_safe_globals():
    return list(_SAFE_GLOBALS.values())


def clear_safe_globals():
    _SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(globals_list):
    """Within the block, :func:`add_safe_globals` of ``globals_list``; restored afterwards."""
    saved = dict(_SAFE_GLOBALS)
    add_safe_globals(globals_list)
    try:
        yield
    finally:
        _SAFE_GLOBALS.clear()
        _SAFE_GLOBALS.update(saved)


def _default_safe_globals():
    import torch
    from torch import _utils

    allowed = {
        "collections.OrderedDict": collections.OrderedDict,
        "torch._utils._rebuild_tensor": _utils._rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _utils._rebuild_tensor_v2,
        "torch._utils._rebuild_parameter": _utils._rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _utils._rebuild_parameter_with_state,
        "torch.Size": torch.Size,
        "torch.device": torch.device,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.slice": slice,
        "builtins.bytearray": bytearray,
        "_codecs.encode": _latin1_encode,  # how protocol-2 pickles spell bytes
    }
    allowed.update({f"torch.{name}": cls for name, cls in _STORAGE_CLASSES.items()})
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.uint8,
               torch.int8, torch.int16, torch.int32, torch.int64, torch.bool):  # fmt: skip
        allowed[str(dt)] = dt
    return allowed


def _latin1_encode(s, encoding="latin1"):
    if encoding != "latin1":
        raise pickle.UnpicklingError("_codecs.encode is allowed only with the latin1 encoding")
    return s.encode("latin1")


# ---------------------------------------------------------------- load
class _Records:
    """Reads the zip's records; storages come as fresh memory or as views of a mapping."""

    def __init__(self, f, mmap_file):
        self.f = f
        try:
            self.zf = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as e:
            raise RuntimeError(
                f"load: the file is not a valid checkpoint zip archive ({e})"
            ) from None
        names = self.zf.namelist()
        if not names:
            raise RuntimeError("load: the checkpoint archive is empty")
        self.prefix = names[0].split("/")[0] + "/"
        self.infos = {i.filename: i for i in self.zf.infolist()}
        self.mapped = mmap_file

    def has(self, name):
        return self.prefix + name in self.infos

    def read(self, name):
        info = self._info(name)
        try:
            return self.zf.read(info)
        except (
            zipfile.BadZipFile,
            OSError,
            EOFError,
            zlib.error,
            ValueError,
            NotImplementedError,
        ) as e:
            raise RuntimeError(f"load: record '{info.filename}' is corrupt ({e})") from None

    def _info(self, name):
        info = self.infos.get(self.prefix + name)
        if info is None:
            raise RuntimeError(f"load: the checkpoint has no record '{self.prefix}{name}'")
        return info

    def _data_offset(self, info):
        if info.header_offset < 0:
            raise RuntimeError(f"load: record '{info.filename}' has a corrupt offset")
        self.f.seek(info.header_offset)
        header = self.f.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"load: record '{info.filename}' has a corrupt local header")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len

    def storage(self, key, nbytes):
        info = self._info(f"data/{key}")
        if info.file_size != nbytes:
            raise RuntimeError(
                f"load: record '{info.filename}' holds {info.file_size} bytes but the pickle "
                f"expects {nbytes} for its storage"
            )
        if info.compress_type != zipfile.ZIP_STORED:  # not written by torch.save; still valid
            data = self.read(f"data/{key}")
            storage = UntypedStorage(nbytes)
            memoryview(storage)[:] = data
            return storage
        offset = self._data_offset(info)
        if offset + nbytes > _file_size(self.f):  # checked before allocating anything
            raise RuntimeError(f"load: record '{info.filename}' runs past the end of the file")
        if self.mapped is not None:
            return UntypedStorage._from_buffer(memoryview(self.mapped)[offset : offset + nbytes])
        storage = UntypedStorage(nbytes)
        self.f.seek(offset)
        got = self.f.readinto(memoryview(storage)) if nbytes else 0
        if got != nbytes:
            raise RuntimeError(
                f"load: record '{info.filename}' is truncated ({got} of {nbytes} bytes)"
            )
        # Like PyTorch, the data's CRC is not checked: sizes and structure are, and checking
        # would halve the load speed.
        return storage


def _check_location(location, map_location):
    """The device a storage saved at `location` goes to; only the CPU exists in this build."""
    target = location
    if isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, (str, _C.device)):
        target = str(map_location)
    if not str(target).startswith("cpu"):
        raise RuntimeError(
            f"load: the checkpoint has a storage on '{location}', but this build has only the "
            "cpu backend; pass map_location='cpu' (or torch.device('cpu'))"
        )


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, weights_only, load_storage):
        super().__init__(file, encoding="utf-8")
        self.weights_only = weights_only
        self.load_storage = load_storage
        self.allowed = _default_safe_globals() if weights_only else None

    def find_class(self, module, name):
        # protocol-2 pickles spell some Python 3 names the Python 2 way (__builtin__.set)
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if self.weights_only:
            full = f"{module}.{name}"
            obj = _SAFE_GLOBALS.get(full, self.allowed.get(full))
            if obj is None:
                raise pickle.UnpicklingError(
                    f"Weights only load failed: the file refers to the global '{full}', which "
                    "weights_only=True does not allow (nothing was run). If you trust the file, "
                    "allow it with torch.serialization.add_safe_globals([...]) or load with "
                    "weights_only=False."
                )
            return obj
        if module == "torch" and name in _STORAGE_CLASSES:
            return _STORAGE_CLASSES[name]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"load: unknown persistent id {pid!r:.100}")
        storage_type, key, location, numel = pid[1:5]
        if not (isinstance(storage_type, type) and issubclass(storage_type, TypedStorage)):
            raise pickle.UnpicklingError(f"load: unsupported storage type {storage_type!r:.80}")
        if not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"load: invalid storage size {numel!r:.80}")
        untyped = self.load_storage(str(key), numel, storage_type.dtype, str(location))
        return storage_type(wrap_storage=untyped)


def _file_size(f):
    here = f.tell()
    size = f.seek(0, io.SEEK_END)
    f.seek(here)
    return size


def _is_zip(f):
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    return magic == b"PK\x03\x04"


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=False,
         **pickle_load_args):  # fmt: skip
    """Loads what :func:`save` (or PyTorch's ``torch.save``) wrote, from a path or a binary
    file object.

    ``weights_only=True`` (the default) refuses any pickle that would call something other
    than the tensor-rebuilding functions, containers and :func:`add_safe_globals` entries;
    nothing from the file runs. Use ``weights_only=False`` only for files you trust: it runs
    whatever the pickle names. ``mmap=True`` maps the file and makes tensors views of the
    mapping (copy-on-write) instead of reading their bytes."""
    if weights_only is None:
        weights_only = True
    cache = {}

    with _open_for(f, "rb") as fh:
        if not hasattr(fh, "seek") or not getattr(fh, "seekable", lambda: True)():
            fh = io.BytesIO(fh.read())
        if not _is_zip(fh):
            if mmap:
                raise RuntimeError("load: mmap=True needs a zip checkpoint (the default format)")
            return _legacy_load(fh, map_location, weights_only)
        mapped = None
        if mmap:
            try:
                mapped = mmap_module.mmap(fh.fileno(), 0, access=mmap_module.ACCESS_COPY)
            except (AttributeError, OSError, io.UnsupportedOperation, ValueError) as e:
                raise RuntimeError(f"load: mmap=True needs a file on disk ({e})") from None
        records = _Records(fh, mapped)

        def load_storage(key, numel, dtype, location):
            nbytes = numel * dtype.itemsize
            if key not in cache:
                cache[key] = _mapped(records.storage(key, nbytes), location, map_location)
            elif cache[key].nbytes() != nbytes:
                raise RuntimeError(f"load: storage '{key}' is used with two different sizes")
            return cache[key]

        data = records.read("data.pkl")
        if records.has("byteorder") and records.read("byteorder") not in (b"little", b""):
            raise RuntimeError("load: big-endian checkpoints are not supported")
        return _unpickle(io.BytesIO(data), weights_only, load_storage)


def _check_memo_indices(file):
    """Refuses a pickle whose memo indices run ahead of its opcodes: CPython's unpickler would
    size its memo table by such an index (a forged one costs gigabytes and minutes)."""
    start, count = file.tell(), 0
    for opcode, arg, _ in pickletools.genops(file):
        count += 1
        if opcode.name in ("PUT", "BINPUT", "LONG_BINPUT", "GET", "BINGET", "LONG_BINGET"):
            if int(arg) > count:
                raise pickle.UnpicklingError(f"load: malformed pickle (memo index {arg})")
    file.seek(start)


def _unpickle(file, weights_only, load_storage):
    """The checkpoint's object; any failure inside the pickle becomes an UnpicklingError."""
    try:
        if weights_only:
            _check_memo_indices(file)
        return _Unpickler(file, weights_only, load_storage).load()
    except (pickle.UnpicklingError, RuntimeError):
        raise
    except Exception as e:  # a malformed pickle can raise nearly anything while unpickling
        message = f"load: the pickle in the checkpoint is malformed ({e!r:.200})"
        raise pickle.UnpicklingError(message) from None


def _mapped(storage, location, map_location):
    """Applies map_location (a device, a string, a dict or a callable) to a loaded storage."""
    if callable(map_location):
        moved = map_location(storage, location)
        if moved is None:
            _check_location(location, None)
            return storage
        return moved.untyped() if isinstance(moved, TypedStorage) else moved
    _check_location(location, map_location)
    return storage


def _legacy_load(f, map_location, weights_only):
    """PyTorch's pre-zip format: magic, protocol, sys info, the object, storage keys, then
    each storage as an int64 element count and its bytes."""

    def header(what):
        try:
            return pickle.Unpickler(f).load()
        except Exception as e:  # a truncated or foreign file
            raise RuntimeError(
                f"load: not a checkpoint (reading the {what} failed: {e!r:.100})"
            ) from None

    if header("magic number") != LEGACY_MAGIC:
        raise RuntimeError(
            "load: the file is neither a zip checkpoint nor a legacy one (bad magic number)"
        )
    if header("protocol version") != LEGACY_PROTOCOL:
        raise RuntimeError("load: unsupported legacy checkpoint protocol version")
    sys_info = header("system info")
    if not isinstance(sys_info, dict) or not sys_info.get("little_endian", True):
        raise RuntimeError("load: big-endian checkpoints are not supported")
    wanted = {}  # key -> (storage, numel, element size)

    size = _file_size(f)

    def load_storage(key, numel, dtype, location):
        if key not in wanted:
            if numel * dtype.itemsize > size:  # a forged size must not become an allocation
                raise RuntimeError(f"load: legacy storage '{key}' is larger than the file")
            storage = UntypedStorage(numel * dtype.itemsize)
            wanted[key] = (_mapped(storage, location, map_location), numel, dtype.itemsize)
        return wanted[key][0]

    result = _unpickle(f, weights_only, load_storage)
    keys = header("storage keys")
    if not isinstance(keys, list):
        raise RuntimeError("load: legacy checkpoint has a malformed list of storage keys")
    for key in keys:
        if str(key) not in wanted:
            raise RuntimeError(f"load: legacy checkpoint lists an unknown storage '{key}'")
        storage, expected, itemsize = wanted[str(key)]
        count = f.read(8)
        (numel,) = struct.unpack("<q", count) if len(count) == 8 else (-1,)
        if numel != expected:
            raise RuntimeError(
                f"load: legacy storage '{key}' has {numel} elements, the pickle expects {expected}"
            )
        nbytes = numel * itemsize
        got = f.readinto(memoryview(storage)) if nbytes else 0
        if got != nbytes:
            raise RuntimeError(
                f"load: legacy storage '{key}' is truncated ({got} of {nbytes} bytes)"
            )
    return result
