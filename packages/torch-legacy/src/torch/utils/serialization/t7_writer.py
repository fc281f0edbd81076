"""Writing Lua torch7 ``.t7`` files: :func:`save_lua`, following torch7's ``File:writeObject``
(the layout is described in read_lua_file.py). Files written here load in Lua with
``torch.load`` and back here with ``load_lua``."""

import os
import struct
import warnings
from array import array

import torch
from torch.utils.serialization.read_lua_file import (
    BOOLEAN,
    NIL,
    NN_VERSIONS,
    NUMBER,
    RECUR_FUNCTION,
    STEM_OF_DTYPE,
    STRING,
    TABLE,
    TORCH,
    LuaFunction,
    TdsHash,
    TdsVec,
    TorchObject,
    python_fields_to_lua,
)

__all__ = ["save_lua"]


def _is_legacy_module(obj):
    return type(obj).__module__.startswith("torch.legacy.nn")


class _Writer:
    def __init__(self, long_size):
        if long_size not in (4, 8):
            raise ValueError(f"save_lua: long_size must be 4 or 8, got {long_size!r}")
        self.out = bytearray()
        self.long_size = long_size
        self.long_format = "<q" if long_size == 8 else "<i"
        self.indices = {}  # identity key -> object index, as File.lua keys by pointer
        self.keep_alive = []  # objects whose id() is a key must outlive the writing

    def int(self, value):
        self.out += struct.pack("<i", value)

    def long(self, value):
        try:
            self.out += struct.pack(self.long_format, value)
        except struct.error:
            raise ValueError(
                f"save_lua: {value} does not fit a {self.long_size}-byte Lua long"
            ) from None

    def string_bytes(self, value):
        raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        self.int(len(raw))
        self.out += raw

    def write(self, obj):
        tag = _tag(obj)
        if tag is None:
            what = type(obj).__name__
            if isinstance(obj, (torch.Tensor, torch.TypedStorage)):
                what += f" of {obj.dtype} (torch7 has no such type)"
            raise TypeError(f"save_lua: cannot write an object of type {what}")
        if tag == NUMBER:
            number = float(obj)
            if number != obj:
                raise ValueError(f"save_lua: {obj} cannot be stored as a Lua number (a double)")
            self.int(NUMBER)
            self.out += struct.pack("<d", number)
        elif tag == STRING:
            self.int(STRING)
            self.string_bytes(obj)
        elif tag == BOOLEAN:
            self.int(BOOLEAN)
            self.int(1 if obj else 0)
        elif tag == NIL:
            self.int(NIL)
        else:
            self.write_indexed(tag, obj)

    def identity(self, obj):
        """The key under which ``obj`` is written once: storages by their memory and dtype
        (so tensors viewing one storage share it), everything else by identity."""
        if isinstance(obj, torch.TypedStorage):
            untyped = obj.untyped()
            self.keep_alive.append(untyped)
            return ("storage", untyped._key(), obj.dtype)
        self.keep_alive.append(obj)
        return id(obj)

    def write_indexed(self, tag, obj):
        self.int(tag)
        key = self.identity(obj)
        if key in self.indices:
            self.int(self.indices[key])
            return
        index = len(self.indices) + 1
        self.indices[key] = index
        self.int(index)
        if tag == TABLE:
            self.write_table(obj)
        elif tag == RECUR_FUNCTION:
            self.string_bytes(obj.dumped)
            self.write(obj.upvalues)
        else:
            self.write_torch(obj)

    def write_table(self, obj):
        # None values are written as nil: Lua's reader skips them, load_lua keeps them
        items = list(obj.items() if isinstance(obj, dict) else enumerate(obj, 1))
        self.int(len(items))
        for key, value in items:
            if key is None:
                raise ValueError("save_lua: a Lua table cannot have a nil (None) key")
            self.write(key)
            self.write(value)

    def write_class(self, name, version):
        self.string_bytes(f"V {version}")
        self.string_bytes(name)

    def write_torch(self, obj):
        if isinstance(obj, torch.Tensor):
            self.write_class(f"torch.{_stem(obj.dtype)}Tensor", 1)
            self.write_tensor(obj)
        elif isinstance(obj, torch.TypedStorage):
            self.write_class(f"torch.{_stem(obj.dtype)}Storage", 1)
            self.write_storage(obj)
        elif isinstance(obj, torch.Size):  # a size is a LongStorage in Lua
            self.write_class("torch.LongStorage", 1)
            self.long(len(obj))
            for n in obj:
                self.long(n)
        elif isinstance(obj, TdsHash):
            self.write_class("tds.Hash", 0)
            self.long(len(obj))
            for key, value in obj.items():
                self.write(key)
                self.write(value)
        elif isinstance(obj, TdsVec):
            self.write_class("tds.Vec", 0)
            self.long(len(obj))
            for value in obj:
                self.write(value)
        elif isinstance(obj, TorchObject):
            self.write_class(obj._typename, obj._version)
            self.write_fields(obj._typename, obj._fields)
        else:
            name = type(obj).__name__
            self.write_class("nn." + name, NN_VERSIONS.get(name, 1))
            self.write_fields("nn." + name, python_fields_to_lua(name, vars(obj)))

    def write_fields(self, typename, fields):
        """An object's field table, as File.lua builds it: None (nil) fields are absent, and
        fields Lua cannot hold are skipped with a warning."""
        table = {}
        for key, value in fields.items():
            if value is None:
                continue
            if _tag(value) is None:
                warnings.warn(
                    f"save_lua: cannot write field {key!r} of {typename} "
                    f"({type(value).__name__}); skipped",
                    stacklevel=4,
                )
                continue
            table[key] = value
        self.write_indexed(TABLE, table)

    def write_tensor(self, tensor):
        if tensor.numel() == 0:  # torch7's empty tensor: no dimensions, no storage
            self.int(0)
            self.long(1)
            self.int(NIL)
            return
        sizes, strides = (tensor.shape, tensor.stride()) if tensor.dim() else ((1,), (1,))
        self.int(len(sizes))
        for n in (*sizes, *strides, tensor.storage_offset() + 1):
            self.long(n)
        storage_class = getattr(torch, _stem(tensor.dtype) + "Storage")
        self.write(storage_class(wrap_storage=tensor.untyped_storage()))

    def write_storage(self, storage):
        n = storage.size()
        self.long(n)
        raw = memoryview(storage.untyped())[: n * storage.dtype.itemsize]
        if storage.dtype == torch.int64 and self.long_size == 4:
            longs = array("q")
            longs.frombytes(raw)
            try:
                raw = array("i", longs).tobytes()
            except OverflowError:
                raise ValueError("save_lua: a LongStorage value overflows 4-byte longs") from None
        self.out += raw


