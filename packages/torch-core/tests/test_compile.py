"""torch.compile runs eagerly: the same callable back, arguments checked as PyTorch does."""

import pytest

import torch


def test_compile_returns_the_callable_and_runs_it():
    def f(x):
        return x * 2 + 1

    g = torch.compile(f)
    assert g is f and g(torch.ones(2)).tolist() == [3.0, 3.0]
    deco = torch.compile(mode="max-autotune", dynamic=True)
    assert deco(f) is f
    assert torch.compile(f, backend="eager", fullgraph=True) is f
    assert not torch.compiler.is_compiling()
    assert torch.compiler.disable(f) is f


def test_compile_checks_its_arguments():
    with pytest.raises(RuntimeError, match="mode"):
        torch.compile(lambda x: x, mode="fastest")
    with pytest.raises(RuntimeError, match="both"):
        torch.compile(lambda x: x, mode="default", options={})
    with pytest.raises(RuntimeError, match="callable"):
        torch.compile(3)
