"""Reading Lua torch7 ``.t7`` files (``torch.save`` in Lua): :func:`load_lua`.

The stream is one ``writeObject`` of torch7's File.lua, little-endian, with 4-byte ints,
``long_size``-byte longs and 8-byte doubles. Every object starts with an int32 type tag::

    0 nil        nothing follows
    1 number     float64
    2 string     int32 length, the bytes
    5 boolean    int32 (1 = true)
    3 table      int32 index; if new: int32 npairs, then npairs x (key, value)
    4 torch      int32 index; if new: "V <version>" and the class name (int32 length + bytes
                 each), then the class's payload (a tensor, a storage, tds, or a field table)
    8/7 function int32 index; if new: int32 length, bytecode, then the upvalues object
    6 function   (no index) int32 length, bytecode, upvalues

One index counter (from 1) covers tables, torch objects and functions: a repeated index is a
reference to the object read earlier. Objects are registered before their children are read,
so self-references resolve.

Everything the file says is checked before it is used: every count and length against the
bytes left (before anything is allocated), every tensor's sizes, strides and offset against
its storage (with Python ints), class versions and names (``nn.<Name>`` maps only to the
Module and Criterion classes torch.legacy.nn exports), and the nesting depth. The reader does
not recurse in Python: compound objects are generators kept on an explicit stack (see
:meth:`_Reader.read_object`), so deep input is refused by :data:`MAX_DEPTH`, never by a
RecursionError, whatever the caller's stack.
"""

import math
import os
import re
import struct
import sys
from array import array
from types import GeneratorType

import torch

__all__ = [
    "load_lua",
    "T7ReaderError",
    "T7ReaderException",
    "LuaTable",
    "TorchObject",
    "LuaFunction",
    "TdsHash",
    "TdsVec",
]

# type tags
NIL, NUMBER, STRING, TABLE, TORCH, BOOLEAN = range(6)
FUNCTION, LEGACY_RECUR_FUNCTION, RECUR_FUNCTION = 6, 7, 8

# torch7 element types: the class-name stem and our dtype ("Cuda" variants read as CPU).
TYPE_STEMS = {
    "Byte": torch.uint8,
    "Char": torch.int8,
    "Short": torch.int16,
    "Int": torch.int32,
    "Long": torch.int64,
    "Float": torch.float32,
    "Double": torch.float64,
    "Half": torch.float16,
}
STEM_OF_DTYPE = {dtype: stem for stem, dtype in TYPE_STEMS.items()}
_CLASS_NAME = re.compile(
    r"torch\.(Cuda)?(Byte|Char|Short|Int|Long|Float|Double|Half|)(Tensor|Storage)"
)

# Objects (tables, torch objects, functions) nested deeper than this are refused. The reader
# keeps open objects on its own stack, so this is a policy, not Python's recursion limit.
MAX_DEPTH = 256
# Tensors with more dimensions than this are refused (torch7 writes a handful).
MAX_TENSOR_DIMS = 64
# Sizes, strides, offsets and element counts of tensors must be below this (int64 head-room).
MAX_EXTENT = 2**62
# Class versions ("V <n>") have at most this many digits.
MAX_VERSION_DIGITS = 9


class T7ReaderError(ValueError):
    """A .t7 stream that cannot be decoded: truncated, corrupted, or of an unknown class."""


T7ReaderException = T7ReaderError  # early PyTorch's name


class LuaTable(dict):
    """A Lua table that is not a list. Hashed by identity, as Lua tables are, so that a table
    may be a key (``t[t] = t``); compared by value like any dict."""

    __hash__ = object.__hash__


class TdsHash(LuaTable):
    """A ``tds.Hash`` (torch's C-backed dictionary), read as a dict."""


class TdsVec(list):
    """A ``tds.Vec`` (torch's C-backed vector), read as a list."""


class TorchObject:
    """An object of a torch class this reader does not map (``load_lua(unknown_classes=True)``):
    its class name, version and field table; fields read as attributes or items."""

    def __init__(self, typename, fields=None, version=1):
        self._typename = typename
        self._version = version
        self._fields = LuaTable() if fields is None else fields

    def torch_typename(self):
        return self._typename

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{self._typename} object has no field {name!r}") from None

    def __getitem__(self, key):
        return self._fields[key]

    def __dir__(self):
        return [*super().__dir__(), *(k for k in self._fields if isinstance(k, str))]

    def __repr__(self):
        return f"TorchObject({self._typename!r}, fields={sorted(map(str, self._fields))})"


