"""The legacy Module/Container/Sequential contract, flattenParameters, type(), repr."""

import numpy as np
import pytest
from legacy_jacobian import check_gradients, rand

import torch
import torch.legacy.nn as nn


def _net():
    return nn.Sequential().add(nn.Linear(3, 4)).add(nn.Tanh()).add(nn.Linear(4, 2))


def test_linear_forward_matches_numpy_and_gradients_match_finite_differences():
    m = nn.Linear(3, 2).double()
    x = rand(5, 3)
    w, b = m.weight.numpy(), m.bias.numpy()
    np.testing.assert_allclose(m.forward(x).numpy(), x.numpy() @ w.T + b, rtol=1e-12)
    np.testing.assert_allclose(m.forward(x[0]).numpy(), w @ x[0].numpy() + b, rtol=1e-12)
    check_gradients(m, x)
    check_gradients(m, x[0].clone())
    check_gradients(nn.Linear(3, 2, bias=False).double(), x)


def test_linear_reset_draws_from_lua_range():
    m = nn.Linear(16, 50)
    bound = 1 / np.sqrt(16)
    for t in (m.weight, m.bias):
        assert float(t.abs().max()) <= bound
        assert float(t.abs().max()) > bound / 2  # 850 draws: not all in the middle


def test_backward_accumulates_scaled_gradients():
    m = nn.Linear(3, 2).double()
    x, g = rand(4, 3), rand(4, 2, seed=1)
    m.zeroGradParameters()
    m.forward(x)
    m.backward(x, g)
    once = m.gradWeight.clone()
    m.backward(x, g, 0.5)
    np.testing.assert_allclose(m.gradWeight.numpy(), 1.5 * once.numpy(), rtol=1e-12)
    np.testing.assert_allclose(once.numpy(), g.numpy().T @ x.numpy(), rtol=1e-12)


def test_parameters_returns_lua_pair_or_none():
    m = nn.Linear(3, 2)
    params, grads = m.parameters()
    assert params[0] is m.weight and params[1] is m.bias
    assert grads[0] is m.gradWeight and grads[1] is m.gradBias
    assert nn.Tanh().parameters() is None
    assert nn.Sequential().add(nn.Tanh()).parameters() is None
    net = _net()
    assert len(net.parameters()[0]) == 4
    assert net.parameters()[0][2] is net.get(2).weight


def test_update_parameters_and_acc_update_follow_sgd():
    m = nn.Linear(3, 2).double()
    x, g = rand(4, 3), rand(4, 2, seed=1)
    w0 = m.weight.clone()
    m.zeroGradParameters()
    m.forward(x)
    m.backward(x, g)
    m.updateParameters(0.1)
    expected = w0.numpy() - 0.1 * g.numpy().T @ x.numpy()
    np.testing.assert_allclose(m.weight.numpy(), expected, rtol=1e-12)
    m.weight.copy_(w0)
    m.forward(x)
    m.backwardUpdate(x, g, 0.1)
    np.testing.assert_allclose(m.weight.numpy(), expected, rtol=1e-12)
    assert m.gradWeight is not m.weight  # the alias is undone


def test_sequential_chains_and_backpropagates():
    net = _net().double()
    x = rand(5, 3)
    a, b = net.get(0), net.get(2)
    h = np.tanh(x.numpy() @ a.weight.numpy().T + a.bias.numpy())
    expected = h @ b.weight.numpy().T + b.bias.numpy()
    np.testing.assert_allclose(net.forward(x).numpy(), expected, rtol=1e-12)
    assert net.output is net.get(2).output
    check_gradients(net, x)
    assert net.gradInput is net.get(0).gradInput


