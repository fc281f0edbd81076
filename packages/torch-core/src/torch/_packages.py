"""Clear errors for torch subpackages whose wheel is not installed.

``torch`` is split across wheels: ``import torch.nn`` without torch-nn installed raises an
ImportError that names the package to install, instead of a bare "No module named".
"""

import importlib
import os
import sys

# subpackage -> the wheel that ships it
SUBPACKAGES = {
    "autograd": "torch-autograd",
    "nn": "torch-nn",
    "optim": "torch-optim",
    "multiprocessing": "torch-multiprocessing",
    "legacy": "torch-legacy",
}
_EXTRA = {"torch.utils.data": "torch-multiprocessing"}


def missing_message(module):
    package = _EXTRA.get(module) or SUBPACKAGES.get(module.split(".")[1], "torch-all")
    return (
        f"No module named '{module}': it ships in the '{package}' package, which is not "
        f"installed. Install it with: pip install {package} (or torch-all for everything)"
    )


class _MissingPackageFinder:
    """Last on sys.meta_path: only reached when no installed wheel provides the module."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        parts = fullname.split(".")
        if (
            len(parts) >= 2
            and parts[0] == "torch"
            and (parts[1] in SUBPACKAGES or fullname in _EXTRA)
        ):
            raise ModuleNotFoundError(missing_message(fullname), name=fullname)
        return None


def installed(path, sub):
    return any(os.path.isdir(os.path.join(p, sub)) for p in path)


def install_missing_package_hints(torch_path):
    if not any(isinstance(f, _MissingPackageFinder) for f in sys.meta_path):
        sys.meta_path.append(_MissingPackageFinder())
    from torch import _C

    if not installed(torch_path, "autograd"):
        _C._set_autograd_missing(
            "requires_grad=True needs the 'torch-autograd' package, which is not installed: "
            "pip install torch-autograd"
        )
    torch = sys.modules["torch"]

    def __getattr__(name):  # torch.nn works after a plain `import torch`
        if name in SUBPACKAGES:
            return importlib.import_module("torch." + name)
        raise AttributeError(f"module 'torch' has no attribute '{name}'")

    torch.__getattr__ = __getattr__
