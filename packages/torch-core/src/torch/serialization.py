"""torch.save / torch.load in PyTorch's checkpoint format (see docs/serialization.rst).

A checkpoint is a zip archive (stored, not compressed) with one top-level folder:
``data.pkl`` is a pickle of the object in which every storage is a persistent id
``('storage', torch.FloatStorage, key, location, numel)``; the bytes of storage ``key``
are the record ``data/<key>``, aligned to 64 bytes in the file so that it can be mapped.
Loading is safe by default (``weights_only=True``): every pickle the load reads, in both
formats (the legacy format's magic number, protocol, system info and storage keys records
included), goes through one restricted unpickler, :class:`_WeightsOnlyUnpickler`, which
accepts data opcodes and only the globals that rebuild tensors and containers (and those
added with :func:`add_safe_globals`). Every number from the file is checked with Python ints
before it sizes an allocation or a view: storage sizes against their records, tensor layouts
against their storages (``torch._utils``), nesting depth against MAX_NESTING.
"""

import _compat_pickle
import codecs
import collections
import contextlib
import copyreg
import io
import itertools
import mmap as mmap_module
import os
import pickle
import pickletools
import struct
import sys
import types
import zipfile
import zlib

from torch import _C, _dtypes
from torch.storage import LEGACY_CLASSES, TypedStorage, UntypedStorage

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "LoadError", "LoadEOFError"]  # fmt: skip

DEFAULT_PROTOCOL = 2
ALIGNMENT = 64
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001
_STORAGE_CLASSES = {cls.__name__: cls for cls in LEGACY_CLASSES.values()}


class LoadError(RuntimeError, pickle.UnpicklingError):
    """:func:`load` refused a malformed, forged or unsupported pickle in the file.

    Both a ``RuntimeError`` and a ``pickle.UnpicklingError``: ``except RuntimeError`` (our
    loader's family) and ``except pickle.UnpicklingError`` (what PyTorch raises for such
    files) both catch it."""


class LoadEOFError(LoadError, EOFError):
    """:func:`load` reached the end of the data early: an empty or truncated file.

    Also an ``EOFError``, which PyTorch raises for an empty file (``Ran out of input``)."""


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
        dispatch_table = _SAVE_DISPATCH

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
    records = [
        ("archive/data.pkl", data.getbuffer()),
        ("archive/.format_version", b"1"),
        ("archive/.storage_alignment", str(ALIGNMENT).encode()),
    ]
    if not _disable_byteorder_record:
        records.append(("archive/byteorder", sys.byteorder.encode()))
    for key in sorted(storages, key=int):
        records.append((f"archive/data/{key}", memoryview(_host_bytes(storages[key])).cast("B")))
    records.append(("archive/version", b"3\n"))
    with _open_for(f, "wb") as out:
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for (name, buffer), crc in zip(records, _crc32s([b for _, b in records])):
                _write_record(zf, name, buffer, crc)


def _host_bytes(storage):
    """A storage's bytes in host memory: itself on the CPU, else a CPU copy (its location is
    recorded separately)."""
    if storage.device.type == "cpu":
        return storage
    n = storage.nbytes()
    return _C._tensor_from_storage(storage, _C.uint8, 0, (n,), (1,)).cpu().untyped_storage()


def _get_layout(name):
    """The layout named ``name`` ("torch.sparse_coo"): how PyTorch's files spell a layout."""
    import torch

    layout = getattr(torch, name[len("torch.") :], None) if name.startswith("torch.") else None
    if not isinstance(layout, torch.layout):
        raise LoadError(f"load: {name!r} is not a layout")
    return layout


def _reduce_layout(layout):
    return (_get_layout, (repr(layout),))


_SAVE_DISPATCH = copyreg.dispatch_table.copy()
_SAVE_DISPATCH[_dtypes.layout] = _reduce_layout


def _crc32s(buffers):
    """The CRC-32 of each buffer, in order. Above 8 MB in all they are computed on a second
    thread while the caller writes the records (zlib and file writes release the GIL), so a
    save costs about its writes rather than its writes plus its checksums."""
    if sum(len(b) for b in buffers) < 1 << 23:
        yield from (zlib.crc32(b) for b in buffers)
        return
    from concurrent.futures import ThreadPoolExecutor  # (only here: import torch stays lean)

    with ThreadPoolExecutor(max_workers=1) as pool:
        for future in [pool.submit(zlib.crc32, b) for b in buffers]:
            yield future.result()


