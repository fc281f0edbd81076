"""Distributions against SciPy: log_prob, cdf, icdf, entropy, mean, variance for every case
that scipy.stats has, sample moments, and shape semantics (batch/event shapes, expand,
sample shapes). Cases are data: one row per distribution."""

import math

import numpy as np
import pytest
import scipy.integrate
import scipy.stats as st
from _distributions_testing import T, npy

import torch
from torch.distributions import (
    Bernoulli,
    Beta,
    Binomial,
    Categorical,
    Cauchy,
    Chi2,
    ContinuousBernoulli,
    Dirichlet,
    Exponential,
    FisherSnedecor,
    Gamma,
    Geometric,
    Gumbel,
    HalfCauchy,
    HalfNormal,
    Independent,
    Kumaraswamy,
    Laplace,
    LKJCholesky,
    LogisticNormal,
    LogNormal,
    LowRankMultivariateNormal,
    MixtureSameFamily,
    Multinomial,
    MultivariateNormal,
    NegativeBinomial,
    Normal,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
    Pareto,
    Poisson,
    RelaxedBernoulli,
    RelaxedOneHotCategorical,
    StudentT,
    Uniform,
    VonMises,
    Weibull,
    Wishart,
)

# name: (constructor, scipy frozen distribution (or None), properties scipy is asked for)
# Parameters are float64 batches of 3 (scipy broadcasts the same arrays).
UNIVARIATE = {
    "Normal": (
        lambda: Normal(T(0.0, 1.0, -2.0), T(1.0, 2.0, 0.5)),
        lambda: st.norm(np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 0.5])),
    ),
    "Uniform": (
        lambda: Uniform(T(0.0, 1.0, -2.0), T(1.0, 3.0, 2.0)),
        lambda: st.uniform(np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 4.0])),
    ),
    "Exponential": (
        lambda: Exponential(T(0.5, 1.0, 3.0)),
        lambda: st.expon(scale=1 / np.array([0.5, 1.0, 3.0])),
    ),
    "Laplace": (
        lambda: Laplace(T(0.0, 1.0, -2.0), T(1.0, 2.0, 0.5)),
        lambda: st.laplace(np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 0.5])),
    ),
    "Gamma": (
        lambda: Gamma(T(0.5, 2.0, 9.0), T(1.5, 1.0, 3.0)),
        lambda: st.gamma(np.array([0.5, 2.0, 9.0]), scale=1 / np.array([1.5, 1.0, 3.0])),
    ),
    "Beta": (
        lambda: Beta(T(0.5, 2.0, 5.0), T(1.5, 2.0, 0.8)),
        lambda: st.beta(np.array([0.5, 2.0, 5.0]), np.array([1.5, 2.0, 0.8])),
    ),
    "Cauchy": (
        lambda: Cauchy(T(0.0, 1.0, -2.0), T(1.0, 2.0, 0.5)),
        lambda: st.cauchy(np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 0.5])),
    ),
    "Chi2": (lambda: Chi2(T(1.0, 3.0, 10.0)), lambda: st.chi2(np.array([1.0, 3.0, 10.0]))),
    "StudentT": (
        lambda: StudentT(T(3.0, 5.0, 30.0), T(0.0, 1.0, -1.0), T(1.0, 2.0, 0.5)),
        lambda: st.t(
            np.array([3.0, 5.0, 30.0]), np.array([0.0, 1.0, -1.0]), np.array([1.0, 2.0, 0.5])
        ),
    ),
    "FisherSnedecor": (
        lambda: FisherSnedecor(T(3.0, 5.0, 10.0), T(5.0, 9.0, 12.0)),
        lambda: st.f(np.array([3.0, 5.0, 10.0]), np.array([5.0, 9.0, 12.0])),
    ),
    "Gumbel": (
        lambda: Gumbel(T(0.0, 1.0, -2.0), T(1.0, 2.0, 0.5)),
        lambda: st.gumbel_r(np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 0.5])),
    ),
    "HalfCauchy": (
        lambda: HalfCauchy(T(1.0, 2.0, 0.5)),
        lambda: st.halfcauchy(scale=np.array([1.0, 2.0, 0.5])),
    ),
    "HalfNormal": (
        lambda: HalfNormal(T(1.0, 2.0, 0.5)),
        lambda: st.halfnorm(scale=np.array([1.0, 2.0, 0.5])),
    ),
    "LogNormal": (
        lambda: LogNormal(T(0.0, 1.0, -1.0), T(1.0, 0.5, 0.25)),
        lambda: st.lognorm(np.array([1.0, 0.5, 0.25]), scale=np.exp(np.array([0.0, 1.0, -1.0]))),
    ),
    "Pareto": (
        lambda: Pareto(T(1.0, 2.0, 0.5), T(3.0, 4.0, 5.0)),
        lambda: st.pareto(np.array([3.0, 4.0, 5.0]), scale=np.array([1.0, 2.0, 0.5])),
    ),
    "Weibull": (
        lambda: Weibull(T(1.0, 2.0, 0.5), T(0.7, 3.0, 1.5)),
        lambda: st.weibull_min(np.array([0.7, 3.0, 1.5]), scale=np.array([1.0, 2.0, 0.5])),
    ),
    "VonMises": (
        lambda: VonMises(T(0.0, 1.0, -2.0), T(0.5, 2.0, 10.0)),
        lambda: st.vonmises(np.array([0.5, 2.0, 10.0]), np.array([0.0, 1.0, -2.0])),
    ),
    "Bernoulli": (
        lambda: Bernoulli(T(0.1, 0.5, 0.9)),
        lambda: st.bernoulli(np.array([0.1, 0.5, 0.9])),
    ),
    "BernoulliLogits": (
        lambda: Bernoulli(logits=T(-2.0, 0.0, 3.0)),
        lambda: st.bernoulli(1 / (1 + np.exp(-np.array([-2.0, 0.0, 3.0])))),
    ),
    "Poisson": (lambda: Poisson(T(0.5, 4.0, 40.0)), lambda: st.poisson(np.array([0.5, 4.0, 40.0]))),
    "Binomial": (
        lambda: Binomial(T(5.0, 20.0, 100.0), T(0.3, 0.5, 0.95)),
        lambda: st.binom(np.array([5, 20, 100]), np.array([0.3, 0.5, 0.95])),
    ),
    "Geometric": (
        lambda: Geometric(T(0.2, 0.5, 0.9)),
        lambda: st.geom(np.array([0.2, 0.5, 0.9]), loc=-1),
    ),
    "NegativeBinomial": (
        lambda: NegativeBinomial(T(3.0, 5.5, 1.0), T(0.3, 0.6, 0.1)),
        lambda: st.nbinom(np.array([3.0, 5.5, 1.0]), 1 - np.array([0.3, 0.6, 0.1])),
    ),
}

