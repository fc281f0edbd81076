"""torch.compile through torch.jit: guarded graphs, eager fallback, same results as eager."""

import warnings

import pytest
from jit_models import MLP, MnistNet

import torch
import torch.jit
from torch import nn
from torch.nn import functional as F


def test_compiled_module_matches_eager_and_retraces_on_new_shapes():
    torch.manual_seed(0)
    model = MLP()
    compiled = torch.compile(model)
    assert compiled._orig_mod is model
    assert list(compiled.state_dict())[0] == "_orig_mod.fc1.weight"
    x = torch.randn(4, 6)
    for _ in range(2):
        torch.testing.assert_close(compiled(x), model(x))
    assert len(compiled._compiled.graphs) == 1
    compiled(torch.randn(7, 6))
    compiled(x.double().float())
    assert len(compiled._compiled.graphs) == 2  # a new shape, not a new value
    compiled(torch.randn(4, 6, dtype=torch.float64).float().requires_grad_())
    assert len(compiled._compiled.graphs) == 3  # requires_grad is guarded
    model.eval()
    compiled(x)
    assert len(compiled._compiled.graphs) == 4  # so is train/eval
    assert compiled.fc1 is model.fc1


def test_compiled_training_step():
    torch.manual_seed(0)
    model = MnistNet()
    compiled = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,))
    first = None
    for _ in range(4):
        opt.zero_grad()
        loss = F.nll_loss(compiled(x), y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < first


def test_fallback_to_eager_warns_once_with_the_reason():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1

    g = torch.compile(f)
    with pytest.warns(
        UserWarning, match="running .*f eagerly: Converting a tensor to a Python bool"
    ):
        assert g(torch.ones(2)).tolist() == [2.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g(-torch.ones(2)).tolist() == [-2.0, -2.0]  # eager: the branch is right
        assert g(-torch.ones(3)).tolist() == [-2.0, -2.0, -2.0]


def test_fullgraph_raises_and_eager_backend_is_the_function():
    def f(x):
        return x * int(x.sum())

    with pytest.raises(RuntimeError, match="fullgraph=True"):
        torch.compile(f, fullgraph=True)(torch.ones(2))
    assert torch.compile(f, backend="eager") is f


def test_decorator_and_non_tensor_arguments():
    @torch.compile
    def f(x, k: int, scale=1.5):
        return torch.relu(x) * k * scale

    x = torch.randn(5)
    torch.testing.assert_close(f(x, 2), torch.relu(x) * 3.0)
    torch.testing.assert_close(f(x, 3, scale=1.0), torch.relu(x) * 3)


def test_compile_a_module_with_dropout_in_training():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    compiled = torch.compile(model)
    out = compiled(torch.ones(2, 4))
    assert out.shape == (2, 4)