def _write_record(zf, name, data, crc):
    """One stored record (``data`` a bytes-like object, ``crc`` its CRC-32) whose data starts
    at a multiple of ALIGNMENT in the file. Written through the ZipFile's own bookkeeping
    (its file, ``start_dir``, ``filelist``), as ``ZipFile.open(..., "w")`` does, but with the
    CRC known beforehand: the header is right the first time (no seek back, so unseekable
    outputs need no data descriptor) and the CRC is not recomputed here."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = info.compress_size = len(data)
    info.CRC = crc
    info.external_attr = 0o600 << 16  # rw-------, as ZipFile.open gives
    info.header_offset = zf.start_dir
    zip64 = info.file_size > zipfile.ZIP64_LIMIT
    start = info.header_offset + len(info.FileHeader(zip64)) + 4  # +4: the padding's header
    pad = -start % ALIGNMENT
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    header = info.FileHeader(zip64)
    zf.fp.write(header)
    zf.fp.write(data)
    zf.start_dir += len(header) + len(data)
    zf.filelist.append(info)
    zf.NameToInfo[name] = info
    zf._didModify = True  # (ZipFile.close then writes the central directory)


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


# What a default load may do with each global it allows. A _VALUE global (a dtype, a storage
# class) may only be named; the others may be called, with arguments their check accepts
# (None: any arguments, for the rebuild functions, which check their own, and for the
# globals users add, which they trust).
_VALUE = "value"


def _ok_mapping_args(args):
    return not args or (len(args) == 1 and isinstance(args[0], (list, tuple, dict)))


def _ok_collection_args(args):
    return not args or (len(args) == 1 and isinstance(args[0], (list, tuple, set, frozenset)))


def _ok_slice_args(args):
    return 1 <= len(args) <= 3 and all(a is None or isinstance(a, int) for a in args)


def _ok_bytearray_args(args):  # never a count: bytearray(2**40) would allocate a terabyte
    if len(args) == 2:
        return isinstance(args[0], str) and args[1] in ("latin-1", "latin1")
    return not args or (len(args) == 1 and isinstance(args[0], (bytes, bytearray)))


def _ok_no_args(args):
    return not args


def _ok_size_args(args):
    return (
        len(args) == 1
        and isinstance(args[0], (list, tuple))
        and all(isinstance(n, int) for n in args[0])
    )


def _ok_device_args(args):
    return (1 <= len(args) <= 2 and isinstance(args[0], (str, int))
            and (len(args) == 1 or args[1] is None or isinstance(args[1], int)))  # fmt: skip


def _ok_layout_args(args):
    return len(args) == 1 and args[0] in ("torch.sparse_coo", "torch.sparse_csr", "torch.strided")


def _ok_encode_args(args):
    return 1 <= len(args) <= 2 and all(isinstance(a, str) for a in args)


_DEFAULTS = None


def _default_safe_globals():
    """{"module.name": (object, check)}: what every ``weights_only`` load allows."""
    global _DEFAULTS
    if _DEFAULTS is None:
        import torch
        from torch import _utils

        allowed = {
            "collections.OrderedDict": (collections.OrderedDict, _ok_mapping_args),
            "torch._utils._rebuild_tensor": (_utils._rebuild_tensor, None),
            "torch._utils._rebuild_tensor_v2": (_utils._rebuild_tensor_v2, None),
            "torch._utils._rebuild_parameter": (_utils._rebuild_parameter, None),
            "torch._utils._rebuild_parameter_with_state": (
                _utils._rebuild_parameter_with_state,
                None,
            ),
            "torch._utils._rebuild_sparse_tensor": (_utils._rebuild_sparse_tensor, None),
            "torch.serialization._get_layout": (_get_layout, _ok_layout_args),
            "torch.sparse_coo": (torch.sparse_coo, _VALUE),
            "torch.sparse_csr": (torch.sparse_csr, _VALUE),
            "torch.Size": (torch.Size, _ok_size_args),
            "torch._size.Size": (torch.Size, _ok_size_args),  # how this project's save names it
            "torch.device": (torch.device, _ok_device_args),
            "builtins.set": (set, _ok_collection_args),
            "builtins.frozenset": (frozenset, _ok_collection_args),
            "builtins.slice": (slice, _ok_slice_args),
            "builtins.bytearray": (bytearray, _ok_bytearray_args),
            "builtins.bytes": (bytes, _ok_no_args),  # how protocol 2 spells b""
            "_codecs.encode": (_latin1_encode, _ok_encode_args),  # protocol 2 spells bytes so
            "torch.UntypedStorage": (UntypedStorage, _VALUE),
            "torch.storage.UntypedStorage": (UntypedStorage, _VALUE),  # how PyTorch names it
        }
        for name, cls in _STORAGE_CLASSES.items():
            allowed[f"torch.{name}"] = (cls, _VALUE)
        for dt in LEGACY_CLASSES:
            allowed[str(dt)] = (dt, _VALUE)
        _DEFAULTS = allowed
    return _DEFAULTS


def _latin1_encode(s, encoding="latin1"):
    if encoding not in ("latin1", "latin-1"):
        raise LoadError("_codecs.encode is allowed only with the latin1 encoding")
    return s.encode("latin1")


# ---------------------------------------------------------------- the restricted unpickler
MAX_NESTING = 1000  # containers within containers; deeper than Python's pickle itself writes
_CHUNK = 1 << 16  # how much of a legacy file is read at a time
_INT64_MAX = (1 << 63) - 1
_LEAF_TYPES = frozenset({int, float, complex, str, bytes, bool, type(None)})
_NOT_WALKED = (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)


def _describe(obj, limit=80):
    """A short description of an object from a file, for messages (never raises). Tensors
    are described by their layout only: a legacy file's storage bytes are not read yet."""
    if isinstance(obj, _C.Tensor):
        return f"Tensor of shape {tuple(obj.shape)} and dtype {obj.dtype}"
    try:
        text = repr(obj)
    except Exception:  # a huge int, deep nesting: repr itself refuses
        text = "..."
    if len(text) > limit:
        text = text[:limit] + "..."
    return f"{type(obj).__name__} {text}"


def _safe_text(e):
    try:
        return str(e)[:200]
    except Exception:
        return ""


