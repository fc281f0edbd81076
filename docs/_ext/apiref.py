"""The API reference, generated from the code: ``.. api-members:: module`` lists every public name.

A module's public names are its ``__all__`` where it has one, else the names that do not start
with an underscore and whose object was defined inside ``torch`` (not ``math.pi``, not a
submodule). ``packages/torch-all/tests/test_docstrings.py`` walks the same names and fails on
one without a docstring.

The compiled core's bindings (``torch._C``) carry pybind11 signatures in their docstrings,
typed ``object``; the hooks at the bottom print them as Python would, without annotations.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


def public_names(module: types.ModuleType) -> list[str]:
    """The documented names of ``module``: its ``__all__``, else its own non-underscore names."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = []
    for name in dir(module):
        obj = getattr(module, name)
        origin = getattr(obj, "__module__", None)
        if name.startswith("_") or isinstance(obj, types.ModuleType):
            continue
        if isinstance(origin, str) and origin.split(".")[0] == "torch":
            names.append(name)
    return names


def _kind(obj) -> str | None:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return None  # data (dtypes, constants): described in the guides


# The modules that have a page; a class exported by several of them (``torch.no_grad`` is
# also ``torch.autograd.no_grad``) is indexed once, on the page of the module it comes from.
API_MODULES = (
    "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
    "torch.nn.utils.rnn", "torch.nn.utils.parametrize", "torch.optim", "torch.optim.lr_scheduler",
    "torch.autograd", "torch.autograd.functional", "torch.func", "torch.utils.data",
    "torch.multiprocessing", "torch.legacy.nn", "torch.legacy.optim",
    "torch.utils.serialization", "torch.linalg", "torch.fft", "torch.special", "torch.amp",
    "torch.cuda", "torch.backends", "torch.serialization", "torch.distributions",
    "torch.distributions.constraints", "torch.distributions.transforms", "torch.distributed",
    "torch.jit", "torch.onnx",
)  # fmt: skip


def _home(obj) -> str | None:
    """The page module of ``obj``: the longest one its ``__module__`` starts with."""
    origin = getattr(obj, "__module__", "") or ""
    homes = [m for m in API_MODULES if origin == m or origin.startswith(m + ".")]
    for module_name in sorted(homes, key=len, reverse=True):
        if getattr(importlib.import_module(module_name), obj.__name__, None) is obj:
            return module_name
    return None


def _class_members(cls: type) -> list[tuple[str, str]]:
    """(directive, name) for the public attributes ``cls`` itself defines."""
    out = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property) or type(value).__name__ == "getset_descriptor":
            out.append(("autoproperty", name))
        elif isinstance(value, (staticmethod, classmethod)) or callable(value):
            out.append(("automethod", name))
    return sorted(out, key=lambda item: item[1])


class ApiMembers(SphinxDirective):
    """``.. api-members:: torch.nn``: an autodoc entry for each public name of a module.

    Options: ``:exclude:`` names to leave out (documented on another page); ``:class:`` to
    document one class and each of its public attributes (``torch.Tensor``).
    """

    required_arguments = 1
    option_spec = {"exclude": directives.unchanged, "class": directives.flag}

    def run(self) -> list[nodes.Node]:
        target = self.arguments[0]
        lines = self._class_lines(target) if "class" in self.options else self._module_lines(target)
        content = StringList(lines, source=f"<api-members {target}>")
        node = nodes.container()
        nested_parse_with_titles(self.state, content, node)
        return node.children

    def _module_lines(self, module_name: str) -> list[str]:
        module = importlib.import_module(module_name)
        exclude = set((self.options.get("exclude") or "").split())
        groups: dict[str, list[str]] = {"class": [], "exception": [], "function": []}
        for name in sorted(public_names(module), key=str.lower):
            kind = _kind(getattr(module, name))
            if kind and name not in exclude:
                groups[kind].append(name)
        lines = [f".. currentmodule:: {module_name}", ""]
        titles = {"class": "Classes", "exception": "Exceptions", "function": "Functions"}
        for kind in ("function", "class", "exception"):
            if not groups[kind]:
                continue
            lines += [f".. rubric:: {titles[kind]}", ""]
            for name in groups[kind]:
                obj = getattr(module, name)
                lines.append(f".. auto{kind}:: {name}")
                if kind != "function":
                    lines += ["   :members:", "   :undoc-members:", "   :show-inheritance:"]
                    home = _home(obj)
                    if home not in (None, module_name):
                        lines.append("   :no-index:")
                lines.append("")
        return lines

    def _class_lines(self, dotted: str) -> list[str]:
        module_name, _, cls_name = dotted.rpartition(".")
        cls = getattr(importlib.import_module(module_name), cls_name)
        lines = [f".. currentmodule:: {module_name}", "", f".. autoclass:: {cls_name}", ""]
        for directive, name in _class_members(cls):
            lines += [f"   .. {directive}:: {name}", ""]
        return lines


