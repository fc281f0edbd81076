"""torch.legacy.nn: Lua-Torch's ``nn`` package, one module per file.

Every file ``X.py`` here whose name starts with a capital letter defines the class ``X``,
exported as ``torch.legacy.nn.X`` (so a new module needs no edit here). Indices and
dimensions are 0-based, tables are Python lists; see docs/legacy.rst.
"""

import importlib as _importlib
import pkgutil as _pkgutil

__all__ = []
for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if _info.name[:1].isupper():
        _module = _importlib.import_module(f"{__name__}.{_info.name}")
        globals()[_info.name] = getattr(_module, _info.name)
        __all__.append(_info.name)
del _info, _module