DISCRETE = {"Bernoulli", "BernoulliLogits", "Poisson", "Binomial", "Geometric", "NegativeBinomial"}
HAS_CDF = {
    "Normal",
    "Uniform",
    "Exponential",
    "Laplace",
    "Gamma",
    "Cauchy",
    "Chi2",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "LogNormal",
    "Pareto",
    "Weibull",
}
HAS_ICDF = HAS_CDF - {"Gamma", "Chi2"}
NO_ENTROPY = {"Poisson", "FisherSnedecor", "NegativeBinomial"}  # as in PyTorch
INFINITE_MOMENTS = {"Cauchy", "HalfCauchy"}


def _logp_scipy(frozen, name, x):
    return frozen.logpmf(x) if name in DISCRETE else frozen.logpdf(x)


@pytest.mark.parametrize("name", sorted(UNIVARIATE))
def test_univariate_log_prob_matches_scipy(name):
    make, oracle = UNIVARIATE[name]
    torch.manual_seed(0)
    d = make()
    x = d.sample((50,))
    ours = npy(d.log_prob(x))
    ref = _logp_scipy(oracle(), name, npy(x))
    np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(HAS_CDF))
def test_univariate_cdf_matches_scipy(name):
    make, oracle = UNIVARIATE[name]
    torch.manual_seed(1)
    d = make()
    x = d.sample((50,))
    np.testing.assert_allclose(npy(d.cdf(x)), oracle().cdf(npy(x)), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(HAS_ICDF))