class _WeightsOnlyUnpickler:
    """The unpickler of every pickle that a ``weights_only`` load reads (``data.pkl``, and the
    legacy format's magic number, protocol, system info, object and storage keys).

    It interprets the opcodes itself instead of trusting ``pickle.Unpickler``: only data
    opcodes and the globals in ``allowed`` ({"module.name": (object, check)}; see
    :func:`_default_safe_globals`) are accepted. A global can be called (REDUCE) only with
    arguments its check accepts; NEWOBJ builds only OrderedDicts and user-allowed classes;
    BUILD sets state only on OrderedDicts and instances of user-allowed classes (never on a
    global itself: ``FloatStorage.dtype = ...`` would change every later load); APPEND,
    SETITEM and ADDITEMS reach lists, dicts and sets only. The memo is a dict (a forged index
    costs nothing) and tuples are built no deeper than MAX_NESTING (hashing a deeper one as a
    dict key overflows the C stack); the result is checked for nesting as well. Every failure
    is a :class:`LoadError` (:class:`LoadEOFError` where the data ends early); a RuntimeError
    from a rebuild check stays one.

    ``source`` is the pickle's bytes, or a binary file positioned at it (the legacy format,
    whose pickles are followed by other data): the file is left just after the pickle."""

    def __init__(self, source, allowed, persistent_load=None, encoding="utf-8", what="pickle"):
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._data, self._file, self._avail, self._origin = bytes(source), None, 0, 0
        else:
            self._data, self._file = b"", source
            self._origin = source.tell()  # the file offset of self._data[0]
            self._avail = _file_size(source) - self._origin  # file bytes not yet read
        self._pos = 0
        self._what = what
        self._encoding = encoding
        self._persistent_load = persistent_load
        self._globals = allowed
        self._callables = {id(obj): (obj, check, name) for name, (obj, check) in allowed.items()}
        self._user_types = {
            id(obj) for obj, check in allowed.values() if check is None and isinstance(obj, type)
        }
        self._user_types.difference_update(
            id(obj) for obj, _ in _default_safe_globals().values() if isinstance(obj, type)
        )
        self._stack = []
        self._metastack = []
        self._memo = {}
        self._depth = {}  # id(tuple) -> (tuple, nesting), for tuples holding tuples

    # -- input
    def _fill(self, need):
        """Makes at least ``need`` bytes available from the current position, or raises."""
        missing = need - (len(self._data) - self._pos)
        if self._file is None or missing > self._avail:
            raise LoadEOFError(f"load: the {self._what} is truncated")
        want = min(self._avail, max(missing, _CHUNK))
        parts, got = [], 0
        while got < want:  # in pieces: a forged length must not size one read
            part = self._file.read(min(want - got, 1 << 20))
            if not part:
                break
            parts.append(part)
            got += len(part)
        self._avail -= got
        self._origin += self._pos
        self._data = self._data[self._pos :] + b"".join(parts)
        self._pos = 0
        if len(self._data) < need:
            raise LoadEOFError(f"load: the {self._what} is truncated")

    def _read(self, n):
        pos = self._pos
        if pos + n > len(self._data):
            self._fill(n)
            pos = self._pos
        self._pos = pos + n
        return self._data[pos : pos + n]

    def _readline(self):
        while True:
            end = self._data.find(b"\n", self._pos)
            if end >= 0:
                line = self._data[self._pos : end]
                self._pos = end + 1
                return line
            self._fill(len(self._data) - self._pos + 1)

    # -- the machine
    def load(self):
        dispatch = _DISPATCH
        try:
            while True:
                data, pos = self._data, self._pos
                if pos < len(data):
                    code = data[pos]
                    self._pos = pos + 1
                else:
                    code = self._read(1)[0]
                op = dispatch[code]
                if op is None:
                    self._refuse_opcode(code)
                if op(self):
                    break
            result = self._stack.pop()
            _check_nesting(result, self._what)
            return result
        except (pickle.UnpicklingError, MemoryError):
            raise
        except RecursionError:
            raise LoadError(f"load: the {self._what} nests too deeply") from None
        except RuntimeError:
            raise
        except Exception as e:  # a malformed pickle can fail nearly anywhere
            raise LoadError(
                f"load: the {self._what} is malformed ({type(e).__name__}: {_safe_text(e)})"
            ) from None
        finally:
            if self._file is not None:
                self._file.seek(self._origin + self._pos)
            self._stack = self._metastack = self._memo = self._depth = None

    def _refuse_opcode(self, code):
        info = pickletools.code2op.get(chr(code))
        name = f"{info.name} " if info is not None else ""
        raise LoadError(
            f"load: the {self._what} uses the opcode {name}({code:#04x}), which weights_only=True "
            "does not allow (nothing was run)"
        )

    def _pop_mark(self):
        if not self._metastack:
            raise LoadError(f"load: the {self._what} is malformed (no MARK)")
        items = self._stack
        self._stack = self._metastack.pop()
        return items

    def _push_tuple(self, items):
        """Pushes tuple(items), refusing one nested deeper than MAX_NESTING."""
        t = tuple(items)
        depth = self._depth
        inner = 0
        for x in t:
            if type(x) is tuple:
                entry = depth.get(id(x))
                d = entry[1] if entry is not None else 1
                if d > inner:
                    inner = d
        if inner:
            if inner >= MAX_NESTING:
                raise LoadError(
                    f"load: the {self._what} nests tuples deeper than {MAX_NESTING} levels"
                )
            depth[id(t)] = (t, inner + 1)  # keeps t alive, so the id stays its own
        self._stack.append(t)

    # -- globals and calls
    def _find_class(self, module, name):
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        full = f"{module}.{name}"
        entry = self._globals.get(full)
        if entry is None:
            raise LoadError(
                f"Weights only load failed: the {self._what} refers to the global '{full:.200}', "
                "which weights_only=True does not allow (nothing was run). If you trust the "
                "file, allow it with torch.serialization.add_safe_globals([...]) or load with "
                "weights_only=False."
            )
        return entry[0]

    def _allowed(self, obj):
        entry = self._callables.get(id(obj))
        return entry if entry is not None and entry[0] is obj else None

    def _call(self, func, args):
        entry = self._allowed(func)
        if entry is None:
            raise LoadError(
                f"load: the {self._what} calls {_describe(func)}, which is not an allowed global"
            )
        _, check, name = entry
        if check is _VALUE:
            raise LoadError(f"load: the {self._what} calls '{name}', which it "
                                         "may name but not call")  # fmt: skip
        if type(args) is not tuple:
            raise LoadError(f"load: arguments to '{name}' must be a tuple")
        if check is not None and not check(args):
            raise LoadError(f"load: '{name}' refuses the arguments {_describe(args)}")
        return func(*args)

    def _new(self, cls, args, kwargs):
        entry = self._allowed(cls)
        if entry is None or not (cls is collections.OrderedDict or id(cls) in self._user_types):
            raise LoadError(
                f"load: the {self._what} creates {_describe(cls)} with NEWOBJ, which "
                "weights_only=True allows only for OrderedDict and added safe globals"
            )
        if type(args) is not tuple or type(kwargs) is not dict:
            raise LoadError(f"load: malformed NEWOBJ arguments for '{entry[2]}'")
        if cls is collections.OrderedDict:
            return collections.OrderedDict()
        return cls.__new__(cls, *args, **kwargs)

    def _build(self, inst, state):
        user = id(type(inst)) in self._user_types
        if not (user or type(inst) is collections.OrderedDict):
            raise LoadError(
                f"load: the {self._what} sets the state of {_describe(inst)} (BUILD), which "
                "weights_only=True allows only for OrderedDict and instances of added safe "
                "globals"
            )
        if user:
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
                return
        slots = None
        if type(state) is tuple and len(state) == 2:
            state, slots = state
        for part, in_dict in ((state, True), (slots, False)):
            if part is None:
                continue
            if type(part) is not dict:
                raise LoadError(f"load: malformed BUILD state {_describe(part)}")
            for key, value in part.items():
                # an OrderedDict (a state_dict's _metadata) gets plain attributes only, never
                # one that hides a method such as keys or items
                if type(key) is not str or not (user or not hasattr(type(inst), key)):
                    raise LoadError(f"load: BUILD may not set {_describe(key)}")
                if in_dict:
                    inst.__dict__[key] = value
                else:
                    setattr(inst, key, value)

    def _op_stop(self):
        return True

    def _op_proto(self):
        version = self._read(1)[0]
        if version > 5:
            raise LoadError(f"load: unsupported pickle protocol {version}")

    def _op_frame(self):
        self._read(8)

    def _op_mark(self):
        self._metastack.append(self._stack)
        self._stack = []

    def _op_pop(self):
        if self._stack:
            self._stack.pop()
        else:
            self._pop_mark()

    def _op_pop_mark(self):
        self._pop_mark()

    def _op_dup(self):
        self._stack.append(self._stack[-1])

    # -- scalars
    def _op_none(self):
        self._stack.append(None)

    def _op_true(self):
        self._stack.append(True)

    def _op_false(self):
        self._stack.append(False)

    def _op_int(self):
        line = self._readline()
        self._stack.append(True if line == b"01" else False if line == b"00" else int(line))

    def _op_binint(self):
        self._stack.append(_I32.unpack(self._read(4))[0])

    def _op_binint1(self):
        self._stack.append(self._read(1)[0])

    def _op_binint2(self):
        self._stack.append(_U16.unpack(self._read(2))[0])

    def _op_long(self):
        line = self._readline()
        self._stack.append(int(line[:-1] if line.endswith(b"L") else line))

    def _op_long1(self):
        n = self._read(1)[0]
        self._stack.append(int.from_bytes(self._read(n), "little", signed=True))

    def _op_long4(self):
        n = _I32.unpack(self._read(4))[0]
        if n < 0:
            raise LoadError("load: LONG4 with a negative byte count")
        self._stack.append(int.from_bytes(self._read(n), "little", signed=True))

    def _op_float(self):
        self._stack.append(float(self._readline()))

    def _op_binfloat(self):
        self._stack.append(_F64.unpack(self._read(8))[0])

    # -- strings
    def _py2_str(self, raw):
        return raw if self._encoding == "bytes" else raw.decode(self._encoding)

    def _op_string(self):
        line = self._readline().rstrip(b"\r")
        if len(line) < 2 or line[0] != line[-1] or line[0] not in b"\"'":
            raise LoadError("load: STRING opcode argument must be quoted")
        self._stack.append(self._py2_str(codecs.escape_decode(line[1:-1])[0]))

    def _op_binstring(self):
        n = _I32.unpack(self._read(4))[0]
        if n < 0:
            raise LoadError("load: BINSTRING with a negative length")
        self._stack.append(self._py2_str(self._read(n)))

    def _op_short_binstring(self):
        self._stack.append(self._py2_str(self._read(self._read(1)[0])))

    def _op_unicode(self):
        self._stack.append(str(self._readline(), "raw-unicode-escape"))

    def _unicode(self, n):
        self._stack.append(str(self._read(n), "utf-8", "surrogatepass"))

    def _op_binunicode(self):
        self._unicode(_U32.unpack(self._read(4))[0])

    def _op_short_binunicode(self):
        self._unicode(self._read(1)[0])

    def _op_binunicode8(self):
        self._unicode(_U64.unpack(self._read(8))[0])

    def _op_binbytes(self):
        self._stack.append(self._read(_U32.unpack(self._read(4))[0]))

    def _op_short_binbytes(self):
        self._stack.append(self._read(self._read(1)[0]))

    def _op_binbytes8(self):
        self._stack.append(self._read(_U64.unpack(self._read(8))[0]))

    def _op_bytearray8(self):
        self._stack.append(bytearray(self._read(_U64.unpack(self._read(8))[0])))

    # -- containers
    def _op_empty_list(self):
        self._stack.append([])

    def _target(self, kind, opcode):
        target = self._stack[-1]
        if not isinstance(target, kind) or isinstance(target, frozenset):
            raise LoadError(
                f"load: {opcode} on {_describe(target, 40)} (only {kind.__name__}s are allowed)"
            )
        return target

    def _op_append(self):
        value = self._stack.pop()
        self._target(list, "APPEND").append(value)

    def _op_appends(self):
        items = self._pop_mark()
        self._target(list, "APPENDS").extend(items)

    def _op_list(self):
        items = self._pop_mark()  # first: it changes self._stack
        self._stack.append(items)

    def _op_empty_tuple(self):
        self._stack.append(())

    def _op_tuple(self):
        self._push_tuple(self._pop_mark())

    def _op_tuple1(self):
        self._push_tuple([self._stack.pop()])

    def _op_tuple2(self):
        b = self._stack.pop()
        self._push_tuple([self._stack.pop(), b])

    def _op_tuple3(self):
        c = self._stack.pop()
        b = self._stack.pop()
        self._push_tuple([self._stack.pop(), b, c])

    def _op_empty_dict(self):
        self._stack.append({})

    def _set_items(self, target, items):
        if len(items) % 2:
            raise LoadError("load: an odd number of dict items")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _op_dict(self):
        items = self._pop_mark()
        d = {}
        self._set_items(d, items)
        self._stack.append(d)

    def _op_setitem(self):
        value = self._stack.pop()
        key = self._stack.pop()
        self._target(dict, "SETITEM")[key] = value

    def _op_setitems(self):
        items = self._pop_mark()
        self._set_items(self._target(dict, "SETITEMS"), items)

    def _op_empty_set(self):
        self._stack.append(set())

    def _op_additems(self):
        items = self._pop_mark()
        self._target(set, "ADDITEMS").update(items)

    def _op_frozenset(self):
        items = frozenset(self._pop_mark())
        self._stack.append(items)

    # -- the memo
    def _put(self, index):
        if index < 0:
            raise LoadError("load: a negative memo index")
        self._memo[index] = self._stack[-1]

    def _get(self, index):
        try:
            self._stack.append(self._memo[index])
        except KeyError:
            raise LoadError(f"load: memo index {index} was never set") from None

    def _op_put(self):
        self._put(int(self._readline()))

    def _op_binput(self):
        self._put(self._read(1)[0])

    def _op_long_binput(self):
        self._put(_U32.unpack(self._read(4))[0])

    def _op_memoize(self):
        self._put(len(self._memo))

    def _op_get(self):
        self._get(int(self._readline()))

    def _op_binget(self):
        self._get(self._read(1)[0])

    def _op_long_binget(self):
        self._get(_U32.unpack(self._read(4))[0])

    # -- globals, calls, state, storages
    def _op_global(self):
        module = self._readline().decode("utf-8")
        name = self._readline().decode("utf-8")
        self._stack.append(self._find_class(module, name))

    def _op_stack_global(self):
        name = self._stack.pop()
        module = self._stack.pop()
        if type(module) is not str or type(name) is not str:
            raise LoadError("load: STACK_GLOBAL needs two strings")
        self._stack.append(self._find_class(module, name))

    def _op_reduce(self):
        args = self._stack.pop()
        func = self._stack.pop()
        self._stack.append(self._call(func, args))

    def _op_newobj(self):
        args = self._stack.pop()
        cls = self._stack.pop()
        self._stack.append(self._new(cls, args, {}))

    def _op_newobj_ex(self):
        kwargs = self._stack.pop()
        args = self._stack.pop()
        cls = self._stack.pop()
        self._stack.append(self._new(cls, args, kwargs))

    def _op_build(self):
        state = self._stack.pop()
        self._build(self._stack[-1], state)

    def _op_binpersid(self):
        pid = self._stack.pop()
        if self._persistent_load is None:
            raise LoadError(f"load: the {self._what} may not refer to storages")
        self._stack.append(self._persistent_load(pid))


