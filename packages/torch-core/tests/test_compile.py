"""torch.compile: eager without torch-jit (the same callable back), compiled through torch.jit
with it; arguments checked as PyTorch does."""

import pytest

import torch
from torch.compiler import _have_jit


def test_compile_returns_a_callable_that_computes_the_same():
    def f(x):
        return x * 2 + 1

    g = torch.compile(f)
    assert (g is f) == (not _have_jit())
    assert g(torch.ones(2)).tolist() == [3.0, 3.0]
    deco = torch.compile(mode="max-autotune", dynamic=True)
    assert deco(f)(torch.zeros(1)).tolist() == [1.0]
    assert torch.compile(f, backend="eager", fullgraph=True) is f
    assert torch.compile(f, disable=True) is f
    assert not torch.compiler.is_compiling()
    assert torch.compiler.disable(f) is f


def test_compile_checks_its_arguments():
    with pytest.raises(RuntimeError, match="mode"):
        torch.compile(lambda x: x, mode="fastest")
    with pytest.raises(RuntimeError, match="both"):
        torch.compile(lambda x: x, mode="default", options={})
    with pytest.raises(RuntimeError, match="callable"):
        torch.compile(3)
