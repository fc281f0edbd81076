"""Legacy modules with parameters, BatchNormalization, LookupTable and Dropout: forward
against NumPy, gradInput and parameter gradients against finite differences."""

import numpy as np
import pytest
from legacy_jacobian import check_gradients, rand

import torch
import torch.legacy.nn as nn


def _np(t):
    return t.numpy().copy()


def _bilinear(m, a, b):
    out = np.einsum("ni,kij,nj->nk", a, _np(m.weight), b)
    return out + _np(m.bias) if m.bias is not None else out


def _cosine(m, x):
    w = _np(m.weight)
    return (x @ w.T) / np.outer(np.linalg.norm(x, axis=1), np.linalg.norm(w, axis=1))


def _euclidean(m, x):
    return np.linalg.norm(x[:, :, None] - _np(m.weight)[None], axis=1)


def _normalize(p):
    def oracle(m, x):
        if np.isinf(p):
            return x / (np.abs(x).max(1, keepdims=True) + 1e-10)
        return x / ((np.abs(x) ** p).sum(1, keepdims=True) + 1e-10) ** (1 / p)

    return oracle


# (name, factory, input maker, NumPy oracle(module, *input arrays))
CASES = [
    ("Mul", nn.Mul, lambda: rand(2, 3), lambda m, x: x * float(m.weight[0])),
    ("Add", lambda: nn.Add(3), lambda: rand(4, 3), lambda m, x: x + _np(m.bias)),
    ("Add-sample", lambda: nn.Add(3), lambda: rand(3), lambda m, x: x + _np(m.bias)),
    ("Add-scalar", lambda: nn.Add(3, True), lambda: rand(4, 3), lambda m, x: x + _np(m.bias)),
    ("CMul", lambda: nn.CMul(3, 2), lambda: rand(4, 3, 2), lambda m, x: x * _np(m.weight)),
    ("CMul-sample", lambda: nn.CMul(6), lambda: rand(6), lambda m, x: x * _np(m.weight)),
    ("Cosine", lambda: nn.Cosine(3, 2), lambda: rand(4, 3), _cosine),
    ("Euclidean", lambda: nn.Euclidean(3, 2), lambda: rand(4, 3), _euclidean),
    ("Normalize-2", lambda: nn.Normalize(2), lambda: rand(4, 3), _normalize(2)),
    ("Normalize-1.5", lambda: nn.Normalize(1.5), lambda: rand(4, 3), _normalize(1.5)),
    ("Normalize-inf", lambda: nn.Normalize(float("inf")), lambda: rand(4, 3),
     _normalize(float("inf"))),
    ("Bilinear", lambda: nn.Bilinear(3, 2, 4), lambda: [rand(5, 3), rand(5, 2, seed=1)],
     _bilinear),
    ("Bilinear-nobias", lambda: nn.Bilinear(3, 2, 4, False),
     lambda: [rand(5, 3), rand(5, 2, seed=1)], _bilinear),
    ("PReLU-shared", nn.PReLU, lambda: rand(4, 3), lambda m, x: np.where(x > 0, x, 0.25 * x)),
]  # fmt: skip


@pytest.mark.parametrize("name,factory,make,oracle", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy_and_gradients_match_finite_differences(name, factory, make, oracle):
    torch.manual_seed(0)
    module = factory().double()
    x = make()
    arrays = [t.numpy() for t in x] if isinstance(x, list) else [x.numpy()]
    np.testing.assert_allclose(module.forward(x).numpy(), oracle(module, *arrays), rtol=1e-10)
    check_gradients(module, x)


@pytest.mark.parametrize("factory", [lambda: nn.Cosine(3, 2), lambda: nn.Euclidean(3, 2),
                                     lambda: nn.Normalize(2)])  # fmt: skip
def test_sample_input_is_one_row_of_a_batch(factory):
    torch.manual_seed(0)
    module = factory().double()
    x = rand(3)
    np.testing.assert_allclose(
        module.forward(x).numpy(), module.forward(x.view(1, 3)).numpy().reshape(-1), rtol=1e-12
    )
    check_gradients(module, x)


def test_batch_normalization_training_matches_numpy_and_updates_running_stats():
    m = nn.BatchNormalization(3, 1e-5, 0.1).double()
    x = rand(6, 3)
    xn = x.numpy()
    mean, var = xn.mean(0), xn.var(0)
    expected = (xn - mean) / np.sqrt(var + 1e-5) * _np(m.weight) + _np(m.bias)
    np.testing.assert_allclose(m.forward(x).numpy(), expected, rtol=1e-10)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.1 * mean, rtol=1e-10)
    np.testing.assert_allclose(m.running_var.numpy(), 0.9 + 0.1 * xn.var(0, ddof=1), rtol=1e-10)
    check_gradients(m, x)


def test_batch_normalization_evaluation_uses_running_stats():
    m = nn.BatchNormalization(3).double()
    m.running_mean.copy_(torch.tensor([0.5, -1.0, 0.0]))
    m.running_var.copy_(torch.tensor([2.0, 0.5, 1.0]))
    m.evaluate()
    x = rand(4, 3)
    rm, rv = _np(m.running_mean), _np(m.running_var)
    expected = (x.numpy() - rm) / np.sqrt(rv + 1e-5) * _np(m.weight) + _np(m.bias)
    np.testing.assert_allclose(m.forward(x).numpy(), expected, rtol=1e-10)
    check_gradients(m, x)
    np.testing.assert_array_equal(_np(m.running_mean), rm)  # evaluation leaves them alone


