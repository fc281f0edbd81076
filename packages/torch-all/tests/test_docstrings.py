"""Every public name of the documented modules has a docstring.

The API reference (``docs/api/``) is generated from the docstrings, so a public function,
class or ``Tensor`` method without one shows up there as a bare signature. The public
names of a module are its ``__all__`` where it defines one, else the names that do not
start with an underscore and whose object was defined inside ``torch`` (the same rule as
``docs/_ext/apiref.py``). Only functions, classes and properties are checked (not
submodules, not data such as dtypes), and only those defined in this project: a name that
re-exports a standard-library object (``torch.multiprocessing.ProcessError``) is skipped.

``UNDOCUMENTED_BINDINGS`` is the list of known failures, for the maintainer to empty: the
C++ bindings (``torch._C``, pybind11) that have no docstring yet. They are documented in
``packages/torch-core/csrc``; Python code must not paper over them. Only bindings may be
listed there: a Python name without a docstring always fails, and so does a listed binding
that has gained a docstring (take it off the list).
"""

import importlib
import inspect
import re
import types

import pytest

import torch

MODULES = [
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.modules",
    "torch.nn.utils",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.autograd",
    "torch.func",
    "torch.utils.data",
    "torch.multiprocessing",
    "torch.legacy",
    "torch.legacy.nn",
    "torch.legacy.optim",
    "torch.utils.serialization",
    "torch.distributions",
    "torch.distributions.constraints",
    "torch.distributions.transforms",
    "torch.distributed",
    "torch.jit",
    "torch.onnx",
]

# Known failures: C++ bindings without a docstring (qualified names). Empty: the bindings
# defined without one get theirs from packages/torch-core/csrc/op_docs.cpp; keep it so.
UNDOCUMENTED_BINDINGS: frozenset[str] = frozenset()

# A line of a pybind11 docstring that is only a signature ("add(input: torch.Tensor, ...)
# -> object", "1. add(...)") or the header of an overload list carries no documentation.
_SIGNATURE_LINE = re.compile(r"^\s*(\d+\.\s*)?[\w.]+\(.*\)(\s*->.*)?\s*$")


def docstring(obj) -> str:
    """The documentation of ``obj`` without pybind11's signature lines ('' if none)."""
    doc = obj.__doc__
    if isinstance(obj, property) and not doc and obj.fget is not None:
        doc = obj.fget.__doc__
    if not isinstance(doc, str):
        return ""
    lines = [
        line
        for line in doc.splitlines()
        if line.strip()
        and not _SIGNATURE_LINE.match(line)
        and line.strip() != "Overloaded function."
    ]
    return "\n".join(lines).strip()


def is_binding(obj) -> bool:
    """Whether ``obj`` comes from the compiled core: no Python code behind it."""
    if isinstance(obj, property):
        return obj.fget is not None and is_binding(obj.fget)
    if inspect.isclass(obj):
        return "pybind11" in type(obj).__name__  # a class the core defines
    return not hasattr(inspect.unwrap(obj), "__code__")


def _ours(obj) -> bool:
    origin = getattr(obj, "__module__", None)
    return isinstance(origin, str) and origin.split(".")[0] == "torch"


def public_names(module: types.ModuleType) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name for name in dir(module) if not name.startswith("_") and _ours(getattr(module, name))
    ]


def _needs_docstring(obj) -> bool:
    if isinstance(obj, types.ModuleType) or not _ours(obj):
        return False
    return inspect.isclass(obj) or callable(obj)


def undocumented(pairs):
    """The qualified names, among ``(name, obj)`` pairs, that lack a docstring and are not
    known failures; and the known failures that are in fact documented or not bindings."""
    missing, stale = [], []
    for name, obj in pairs:
        if name in UNDOCUMENTED_BINDINGS:
            if docstring(obj) or not is_binding(obj):
                stale.append(name)
        elif not docstring(obj):
            missing.append(name)
    return missing, stale


def _report(missing, stale):
    lines = []
    if missing:
        lines.append(f"{len(missing)} public names without a docstring:")
        lines += [f"  {name}" for name in missing]
    if stale:
        lines.append("documented (or not C++) yet in UNDOCUMENTED_BINDINGS, remove them:")
        lines += [f"  {name}" for name in stale]
    return "\n".join(lines)


@pytest.mark.parametrize("module_name", MODULES)
def test_public_names_have_docstrings(module_name):
    module = importlib.import_module(module_name)
    pairs = []
    for name in public_names(module):
        obj = getattr(module, name)
        if _needs_docstring(obj):
            pairs.append((f"{module_name}.{name}", obj))
    missing, stale = undocumented(pairs)
    assert not missing and not stale, _report(missing, stale)


def test_tensor_methods_have_docstrings():
    pairs = []
    for name in dir(torch.Tensor):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(torch.Tensor, name)
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if isinstance(attr, property) or callable(attr):
            pairs.append((f"torch.Tensor.{name}", attr))
    missing, stale = undocumented(pairs)
    assert not missing and not stale, _report(missing, stale)


def test_known_failures_are_bindings_of_walked_names():
    """Every entry of UNDOCUMENTED_BINDINGS names an object the tests above walk."""
    walked = {f"torch.Tensor.{name}" for name in dir(torch.Tensor)}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        walked.update(f"{module_name}.{name}" for name in public_names(module))
    assert sorted(UNDOCUMENTED_BINDINGS - walked) == []
