"""Every public name of torch.distributions and its submodules has a docstring, and so does
every public method and property a public class defines (the API reference is generated
from them); the module layout is PyTorch's."""

import importlib
import inspect

import pytest

import torch.distributions

MODULES = [
    "torch.distributions",
    "torch.distributions.constraints",
    "torch.distributions.transforms",
    "torch.distributions.constraint_registry",
    "torch.distributions.kl",
    "torch.distributions.utils",
]


def _doc(obj):
    if isinstance(obj, property) and not obj.__doc__ and obj.fget is not None:
        return obj.fget.__doc__
    return obj.__doc__


def _inherited_doc(cls, name):
    """A docstring for ``cls.name``, taken from the first class of the MRO that has one
    (what Sphinx shows for an overriding method)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            doc = _doc(vars(klass)[name])
            if doc and doc.strip():
                return doc
    return None


@pytest.mark.parametrize("module_name", MODULES)
def test_public_names_and_members_have_docstrings(module_name):
    module = importlib.import_module(module_name)
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                if isinstance(value, property) or inspect.isfunction(value):
                    if not _inherited_doc(obj, member):
                        missing.append(f"{name}.{member}")
    assert not missing, missing


@pytest.mark.parametrize("name", torch.distributions.__all__)
def test_classes_have_an_example(name):
    obj = getattr(torch.distributions, name)
    if inspect.isclass(obj):
        assert "Example" in obj.__doc__, name


def test_module_layout_is_pytorchs():
    for module in [
        "normal",
        "bernoulli",
        "categorical",
        "studentT",
        "one_hot_categorical",
        "lowrank_multivariate_normal",
        "relaxed_categorical",
        "von_mises",
        "exp_family",
        "distribution",
        "utils",
        "kl",
        "constraints",
        "transforms",
        "constraint_registry",
        "transformed_distribution",
        "mixture_same_family",
    ]:
        importlib.import_module(f"torch.distributions.{module}")
    assert torch.distributions.__version__ == "0.1.0"


def test_docstring_examples_run():
    """Every ``>>>`` example in the package's docstrings runs and prints what it shows."""
    import doctest

    import torch
    import torch.distributions as D
    from torch.distributions import constraint_registry, transforms, utils

    names = {"torch": torch, "constraints": D.constraints, "transforms": transforms}
    names.update({n: getattr(D, n) for n in D.__all__})
    names.update({n: getattr(utils, n) for n in utils.__all__})
    names["ConstraintRegistry"] = constraint_registry.ConstraintRegistry
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    seen = set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for obj in [module] + [getattr(module, n) for n in module.__all__]:
            if id(obj) in seen or not (
                inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)
            ):
                continue
            seen.add(id(obj))
            for test in finder.find(obj, getattr(obj, "__name__", module_name), globs=names):
                torch.manual_seed(0)
                runner.run(test, out=lambda _: None)
    results = runner.summarize(verbose=False)
    assert results.attempted > 150 and results.failed == 0, results