# --- pybind11 signatures -------------------------------------------------------------------

_OVERLOAD = re.compile(r"^(\d+)\. ([\w.]+)(\(.*\))(?: -> .*)?$")


def _split_params(params: str) -> list[str]:
    """Split a parameter list on its top-level commas (``list[int, int]`` stays whole)."""
    out, depth, start = [], 0, 0
    for i, char in enumerate(params):
        if char in "[(<{":
            depth += 1
        elif char in "])>}":
            depth -= 1
        elif char == "," and depth == 0:
            out.append(params[start:i].strip())
            start = i + 1
    if params[start:].strip():
        out.append(params[start:].strip())
    return out


def untyped(signature: str) -> str:
    """``(input: torch.Tensor, *, alpha: object = 1)`` -> ``(input, *, alpha=1)``."""
    inner = signature.strip()[1:-1]
    params = []
    for param in _split_params(inner):
        name, _, default = param.partition("=")
        name = name.split(":")[0].strip()
        params.append(f"{name}={default.strip()}" if default else name)
    return "(" + ", ".join(params) + ")"


def is_binding(obj) -> bool:
    """Whether ``obj`` comes from the compiled core (no Python code behind it)."""
    if inspect.isclass(obj):
        return "pybind11" in type(obj).__name__
    return not hasattr(inspect.unwrap(obj), "__code__")


# Bindings whose C++ declaration does not name its arguments (pybind11 then says ``arg0``):
# the names PyTorch uses, shown until the binding gets ``py::arg`` (listed for the
# maintainer with the other binding issues; Tensor methods not listed here take ``other``).
ARG_NAMES = {
    "torch.can_cast": ("from_", "to"),
    "torch.promote_types": ("type1", "type2"),
    "torch.result_type": ("tensor1", "tensor2"),
    "torch.set_default_dtype": ("d",),
    "torch.set_num_threads": ("num",),
    "torch.Generator.manual_seed": ("seed",),
    "torch.Tensor.bmm": ("batch2",),
    "torch.Tensor.mm": ("mat2",),
    "torch.Tensor.mv": ("vec",),
    "torch.Tensor.dot": ("tensor",),
    "torch.Tensor.fill_": ("value",),
    "torch.Tensor.pow": ("exponent",),
    "torch.Tensor.pow_": ("exponent",),
}


def _signature(app, what, name, obj, options, signature, return_annotation):
    # autodoc_typehints = "none" drops annotations from Python signatures; do the same for
    # the ones pybind11 writes into a binding's docstring.
    if not signature:
        return signature, return_annotation
    signature = untyped(signature)
    if what == "method" and is_binding(obj):
        signature = re.sub(r"^\(self(, )?", "(", signature)
    if "arg0" in signature:
        names = ARG_NAMES.get(name, ("other",) if name.startswith("torch.Tensor.") else ())
        for i, real in enumerate(names):
            signature = re.sub(rf"\barg{i}\b", real, signature)
    return signature, None


def _docstring(app, what, name, obj, options, lines):
    if not is_binding(obj):
        return
    for i, line in enumerate(lines):
        match = _OVERLOAD.match(line.strip())
        if match:  # pybind11's overload list: "1. add(input: torch.Tensor, ...) -> object"
            number, func, params = match.groups()
            lines[i] = f"{number}. ``{func.rpartition('.')[2]}{untyped(params)}``"
        elif line.strip() == "Overloaded function.":
            lines[i] = "Overloads:"
        else:  # the C++ docstrings are plain text: a*b and |x| are not reST markup there
            parts = line.split("``")  # odd parts are inline literals, left alone
            for k in range(0, len(parts), 2):
                parts[k] = re.sub(r"([\\*|])", r"\\\1", parts[k])
            lines[i] = "``".join(parts)


def setup(app):
    app.add_directive("api-members", ApiMembers)
    app.connect("autodoc-process-signature", _signature)
    app.connect("autodoc-process-docstring", _docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