_I32, _U16, _U32, _U64 = (
    struct.Struct("<i"),
    struct.Struct("<H"),
    struct.Struct("<I"),
    struct.Struct("<Q"),
)
_F64 = struct.Struct(">d")
_DISPATCH = [None] * 256
for _name, _code in {
    "stop": ".", "proto": "\x80", "frame": "\x95", "mark": "(", "pop": "0", "pop_mark": "1",
    "dup": "2", "none": "N", "true": "\x88", "false": "\x89", "int": "I", "binint": "J",
    "binint1": "K", "binint2": "M", "long": "L", "long1": "\x8a", "long4": "\x8b",
    "float": "F", "binfloat": "G", "string": "S", "binstring": "T", "short_binstring": "U",
    "unicode": "V", "binunicode": "X", "short_binunicode": "\x8c", "binunicode8": "\x8d",
    "binbytes": "B", "short_binbytes": "C", "binbytes8": "\x8e", "bytearray8": "\x96",
    "empty_list": "]", "append": "a", "appends": "e", "list": "l", "empty_tuple": ")",
    "tuple": "t", "tuple1": "\x85", "tuple2": "\x86", "tuple3": "\x87", "empty_dict": "}",
    "dict": "d", "setitem": "s", "setitems": "u", "empty_set": "\x8f", "additems": "\x90",
    "frozenset": "\x91", "put": "p", "binput": "q", "long_binput": "r", "memoize": "\x94",
    "get": "g", "binget": "h", "long_binget": "j", "global": "c", "stack_global": "\x93",
    "reduce": "R", "newobj": "\x81", "newobj_ex": "\x92", "build": "b", "binpersid": "Q",
}.items():  # fmt: skip
    _DISPATCH[ord(_code)] = getattr(_WeightsOnlyUnpickler, f"_op_{_name}")