def _tag(obj):
    """The type tag ``obj`` is written with, or None when Lua cannot hold it."""
    if obj is None:
        return NIL
    if isinstance(obj, bool):
        return BOOLEAN
    if isinstance(obj, (int, float)):
        return NUMBER
    if isinstance(obj, (str, bytes)):
        return STRING
    if isinstance(obj, (torch.Tensor, torch.TypedStorage)):
        return TORCH if obj.dtype in STEM_OF_DTYPE else None
    if isinstance(obj, (torch.Size, TdsHash, TdsVec, TorchObject)) or _is_legacy_module(obj):
        return TORCH
    if isinstance(obj, LuaFunction):
        return RECUR_FUNCTION
    if isinstance(obj, (dict, list, tuple)):
        return TABLE
    return None


def _stem(dtype):
    if dtype not in STEM_OF_DTYPE:
        raise TypeError(f"save_lua: Lua torch7 has no tensor type for {dtype}")
    return STEM_OF_DTYPE[dtype]


def save_lua(obj, path_or_file, long_size=8):
    """Write ``obj`` as a Lua torch7 ``.t7`` file (a path or a binary file object), as Lua's
    ``torch.save`` would: numbers (as doubles), strings, booleans, dicts and lists/tuples (Lua
    tables), tensors and storages of
    torch7's types, ``torch.Size`` (a LongStorage), ``torch.legacy.nn`` modules (``nn.<Name>``,
    indices made 1-based) and what :func:`load_lua` returns. A table entry whose value is None
    is written as nil (Lua drops it, load_lua keeps it). An object met twice is written once
    and referenced after, so sharing and cycles survive. 0-dim tensors are written with size
    (1,) and empty tensors as torch7's dimensionless empty tensor.
    """
    writer = _Writer(long_size)
    writer.write(obj)
    if isinstance(path_or_file, (str, bytes, os.PathLike)):
        with open(path_or_file, "wb") as f:
            f.write(writer.out)
    else:
        path_or_file.write(writer.out)