class LuaFunction:
    """A Lua function: its dumped bytecode and upvalues, kept opaque (never run)."""

    def __init__(self, dumped, upvalues):
        self.dumped = dumped
        self.upvalues = upvalues

    def __repr__(self):
        return f"LuaFunction({len(self.dumped)} bytes of bytecode)"


# -- torch.legacy.nn: Lua's 1-based fields made 0-based, and renamed fields -----------------

ONE_BASED = "one_based"  # a Lua index or dimension: -1 on reading, +1 on writing
POSITIVE_ONE_BASED = "positive"  # the same, only when positive (Lua counts negatives from the end)
RENAME = "rename"
ONE_BASED_TENSOR = "tensor"  # a tensor of Lua indices
ONE_BASED_PAIRS = "pairs"  # a list of pairs of Lua dimensions (Transpose)

# class -> [(Lua field, Python field, rule)]
NN_FIELDS = {
    "Index": [("dimension", "dimension", ONE_BASED)],
    "SplitTable": [("dimension", "dimension", ONE_BASED)],
    "Concat": [("dimension", "dimension", ONE_BASED)],
    "DepthConcat": [("dimension", "dimension", ONE_BASED)],
    "SelectTable": [("index", "index", ONE_BASED)],
    "Parallel": [
        ("inputDimension", "inputDimension", ONE_BASED),
        ("outputDimension", "outputDimension", ONE_BASED),
    ],
    "Squeeze": [("dim", "dim", ONE_BASED)],
    "Unsqueeze": [("pos", "dim", ONE_BASED)],
    "Replicate": [("dim", "dim", ONE_BASED)],
    "MixtureTable": [("dim", "dim", ONE_BASED)],
    "Narrow": [("dimension", "dimension", ONE_BASED), ("index", "index", ONE_BASED)],
    "Select": [("dimension", "dimension", ONE_BASED), ("index", "index", ONE_BASED)],
    "Padding": [("dim", "dim", ONE_BASED), ("index", "index", ONE_BASED)],
    "NarrowTable": [("offset", "offset", ONE_BASED)],
    "LookupTable": [("paddingValue", "paddingValue", ONE_BASED)],
    "SpatialConvolutionMap": [("connTable", "connTable", ONE_BASED_TENSOR)],
    "SpatialFullConvolutionMap": [("connTable", "connTable", ONE_BASED_TENSOR)],
    "PartialLinear": [("partition", "partition", ONE_BASED_TENSOR)],
    "Transpose": [("permutations", "permutations", ONE_BASED_PAIRS)],
    "JoinTable": [("dimension", "dimension", POSITIVE_ONE_BASED)],
    "Sum": [("dimension", "dimension", POSITIVE_ONE_BASED)],
    "Max": [("dimension", "dimension", POSITIVE_ONE_BASED)],
    "Min": [("dimension", "dimension", POSITIVE_ONE_BASED)],
    "Mean": [("dimension", "dimension", POSITIVE_ONE_BASED)],
    "ReLU": [("val", "value", RENAME)],
    "Threshold": [("val", "value", RENAME)],
    "HardShrink": [("lambda", "lambd", RENAME)],
    "SoftShrink": [("lambda", "lambd", RENAME)],
    "GradientReversal": [("lambda", "lambd", RENAME)],
    "SpatialAdaptiveMaxPooling": [("W", "w", RENAME), ("H", "h", RENAME)],
}