def test_univariate_icdf_matches_scipy(name):
    make, oracle = UNIVARIATE[name]
    d = make()
    u = torch.linspace(0.05, 0.95, 19, dtype=torch.float64).unsqueeze(-1).expand(19, 3)
    np.testing.assert_allclose(npy(d.icdf(u)), oracle().ppf(npy(u)), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(npy(d.cdf(d.icdf(u))), npy(u), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(set(UNIVARIATE) - NO_ENTROPY))
def test_univariate_entropy_matches_scipy(name):
    make, oracle = UNIVARIATE[name]
    np.testing.assert_allclose(npy(make().entropy()), oracle().entropy(), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(UNIVARIATE))
def test_univariate_mean_variance_match_scipy(name):
    make, oracle = UNIVARIATE[name]
    d, ref = make(), oracle()
    if name in INFINITE_MOMENTS:
        assert not torch.isfinite(d.mean).any() and not torch.isfinite(d.variance).any()
        return
    if name == "VonMises":  # circular mean and circular variance 1 - I1(k) / I0(k)
        np.testing.assert_allclose(npy(d.mean), [0.0, 1.0, -2.0])
        k = np.array([0.5, 2.0, 10.0])
        import scipy.special as sp

        np.testing.assert_allclose(npy(d.variance), 1 - sp.i1(k) / sp.i0(k), rtol=1e-6)
        return
    np.testing.assert_allclose(npy(d.mean), ref.mean(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(npy(d.variance), ref.var(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(npy(d.stddev), ref.std(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(set(UNIVARIATE) - INFINITE_MOMENTS - {"VonMises"}))
def test_univariate_sample_moments(name):
    make, oracle = UNIVARIATE[name]
    torch.manual_seed(2)
    n = 20000
    d, ref = make(), oracle()
    x = npy(d.sample((n,)))
    assert x.shape == (n, 3)
    se = np.sqrt(ref.var() / n)
    assert np.all(np.abs(x.mean(0) - ref.mean()) < 5 * se + 1e-12), (x.mean(0), ref.mean())
    # the spread: compare the interquartile range (robust even where the variance is large)
    q = np.quantile(x, [0.25, 0.75], axis=0)
    np.testing.assert_allclose(q[1] - q[0], ref.ppf(0.75) - ref.ppf(0.25), rtol=0.08, atol=0.06)


def test_von_mises_samples_follow_the_density():
    torch.manual_seed(3)
    d = VonMises(T(1.0), T(2.0))
    x = npy(d.sample((20000,)))[:, 0]
    assert x.min() >= -math.pi and x.max() < math.pi
    # scipy's vonmises CDF covers (loc - pi, loc + pi): compare angles relative to loc
    rel = (x - 1.0 + math.pi) % (2 * math.pi) - math.pi
    assert st.kstest(rel, st.vonmises(2.0).cdf).pvalue > 1e-3


@pytest.mark.parametrize("name", ["Gamma", "Beta", "StudentT", "Chi2", "FisherSnedecor"])
def test_gamma_based_samples_pass_ks(name):
    make, oracle = UNIVARIATE[name]
    torch.manual_seed(4)
    d, ref = make(), oracle()
    x = npy(d.sample((4000,)))
    for i in range(3):

        def cdf(v, i=i):
            return ref.cdf(np.repeat(np.asarray(v)[:, None], 3, 1))[:, i]

        assert st.kstest(x[:, i], cdf).pvalue > 1e-3


def test_categorical_log_prob_entropy_and_samples():
    probs = T(0.1, 0.2, 0.7)
    d = Categorical(probs=probs * 3)  # unnormalised
    np.testing.assert_allclose(npy(d.probs), [0.1, 0.2, 0.7])
    np.testing.assert_allclose(npy(d.log_prob(torch.tensor([0, 1, 2]))), np.log([0.1, 0.2, 0.7]))
    np.testing.assert_allclose(float(d.entropy()), st.entropy([0.1, 0.2, 0.7]))
    torch.manual_seed(5)
    counts = np.bincount(npy(d.sample((20000,))).astype(int), minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.2, 0.7], atol=0.015)
    logits = Categorical(logits=torch.log(probs) + 5)
    np.testing.assert_allclose(npy(logits.probs), [0.1, 0.2, 0.7], rtol=1e-12)
    assert int(d.mode) == 2
    assert torch.isnan(d.mean) and torch.isnan(d.variance)


def test_one_hot_categorical():
    d = OneHotCategorical(T(0.1, 0.2, 0.7))
    torch.manual_seed(6)
    s = d.sample((5000,))
    assert s.shape == (5000, 3) and bool((s.sum(-1) == 1).all())
    np.testing.assert_allclose(npy(s.mean(0)), [0.1, 0.2, 0.7], atol=0.03)
    np.testing.assert_allclose(
        npy(d.log_prob(torch.eye(3, dtype=torch.float64))), np.log([0.1, 0.2, 0.7])
    )
    np.testing.assert_allclose(npy(d.mean), [0.1, 0.2, 0.7])
    np.testing.assert_allclose(npy(d.variance), [0.09, 0.16, 0.21])
    np.testing.assert_allclose(npy(d.mode), [0, 0, 1])
    assert d.enumerate_support().shape == (3, 3)


def test_one_hot_categorical_straight_through_gradient_is_the_probs_gradient():
    p = T(0.2, 0.3, 0.5).requires_grad_()
    s = OneHotCategoricalStraightThrough(p).rsample((4,))
    assert bool((s.sum(-1) == 1).all())
    (s * T(1.0, 2.0, 3.0)).sum().backward()
    # gradient through p / p.sum(): 4 * (w - <w, p>) / sum(p)
    w = np.array([1.0, 2.0, 3.0])
    expected = 4 * (w - w @ np.array([0.2, 0.3, 0.5]))
    np.testing.assert_allclose(npy(p.grad), expected, rtol=1e-6)


@pytest.mark.parametrize(
    "make, oracle",
    [
        (lambda: Dirichlet(T(0.5, 2.0, 3.0)), lambda: st.dirichlet([0.5, 2.0, 3.0])),
        (
            lambda: MultivariateNormal(T(1.0, -1.0), T(2.0, 0.5, 0.5, 1.0).reshape(2, 2)),
            lambda: st.multivariate_normal([1.0, -1.0], [[2.0, 0.5], [0.5, 1.0]]),
        ),
        (
            lambda: MultivariateNormal(
                T(1.0, -1.0), precision_matrix=T(2.0, 0.5, 0.5, 1.0).reshape(2, 2)
            ),
            lambda: st.multivariate_normal([1.0, -1.0], np.linalg.inv([[2.0, 0.5], [0.5, 1.0]])),
        ),
        (
            lambda: MultivariateNormal(
                T(1.0, -1.0), scale_tril=T(2.0, 0.0, 0.5, 1.0).reshape(2, 2)
            ),
            lambda: st.multivariate_normal([1.0, -1.0], [[4.0, 1.0], [1.0, 1.25]]),
        ),
        (
            lambda: LowRankMultivariateNormal(
                T(0.0, 1.0, 2.0), T(1.0, 0.5, -1.0).reshape(3, 1), T(0.5, 1.0, 2.0)
            ),
            lambda: st.multivariate_normal(
                [0.0, 1.0, 2.0],
                np.outer([1.0, 0.5, -1.0], [1.0, 0.5, -1.0]) + np.diag([0.5, 1.0, 2.0]),
            ),
        ),
        (lambda: Multinomial(10, T(0.2, 0.3, 0.5)), lambda: st.multinomial(10, [0.2, 0.3, 0.5])),
        (
            lambda: Wishart(
                torch.tensor(5.0, dtype=torch.float64), T(2.0, 0.5, 0.5, 1.0).reshape(2, 2)
            ),
            lambda: st.wishart(5.0, [[2.0, 0.5], [0.5, 1.0]]),
        ),
    ],
    ids=["Dirichlet", "MVN-cov", "MVN-prec", "MVN-tril", "LowRankMVN", "Multinomial", "Wishart"],
)
def test_multivariate_matches_scipy(make, oracle):
    torch.manual_seed(7)
    d, ref = make(), oracle()
    x = d.sample((20,))
    assert x.shape == (20,) + d.event_shape
    xs = npy(x)
    if isinstance(d, Multinomial):
        ref_lp = ref.logpmf(xs)
    elif isinstance(d, Dirichlet):
        ref_lp = np.array([ref.logpdf(v) for v in xs])
    elif isinstance(d, Wishart):
        ref_lp = np.array([ref.logpdf(v) for v in xs])
    else:
        ref_lp = ref.logpdf(xs)
    np.testing.assert_allclose(npy(d.log_prob(x)), ref_lp, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(float(d.entropy()), ref.entropy(), rtol=1e-6)
    mean = ref.mean() if not hasattr(ref, "mean") or callable(ref.mean) else ref.mean
    np.testing.assert_allclose(npy(d.mean), mean, rtol=1e-6, atol=1e-12)
    if isinstance(d, (MultivariateNormal, LowRankMultivariateNormal)):
        np.testing.assert_allclose(npy(d.variance), np.diag(ref.cov), rtol=1e-6)
        np.testing.assert_allclose(npy(d.covariance_matrix), ref.cov, rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(
            npy(d.precision_matrix), np.linalg.inv(ref.cov), rtol=1e-6, atol=1e-12
        )
        L = npy(d.scale_tril)
        np.testing.assert_allclose(L @ L.T, ref.cov, rtol=1e-6, atol=1e-12)
    elif isinstance(d, Multinomial):
        np.testing.assert_allclose(npy(d.variance), np.diag(ref.cov()), rtol=1e-6)
    else:
        np.testing.assert_allclose(npy(d.variance), ref.var(), rtol=1e-6)
    # sample mean
    big = npy(d.sample((20000,)))
    var = npy(d.variance)
    assert np.all(np.abs(big.mean(0) - mean) < 5 * np.sqrt(var / 20000) + 1e-12)


def test_multinomial_samples_sum_to_total_count_and_batch():
    torch.manual_seed(8)
    d = Multinomial(7, probs=T(0.2, 0.3, 0.5, 1.0, 1.0, 0.0).reshape(2, 3))
    s = d.sample((4,))
    assert s.shape == (4, 2, 3)
    assert bool((s.sum(-1) == 7).all()) and bool((s[..., 1, 2] == 0).all())
    assert d.log_prob(s).shape == (4, 2)


def test_mixture_same_family_matches_the_weighted_density():
    w = np.array([0.2, 0.3, 0.5])
    mu, sd = np.array([-1.0, 0.0, 2.0]), np.array([1.0, 0.5, 0.7])
    d = MixtureSameFamily(Categorical(torch.tensor(w)), Normal(torch.tensor(mu), torch.tensor(sd)))
    x = torch.linspace(-3, 3, 13, dtype=torch.float64)
    ref = np.log((w * st.norm(mu, sd).pdf(npy(x)[:, None])).sum(-1))
    np.testing.assert_allclose(npy(d.log_prob(x)), ref, rtol=1e-9)
    ref_cdf = (w * st.norm(mu, sd).cdf(npy(x)[:, None])).sum(-1)
    np.testing.assert_allclose(npy(d.cdf(x)), ref_cdf, rtol=1e-9)
    mean = (w * mu).sum()
    np.testing.assert_allclose(float(d.mean), mean)
    np.testing.assert_allclose(float(d.variance), (w * (sd**2 + mu**2)).sum() - mean**2)
    torch.manual_seed(9)
    s = npy(d.sample((20000,)))
    assert abs(s.mean() - mean) < 5 * math.sqrt(float(d.variance) / 20000)


def test_mixture_same_family_with_multivariate_components_and_batch():
    comp = Independent(
        Normal(torch.randn(4, 3, 2, dtype=torch.float64), torch.ones(4, 3, 2, dtype=torch.float64)),
        1,
    )
    d = MixtureSameFamily(Categorical(torch.ones(4, 3, dtype=torch.float64)), comp)
    assert d.batch_shape == (4,) and d.event_shape == (2,)
    s = d.sample((5,))
    assert s.shape == (5, 4, 2) and d.log_prob(s).shape == (5, 4)
    assert d.mean.shape == (4, 2) and d.variance.shape == (4, 2)


def _integrate(f, a, b):
    return scipy.integrate.quad(f, a, b, limit=200)[0]


@pytest.mark.parametrize(
    "make",
    [
        lambda: ContinuousBernoulli(T(0.2)),
        lambda: ContinuousBernoulli(T(0.5)),
        lambda: ContinuousBernoulli(T(0.5003)),
        lambda: ContinuousBernoulli(logits=T(3.0)),
        lambda: Kumaraswamy(T(2.0), T(5.0)),
        lambda: Kumaraswamy(T(0.7), T(1.5)),
    ],
    ids=["CB-0.2", "CB-0.5", "CB-taylor", "CB-logits", "Kumaraswamy-2-5", "Kumaraswamy-0.7"],
)
def test_density_without_scipy_integrates_to_moments(make):
    """No scipy.stats oracle: check the density by numerical integration."""
    d = make()

    def pdf(x):
        return math.exp(float(d.log_prob(T(x))))

    np.testing.assert_allclose(_integrate(pdf, 0, 1), 1.0, rtol=1e-6)
    mean = _integrate(lambda x: x * pdf(x), 0, 1)
    var = _integrate(lambda x: (x - mean) ** 2 * pdf(x), 0, 1)
    ent = _integrate(lambda x: -pdf(x) * math.log(pdf(x)) if pdf(x) > 0 else 0.0, 0, 1)
    np.testing.assert_allclose(float(d.mean), mean, rtol=1e-5)
    np.testing.assert_allclose(float(d.variance), var, rtol=1e-4)
    np.testing.assert_allclose(float(d.entropy()), ent, rtol=1e-4, atol=1e-6)
    torch.manual_seed(10)
    s = npy(d.sample((20000,)))
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / 20000)
    if isinstance(d, ContinuousBernoulli):
        x = torch.linspace(0.05, 0.95, 7, dtype=torch.float64)
        ref = [_integrate(pdf, 0, float(v)) for v in x]
        # inside lims (around 0.5) the CDF is the uniform one, as in PyTorch
        np.testing.assert_allclose(npy(d.cdf(x)), ref, rtol=1e-6, atol=5e-4)
        np.testing.assert_allclose(npy(d.icdf(d.cdf(x))), npy(x), rtol=1e-6)


def test_relaxed_bernoulli_density_and_limit():
    d = RelaxedBernoulli(T(0.7), probs=T(0.3))

    def pdf(x):
        return math.exp(float(d.log_prob(T(x))))

    np.testing.assert_allclose(_integrate(pdf, 0, 1), 1.0, rtol=1e-5)
    # at low temperature the samples concentrate near 0 and 1 with mass p at 1
    torch.manual_seed(11)
    cold = RelaxedBernoulli(T(0.01), probs=T(0.3)).sample((20000,))
    assert abs(float((cold > 0.5).double().mean()) - 0.3) < 0.02


def test_relaxed_one_hot_categorical_density_integrates_on_the_2_simplex():
    d = RelaxedOneHotCategorical(T(0.8), probs=T(0.3, 0.7))

    # the density is on the simplex {(x, 1 - x)}; it is a density for x alone
    def pdf(x):
        return math.exp(float(d.log_prob(T(x, 1 - x))))

    np.testing.assert_allclose(_integrate(pdf, 0, 1), 1.0, rtol=1e-5)
    torch.manual_seed(12)
    s = RelaxedOneHotCategorical(T(0.01), probs=T(0.3, 0.7)).sample((20000,))
    np.testing.assert_allclose(npy(s.sum(-1)), 1.0, rtol=1e-9)
    assert abs(float((s[:, 1] > 0.5).double().mean()) - 0.7) < 0.02


def test_logistic_normal_density_integrates_on_the_simplex():
    d = LogisticNormal(T(0.3), T(0.8))

    def pdf(x):
        return math.exp(float(d.log_prob(T(x, 1 - x))))

    np.testing.assert_allclose(_integrate(pdf, 0, 1), 1.0, rtol=1e-6)
    torch.manual_seed(13)
    s = LogisticNormal(
        torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    ).sample((10,))
    assert s.shape == (10, 4)
    np.testing.assert_allclose(npy(s.sum(-1)), 1.0, rtol=1e-9)


def test_lkj_cholesky_two_dimensional_marginal():
    # for D = 2 the correlation r = L[1, 0] has density (1 - r^2)^(eta - 1) / norm, and the
    # log_prob is w.r.t. r
    eta = 2.5
    d = LKJCholesky(2, torch.tensor(eta, dtype=torch.float64))

    def lp(r):
        L = T(1.0, 0.0, r, math.sqrt(1 - r * r)).reshape(2, 2)
        return float(d.log_prob(L))

    np.testing.assert_allclose(_integrate(lambda r: math.exp(lp(r)), -1, 1), 1.0, rtol=1e-6)
    torch.manual_seed(14)
    s = d.sample((20000,))
    r = npy(s[:, 1, 0])
    ref = st.beta(eta, eta, loc=-1, scale=2)  # (1 + r) / 2 ~ Beta(eta, eta)
    assert st.kstest(r, ref.cdf).pvalue > 1e-3


def test_lkj_cholesky_samples_are_correlation_cholesky_factors():
    torch.manual_seed(15)
    d = LKJCholesky(4, T(0.5, 3.0))
    s = d.sample((50,))
    assert s.shape == (50, 2, 4, 4)
    corr = s @ s.transpose(-2, -1)
    np.testing.assert_allclose(npy(corr.diagonal(dim1=-2, dim2=-1)), 1.0, rtol=1e-9)
    assert bool((s.triu(1) == 0).all())
    assert torch.isfinite(d.log_prob(s)).all()
    # with eta = 1 and D = 3, the log_prob is constant in L's correlation up to the Jacobian
    # of the factor; the marginal of each correlation is Beta(eta - 1 + D/2, same) on [-1, 1]
    d3 = LKJCholesky(3, torch.tensor(1.0, dtype=torch.float64))
    s3 = d3.sample((20000,))
    r = npy((s3 @ s3.transpose(-2, -1))[:, 2, 0])
    assert st.kstest(r, st.beta(1.5, 1.5, loc=-1, scale=2).cdf).pvalue > 1e-3


# ---------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------

SHAPE_CASES = {
    "Normal": lambda: Normal(torch.zeros(2, 3), torch.ones(2, 3)),
    "Bernoulli": lambda: Bernoulli(torch.full((2, 3), 0.3)),
    "Categorical": lambda: Categorical(torch.ones(2, 3, 4)),
    "OneHotCategorical": lambda: OneHotCategorical(torch.ones(2, 3, 4)),
    "Dirichlet": lambda: Dirichlet(torch.ones(2, 3, 4)),
    "MultivariateNormal": lambda: MultivariateNormal(torch.zeros(2, 3, 4), torch.eye(4)),
    "LowRankMVN": lambda: LowRankMultivariateNormal(
        torch.zeros(2, 3, 4), torch.ones(4, 2), torch.ones(4)
    ),
    "Multinomial": lambda: Multinomial(5, torch.ones(2, 3, 4)),
    "Gamma": lambda: Gamma(torch.ones(2, 3), 2.0),
    "Binomial": lambda: Binomial(10, torch.full((2, 3), 0.4)),
    "Independent": lambda: Independent(Normal(torch.zeros(2, 3, 4), 1.0), 1),
    "LogNormal": lambda: LogNormal(torch.zeros(2, 3), 1.0),
    "Gumbel": lambda: Gumbel(torch.zeros(2, 3), 1.0),
    "Wishart": lambda: Wishart(torch.full((2, 3), 4.0), torch.eye(2)),
    "LKJCholesky": lambda: LKJCholesky(3, torch.ones(2, 3)),
    "RelaxedOneHotCategorical": lambda: RelaxedOneHotCategorical(
        torch.tensor(0.5), torch.ones(2, 3, 4)
    ),
    "MixtureSameFamily": lambda: MixtureSameFamily(
        Categorical(torch.ones(2, 3, 5)), Normal(torch.zeros(2, 3, 5), 1.0)
    ),
    "VonMises": lambda: VonMises(torch.zeros(2, 3), torch.ones(2, 3)),
    "Geometric": lambda: Geometric(torch.full((2, 3), 0.4)),
}
EVENT_SHAPES = {
    "Categorical": (),
    "OneHotCategorical": (4,),
    "Dirichlet": (4,),
    "MultivariateNormal": (4,),
    "LowRankMVN": (4,),
    "Multinomial": (4,),
    "Independent": (4,),
    "Wishart": (2, 2),
    "LKJCholesky": (3, 3),
    "RelaxedOneHotCategorical": (4,),
}


@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_shapes_sample_log_prob_and_expand(name):
    torch.manual_seed(16)
    d = SHAPE_CASES[name]()
    event = torch.Size(EVENT_SHAPES.get(name, ()))
    assert d.batch_shape == (2, 3) and d.event_shape == event
    assert d.sample().shape == (2, 3) + event
    s = d.sample((5, 1))
    assert s.shape == (5, 1, 2, 3) + event
    assert d.log_prob(s).shape == (5, 1, 2, 3)
    e = d.expand((7, 2, 3))
    assert e.batch_shape == (7, 2, 3) and e.event_shape == event
    s = e.sample((2,))
    assert s.shape == (2, 7, 2, 3) + event
    lp = e.log_prob(s)
    assert lp.shape == (2, 7, 2, 3)
    # an expanded distribution gives the same log-densities as the original
    np.testing.assert_allclose(npy(lp[:, 0]), npy(d.log_prob(s[:, 0])), rtol=1e-5, atol=1e-6)
    assert e._validate_args == d._validate_args


def test_scalar_parameters_give_empty_batch_shape():
    for d in [
        Normal(0.0, 1.0),
        Bernoulli(0.3),
        Gamma(1.0, 1.0),
        Uniform(0.0, 1.0),
        Exponential(1.0),
        Laplace(0.0, 1.0),
        Beta(1.0, 2.0),
        Poisson(1.0),
    ]:
        assert d.batch_shape == () and d.event_shape == ()
        assert d.sample().shape == () and d.sample((3,)).shape == (3,)


def test_log_prob_broadcasts_value_against_batch():
    d = Normal(torch.zeros(3), torch.ones(3))
    assert d.log_prob(torch.zeros(4, 1)).shape == (4, 3)
    m = MultivariateNormal(torch.zeros(2, 3), torch.eye(3))
    assert m.log_prob(torch.zeros(5, 1, 3)).shape == (5, 2)


@pytest.mark.parametrize(
    "make, values",
    [
        (lambda: Bernoulli(torch.full((3,), 0.3)), [[0.0] * 3, [1.0] * 3]),
        (lambda: Categorical(torch.ones(3, 4)), [[k] * 3 for k in range(4)]),
        (lambda: Binomial(3, torch.full((3,), 0.3)), [[k] * 3 for k in range(4)]),
    ],
)
def test_enumerate_support(make, values):
    d = make()
    assert d.has_enumerate_support
    support = d.enumerate_support()
    assert support.shape == (len(values), 3)
    np.testing.assert_allclose(npy(support), values)
    assert d.enumerate_support(expand=False).shape == (len(values), 1)
    total = d.log_prob(support).exp().sum(0)
    np.testing.assert_allclose(npy(total), 1.0, rtol=1e-6)


def test_one_hot_enumerate_support_and_probabilities_sum_to_one():
    d = OneHotCategorical(torch.ones(2, 3))
    s = d.enumerate_support()
    assert s.shape == (3, 2, 3) and d.enumerate_support(expand=False).shape == (3, 1, 3)
    np.testing.assert_allclose(npy(d.log_prob(s).exp().sum(0)), 1.0, rtol=1e-6)


def test_perplexity_sample_n_and_flags():
    d = Categorical(torch.ones(4))
    np.testing.assert_allclose(float(d.perplexity()), 4.0, rtol=1e-6)
    with pytest.warns(UserWarning, match="sample_n"):
        assert d.sample_n(3).shape == (3,)
    assert Normal(0.0, 1.0).has_rsample and not Categorical(torch.ones(2)).has_rsample
    assert not Poisson(1.0).has_rsample and not Normal(0.0, 1.0).has_enumerate_support
    assert Bernoulli(0.2).has_enumerate_support
    assert Independent(Normal(torch.zeros(2), 1.0), 1).has_rsample
    assert not Independent(Bernoulli(torch.full((2,), 0.5)), 1).has_enumerate_support


def test_modes():
    np.testing.assert_allclose(npy(Gamma(T(3.0, 0.5), T(2.0, 1.0)).mode), [1.0, 0.0])
    np.testing.assert_allclose(npy(Beta(T(3.0), T(2.0)).mode), [2.0 / 3.0])
    np.testing.assert_allclose(npy(Poisson(T(3.7)).mode), [3.0])
    np.testing.assert_allclose(npy(Binomial(T(10.0), T(0.35)).mode), [3.0])
    np.testing.assert_allclose(npy(LogNormal(T(1.0), T(0.5)).mode), [math.exp(0.75)])
    np.testing.assert_allclose(npy(Dirichlet(T(2.0, 3.0, 1.0)).mode), [1 / 3, 2 / 3, 0.0])
    np.testing.assert_allclose(npy(Weibull(T(2.0), T(3.0)).mode), [2.0 * (2.0 / 3.0) ** (1 / 3)])
    assert torch.isnan(Bernoulli(T(0.5)).mode).all() and Bernoulli(T(0.7)).mode == 1
    np.testing.assert_allclose(npy(Kumaraswamy(T(2.0), T(3.0)).mode), [(1 / 5) ** 0.5])
    x = np.linspace(0.01, 0.99, 9999)
    dens = st.f(5.0, 9.0).pdf(x * 3)
    np.testing.assert_allclose(
        float(FisherSnedecor(T(5.0), T(9.0)).mode), 3 * x[dens.argmax()], atol=1e-3
    )


def test_gamma_cdf_matches_scipy_over_a_wide_range():
    a = T(0.1, 0.5, 1.0, 3.0, 30.0, 300.0)
    d = Gamma(a, torch.ones_like(a))
    q = torch.tensor([0.001, 0.1, 0.5, 0.9, 0.999], dtype=torch.float64)
    x = torch.tensor(st.gamma(npy(a)).ppf(npy(q)[:, None]))
    np.testing.assert_allclose(npy(d.cdf(x)), npy(q)[:, None].repeat(6, 1), rtol=1e-7, atol=1e-12)


def test_binomial_sampler_at_large_and_edge_counts():
    torch.manual_seed(17)
    n = T(0.0, 1.0, 30.0, 1000.0, 1000.0, 500.0)
    p = T(0.5, 0.0, 0.5, 0.01, 0.995, 1.0)
    s = npy(Binomial(n, p).sample((20000,)))
    ref = st.binom(npy(n).astype(int), npy(p))
    assert np.all(np.abs(s.mean(0) - ref.mean()) <= 5 * np.sqrt(ref.var() / 20000) + 1e-12)
    np.testing.assert_allclose(s.var(0), ref.var(), rtol=0.05, atol=1e-12)
    assert np.all(s == np.round(s)) and np.all(s >= 0) and np.all(s <= npy(n))


def test_float32_parameters_keep_their_dtype():
    for d in [
        Normal(torch.zeros(2), torch.ones(2)),
        Gamma(torch.ones(2), torch.ones(2)),
        Beta(torch.ones(2), torch.ones(2)),
        Binomial(5, torch.full((2,), 0.5)),
        Dirichlet(torch.ones(2, 3)),
    ]:
        s = d.sample()
        assert s.dtype == torch.float32 and d.log_prob(s).dtype == torch.float32


@pytest.mark.parametrize("eta", [0.5, 3.0])
def test_lkj_cholesky_density_normalised_over_free_coordinates(eta):
    # D = 3: the free coordinates are (L10, L20, L21) with L10^2 < 1 and L20^2 + L21^2 < 1;
    # integrate exp(log_prob) over them by Monte Carlo on the cube [-1, 1]^3
    torch.manual_seed(18)
    d = LKJCholesky(3, torch.tensor(eta, dtype=torch.float64), validate_args=False)
    n = 100000
    l10, l20, l21 = (torch.rand(n, 3, dtype=torch.float64) * 2 - 1).unbind(-1)
    inside = l20**2 + l21**2 < 1
    zero, one = torch.zeros(n, dtype=torch.float64), torch.ones(n, dtype=torch.float64)
    rows = [
        torch.stack([one, zero, zero], -1),
        torch.stack([l10, (1 - l10**2).sqrt(), zero], -1),
        torch.stack([l20, l21, (1 - l20**2 - l21**2).clamp(min=1e-300).sqrt()], -1),
    ]
    dens = torch.where(inside, d.log_prob(torch.stack(rows, -2)).exp(), zero) * 8
    est, se = float(dens.mean()), float(dens.std()) / math.sqrt(n)
    assert abs(est - 1.0) < 5 * se


# One instance of every distribution: the contract holds for each.
EVERY = {
    "Bernoulli": lambda: Bernoulli(T(0.3, 0.6)),
    "Beta": lambda: Beta(T(0.5, 2.0), T(1.5, 3.0)),
    "Binomial": lambda: Binomial(10, T(0.3, 0.6)),
    "Categorical": lambda: Categorical(T(0.2, 0.8, 0.5, 0.5).reshape(2, 2)),
    "Cauchy": lambda: Cauchy(T(0.0, 1.0), T(1.0, 2.0)),
    "Chi2": lambda: Chi2(T(1.0, 3.0)),
    "ContinuousBernoulli": lambda: ContinuousBernoulli(T(0.3, 0.8)),
    "Dirichlet": lambda: Dirichlet(T(0.5, 2.0, 1.0, 1.0).reshape(2, 2)),
    "Exponential": lambda: Exponential(T(0.5, 2.0)),
    "FisherSnedecor": lambda: FisherSnedecor(T(3.0, 5.0), T(5.0, 9.0)),
    "Gamma": lambda: Gamma(T(0.5, 2.0), T(1.5, 3.0)),
    "Geometric": lambda: Geometric(T(0.3, 0.6)),
    "Gumbel": lambda: Gumbel(T(0.0, 1.0), T(1.0, 2.0)),
    "HalfCauchy": lambda: HalfCauchy(T(1.0, 2.0)),
    "HalfNormal": lambda: HalfNormal(T(1.0, 2.0)),
    "Independent": lambda: Independent(Normal(torch.zeros(2, 3, dtype=torch.float64), 1.0), 1),
    "Kumaraswamy": lambda: Kumaraswamy(T(2.0, 3.0), T(2.0, 5.0)),
    "Laplace": lambda: Laplace(T(0.0, 1.0), T(1.0, 2.0)),
    "LKJCholesky": lambda: LKJCholesky(3, T(0.5, 2.0)),
    "LogNormal": lambda: LogNormal(T(0.0, 1.0), T(1.0, 0.5)),
    "LogisticNormal": lambda: LogisticNormal(
        torch.zeros(2, 3, dtype=torch.float64), torch.ones(2, 3, dtype=torch.float64)
    ),
    "LowRankMultivariateNormal": lambda: LowRankMultivariateNormal(
        torch.zeros(2, 3, dtype=torch.float64),
        torch.ones(3, 1, dtype=torch.float64),
        torch.ones(3, dtype=torch.float64),
    ),
    "MixtureSameFamily": lambda: MixtureSameFamily(
        Categorical(torch.ones(2, 3, dtype=torch.float64)),
        Normal(
            T(-1.0, 0.0, 2.0, 1.0, 2.0, 3.0).reshape(2, 3),
            T(1.0, 1.0, 0.5, 1.0, 2.0, 3.0).reshape(2, 3),
        ),
    ),
    "Multinomial": lambda: Multinomial(10, T(0.2, 0.3, 0.5, 0.1, 0.1, 0.8).reshape(2, 3)),
    "MultivariateNormal": lambda: MultivariateNormal(
        torch.zeros(2, 2, dtype=torch.float64), T(2.0, 0.5, 0.5, 1.0).reshape(2, 2)
    ),
    "NegativeBinomial": lambda: NegativeBinomial(T(3.0, 5.0), T(0.3, 0.6)),
    "Normal": lambda: Normal(T(0.0, 1.0), T(1.0, 2.0)),
    "OneHotCategorical": lambda: OneHotCategorical(T(0.2, 0.3, 0.5, 0.1, 0.1, 0.8).reshape(2, 3)),
    "OneHotCategoricalStraightThrough": lambda: OneHotCategoricalStraightThrough(
        T(0.2, 0.3, 0.5, 0.1, 0.1, 0.8).reshape(2, 3)
    ),
    "Pareto": lambda: Pareto(T(1.0, 2.0), T(3.0, 4.0)),
    "Poisson": lambda: Poisson(T(0.5, 20.0)),
    "RelaxedBernoulli": lambda: RelaxedBernoulli(T(0.5), T(0.3, 0.6)),
    "RelaxedOneHotCategorical": lambda: RelaxedOneHotCategorical(
        T(0.5), T(0.2, 0.3, 0.5, 0.1, 0.1, 0.8).reshape(2, 3)
    ),
    "StudentT": lambda: StudentT(T(3.0, 5.0), T(0.0, 1.0), T(1.0, 2.0)),
    "Uniform": lambda: Uniform(T(0.0, 1.0), T(1.0, 3.0)),
    "VonMises": lambda: VonMises(T(0.0, 1.0), T(1.0, 5.0)),
    "Weibull": lambda: Weibull(T(1.0, 2.0), T(0.5, 3.0)),
    "Wishart": lambda: Wishart(T(4.0, 5.0), torch.eye(2, dtype=torch.float64)),
}


def test_every_exported_distribution_is_covered():
    import torch.distributions as D

    classes = {
        n
        for n in D.__all__
        if isinstance(getattr(D, n), type) and issubclass(getattr(D, n), D.Distribution)
    }
    assert classes - set(EVERY) == {"Distribution", "ExponentialFamily", "TransformedDistribution"}


@pytest.mark.parametrize("name", sorted(EVERY))
def test_contract_for_every_distribution(name):
    torch.manual_seed(19)
    d = EVERY[name]()
    assert d.batch_shape == (2,)
    s = d.sample((4, 1))
    assert s.shape == (4, 1, 2) + d.event_shape
    assert not s.requires_grad
    lp = d.log_prob(s)
    assert lp.shape == (4, 1, 2) and bool(torch.isfinite(lp).all())
    assert bool(d.support.check(s).all())
    e = d.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.sample().shape == (3, 2) + d.event_shape
    assert e.log_prob(e.sample()).shape == (3, 2)
    if d.has_rsample:
        assert d.rsample((5,)).shape == (5, 2) + d.event_shape
    for param, constraint in d.arg_constraints.items():
        if param in d.__dict__ and not constraints_is_dependent(constraint):
            assert bool(constraint.check(getattr(d, param)).all())
    assert type(d).__doc__ and "Example" in type(d).__doc__


def constraints_is_dependent(c):
    from torch.distributions import constraints

    return constraints.is_dependent(c)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Normal(T(0.3, -1.0), T(1.5, 0.5)),
        lambda: Exponential(T(0.7, 2.0)),
        lambda: Gamma(T(0.5, 3.0), T(1.5, 0.7)),
        lambda: Bernoulli(T(0.2, 0.7)),
        lambda: ContinuousBernoulli(T(0.2, 0.7)),
        lambda: Wishart(T(4.0, 6.0), T(2.0, 0.5, 0.5, 1.0).reshape(2, 2)),
    ],
    ids=["Normal", "Exponential", "Gamma", "Bernoulli", "ContinuousBernoulli", "Wishart"],
)
def test_exponential_family_generic_entropy_matches_the_closed_form(make):
    from torch.distributions import ExponentialFamily

    d = make()
    np.testing.assert_allclose(npy(ExponentialFamily.entropy(d)), npy(d.entropy()), rtol=1e-7)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: Normal(m, m, validate_args=False),
        lambda m: Uniform(m * 0, m, validate_args=False),
        lambda m: Exponential(m, validate_args=False),
        lambda m: Laplace(m, m, validate_args=False),
        lambda m: Cauchy(m, m, validate_args=False),
        lambda m: Gumbel(m, m, validate_args=False),
        lambda m: LogNormal(m, m, validate_args=False),
    ],
    ids=["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gumbel", "LogNormal"],
)
def test_samples_and_densities_stay_on_the_parameters_device(make):
    # the meta device has shapes but no data: anything created on the CPU by mistake shows
    d = make(torch.ones(3, device="meta"))
    s = d.rsample((2,))
    assert s.device.type == "meta" and s.shape == (2, 3)
    assert d.log_prob(s).device.type == "meta" and d.entropy().device.type == "meta"
