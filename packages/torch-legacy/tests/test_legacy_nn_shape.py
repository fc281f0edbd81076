"""Shape legacy modules: forward against NumPy, backward against finite differences."""

import numpy as np
import pytest
from legacy_jacobian import check_gradients, rand

import torch
import torch.legacy.nn as nn


def _pad(x, axis, before, n, value):
    shape = list(x.shape)
    shape[axis] = n
    filler = np.full(shape, value)
    head, tail = np.split(x, [before], axis=axis)
    return np.concatenate([head, filler, tail], axis=axis)


# (name, factory, NumPy oracle on a (2, 3, 4) array)
CASES = [
    ("Reshape", lambda: nn.Reshape(12), lambda x: x.reshape(2, 12)),
    ("Reshape-all", lambda: nn.Reshape(24), lambda x: x.reshape(24)),
    ("Reshape-batch", lambda: nn.Reshape(3, 4, True), lambda x: x),
    ("View", lambda: nn.View(4, 3), lambda x: x.reshape(2, 4, 3)),
    ("View-1", lambda: nn.View(-1), lambda x: x.reshape(24)),
    ("View-inferred", lambda: nn.View(-1, 6), lambda x: x.reshape(4, 6)),
    ("View-numInputDims", lambda: nn.View(12).setNumInputDims(2), lambda x: x.reshape(2, 12)),
    ("Transpose", lambda: nn.Transpose((0, 1), (1, 2)), lambda x: x.transpose(1, 2, 0)),
    ("Narrow", lambda: nn.Narrow(2, 1, 2), lambda x: x[:, :, 1:3]),
    ("Narrow-negative", lambda: nn.Narrow(1, 1, -1), lambda x: x[:, 1:]),
    ("Select", lambda: nn.Select(1, 2), lambda x: x[:, 2]),
    ("Select-negative", lambda: nn.Select(2, -1), lambda x: x[:, :, -1]),
    ("Unsqueeze", lambda: nn.Unsqueeze(1), lambda x: x[:, None]),
    ("Unsqueeze-last", lambda: nn.Unsqueeze(3), lambda x: x[..., None]),
    ("Unsqueeze-batch", lambda: nn.Unsqueeze(0, 2), lambda x: x[:, None]),
    ("Replicate", lambda: nn.Replicate(3, 1), lambda x: np.repeat(x[:, None], 3, axis=1)),
    ("Replicate-batch", lambda: nn.Replicate(2, 0, 2), lambda x: np.repeat(x[:, None], 2, 1)),
    ("Padding-after", lambda: nn.Padding(1, 2), lambda x: _pad(x, 1, 3, 2, 0)),
    ("Padding-before", lambda: nn.Padding(2, -1, None, 7), lambda x: _pad(x, 2, 0, 1, 7)),
    ("Padding-index", lambda: nn.Padding(1, -2, None, 5, 1), lambda x: _pad(x, 1, 1, 2, 5)),
    ("Padding-batch", lambda: nn.Padding(0, 1, 2), lambda x: _pad(x, 1, 3, 1, 0)),
    ("Sum", lambda: nn.Sum(1), lambda x: x.sum(1)),
    ("Sum-negative", lambda: nn.Sum(-1), lambda x: x.sum(2)),
    ("Sum-average", lambda: nn.Sum(0, None, True), lambda x: x.mean(0)),
    ("Sum-keepdim", lambda: nn.Sum(1, None, False, False), lambda x: x.sum(1, keepdims=True)),
    ("Mean", lambda: nn.Mean(2), lambda x: x.mean(2)),
    ("Mean-batch", lambda: nn.Mean(0, 2), lambda x: x.mean(1)),
    ("Max", lambda: nn.Max(1), lambda x: x.max(1)),
    ("Min", lambda: nn.Min(2), lambda x: x.min(2)),
    ("Max-batch", lambda: nn.Max(1, 2), lambda x: x.max(2)),
]


@pytest.mark.parametrize("name,factory,oracle", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy_and_backward_matches_finite_differences(name, factory, oracle):
    module = factory().double()
    x = rand(2, 3, 4)
    out = module.forward(x)
    expected = oracle(x.numpy())
    assert tuple(out.shape) == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    check_gradients(module, x)


def test_squeeze_all_one_and_batch():
    x = rand(1, 3, 1)
    assert tuple(nn.Squeeze().forward(x).shape) == (3,)
    assert tuple(nn.Squeeze(2).forward(x).shape) == (1, 3)
    assert tuple(nn.Squeeze(None, 2).forward(x).shape) == (1, 3)  # the batch of one stays
    assert tuple(nn.Squeeze(1, 2).forward(x).shape) == (1, 3)
    check_gradients(nn.Squeeze(), x)


def test_reductions_of_1d_input_keep_one_element():
    x = rand(5)
    for module, expected in ((nn.Sum(), x.numpy().sum()), (nn.Max(), x.numpy().max())):
        out = module.forward(x)
        assert tuple(out.shape) == (1,)
        np.testing.assert_allclose(out.numpy(), [expected], rtol=1e-12)
        check_gradients(module, x)


def test_max_gradient_goes_to_the_maximum():
    x = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    m = nn.Max(1)
    np.testing.assert_array_equal(m.forward(x).numpy(), [5.0, 7.0])
    grad = m.backward(x, torch.tensor([10.0, 20.0]))
    np.testing.assert_array_equal(grad.numpy(), [[0, 10, 0], [20, 0, 0]])


def test_replicate_is_a_view_without_copy():
    x = rand(2, 3)
    out = nn.Replicate(4).forward(x)
    assert out.data_ptr() == x.data_ptr() and out.stride()[0] == 0


def test_reprs():
    assert repr(nn.Reshape(2, 3)) == "nn.Reshape(2x3)"
    assert repr(nn.View(2, -1)) == "nn.View(2, -1)"
    assert repr(nn.Narrow(1, 2, 3)) == "nn.Narrow(1, 2, 3)"


@pytest.mark.parametrize(
    "module,shape,pattern",
    [
        (nn.View(5), (2, 3), r"nn\.View\(5\): input of size \(2, 3\) does not match"),
        (nn.Reshape(5), (2, 3), r"nn\.Reshape\(5\): input of size \(2, 3\).*cannot"),
        (nn.Narrow(1, 2, 3), (2, 3), r"nn\.Narrow\(1, 2, 3\): cannot take 3.*\(2, 3\)"),
        (nn.Select(0, 5), (2, 3), r"nn\.Select: index 5 out of range.*\(2, 3\)"),
        (nn.Unsqueeze(4), (2, 3), r"nn\.Unsqueeze\(4\): cannot insert dimension 4.*\(2, 3\)"),
        (nn.Padding(0, 1, None, 0, 5), (2, 3), r"nn\.Padding: index 5.*\(2, 3\)"),
    ],
)
def test_wrong_shapes_name_module_and_shapes(module, shape, pattern):
    with pytest.raises(RuntimeError, match=pattern):
        module.forward(torch.zeros(shape))