def test_batch_normalization_without_affine_has_no_parameters():
    m = nn.BatchNormalization(3, affine=False).double()
    assert m.parameters() is None
    x = rand(5, 3)
    xn = x.numpy()
    np.testing.assert_allclose(
        m.forward(x).numpy(), (xn - xn.mean(0)) / np.sqrt(xn.var(0) + 1e-5), rtol=1e-10
    )
    check_gradients(m, x)


def test_batch_normalization_rejects_wrong_input():
    m = nn.BatchNormalization(3)
    name = r"nn\.BatchNormalization \(2D\) \(3\)"
    with pytest.raises(RuntimeError, match=name + r".*\(4, 5\).*nOutput"):
        m.forward(torch.zeros(4, 5))
    with pytest.raises(RuntimeError, match=r"expected a 2D input.*\(4, 3, 2\)"):
        m.forward(torch.zeros(4, 3, 2))
    with pytest.raises(RuntimeError, match="more than one value per feature"):
        m.forward(torch.zeros(1, 3))


def test_lookup_table_gathers_rows_and_accumulates_gradients():
    m = nn.LookupTable(5, 3).double()
    idx = torch.tensor([[0, 2, 2], [4, 1, 0]])
    w = _np(m.weight)
    np.testing.assert_array_equal(m.forward(idx).numpy(), w[idx.numpy()])
    check_gradients(m, idx, check_input=False)
    g = rand(2, 3, 3, seed=1)
    m.zeroGradParameters()
    m.backward(idx, g)
    expected = np.zeros((5, 3))
    np.add.at(expected, idx.numpy().reshape(-1), g.numpy().reshape(-1, 3))
    np.testing.assert_allclose(m.gradWeight.numpy(), expected, rtol=1e-12)
    assert float(m.gradInput.abs().sum()) == 0 and tuple(m.gradInput.shape) == (2, 3)


def test_lookup_table_padding_row_gets_no_gradient_and_freq_scaling():
    m = nn.LookupTable(4, 2, 1).double()
    idx = torch.tensor([1, 3, 3, 1])
    m.forward(idx)
    m.zeroGradParameters()
    m.backward(idx, torch.ones(4, 2, dtype=torch.float64))
    np.testing.assert_array_equal(m.gradWeight.numpy(), [[0, 0], [0, 0], [0, 0], [2, 2]])
    m.scaleGradByFreq().zeroGradParameters()
    m.backward(idx, torch.ones(4, 2, dtype=torch.float64))
    np.testing.assert_array_equal(m.gradWeight.numpy(), [[0, 0], [0, 0], [0, 0], [1, 1]])


def test_lookup_table_max_norm_renormalises_used_rows():
    m = nn.LookupTable(4, 3, -1, 1.0).double()
    m.weight.copy_(torch.tensor([[3.0, 4, 0], [0.1, 0, 0], [6, 8, 0], [0, 0, 2]]))
    m.forward(torch.tensor([0, 1]))
    norms = np.linalg.norm(m.weight.numpy(), axis=1)
    np.testing.assert_allclose(norms[:2], [1.0, 0.1], rtol=1e-6)
    np.testing.assert_allclose(norms[2:], [10.0, 2.0])  # rows not looked up stay


def test_lookup_table_rejects_out_of_range_indices():
    with pytest.raises(IndexError, match=r"nn\.LookupTable\(4, 2\): indices must be in \[0, 4\)"):
        nn.LookupTable(4, 2).forward(torch.tensor([0, 4]))


def test_dropout_scales_kept_units_and_passes_through_in_evaluation():
    torch.manual_seed(0)
    m = nn.Dropout(0.25).double()
    x = torch.ones(2000, dtype=torch.float64)
    out = m.forward(x).numpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.75)
    assert 0.2 < 1 - kept.mean() < 0.3
    g = rand(2000, seed=3)
    np.testing.assert_allclose(m.backward(x, g).numpy(), g.numpy() * out)
    m.evaluate()
    assert m.forward(x) is x and m.backward(x, g) is g
    assert repr(m) == "nn.Dropout(0.2500)"


def test_dropout_inplace_overwrites_input():
    torch.manual_seed(0)
    m = nn.Dropout(0.5, True)
    x = torch.ones(100)
    assert m.forward(x).data_ptr() == x.data_ptr()
    assert set(np.unique(x.numpy())) <= {0.0, 2.0}


def test_copy_converts_types_both_ways():
    m = nn.Copy("torch.FloatTensor", "torch.DoubleTensor")
    x = torch.ones(3)
    assert m.forward(x).dtype == torch.float64
    assert m.backward(x, torch.ones(3, dtype=torch.float64)).dtype == torch.float32
    m.double()  # dontCast=False: nothing to convert, the types stay the configured ones
    assert m.forward(x).dtype == torch.float64


def test_linear_like_modules_reject_wrong_feature_size():
    for m, shape in ((nn.Cosine(3, 2), (4, 5)), (nn.Euclidean(3, 2), (4, 2))):
        with pytest.raises(RuntimeError, match=r"nn\.\w+\(3 -> 2\).*expected 3 \(inputSize\)"):
            m.forward(torch.zeros(shape))
    with pytest.raises(RuntimeError, match=r"nn\.Bilinear\(3, 2 -> 4\): expected inputs of sizes"):
        nn.Bilinear(3, 2, 4).forward([torch.zeros(5, 3), torch.zeros(5, 3)])
    with pytest.raises(RuntimeError, match=r"nn\.CMul\(3x2\).*\(4, 5\)"):
        nn.CMul(3, 2).forward(torch.zeros(4, 5))