del _name, _code


def _children(obj):
    """What a loaded object holds (None for an object that holds nothing to walk)."""
    kind = type(obj)
    if kind in (list, tuple, set, frozenset):
        return obj
    if isinstance(obj, _NOT_WALKED):
        return None
    parts = []
    if isinstance(obj, dict):
        parts += [obj.keys(), obj.values()]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        parts.append(obj)
    attrs = getattr(obj, "__dict__", None)
    if type(attrs) is dict and attrs:
        parts.append(attrs.values())
    return itertools.chain(*parts) if parts else None


def _check_nesting(root, what="pickle"):
    """Refuses an object whose containers nest deeper than MAX_NESTING (walked without
    recursion; shared objects are measured once, cycles are not followed)."""
    kids = _children(root) if type(root) not in _LEAF_TYPES else None
    if kids is None:
        return
    heights = {}  # id -> height of a finished object (all alive: they are inside root)
    on_path = {id(root)}
    path = [[root, iter(kids), 0]]
    while path:
        frame = path[-1]
        for child in frame[1]:
            if type(child) in _LEAF_TYPES:
                continue
            key = id(child)
            done = heights.get(key)
            if done is not None:
                if done > frame[2]:
                    frame[2] = done
                continue
            if key in on_path:
                continue
            grandchildren = _children(child)
            if grandchildren is None:
                continue
            if len(path) >= MAX_NESTING:
                raise LoadError(
                    f"load: the {what} nests containers deeper than {MAX_NESTING} levels"
                )
            on_path.add(key)
            path.append([child, iter(grandchildren), 0])
            break
        else:
            path.pop()
            on_path.discard(id(frame[0]))
            heights[id(frame[0])] = height = frame[2] + 1
            if height > MAX_NESTING:
                raise LoadError(
                    f"load: the {what} nests containers deeper than {MAX_NESTING} levels"
                )
            if path and height > path[-1][2]:
                path[-1][2] = height


