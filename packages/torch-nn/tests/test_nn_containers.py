"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

import collections

import pytest

import torch
import torch.nn as nn


def test_sequential_calls_in_order_and_indexes():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    x = torch.randn(4, 2)
    assert torch.equal(seq(x), seq[2](seq[1](seq[0](x))))
    assert len(seq) == 3
    assert isinstance(seq[-1], nn.Linear) and seq[-1] is seq[2]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2 and sub[0] is seq[1]
    with pytest.raises(IndexError):
        seq[3]
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]


def test_sequential_from_ordered_dict_keeps_names():
    seq = nn.Sequential(collections.OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert isinstance(seq.fc, nn.Linear) and seq[1] is seq.act
    assert list(seq.state_dict()) == ["fc.weight", "fc.bias"]
    assert repr(seq) == (
        "Sequential(\n  (fc): Linear(in_features=2, out_features=2, bias=True)\n  (act): Tanh()\n)"
    )
    assert isinstance(seq[0:1], nn.Sequential) and list(seq[0:1]._modules) == ["fc"]


def test_sequential_append_insert_extend_delete_setitem():
    seq = nn.Sequential(nn.ReLU())
    seq.append(nn.Tanh())
    seq.insert(0, nn.Sigmoid())
    seq.extend([nn.ELU()])
    assert [type(m).__name__ for m in seq] == ["Sigmoid", "ReLU", "Tanh", "ELU"]
    del seq[1]
    assert [type(m).__name__ for m in seq] == ["Sigmoid", "Tanh", "ELU"]
    assert list(seq._modules) == ["0", "1", "2"]
    seq[0] = nn.Identity()
    assert isinstance(seq[0], nn.Identity)
    assert len(seq + nn.Sequential(nn.ReLU())) == 4
    assert repr(nn.Sequential()) == "Sequential()"


def test_module_list_registers_and_compresses_repr():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.ReLU())
    assert len(layers) == 4 and len(list(layers.parameters())) == 6
    assert repr(layers) == (
        "ModuleList(\n"
        "  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (3): ReLU()\n"
        ")"
    )
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    layers.insert(0, nn.Tanh())
    assert isinstance(layers[0], nn.Tanh) and isinstance(layers[-1], nn.ReLU)
    del layers[0]
    assert isinstance(layers[0], nn.Linear) and list(layers._modules) == ["0", "1", "2", "3"]
    layers.extend([nn.Sigmoid()])
    assert isinstance(layers[4], nn.Sigmoid)
    with pytest.raises(IndexError):
        layers[10]
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict():
    d = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 1)})
    assert list(d.keys()) == ["b", "a"]  # insertion order
    assert "a" in d and len(d) == 2
    d["c"] = nn.Tanh()
    assert list(d) == ["b", "a", "c"]
    assert d.pop("b").__class__ is nn.ReLU and "b" not in d
    d.update([("e", nn.ELU())])
    assert [k for k, _ in d.items()] == ["a", "c", "e"]
    assert len(list(d.parameters())) == 2
    with pytest.raises(TypeError):
        d.update(3)


def test_parameter_list():
    pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3)])
    assert all(isinstance(p, nn.Parameter) for p in pl)  # tensors are wrapped
    assert len(pl) == 2 and len(list(pl.parameters())) == 2
    pl.append(nn.Parameter(torch.ones(2, 3)))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert repr(pl) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [torch.float32 of size 2]\n"
        "    (1): Parameter containing: [torch.float32 of size 3]\n"
        "    (2): Parameter containing: [torch.float32 of size 2x3]\n"
        ")"
    )
    assert pl[-1].shape == (2, 3)


def test_parameter_dict():
    pd = nn.ParameterDict({"w": torch.ones(2)})
    pd["b"] = nn.Parameter(torch.zeros(1, dtype=torch.float64))
    assert isinstance(pd["w"], nn.Parameter)
    assert list(pd.keys()) == ["w", "b"] and "w" in pd and len(pd) == 2
    assert [n for n, _ in pd.named_parameters()] == ["w", "b"]
    assert repr(pd) == (
        "ParameterDict(\n"
        "    (w): Parameter containing: [torch.FloatTensor of size 2]\n"
        "    (b): Parameter containing: [torch.DoubleTensor of size 1]\n"
        ")"
    )
    del pd["w"]
    assert list(pd.keys()) == ["b"]


def test_containers_in_a_model_state_dict():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 1)})
            self.extra = nn.ParameterList([nn.Parameter(torch.ones(1))])

    keys = list(M().state_dict())
    assert keys == [
        "blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias",
        "heads.a.weight", "heads.a.bias", "extra.0",
    ]  # fmt: skip
