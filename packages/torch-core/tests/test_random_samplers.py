"""exponential_, geometric_, cauchy_, log_normal_ and torch.poisson against SciPy's
distributions (Kolmogorov-Smirnov for continuous ones, chi-square for counts), seeded;
and Generator states as uint8 tensors."""

import numpy as np
import pytest

import torch

stats = pytest.importorskip("scipy.stats")
N = 20000


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def ks_ok(sample, cdf):
    return stats.kstest(sample.numpy(), cdf).pvalue > 1e-4


def test_continuous_samplers_follow_their_distributions():
    x = torch.empty(N, dtype=torch.float64)
    assert ks_ok(x.exponential_(2.5, generator=gen()), stats.expon(scale=1 / 2.5).cdf)
    assert ks_ok(x.cauchy_(1.0, 0.5, generator=gen()), stats.cauchy(1.0, 0.5).cdf)
    lognormal = stats.lognorm(0.7, scale=np.exp(0.3))
    assert ks_ok(x.log_normal_(0.3, 0.7, generator=gen()), lognormal.cdf)


def chi2_ok(sample, pmf, support):
    counts = np.bincount(sample.numpy().astype(np.int64), minlength=support.max() + 1)[support]
    expected = pmf(support) * len(sample)
    keep = expected > 20
    rest = len(sample) - counts[keep].sum(), len(sample) - expected[keep].sum()
    obs = np.append(counts[keep], rest[0])
    exp = np.append(expected[keep], rest[1])
    return stats.chisquare(obs, exp).pvalue > 1e-4


def test_geometric_counts_trials():
    x = torch.empty(N).geometric_(0.3, generator=gen())
    assert x.min().item() >= 1
    assert chi2_ok(x, stats.geom(0.3).pmf, np.arange(1, 40))


@pytest.mark.parametrize("rate", [0.7, 4.0, 9.5, 25.0, 300.0])
def test_poisson_small_and_large_rates(rate):
    x = torch.poisson(torch.full((N,), rate, dtype=torch.float64), generator=gen(int(rate)))
    assert x.dtype == torch.float64 and bool((x == x.floor()).all())
    lo, hi = int(stats.poisson(rate).ppf(1e-6)), int(stats.poisson(rate).ppf(1 - 1e-6)) + 1
    assert chi2_ok(x, stats.poisson(rate).pmf, np.arange(lo, hi))


def test_poisson_rates_per_element_and_errors():
    rates = torch.tensor([0.0, 2.0, 50.0]).repeat(5000)
    x = torch.poisson(rates, generator=gen())
    means = x.reshape(5000, 3).mean(0)
    assert means[0].item() == 0.0
    assert abs(means[1].item() - 2.0) < 0.1 and abs(means[2].item() - 50.0) < 0.5
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.poisson(torch.tensor([-1.0]))
    with pytest.raises(RuntimeError):
        torch.empty(3).exponential_(-1.0)
    with pytest.raises(RuntimeError):
        torch.empty(3).geometric_(1.5)


def test_same_generator_state_same_draws():
    g = gen(5)
    state = g.get_state()
    assert state.dtype == torch.uint8 and state.dim() == 1
    a = torch.empty(10).exponential_(generator=g)
    g.set_state(state)
    assert torch.equal(a, torch.empty(10).exponential_(generator=g))
    with pytest.raises(TypeError):
        g.set_state(state.float())