# Fields that Lua leaves out when they are nil (no bias, no weights, batch mode unset, ...)
# and that the Python modules read: absent ones become None on every loaded module.
NN_NIL_FIELDS = (
    "weight",
    "bias",
    "gradWeight",
    "gradBias",
    "addBuffer",
    "weights",
    "noise",
    "indices",
    "_indices",
    "inplace",
    "train",
    "numInputDims",
    "nInputDims",
    "nInputDim",
    "ndim",
    "batchMode",
    "save_mean",
    "save_std",
)
# Per-class fields Lua may leave out, with their values when absent.
NN_DEFAULTS = {
    "Squeeze": {"dim": None},
    "VolumetricAveragePooling": {
        "padT": 0,
        "padW": 0,
        "padH": 0,
        "ceil_mode": False,
        "count_include_pad": True,
    },
}
# Work buffers Lua saved with the module: dropped, the module reallocates them.
NN_BUFFERS = {"SpatialConvolution": ("finput", "fgradInput", "_input")}
# Fields that hold a size: a LongStorage in Lua, a torch.Size here.
NN_SIZES = {"View": ("size",), "DepthConcat": ("outputSize",), "MixtureTable": ("size",)}
# Lua classes whose __version is not 1 (their read() converts older layouts).
NN_VERSIONS = {
    "BatchNormalization": 2,
    "SpatialBatchNormalization": 2,
    "VolumetricBatchNormalization": 2,
}
NN_REFUSED = {"SpatialContrastiveNormalization": "it holds Lua-only sub-networks"}


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shift(value, rule, delta):
    """``value`` with a 1-based index rule applied: ``delta`` is -1 on reading, +1 on writing.
    Values of an unexpected type are left as they are."""
    if rule == ONE_BASED_TENSOR:
        return value + delta if isinstance(value, torch.Tensor) else value
    if rule == ONE_BASED_PAIRS:
        pairs = isinstance(value, (list, tuple)) and all(
            isinstance(p, (list, tuple)) and all(map(_is_number, p)) for p in value
        )
        return [[d + delta for d in pair] for pair in value] if pairs else value
    if not _is_number(value):
        return value
    if rule == POSITIVE_ONE_BASED and (value <= 0 if delta < 0 else value < 0):
        return value
    return value + delta


def _convert_fields(name, fields, to_python):
    """``fields`` with the rules of NN_FIELDS applied in one direction, in the same order."""
    rules = {
        (lua if to_python else py): (py if to_python else lua, rule)
        for lua, py, rule in NN_FIELDS.get(name, ())
    }
    converted = {}
    for key, value in fields.items():
        if key in rules:
            key, rule = rules[key]
            if rule != RENAME:
                value = _shift(value, rule, -1 if to_python else +1)
        converted[key] = value
    return converted


def _check_fixup_tensor(name, key, value):
    """A tensor a fix-up computes with must hold no more elements than its storage: an
    expanded view (stride 0) of a few bytes could otherwise ask for any size."""
    if isinstance(value, torch.Tensor):
        capacity = value.untyped_storage().nbytes() // value.element_size()
        if value.numel() > capacity:
            raise ValueError(
                f"field {key!r} of nn.{name} has {value.numel()} elements but its storage "
                f"holds {capacity}"
            )


def lua_fields_to_python(name, fields, version):
    """The attribute dict of legacy ``nn.<name>`` from its Lua field table (0-based indices,
    Python names)."""
    for lua, _, rule in NN_FIELDS.get(name, ()):
        if rule == ONE_BASED_TENSOR:
            _check_fixup_tensor(name, lua, fields.get(lua))
    fields = _convert_fields(name, fields, to_python=True)
    for key in NN_NIL_FIELDS:
        fields.setdefault(key, None)
    for key, default in NN_DEFAULTS.get(name, {}).items():
        fields.setdefault(key, default)
    for key in NN_BUFFERS.get(name, ()):
        fields[key] = None
    for key in NN_SIZES.get(name, ()):
        if isinstance(fields.get(key), torch.TypedStorage):
            fields[key] = torch.Size(fields[key].tolist())
    std = fields.get("running_std")
    if name in NN_VERSIONS and version < 2 and isinstance(std, torch.Tensor):
        # BatchNormalization before version 2 kept 1/sqrt(var + eps)
        _check_fixup_tensor(name, "running_std", std)
        eps = fields.get("eps", 1e-5)
        if not _is_number(eps):
            raise ValueError(f"eps of nn.{name} must be a number, got {type(eps).__name__}")
        del fields["running_std"]
        fields["running_var"] = std.pow(-2) - eps
    return fields