def test_sequential_training_loop_learns_a_linear_map():
    torch.manual_seed(0)
    gen = np.random.default_rng(0)
    x = torch.tensor(gen.standard_normal((64, 3)))
    true_w = np.array([[1.0, -2.0, 0.5]])
    y = torch.tensor(x.numpy() @ true_w.T)
    net = nn.Sequential().add(nn.Linear(3, 1)).double()
    for _ in range(200):
        net.zeroGradParameters()
        out = net.forward(x)
        net.backward(x, (out - y) * (2 / x.size(0)))
        net.updateParameters(0.1)
    np.testing.assert_allclose(net.get(0).weight.numpy(), true_w, atol=1e-4)


def test_sequential_repr_matches_lua():
    net = nn.Sequential().add(nn.Linear(3, 4)).add(nn.Sequential().add(nn.ReLU()))
    assert repr(net) == (
        "nn.Sequential {\n"
        "  [input -> (1) -> (2) -> output]\n"
        "  (1): nn.Linear(3 -> 4)\n"
        "  (2): nn.Sequential {\n"
        "    [input -> (1) -> output]\n"
        "    (1): nn.ReLU\n"
        "  }\n"
        "}"
    )
    assert repr(nn.Tanh()) == "nn.Tanh"
    assert repr(nn.Linear(2, 3, bias=False)) == "nn.Linear(2 -> 3) without bias"


def test_sequential_insert_remove_len():
    net = _net()
    relu = nn.ReLU()
    net.insert(relu, 1)
    assert len(net) == 4 and net.get(1) is relu and net.size() == 4
    net.remove(1)
    net.remove()
    assert [type(m).__name__ for m in net.modules] == ["Linear", "Tanh"]
    with pytest.raises(TypeError, match="nn.Sequential.add"):
        net.add(3)


def test_flatten_parameters_repoints_every_module():
    net = _net().double()
    x = rand(2, 3)
    before = net.forward(x).clone()
    params, grads = net.flattenParameters()
    assert params.numel() == 3 * 4 + 4 + 4 * 2 + 2 == grads.numel()
    np.testing.assert_allclose(net.forward(x).numpy(), before.numpy(), rtol=1e-12)
    params.zero_()
    assert float(net.get(0).weight.abs().sum()) == 0 and float(net.get(2).bias.abs().sum()) == 0
    params[0] = 7.0
    assert float(net.get(0).weight[0, 0]) == 7.0
    net.get(2).bias.fill_(3.0)
    assert float(params[-1]) == 3.0
    net.zeroGradParameters()
    net.forward(x)
    net.backward(x, rand(2, 2, seed=1))
    assert float(grads.abs().sum()) > 0
    np.testing.assert_array_equal(grads[-2:].numpy(), net.get(2).gradBias.numpy())


def test_flatten_parameters_keeps_shared_weights_shared():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.weight, b.gradWeight = a.weight, a.gradWeight
    net = nn.Sequential().add(a).add(b)
    params, grads = net.flattenParameters()
    assert params.numel() == 9 + 3 + 3
    assert a.weight is b.weight
    params.fill_(1.0)
    assert float(b.weight.sum()) == 9.0


def test_type_converts_and_keeps_shared_storages_shared():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.weight = a.weight.narrow(0, 1, 2)  # a view sharing a's storage
    net = nn.Sequential().add(a).add(b)
    assert net.type() == "torch.FloatTensor"
    net.double()
    assert net.type() == "torch.DoubleTensor" and a.type() == "torch.DoubleTensor"
    assert a.weight.dtype == torch.float64 and b.weight.dtype == torch.float64
    a.weight[1, 0] = 5.0
    assert float(b.weight[0, 0]) == 5.0
    net.type("torch.FloatTensor")
    assert a.weight.dtype == torch.float32
    a.weight[2, 2] = -1.0
    assert float(b.weight[1, 2]) == -1.0
    with pytest.raises(ValueError, match="type"):
        net.type("torch.LongTensor")


def test_clone_is_deep_and_keeps_sharing():
    a = nn.Linear(3, 3)
    a.bias = a.weight[0]
    c = a.clone()
    assert c.weight.data_ptr() != a.weight.data_ptr()
    np.testing.assert_array_equal(c.weight.numpy(), a.weight.numpy())
    c.weight[0, 1] = 9.0
    assert float(c.bias[1]) == 9.0 and float(a.weight[0, 1]) != 9.0