# ---------------------------------------------------------------- load
class _Records:
    """Reads the zip's records; storages come as fresh memory or as views of a mapping."""

    MAX_RATIO = 1032  # the most a deflated byte can expand to

    def __init__(self, f, mmap_file):
        self.f = f
        self.size = _file_size(f)
        try:
            self.zf = zipfile.ZipFile(f)
        except Exception as e:  # zipfile raises many kinds on a damaged archive
            raise RuntimeError(
                f"load: the file is not a valid checkpoint zip archive ({_safe_text(e)})"
            ) from None
        names = self.zf.namelist()
        if not names:
            raise RuntimeError("load: the checkpoint archive is empty")
        self.prefix = names[0].split("/")[0] + "/"
        self.infos = {i.filename: i for i in self.zf.infolist()}
        self.mapped = mmap_file
        self.allocated = 0  # bytes of storage read so far: more than the file holds is forged

    def has(self, name):
        return self.prefix + name in self.infos

    def read(self, name):
        info = self._info(name)
        self._check_compression(info)
        try:
            return self.zf.read(info)
        except Exception as e:  # a damaged record: zipfile, zlib and the OS raise many kinds
            raise RuntimeError(
                f"load: record '{info.filename}' is corrupt ({_safe_text(e)})"
            ) from None

    def _check_compression(self, info):
        if info.compress_type == zipfile.ZIP_STORED:
            return
        if info.compress_type != zipfile.ZIP_DEFLATED:
            raise RuntimeError(
                f"load: record '{info.filename}' uses compression method {info.compress_type} "
                "(only stored and deflated records are read)"
            )
        if info.file_size > self.MAX_RATIO * info.compress_size + 1024:
            raise RuntimeError(
                f"load: record '{info.filename}' claims {info.file_size} bytes from "
                f"{info.compress_size} compressed ones, more than deflate can expand to"
            )

    def _info(self, name):
        info = self.infos.get(self.prefix + name)
        if info is None:
            raise RuntimeError(f"load: the checkpoint has no record '{self.prefix}{name}'")
        return info

    def _data_offset(self, info):
        if not 0 <= info.header_offset <= self.size - 30:
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
            self._account(info, nbytes, self.MAX_RATIO * self.size)
            data = self.read(f"data/{key}")
            storage = UntypedStorage(nbytes)
            memoryview(storage)[:] = data
            return storage
        offset = self._data_offset(info)
        if offset + nbytes > self.size:  # checked before allocating anything
            raise RuntimeError(f"load: record '{info.filename}' runs past the end of the file")
        # A record that torch.save did not align (a foreign or forged file) is read into
        # fresh memory instead: kernels load elements at their natural alignment.
        if self.mapped is not None and offset % ALIGNMENT == 0:
            return UntypedStorage._from_buffer(memoryview(self.mapped)[offset : offset + nbytes])
        self._account(info, nbytes, self.size)
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

    def _account(self, info, nbytes, limit):
        """Records that overlap in the file (a forged central directory) must not multiply
        the memory a small file costs."""
        self.allocated += nbytes
        if self.allocated > limit:
            raise RuntimeError(
                f"load: record '{info.filename}' makes the storages larger than the file can "
                "hold (overlapping records)"
            )


