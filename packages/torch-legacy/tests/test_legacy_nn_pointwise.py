"""Element-wise legacy modules: forward against NumPy, backward against finite differences."""

import numpy as np
import pytest
from legacy_jacobian import check_gradients, rand

import torch
import torch.legacy.nn as nn


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# (name, factory, NumPy oracle, input low, input high)
CASES = [
    ("ReLU", lambda: nn.ReLU(), lambda x: np.maximum(x, 0), -3, 3),
    ("ReLU6", lambda: nn.ReLU6(), lambda x: np.clip(x, 0, 6), -3, 9),
    ("Threshold", lambda: nn.Threshold(0.5, -2), lambda x: np.where(x > 0.5, x, -2), -3, 3),
    ("HardTanh", lambda: nn.HardTanh(-0.5, 2), lambda x: np.clip(x, -0.5, 2), -3, 3),
    ("Clamp", lambda: nn.Clamp(-1, 0.5), lambda x: np.clip(x, -1, 0.5), -3, 3),
    ("LeakyReLU", lambda: nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x), -3, 3),
    ("ELU", lambda: nn.ELU(1.5), lambda x: np.where(x > 0, x, 1.5 * (np.exp(x) - 1)), -3, 3),
    ("PReLU", lambda: nn.PReLU(), lambda x: np.where(x > 0, x, 0.25 * x), -3, 3),
    ("Tanh", lambda: nn.Tanh(), np.tanh, -3, 3),
    ("Sigmoid", lambda: nn.Sigmoid(), _sigmoid, -3, 3),
    ("LogSigmoid", lambda: nn.LogSigmoid(), lambda x: np.log(_sigmoid(x)), -3, 3),
    ("SoftPlus", lambda: nn.SoftPlus(2), lambda x: np.log1p(np.exp(2 * x)) / 2, -3, 3),
    ("SoftSign", lambda: nn.SoftSign(), lambda x: x / (1 + np.abs(x)), -3, 3),
    ("Abs", lambda: nn.Abs(), np.abs, -3, 3),
    ("Exp", lambda: nn.Exp(), np.exp, -2, 2),
    ("Log", lambda: nn.Log(), np.log, 0.5, 3),
    ("Sqrt", lambda: nn.Sqrt(), np.sqrt, 0.5, 3),
    ("Square", lambda: nn.Square(), np.square, -3, 3),
    ("Power", lambda: nn.Power(3), lambda x: x**3, 0.5, 2),
    ("AddConstant", lambda: nn.AddConstant(2.5), lambda x: x + 2.5, -3, 3),
    ("MulConstant", lambda: nn.MulConstant(-1.5), lambda x: x * -1.5, -3, 3),
    ("SoftMax", lambda: nn.SoftMax(), lambda x: _softmax(x, 1), -3, 3),
    ("SoftMin", lambda: nn.SoftMin(), lambda x: _softmax(-x, 1), -3, 3),
    ("LogSoftMax", lambda: nn.LogSoftMax(), lambda x: np.log(_softmax(x, 1)), -3, 3),
    ("Identity", lambda: nn.Identity(), lambda x: x, -3, 3),
    ("Contiguous", lambda: nn.Contiguous(), lambda x: x, -3, 3),
]


@pytest.mark.parametrize("name,factory,oracle,low,high", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy_and_backward_matches_finite_differences(
    name, factory, oracle, low, high
):
    module = factory().double()
    x = rand(3, 4, low=low, high=high)
    out = module.forward(x)
    np.testing.assert_allclose(out.numpy(), oracle(x.numpy()), rtol=1e-12, atol=1e-12)
    check_gradients(module, x)


@pytest.mark.parametrize("factory", [nn.SoftMax, nn.LogSoftMax, nn.SoftMin])
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 2, 2), 0), ((2, 3, 2, 2), 1)])
def test_softmax_family_normalises_lua_feature_dimension(factory, shape, dim):
    module = factory().double()
    x = rand(*shape)
    out = module.forward(x).numpy()
    sign = -1 if factory is nn.SoftMin else 1
    expected = _softmax(sign * x.numpy(), dim)
    expected = np.log(expected) if factory is nn.LogSoftMax else expected
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    check_gradients(module, x)


def test_prelu_learns_one_slope_per_channel():
    module = nn.PReLU(3).double()
    module.weight.copy_(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64))
    x = rand(2, 3, 2, 1, seed=1, low=-2, high=2)  # (N, C, H, W): channels in dimension 1
    slope = np.array([0.1, 0.2, 0.3]).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(module.forward(x).numpy(), np.where(x > 0, x, slope * x.numpy()))
    check_gradients(module, x)


@pytest.mark.parametrize("factory", [lambda: nn.ReLU(True), lambda: nn.Threshold(0.1, 0, True)])
def test_inplace_overwrites_input_and_gradient(factory):
    module = factory().double()
    x = rand(3, 4, low=-1, high=1)
    expected = np.where(x.numpy() > module.threshold, x.numpy(), 0)
    out = module.forward(x)
    assert out.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(x.numpy(), expected)
    g = rand(3, 4, seed=2)
    g_expected = np.where(expected > module.threshold, g.numpy(), 0)
    grad = module.backward(x, g)
    assert grad.data_ptr() == g.data_ptr()
    np.testing.assert_array_equal(grad.numpy(), g_expected)


def test_inplace_threshold_needs_value_below_threshold():
    with pytest.raises(ValueError, match="threshold"):
        nn.Threshold(0, 1, True)


def test_gradient_of_wrong_size_names_module_and_shapes():
    module = nn.Tanh()
    x = torch.zeros(2, 3)
    module.forward(x)
    with pytest.raises(RuntimeError, match=r"nn\.Tanh.*\(2, 3\).*\(3, 2\)"):
        module.backward(x, torch.zeros(3, 2))


def test_softmax_rejects_5d_input():
    with pytest.raises(RuntimeError, match=r"nn\.SoftMax.*1D or 2D or 3D or 4D.*\(1, 1, 1, 1, 2\)"):
        nn.SoftMax().forward(torch.zeros(1, 1, 1, 1, 2))


def test_non_tensor_input_is_a_type_error():
    with pytest.raises(TypeError, match=r"nn\.Sigmoid: input must be a Tensor, not list"):
        nn.Sigmoid().forward([1.0, 2.0])