def test_training_evaluate_apply_list_find_replace():
    drop = nn.Dropout()
    net = nn.Sequential().add(nn.Linear(2, 2)).add(nn.Sequential().add(drop))
    assert drop.train is True
    net.evaluate()
    assert drop.train is False and net.train is False
    net.training()
    assert drop.train is True
    names = [type(m).__name__ for m in net.listModules()]
    assert names == ["Sequential", "Linear", "Sequential", "Dropout"]
    seen = []
    net.apply(lambda m: seen.append(m))
    assert seen == net.listModules()
    nodes, containers = net.findModules("nn.Dropout")
    assert nodes == [drop] and containers == [net.get(1)]
    assert net.findModules(nn.Linear)[0] == [net.get(0)]
    net.replace(lambda m: nn.Identity() if isinstance(m, nn.Dropout) else m)
    assert isinstance(net.get(1).get(0), nn.Identity)


def test_clear_state_empties_outputs():
    net = _net()
    x = torch.zeros(2, 3)
    net.forward(x)
    net.backward(x, torch.zeros(2, 2))
    net.clearState()
    for m in net.listModules():
        assert m.output.numel() == 0 and m.gradInput.numel() == 0


def test_module_built_from_lua_fields_works():
    """As the .t7 reader builds modules: cls.__new__ and the Lua fields."""
    m = nn.Linear.__new__(nn.Linear)
    w = rand(2, 3)
    m.__dict__.update(
        weight=w,
        bias=torch.zeros(2, dtype=torch.float64),
        gradWeight=torch.zeros_like(w),
        gradBias=torch.zeros(2, dtype=torch.float64),
        output=torch.Tensor(),
        gradInput=torch.Tensor(),
        _type="torch.DoubleTensor",
    )
    x = rand(4, 3, seed=3)
    np.testing.assert_allclose(m.forward(x).numpy(), x.numpy() @ w.numpy().T, rtol=1e-12)
    check_gradients(m, x)


def test_linear_wrong_input_names_module_and_shapes():
    m = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match=r"nn\.Linear\(3 -> 2\).*\(4, 5\).*expected 3"):
        m.forward(torch.zeros(4, 5))
    with pytest.raises(RuntimeError, match=r"nn\.Linear\(3 -> 2\): expected a 1D or 2D input.*"):
        m.forward(torch.zeros(1, 4, 3))


def test_type_of_module_read_without_type_field_comes_from_its_tensors():
    m = nn.Linear.__new__(nn.Linear)
    m.__dict__.update(weight=torch.zeros(2, 3, dtype=torch.float64), bias=None)
    assert m.type() == "torch.DoubleTensor"


def test_legacy_nn_sources_use_only_the_core():
    """torch-legacy must run with torch-core alone: no torch.nn, no torch.autograd."""
    import pathlib
    import re

    root = pathlib.Path(nn.__file__).parent
    pattern = re.compile(r"torch\.(nn|autograd|optim)\b|from torch import (nn|autograd)")
    for path in root.glob("*.py"):
        assert not pattern.search(path.read_text()), path


def test_modules_read_without_optional_lua_fields_use_defaults():
    x = rand(2, 3)
    s = nn.Sum.__new__(nn.Sum)
    s.__dict__.update(dimension=1, output=torch.Tensor(), gradInput=torch.Tensor())
    np.testing.assert_allclose(s.forward(x).numpy(), x.numpy().sum(1), rtol=1e-12)
    relu = nn.ReLU.__new__(nn.ReLU)
    relu.__dict__.update(threshold=0, value=0, output=torch.Tensor(), gradInput=torch.Tensor())
    np.testing.assert_array_equal(relu.forward(x).numpy(), np.maximum(x.numpy(), 0))
