"""Lua torch7 ``.t7`` files: :func:`load_lua` reads them, :func:`save_lua` writes them.

Shipped by the torch-legacy wheel; needs only torch-core (``nn.*`` objects map to
``torch.legacy.nn`` modules).
"""

from torch.utils.serialization.read_lua_file import (
    LuaFunction,
    LuaTable,
    T7ReaderError,
    T7ReaderException,
    TdsHash,
    TdsVec,
    TorchObject,
    load_lua,
)
from torch.utils.serialization.t7_writer import save_lua

__all__ = [
    "load_lua",
    "save_lua",
    "T7ReaderError",
    "T7ReaderException",
    "LuaTable",
    "TorchObject",
    "LuaFunction",
    "TdsHash",
    "TdsVec",
]