def python_fields_to_lua(name, fields):
    """The inverse of :func:`lua_fields_to_python`, for writing."""
    fields = _convert_fields(name, fields, to_python=False)
    for key in NN_SIZES.get(name, ()):
        if isinstance(fields.get(key), (tuple, list)):
            fields[key] = torch.Size(fields[key])  # written as the LongStorage Lua expects
    return fields


def legacy_nn_classes():
    """The classes ``nn.<Name>`` may load as: every class torch.legacy.nn exports under its
    own name that is a Module or a Criterion (an allow-list, so that names such as
    ``nn.__class__`` or a helper function map to nothing). Empty without torch.legacy.nn."""
    try:
        import torch.legacy.nn as legacy_nn
    except ModuleNotFoundError as e:
        if e.name not in ("torch.legacy.nn", "torch.legacy"):
            raise
        return {}
    bases = tuple(
        base
        for base in (vars(legacy_nn).get("Module"), vars(legacy_nn).get("Criterion"))
        if isinstance(base, type)
    )
    if not bases:
        return {}
    return {
        name: cls
        for name, cls in vars(legacy_nn).items()
        if isinstance(cls, type) and issubclass(cls, bases) and cls.__name__ == name
    }


def _clip(text, most=60):
    """``text`` (from the file) short enough for a message."""
    text = repr(text)
    return text if len(text) <= most else text[: most - 3] + "..."


# -- the reader -----------------------------------------------------------------------------


