"""torch.legacy: Lua-Torch ``nn`` and ``optim`` and ``.t7`` files, for porting Lua code.

Needs only torch-core (the torch-legacy wheel). ``torch.legacy.nn`` is imported on first use.
"""

import importlib as _importlib

__version__ = "0.1.0"


def __getattr__(name):
    if name == "nn":
        return _importlib.import_module(f"{__name__}.nn")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
