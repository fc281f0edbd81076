"""Clear errors for torch subpackages whose wheel is not installed, and lazy submodules.

``torch`` is split across wheels: ``import torch.nn`` without torch-nn installed raises an
ImportError that names the package to install, instead of a bare "No module named". A
module that does not exist at all (``torch.nn.parallel`` with torch-nn installed) keeps
Python's plain "No module named" error: its package is there, the module is not.

None of our distribution names is published on PyPI under this project (``torch-optim``
there is an unrelated project), so the hints install from this repository's sources.
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
    "distributions": "torch-distributions",
    "distributed": "torch-distributed",
    "jit": "torch-jit",
    "onnx": "torch-jit",
    "fx": "torch-jit",
}
# modules under a torch-core package that another wheel ships
_EXTRA = {
    "torch.utils.data": "torch-multiprocessing",
    "torch.utils.trainer": "torch-multiprocessing",
    "torch.utils.serialization": "torch-legacy",
    "torch.utils.checkpoint": "torch-autograd",
    "torch.func": "torch-autograd",
}
# our packages (besides torch-core) that a package depends on: pip must get them from the
# local sources too, in the same command
_NEEDS = {
    "torch-nn": ("torch-autograd",),
    "torch-optim": ("torch-autograd",),
    "torch-distributions": ("torch-autograd",),
    "torch-distributed": ("torch-autograd", "torch-nn"),
    "torch-jit": ("torch-autograd", "torch-nn"),
}


def install_command(package):
    """The pip command that installs `package` from a checkout of this repository."""
    paths = [f"./packages/{p}" for p in (*_NEEDS.get(package, ()), package)]
    return "pip install " + " ".join(paths)


def missing_message(module):
    package = _EXTRA.get(module) or SUBPACKAGES[module.split(".")[1]]
    return (
        f"No module named '{module}': it ships in this project's '{package}' package, which "
        f"is not installed. Install it from a checkout of the repository: "
        f"{install_command(package)} (the README's Install section installs everything; "
        f"not `pip install {package}`, which is not this project on PyPI)"
    )


class _MissingPackageFinder:
    """Last on sys.meta_path: only reached when no installed wheel provides the module.

    It answers only for the top module of a wheel (``torch.nn``, ``torch.utils.data``):
    ``torch.nn.parallel`` is only looked up once ``torch.nn`` imported, so when it is
    missing the package is installed and the module does not exist."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        parts = fullname.split(".")
        if fullname in _EXTRA or (
            len(parts) == 2 and parts[0] == "torch" and parts[1] in SUBPACKAGES
        ):
            raise ModuleNotFoundError(missing_message(fullname), name=fullname)
        return None


def installed(path, sub):
    return any(os.path.isdir(os.path.join(p, sub)) for p in path)


def import_submodule(parent, name):
    """``parent.name`` imported on first attribute access (a module's ``__getattr__``).

    When the submodule is not installed this raises AttributeError, so that ``hasattr``
    keeps working, with the install hint in its message."""
    fullname = f"{parent}.{name}"
    try:
        return importlib.import_module(fullname)
    except ModuleNotFoundError as e:
        if e.name != fullname:  # the submodule is there; something it imports is not
            raise
        raise AttributeError(f"module '{parent}' has no attribute '{name}' ({e})") from None


def install_missing_package_hints(torch_path):
    """Called once by ``import torch``: makes importing a torch subpackage whose wheel is not
    installed (``torch.nn`` without torch-nn, ...) raise an ImportError naming the package to
    install. ``torch_path`` is the ``torch`` package's ``__path__``."""
    if not any(isinstance(f, _MissingPackageFinder) for f in sys.meta_path):
        sys.meta_path.append(_MissingPackageFinder())
    from torch import _C

    if not installed(torch_path, "autograd"):
        _C._set_autograd_missing(
            "requires_grad=True needs this project's 'torch-autograd' package, which is not "
            f"installed: {install_command('torch-autograd')} from a checkout of the repository"
        )