class _Reader:
    def __init__(self, data, long_size, list_heuristic, int_heuristic, unknown_classes):
        if long_size not in (4, 8):
            raise ValueError(f"load_lua: long_size must be 4 or 8, got {long_size!r}")
        self.data = memoryview(data)
        self.pos = 0
        self.long_size = long_size
        self.long_format = "<q" if long_size == 8 else "<i"
        self.list_heuristic = list_heuristic
        self.int_heuristic = int_heuristic
        self.unknown_classes = unknown_classes
        self.objects = {}  # index -> object
        self.open = set()  # indices of tables whose pairs are being read
        self.backrefs = set()  # open tables referenced from inside themselves
        self.nn_classes = None  # name -> class, built on the first nn object
        self.started = 0  # where the object begin() reads starts

    # -- primitives

    def fail(self, what, at=None):
        at = self.pos if at is None else at
        raise T7ReaderError(f"load_lua: at byte {at}: {what}")

    def need(self, nbytes, what):
        left = len(self.data) - self.pos
        if nbytes > left:
            self.fail(f"expected {what} ({nbytes} bytes), but only {left} bytes are left")

    def unpack(self, fmt, size, what):
        self.need(size, what)
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def read_int(self, what):
        return self.unpack("<i", 4, what)

    def read_long(self, what):
        return self.unpack(self.long_format, self.long_size, what)

    def read_count(self, what, item_bytes, long=False):
        """A non-negative count whose items (at least ``item_bytes`` each) fit in what is left."""
        at = self.pos
        n = self.read_long(what) if long else self.read_int(what)
        left = len(self.data) - self.pos
        if n < 0 or n * item_bytes > left:
            most = left // item_bytes
            self.fail(f"expected {what} from 0 to {most} ({left} bytes left), got {n}", at)
        return n

    def read_bytes(self, what):
        n = self.read_count(f"the length of {what}", 1)
        raw = bytes(self.data[self.pos : self.pos + n])
        self.pos += n
        return raw

    def read_string(self, what):
        raw = self.read_bytes(what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw  # Lua strings are bytes; keep those that are not text as bytes

    # -- objects
    #
    # read_object() reads without Python recursion. begin() reads one object's tag and what
    # follows it up to its first child: a value (a number, a string, a reference, a storage,
    # an empty table) is returned as it is, and an object with children is returned as a
    # generator that yields once for each child it needs (receiving the child through send)
    # and returns the finished object. read_object() keeps the open generators on a stack,
    # whose height is the nesting depth, so MAX_DEPTH is counted per object of every kind and
    # deep input costs no Python frames.

    def read_object(self):
        stack = []
        value = self.begin()
        while True:
            if isinstance(value, GeneratorType):
                if len(stack) >= MAX_DEPTH:
                    self.fail(
                        f"objects nested deeper than {MAX_DEPTH} levels (an object at level "
                        f"{len(stack) + 1} starts here)",
                        self.started,
                    )
                stack.append(value)
                sent = None
            elif stack:
                sent = value
            else:
                return value
            try:
                stack[-1].send(sent)
            except StopIteration as done:
                stack.pop()
                value = done.value
                continue
            value = self.begin()

    def begin(self):
        at = self.started = self.pos
        tag = self.read_int("a type tag")
        if tag == NIL:
            return None
        if tag == NUMBER:
            value = self.unpack("<d", 8, "a number (float64)")
            if self.int_heuristic and math.isfinite(value) and value == int(value):
                return int(value)
            return value
        if tag == STRING:
            return self.read_string("a string")
        if tag == BOOLEAN:
            value = self.read_int("a boolean")
            if value not in (0, 1):
                self.fail(f"expected a boolean (0 or 1), got {value}", self.pos - 4)
            return value == 1
        if tag == FUNCTION:
            return self.read_function(None)
        if tag in (TABLE, TORCH, RECUR_FUNCTION, LEGACY_RECUR_FUNCTION):
            index = self.read_int("an object index")
            if index in self.objects:
                if index in self.open:
                    self.backrefs.add(index)
                return self.objects[index]
            if tag == TABLE:
                return self.read_table(index)
            if tag == TORCH:
                return self.read_torch(index)
            return self.read_function(index)
        self.fail(f"expected a type tag (0 to 8), got {tag}", at)

    def store(self, table, key, value, at, what):
        try:
            table[key] = value
        except (TypeError, ValueError, RuntimeError):
            # lists are unhashable; a tensor key compared with an equal hash cannot be a bool
            self.fail(
                f"{what} of type {type(key).__name__} cannot be a dict key (for a list, load "
                "with list_heuristic=False to keep tables as dicts)",
                at,
            )

    def read_table(self, index):
        # every pair holds at least two type tags
        npairs = self.read_count("the pair count of a table", 8)
        table = LuaTable()
        self.objects[index] = table
        if npairs == 0:
            return self.finish_table(index, table)
        self.open.add(index)
        return self.table_pairs(index, table, npairs)

    def table_pairs(self, index, table, npairs):
        for _ in range(npairs):
            at = self.pos
            key = yield
            value = yield
            self.store(table, key, value, at, "a table key")
        self.open.discard(index)
        return self.finish_table(index, table)

    def finish_table(self, index, table):
        if self.list_heuristic and index not in self.backrefs and _is_list(table):
            table = [table[i] for i in range(1, len(table) + 1)]
            self.objects[index] = table
        return table

    def read_function(self, index):
        dumped = self.read_bytes("a function's bytecode")
        function = LuaFunction(dumped, None)
        if index is not None:
            self.objects[index] = function
        return self.function_upvalues(function)

    def function_upvalues(self, function):
        function.upvalues = yield
        return function

    def read_torch(self, index):
        at = self.pos
        version_or_name = self.read_string("a class version")
        if isinstance(version_or_name, str) and version_or_name.startswith("V "):
            digits = version_or_name[2:]
            if not (digits.isascii() and digits.isdigit() and len(digits) <= MAX_VERSION_DIGITS):
                self.fail(
                    f"expected a class version 'V <n>' with n from 0 to "
                    f"{10**MAX_VERSION_DIGITS - 1}, got {_clip(version_or_name)}",
                    at,
                )
            version = int(digits)
            at = self.pos
            name = self.read_string("a class name")
        else:  # files from before versioning start with the class name
            version, name = 0, version_or_name
        if not isinstance(name, str):
            self.fail(f"expected a class name in ASCII, got {_clip(name)}", at)
        tensor_class = _CLASS_NAME.fullmatch(name)
        if tensor_class:
            dtype = TYPE_STEMS[tensor_class.group(2) or "Float"]
            if tensor_class.group(3) == "Tensor":
                return self.read_tensor(index, dtype, name)
            return self.read_storage(index, dtype)
        if name in ("tds.Hash", "tds.Vec"):
            return self.read_tds(index, name)
        if name.startswith("nn."):
            if name[3:] in NN_REFUSED:
                self.fail(f"{name} cannot be loaded: {NN_REFUSED[name[3:]]}", at)
            if self.nn_classes is None:
                self.nn_classes = legacy_nn_classes()
            cls = self.nn_classes.get(name[3:])
            if cls is not None:
                return self.read_module(index, cls, name[3:], version)
        if not self.unknown_classes:
            where = (
                "torch.legacy.nn has no such Module or Criterion"
                if name.startswith("nn.")
                else "unknown"
            )
            self.fail(
                f"class {_clip(name)} ({where}); load_lua(..., unknown_classes=True) reads it "
                "as a TorchObject",
                at,
            )
        obj = TorchObject(name, version=version)
        self.objects[index] = obj
        return self.object_fields(obj)

    def object_fields(self, obj):
        at = self.pos
        obj._fields = self.check_fields((yield), obj._typename, at)
        return obj

    def check_fields(self, fields, name, at):
        if isinstance(fields, list):
            fields = LuaTable(enumerate(fields, 1))
        if not isinstance(fields, dict):
            self.fail(f"expected the field table of {name}, got {type(fields).__name__}", at)
        return fields

    def read_module(self, index, cls, name, version):
        module = cls.__new__(cls)
        self.objects[index] = module
        return self.module_fields(module, name, version)

    def module_fields(self, module, name, version):
        at = self.pos
        fields = self.check_fields((yield), "nn." + name, at)
        if not all(isinstance(k, str) for k in fields):
            self.fail(f"expected field names (strings) in nn.{name}", at)
        try:
            module.__dict__.update(lua_fields_to_python(name, fields, version))
        except (TypeError, ValueError, RuntimeError, ArithmeticError) as e:
            self.fail(f"nn.{name} has malformed fields: {e}", at)
        return module

    def read_storage(self, index, dtype):
        item = self.long_size if dtype == torch.int64 else dtype.itemsize
        # the count is checked against the bytes left before anything is allocated
        n = self.read_count("the element count of a storage", item, long=True)
        raw = self.data[self.pos : self.pos + n * item]
        self.pos += n * item
        if item != dtype.itemsize:  # LongStorage written with 4-byte longs
            ints = array("i")
            ints.frombytes(raw)
            raw = array("q", ints).tobytes()
        untyped = torch.UntypedStorage(n * dtype.itemsize)
        memoryview(untyped)[:] = raw
        storage = getattr(torch, STEM_OF_DTYPE[dtype] + "Storage")(wrap_storage=untyped)
        self.objects[index] = storage
        return storage

    def read_tensor(self, index, dtype, name):
        at = self.pos
        ndim = self.read_count("the dimension count of a tensor", 2 * self.long_size)
        if ndim > MAX_TENSOR_DIMS:
            self.fail(f"expected a {name} of at most {MAX_TENSOR_DIMS} dimensions, got {ndim}", at)
        at = self.pos
        sizes = [self.read_long("a tensor size") for _ in range(ndim)]
        strides = [self.read_long("a tensor stride") for _ in range(ndim)]
        offset = self.read_long("a tensor's storage offset") - 1
        # the extent counts size-0 dimensions as 1: the core computes contiguous strides from it
        extent = math.prod(max(n, 1) for n in sizes)
        if not all(0 <= v < MAX_EXTENT for v in (*sizes, *strides)) or extent >= MAX_EXTENT:
            self.fail(
                f"expected the sizes and strides of a {name} (from 0 to 2**62, with fewer than "
                f"2**62 elements), got size {sizes} and stride {strides}",
                at,
            )
        if not 0 <= offset < MAX_EXTENT:
            self.fail(f"expected a 1-based storage offset of a {name}, got {offset + 1}", at)
        # registered before its storage is read, as torch7 does
        placeholder = torch.empty(0, dtype=dtype)
        self.objects[index] = placeholder
        return self.tensor_storage(index, dtype, name, sizes, strides, offset, placeholder)

    def tensor_storage(self, index, dtype, name, sizes, strides, offset, placeholder):
        at = self.pos
        storage = yield
        numel = math.prod(sizes)
        if not sizes or (storage is None and numel == 0):
            if sizes:
                placeholder = self.core(torch.empty, at, sizes, dtype=dtype)
            self.objects[index] = placeholder
            return placeholder
        if not isinstance(storage, torch.TypedStorage) or storage.dtype != dtype:
            got = "nil" if storage is None else type(storage).__name__
            self.fail(f"expected the {STEM_OF_DTYPE[dtype]}Storage of a {name}, got {got}", at)
        n = storage.size()
        # the last element a view reaches; an empty view may start at the storage's end
        reach = offset + sum((s - 1) * st for s, st in zip(sizes, strides)) if numel else offset - 1
        if reach >= n:
            self.fail(
                f"expected a {name} inside its storage of {n} elements, got size {sizes}, "
                f"stride {strides} and offset {offset + 1}, which reach past it",
                at,
            )
        view = torch._C._tensor_from_storage
        tensor = self.core(view, at, storage.untyped(), dtype, offset, sizes, strides)
        if (
            list(tensor.shape) != sizes
            or list(tensor.stride()) != strides
            or tensor.storage_offset() != offset
        ):
            self.fail(f"the core made a {name} other than the one the file describes", at)
        self.objects[index] = tensor
        return tensor

    def core(self, op, at, *args, **kwargs):
        """A core tensor op on sizes from the file: its refusal names the offset."""
        try:
            return op(*args, **kwargs)
        except (RuntimeError, ValueError, TypeError, OverflowError, MemoryError) as e:
            self.fail(f"expected a tensor the core can make: {e}", at)

    def read_tds(self, index, name):
        if name == "tds.Hash":
            n = self.read_count("the entry count of a tds.Hash", 8, long=True)
            table = TdsHash()
            self.objects[index] = table
            return self.tds_entries(table, n) if n else table
        n = self.read_count("the length of a tds.Vec", 4, long=True)
        vec = TdsVec()
        self.objects[index] = vec
        return self.tds_items(vec, n) if n else vec

    def tds_entries(self, table, n):
        for _ in range(n):
            at = self.pos
            key = yield
            self.store(table, key, (yield), at, "a tds.Hash key")
        return table

    def tds_items(self, vec, n):
        for _ in range(n):
            vec.append((yield))
        return vec


def _is_list(table):
    """Whether the keys are exactly 1..n (numbers, not booleans)."""
    n = len(table)
    return all(
        (type(k) is int or (type(k) is float and k.is_integer())) and 1 <= k <= n for k in table
    )


def load_lua(
    path_or_file,
    list_heuristic=True,
    int_heuristic=True,
    unknown_classes=False,
    long_size=8,
):
    """Read a Lua torch7 ``.t7`` file (a path or a binary file object).

    Lua numbers become ``int`` when integral (``int_heuristic``), else ``float``; strings
    ``str`` (``bytes`` if not UTF-8); tables a ``list`` when their keys are exactly 1..n
    (``list_heuristic``), else a :class:`LuaTable` (a dict); tensors and storages of every
    torch7 type the matching torch tensor / ``torch.<Type>Storage``, tensors that shared a
    storage in Lua viewing one storage here; ``nn.<Name>`` the ``torch.legacy.nn`` module
    with 0-based indices; functions a :class:`LuaFunction`; ``tds.Hash``/``tds.Vec`` a
    :class:`TdsHash`/:class:`TdsVec`. Shared and self-references stay shared.

    Other classes raise :class:`T7ReaderError` naming the class, unless ``unknown_classes``
    (then a :class:`TorchObject`). ``long_size`` is 8 for files written on Linux/macOS and 4
    for Windows ones. A truncated or corrupted stream raises :class:`T7ReaderError` naming
    the byte offset and what was expected.
    """
    if isinstance(path_or_file, (str, bytes, os.PathLike)):
        with open(path_or_file, "rb") as f:
            data = f.read()
    else:
        data = path_or_file.read()
    if sys.byteorder != "little":
        raise NotImplementedError("load_lua: reading .t7 files needs a little-endian machine")
    reader = _Reader(data, long_size or 8, list_heuristic, int_heuristic, unknown_classes)
    return reader.read_object()
