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
]

# Known failures: C++ bindings without a docstring (qualified names). Empty it as the
# bindings in packages/torch-core/csrc get their docstrings.
UNDOCUMENTED_BINDINGS = frozenset(
    """
    torch.abs torch.absolute torch.acos torch.add torch.addcdiv torch.addcmul torch.addmm
    torch.addmv torch.arccos torch.arcsin torch.arctan torch.arctan2 torch.asin torch.atan
    torch.atan2 torch.baddbmm torch.bitwise_and torch.bitwise_left_shift torch.bitwise_not
    torch.bitwise_or torch.bitwise_right_shift torch.bitwise_xor torch.bmm torch.can_cast
    torch.ceil torch.cos torch.cosh torch.div torch.divide torch.dot torch.eq torch.erf
    torch.erfinv torch.exp torch.exp2 torch.expm1 torch.fix torch.floor torch.floor_divide
    torch.fmod torch.frac torch.ge torch.get_default_dtype torch.greater torch.greater_equal
    torch.gt torch.is_grad_enabled torch.isfinite torch.isinf torch.isnan torch.le torch.less
    torch.less_equal torch.log torch.log10 torch.log1p torch.log2 torch.logical_and
    torch.logical_not torch.logical_or torch.logical_xor torch.lt torch.matmul torch.maximum
    torch.minimum torch.mm torch.mul torch.multinomial torch.multiply torch.mv torch.ne
    torch.neg torch.negative torch.not_equal torch.pow torch.promote_types torch.reciprocal
    torch.relu torch.remainder torch.result_type torch.round torch.rsqrt torch.set_default_dtype
    torch.sigmoid torch.sign torch.sin torch.sinh torch.sqrt torch.sub torch.subtract torch.tan
    torch.tanh torch.true_divide torch.trunc
    torch.Tensor.abs torch.Tensor.abs_ torch.Tensor.absolute torch.Tensor.absolute_
    torch.Tensor.acos torch.Tensor.acos_ torch.Tensor.add torch.Tensor.add_ torch.Tensor.arccos
    torch.Tensor.arccos_ torch.Tensor.arcsin torch.Tensor.arcsin_ torch.Tensor.arctan
    torch.Tensor.arctan2 torch.Tensor.arctan2_ torch.Tensor.arctan_ torch.Tensor.as_strided
    torch.Tensor.asin torch.Tensor.asin_ torch.Tensor.atan torch.Tensor.atan2
    torch.Tensor.atan2_ torch.Tensor.atan_ torch.Tensor.bitwise_and torch.Tensor.bitwise_and_
    torch.Tensor.bitwise_left_shift torch.Tensor.bitwise_left_shift_ torch.Tensor.bitwise_not
    torch.Tensor.bitwise_not_ torch.Tensor.bitwise_or torch.Tensor.bitwise_or_
    torch.Tensor.bitwise_right_shift torch.Tensor.bitwise_right_shift_ torch.Tensor.bitwise_xor
    torch.Tensor.bitwise_xor_ torch.Tensor.bmm torch.Tensor.ceil torch.Tensor.ceil_
    torch.Tensor.clone torch.Tensor.contiguous torch.Tensor.copy_ torch.Tensor.cos
    torch.Tensor.cos_ torch.Tensor.cosh torch.Tensor.cosh_ torch.Tensor.data_ptr
    torch.Tensor.detach torch.Tensor.diagonal torch.Tensor.dim torch.Tensor.div
    torch.Tensor.div_ torch.Tensor.divide torch.Tensor.dot torch.Tensor.element_size
    torch.Tensor.eq torch.Tensor.eq_ torch.Tensor.erf torch.Tensor.erf_ torch.Tensor.erfinv
    torch.Tensor.erfinv_ torch.Tensor.exp torch.Tensor.exp2 torch.Tensor.exp2_ torch.Tensor.exp_
    torch.Tensor.expand torch.Tensor.expand_as torch.Tensor.expm1 torch.Tensor.expm1_
    torch.Tensor.fill_ torch.Tensor.fix torch.Tensor.fix_ torch.Tensor.flatten
    torch.Tensor.floor torch.Tensor.floor_ torch.Tensor.floor_divide torch.Tensor.floor_divide_
    torch.Tensor.fmod torch.Tensor.fmod_ torch.Tensor.frac torch.Tensor.frac_ torch.Tensor.ge
    torch.Tensor.ge_ torch.Tensor.greater torch.Tensor.greater_ torch.Tensor.greater_equal
    torch.Tensor.greater_equal_ torch.Tensor.gt torch.Tensor.gt_ torch.Tensor.is_contiguous
    torch.Tensor.is_floating_point torch.Tensor.is_inference torch.Tensor.isfinite
    torch.Tensor.isinf torch.Tensor.isnan torch.Tensor.item torch.Tensor.le torch.Tensor.le_
    torch.Tensor.less torch.Tensor.less_ torch.Tensor.less_equal torch.Tensor.less_equal_
    torch.Tensor.log torch.Tensor.log10 torch.Tensor.log10_ torch.Tensor.log1p
    torch.Tensor.log1p_ torch.Tensor.log2 torch.Tensor.log2_ torch.Tensor.log_
    torch.Tensor.logical_and torch.Tensor.logical_and_ torch.Tensor.logical_not
    torch.Tensor.logical_not_ torch.Tensor.logical_or torch.Tensor.logical_or_
    torch.Tensor.logical_xor torch.Tensor.logical_xor_ torch.Tensor.lt torch.Tensor.lt_
    torch.Tensor.matmul torch.Tensor.maximum torch.Tensor.maximum_ torch.Tensor.minimum
    torch.Tensor.minimum_ torch.Tensor.mm torch.Tensor.mul torch.Tensor.mul_
    torch.Tensor.multiply torch.Tensor.multiply_ torch.Tensor.mv torch.Tensor.narrow
    torch.Tensor.ndimension torch.Tensor.ne torch.Tensor.ne_ torch.Tensor.neg torch.Tensor.neg_
    torch.Tensor.negative torch.Tensor.negative_ torch.Tensor.nelement torch.Tensor.not_equal
    torch.Tensor.not_equal_ torch.Tensor.numel torch.Tensor.permute torch.Tensor.pow
    torch.Tensor.pow_ torch.Tensor.reciprocal torch.Tensor.reciprocal_ torch.Tensor.relu
    torch.Tensor.relu_ torch.Tensor.remainder torch.Tensor.remainder_ torch.Tensor.reshape
    torch.Tensor.reshape_as torch.Tensor.resize_ torch.Tensor.rsqrt torch.Tensor.rsqrt_
    torch.Tensor.select torch.Tensor.sigmoid torch.Tensor.sigmoid_ torch.Tensor.sign
    torch.Tensor.sign_ torch.Tensor.sin torch.Tensor.sin_ torch.Tensor.sinh torch.Tensor.sinh_
    torch.Tensor.size torch.Tensor.sqrt torch.Tensor.sqrt_ torch.Tensor.squeeze
    torch.Tensor.storage_offset torch.Tensor.stride torch.Tensor.sub torch.Tensor.sub_
    torch.Tensor.subtract torch.Tensor.swapaxes torch.Tensor.swapdims torch.Tensor.t
    torch.Tensor.tan torch.Tensor.tan_ torch.Tensor.tanh torch.Tensor.tanh_ torch.Tensor.tolist
    torch.Tensor.transpose torch.Tensor.true_divide torch.Tensor.trunc torch.Tensor.trunc_
    torch.Tensor.unfold torch.Tensor.unsqueeze torch.Tensor.untyped_storage torch.Tensor.view
    torch.Tensor.view_as torch.Tensor.zero_
    torch.autograd.is_grad_enabled
    """.split()
)

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
