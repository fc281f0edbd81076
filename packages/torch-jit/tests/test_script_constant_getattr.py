"""TorchScript compiles ``getattr(x, "name")`` with a string literal as ``x.name``, as
PyTorch's does: torch.fx writes ``getattr(self.layer1, '0')`` for numbered submodules, and
pytorch/tutorials' fx_conv_bn_fuser scripts such a GraphModule. The oracle is the eager
module."""

import pytest

import torch
import torch.fx as fx
from torch import nn

# (PyTorch 2.13 warns that torch.jit.script is deprecated)
pytestmark = [
    pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated"),
    pytest.mark.filterwarnings("ignore:The TorchScript type system:UserWarning"),
]


class _Attrs(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = nn.Linear(3, 3)
        self.w = nn.Parameter(torch.full((3,), 2.0))

    def forward(self, x):
        return getattr(self, "sub")(x) * getattr(self, "w")  # noqa: B009


def test_a_graph_module_with_numbered_submodules_scripts():
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2), nn.Tanh()))
    gm = fx.symbolic_trace(m)
    assert 'getattr(getattr(self, "2"), "0")(' in gm.code  # (as PyTorch writes it)
    scripted = torch.jit.script(gm)
    x = torch.randn(5, 3)
    torch.testing.assert_close(scripted(x), m(x))


def test_getattr_of_a_submodule_and_a_parameter():
    m = _Attrs()
    scripted = torch.jit.script(m)
    x = torch.randn(2, 3)
    torch.testing.assert_close(scripted(x), m(x))


def test_getattr_of_a_missing_name_is_an_error():
    class Missing(nn.Module):
        def forward(self, x):
            return getattr(self, "nope")(x)  # noqa: B009

    with pytest.raises(Exception, match="nope"):
        torch.jit.script(Missing())