def _check_location(location, map_location, cuda_ok=True):
    """The device ("cpu", "cuda", "cuda:1", ...) a storage saved at `location` goes to."""
    target = location
    if isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, (str, _C.device)):
        target = str(map_location)
    target = str(target)
    if target == "cpu" or target.startswith("cpu:"):
        return "cpu"
    if target == "cuda" or target.startswith("cuda:"):
        import torch.cuda

        if not torch.cuda.is_available():  # PyTorch's words
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but "
                "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
                "please use torch.load with map_location=torch.device('cpu') to map your "
                "storages to the CPU."
            )
        if cuda_ok:
            return target
        raise NotImplementedError(
            f"load: a legacy (pre-zip) checkpoint's storage on '{location}' can only be "
            "loaded to the CPU; pass map_location='cpu' and move the tensors afterwards"
        )
    raise RuntimeError(
        f"load: the checkpoint has a storage on '{location}', which this build cannot "
        "place; pass map_location='cpu' (or torch.device('cpu'))"
    )


def _storage_from_pid(pid, load_storage):
    """The storage a persistent id ``('storage', FloatStorage, key, location, numel)`` names
    (the legacy format adds a sixth field, None), its fields checked before anything is
    allocated."""
    if not (type(pid) is tuple and len(pid) in (5, 6) and pid[0] in ("storage", b"storage")):
        raise LoadError(f"load: unknown persistent id ({_describe(pid)})")
    storage_type, key, location, numel = pid[1:5]
    if len(pid) == 6 and pid[5] is not None:
        raise RuntimeError("load: the legacy checkpoint uses storage views (PyTorch before "
                           "0.4), which are not supported")  # fmt: skip
    if storage_type is UntypedStorage:
        dtype = _C.uint8
    elif isinstance(storage_type, type) and storage_type in _STORAGE_TYPES:
        dtype = storage_type.dtype
    else:
        raise LoadError(f"load: unsupported storage type ({_describe(storage_type)})")
    if type(key) is not str or type(location) is not str:
        raise LoadError(f"load: malformed persistent id ({_describe(pid)})")
    if type(numel) is not int or not 0 <= numel * dtype.itemsize <= _INT64_MAX:
        raise LoadError(f"load: invalid storage size ({_describe(numel)})")
    untyped = load_storage(key, numel, dtype, location)
    if storage_type is UntypedStorage:
        return untyped
    return storage_type(wrap_storage=untyped)


_STORAGE_TYPES = frozenset(_STORAGE_CLASSES.values())


class _FullUnpickler(pickle.Unpickler):
    """``weights_only=False``: Python's unpickler, which runs whatever the file names."""

    def __init__(self, file, load_storage, encoding):
        super().__init__(file, encoding=encoding)
        self.load_storage = load_storage

    def find_class(self, module, name):
        if module == "torch" and name in _STORAGE_CLASSES:
            return _STORAGE_CLASSES[name]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return _storage_from_pid(pid, self.load_storage)


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


_TRUE_VALUES = ("1", "y", "yes", "true")


def _env_flag(name):
    return os.environ.get(name, "0").lower() in _TRUE_VALUES


def _resolve_weights_only(weights_only):
    """``weights_only`` after the environment: ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` (1, y, yes
    or true, in any case) makes every load ``weights_only=True``;
    ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` makes ``weights_only=False`` the default of loads
    that do not pass it (with a warning), as in PyTorch. Both set: RuntimeError."""
    force, force_no = (
        _env_flag("TORCH_FORCE_WEIGHTS_ONLY_LOAD"),
        _env_flag("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"),
    )
    if force and force_no:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set."
        )
    if force:
        return True
    if weights_only is None:
        if force_no:
            import warnings

            warnings.warn(
                "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected: the "
                "`weights_only` argument was not passed to `torch.load`, so it loads with "
                "weights_only=False (which runs whatever the file's pickle names).",
                UserWarning,
                stacklevel=3,
            )
            return False
        return True
    return weights_only


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=False,
         **pickle_load_args):  # fmt: skip
    """Loads what :func:`save` (or PyTorch's ``torch.save``) wrote, from a path or a binary
    file object.

    ``weights_only=True`` (the default) refuses any pickle that would call something other
    than the tensor-rebuilding functions, containers and :func:`add_safe_globals` entries;
    nothing from the file runs. Use ``weights_only=False`` only for files you trust: it runs
    whatever the pickle names. ``mmap=True`` maps the file and makes tensors views of the
    mapping (copy-on-write) instead of reading their bytes. ``encoding`` (default
    ``'utf-8'``; ``'latin1'`` or ``'bytes'`` for Python 2 files) decodes Python 2 strings.

    ``weights_only=None`` is ``True`` unless the environment says otherwise:
    ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` makes it ``False`` (for loads that do not pass
    ``weights_only``), ``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1`` forces ``True`` for every load."""
    weights_only = _resolve_weights_only(weights_only)
    encoding = pickle_load_args.get("encoding", "utf-8")
    cache = {}

    with _open_for(f, "rb") as fh:
        if not hasattr(fh, "seek") or not getattr(fh, "seekable", lambda: True)():
            fh = io.BytesIO(fh.read())
        if not _is_zip(fh):
            if mmap:
                raise RuntimeError("load: mmap=True needs a zip checkpoint (the default format)")
            return _legacy_load(fh, map_location, weights_only, encoding)
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
            if dtype == _C.bool:
                _normalize_bools(cache[key])
            return cache[key]

        data = records.read("data.pkl")
        if records.has("byteorder") and records.read("byteorder") not in (b"little", b""):
            raise RuntimeError("load: big-endian checkpoints are not supported")
        return _unpickle(data, weights_only, load_storage, encoding)


