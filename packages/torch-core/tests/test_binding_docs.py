"""The examples in the docstrings of the core's bindings (csrc/op_docs.cpp) run as doctests,
and the generated forms (Tensor methods, in-place variants) point at the documented op."""

import doctest

import numpy as np
import pytest

import torch
from torch import _C, _packages


def _documented():
    """(qualified name, docstring) of every torch._C function and Tensor method whose
    docstring has an example."""
    found = {}
    owners = (
        ("torch.", _C),
        ("torch.Tensor.", _C.Tensor),
        ("torch.Generator.", _C.Generator),
        ("torch.UntypedStorage.", torch.UntypedStorage),
    )
    for prefix, owner in owners:
        for name in dir(owner):
            doc = getattr(getattr(owner, name, None), "__doc__", None) or ""
            if ">>>" in doc and not name.startswith("__"):
                found.setdefault(doc, prefix + name)
    return sorted((name, doc) for doc, name in found.items())


EXAMPLES = _documented()


def test_the_table_reaches_the_bindings():
    assert "torch.abs" in dict(EXAMPLES)


@pytest.mark.parametrize("name,doc", EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_docstring_example_runs(name, doc):
    if "requires_grad" in doc and not _packages.installed(torch.__path__, "autograd"):
        pytest.skip("the example uses requires_grad, which needs torch-autograd")
    torch.manual_seed(0)
    test = doctest.DocTestParser().get_doctest(doc, {"torch": torch, "np": np}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


def test_generated_method_docs_point_at_the_op():
    assert "torch.abs" in torch.Tensor.abs.__doc__
    assert "In-place version of :meth:`Tensor.abs`" in torch.Tensor.abs_.__doc__
