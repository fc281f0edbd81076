"""torch.nn.init: gains, fans, seeded statistics of each distribution, deterministic fills,
the generator argument, and the default initialisation of the layers."""

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
from torch.nn import init


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1
    assert init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01**2)))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("selu") == pytest.approx(0.75)
    with pytest.raises(ValueError):
        init.calculate_gain("swish")
    with pytest.raises(ValueError):
        init.calculate_gain("leaky_relu", "a")


def test_fans():
    w = torch.empty(8, 4, 3, 3)
    assert init._calculate_fan_in_and_fan_out(w) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(torch.empty(5))


def _stats(t):
    a = t.detach().numpy().ravel().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


def test_uniform_and_normal_statistics():
    torch.manual_seed(0)
    mean, std, lo, hi = _stats(init.uniform_(torch.empty(200, 200), -2.0, 3.0))
    assert lo >= -2 and hi <= 3
    assert mean == pytest.approx(0.5, abs=0.03)
    assert std == pytest.approx(5 / math.sqrt(12), rel=0.02)
    mean, std, _, _ = _stats(init.normal_(torch.empty(200, 200), 1.0, 0.5))
    assert mean == pytest.approx(1.0, abs=0.01) and std == pytest.approx(0.5, rel=0.02)


def test_trunc_normal_bounds_and_statistics():
    torch.manual_seed(0)
    t = init.trunc_normal_(torch.empty(300, 300), mean=0.0, std=1.0, a=-1.0, b=2.0)
    mean, std, lo, hi = _stats(t)
    assert lo >= -1.0 and hi <= 2.0
    # moments of N(0, 1) truncated to [-1, 2]
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    z = cdf(2) - cdf(-1)
    m = (pdf(-1) - pdf(2)) / z
    var = 1 + (-1 * pdf(-1) - 2 * pdf(2)) / z - m * m
    assert mean == pytest.approx(m, abs=0.01)
    assert std == pytest.approx(math.sqrt(var), rel=0.02)


def test_xavier_and_kaiming_statistics():
    torch.manual_seed(0)
    w = torch.empty(300, 200)
    _, std, lo, hi = _stats(init.xavier_uniform_(w, gain=2.0))
    a = 2.0 * math.sqrt(6 / 500)
    assert -a <= lo and hi <= a and std == pytest.approx(a / math.sqrt(3), rel=0.02)
    _, std, _, _ = _stats(init.xavier_normal_(w))
    assert std == pytest.approx(math.sqrt(2 / 500), rel=0.02)
    _, std, lo, hi = _stats(init.kaiming_uniform_(w, nonlinearity="relu"))
    bound = math.sqrt(2) * math.sqrt(3 / 200)
    assert -bound <= lo and hi <= bound and std == pytest.approx(bound / math.sqrt(3), rel=0.02)
    _, std, _, _ = _stats(init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
    assert std == pytest.approx(math.sqrt(2 / 300), rel=0.02)
    _, std, _, _ = _stats(init.kaiming_normal_(w, a=0.5))
    assert std == pytest.approx(math.sqrt(2 / 1.25) / math.sqrt(200), rel=0.02)
    with pytest.raises(ValueError):
        init.kaiming_uniform_(w, mode="fan_avg")


def test_deterministic_fills():
    t = torch.empty(3, 4)
    assert init.constant_(t, 2.5) is t and bool((t == 2.5).all())
    assert bool((init.ones_(t) == 1).all()) and not init.zeros_(t).any()
    np.testing.assert_array_equal(init.eye_(torch.empty(3, 4)).numpy(), np.eye(3, 4))
    with pytest.raises(ValueError):
        init.eye_(torch.empty(2, 2, 2))


def test_dirac_keeps_inputs_through_a_convolution():
    w = init.dirac_(torch.empty(4, 2, 3, 3))
    expected = np.zeros((4, 2, 3, 3))
    expected[0, 0, 1, 1] = expected[1, 1, 1, 1] = 1
    np.testing.assert_array_equal(w.numpy(), expected)
    w = init.dirac_(torch.empty(4, 2, 3), groups=2)
    assert w[0, 0, 1] == 1 and w[1, 1, 1] == 1 and w[2, 0, 1] == 1 and w[3, 1, 1] == 1
    assert w.sum().item() == 4


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 3)])
def test_orthogonal(shape):
    torch.manual_seed(0)
    w = init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=2.0)
    flat = w.reshape(shape[0], -1).numpy() / 2.0
    rows, cols = flat.shape
    if rows <= cols:
        np.testing.assert_allclose(flat @ flat.T, np.eye(rows), atol=1e-10)
    else:
        np.testing.assert_allclose(flat.T @ flat, np.eye(cols), atol=1e-10)


def test_sparse_zeros_per_column():
    torch.manual_seed(0)
    w = init.sparse_(torch.empty(10, 6), sparsity=0.3)
    assert ((w == 0).sum(0) >= 3).all()


def test_generator_makes_draws_reproducible():
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_,
               init.trunc_normal_, init.orthogonal_):  # fmt: skip
        a = fn(torch.empty(5, 4), generator=torch.Generator().manual_seed(3))
        b = fn(torch.empty(5, 4), generator=torch.Generator().manual_seed(3))
        assert torch.equal(a, b), fn.__name__


def test_init_runs_under_no_grad():
    p = nn.Parameter(torch.empty(3, 3))
    init.normal_(p)
    init.xavier_uniform_(p)
    assert p.grad_fn is None and p.is_leaf


def test_layer_default_initialisations():
    torch.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) gives U(-1/sqrt(fan_in), ...)
    _, std, lo, hi = _stats(lin.weight)
    assert -bound <= lo and hi <= bound and std == pytest.approx(bound / math.sqrt(3), rel=0.03)
    _, _, lo, hi = _stats(lin.bias)
    assert -bound <= lo and hi <= bound
    conv = nn.Conv2d(16, 32, 3)
    bound = 1 / math.sqrt(16 * 9)
    _, std, lo, hi = _stats(conv.weight)
    assert -bound <= lo and hi <= bound and std == pytest.approx(bound / math.sqrt(3), rel=0.05)
    emb = nn.Embedding(300, 100, padding_idx=2)
    mean, std, _, _ = _stats(emb.weight)
    assert std == pytest.approx(1.0, rel=0.03) and not emb.weight[2].any()
    bn = nn.BatchNorm1d(5)
    assert bn.weight.tolist() == [1.0] * 5 and bn.bias.tolist() == [0.0] * 5
    mha = nn.MultiheadAttention(16, 4)
    assert not mha.in_proj_bias.any() and not mha.out_proj.bias.any()