def _allowed_globals():
    allowed = dict(_default_safe_globals())
    allowed.update({name: (obj, None) for name, obj in _SAFE_GLOBALS.items()})
    return allowed


def _unpickle(source, weights_only, load_storage, encoding):
    """The checkpoint's object from ``source`` (the pickle's bytes, or a file positioned at
    it); any failure inside the pickle is a LoadError (both RuntimeError and UnpicklingError),
    a LoadEOFError (also an EOFError) when the pickle is cut short."""

    def persistent_load(pid):
        return _storage_from_pid(pid, load_storage)

    if weights_only:
        unpickler = _WeightsOnlyUnpickler(
            source, _allowed_globals(), persistent_load, encoding, what="pickle in the checkpoint"
        )
        return unpickler.load()
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    try:
        return _FullUnpickler(source, load_storage, encoding).load()
    except RuntimeError:  # LoadError included
        raise
    except EOFError:
        raise LoadEOFError("load: the pickle in the checkpoint is truncated") from None
    except Exception as e:  # a malformed pickle can raise nearly anything while unpickling
        if isinstance(e, pickle.UnpicklingError) and "truncated" in str(e):
            raise LoadEOFError("load: the pickle in the checkpoint is truncated") from None
        message = f"load: the pickle in the checkpoint is malformed ({e!r:.200})"
        raise LoadError(message) from None


def _mapped(storage, location, map_location, cuda_ok=True):
    """Applies map_location (a device, a string, a dict or a callable) to a loaded storage
    (a CPU one): the storage on the device it goes to."""
    if callable(map_location):
        moved = map_location(storage, location)
        if moved is not None:
            return moved.untyped() if isinstance(moved, TypedStorage) else moved
        map_location = None
    device = _check_location(location, map_location, cuda_ok)
    if device == "cpu":
        return storage
    n = storage.nbytes()
    as_bytes = _C._tensor_from_storage(storage, _C.uint8, 0, (n,), (1,))
    return _C._cuda_to_device(as_bytes, device, False).untyped_storage()


def _normalize_bools(storage):
    """Makes every byte of a bool storage read from a file 0 or 1: any other byte is not a
    valid C++ bool, and kernels reading one have undefined behaviour (UBSan found it)."""
    n = storage.nbytes()
    if n and not isinstance(storage, TypedStorage):
        as_bytes = _C._tensor_from_storage(storage, _C.uint8, 0, (n,), (1,))
        as_bytes.copy_(_C.ne(as_bytes, 0))


def _legacy_load(f, map_location, weights_only, encoding):
    """PyTorch's pre-zip format: magic, protocol, sys info, the object, storage keys, then
    each storage as an int64 element count and its bytes. The four records around the object
    are plain data: they are read with the restricted unpickler and no globals at all,
    whatever ``weights_only`` says."""

    def header(what):
        return _WeightsOnlyUnpickler(f, {}, None, encoding, what=f"legacy {what} record").load()

    if _file_size(f) <= f.tell():
        raise LoadEOFError("load: the file is empty: it holds no checkpoint (0 bytes to read)")
    try:
        magic = header("magic number")
    except pickle.UnpicklingError as e:  # an empty or cut file stays an EOFError
        error = LoadEOFError if isinstance(e, EOFError) else LoadError
        raise error(f"load: the file is neither a zip checkpoint nor a legacy one ({e})") from None
    if type(magic) is not int or magic != LEGACY_MAGIC:
        raise RuntimeError(
            "load: the file is neither a zip checkpoint nor a legacy one (bad magic number)"
        )
    protocol = header("protocol version")
    if type(protocol) is not int or protocol != LEGACY_PROTOCOL:
        raise RuntimeError("load: unsupported legacy checkpoint protocol version")
    sys_info = header("system info")
    if type(sys_info) is not dict or sys_info.get("little_endian", True) is not True:
        raise RuntimeError("load: malformed or big-endian legacy checkpoint system info")
    wanted = {}  # key -> (storage, numel, element size)
    size = _file_size(f)
    allocated = 0
    bool_keys = set()

    def load_storage(key, numel, dtype, location):
        nonlocal allocated
        if key not in wanted:
            nbytes = numel * dtype.itemsize
            allocated += nbytes
            if allocated > size:  # the bytes follow in the file: a forged size is refused
                raise RuntimeError(f"load: legacy storage '{key}' is larger than the file")
            storage = UntypedStorage(nbytes)
            if nbytes:  # zeroed: its bytes come after the pickle, and nothing may read garbage
                _C._tensor_from_storage(storage, _C.uint8, 0, (nbytes,), (1,)).fill_(0)
            # its bytes are read into it below: legacy storages stay on the CPU
            wanted[key] = (_mapped(storage, location, map_location, False), numel, dtype.itemsize)
        if dtype == _C.bool:  # on every use: a forged file may name one key with two types
            bool_keys.add(key)  # normalised once its bytes are read, below
        return wanted[key][0]

    result = _unpickle(f, weights_only, load_storage, encoding)
    keys = header("storage keys")
    if type(keys) is not list or not all(type(k) is str for k in keys):
        raise RuntimeError("load: legacy checkpoint has a malformed list of storage keys")
    if len(set(keys)) != len(keys) or set(keys) != set(wanted):
        raise RuntimeError(  # a storage never filled would expose uninitialised memory
            "load: legacy checkpoint's storage keys do not match the storages its object uses"
        )
    for key in keys:
        storage, expected, itemsize = wanted[key]
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
        if key in bool_keys:
            _normalize_bools(storage)
    return result
