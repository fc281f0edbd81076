"""kl_divergence: every registered pair against a Monte Carlo estimate (or, where the
supports do not nest, an infinite result), a few against numerical integration, and the
dispatch rules of register_kl."""

import math
import warnings

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
    ExponentialFamily,
    Gamma,
    Geometric,
    Gumbel,
    HalfNormal,
    Independent,
    Laplace,
    LogNormal,
    LowRankMultivariateNormal,
    MixtureSameFamily,
    MultivariateNormal,
    Normal,
    OneHotCategorical,
    Pareto,
    Poisson,
    TransformedDistribution,
    Uniform,
    Wishart,
    kl_divergence,
    register_kl,
)
from torch.distributions.kl import _KL_REGISTRY

F64 = torch.float64
# For each type: (a "p" instance, a "q" instance), batch shape (2,). The q instances are
# wide enough that every finite cross-family divergence in PyTorch's table is finite here.
EXAMPLES = {
    Bernoulli: (lambda: Bernoulli(T(0.3, 0.7)), lambda: Bernoulli(T(0.5, 0.2))),
    Beta: (lambda: Beta(T(1.5, 3.0), T(2.0, 0.8)), lambda: Beta(T(0.7, 2.0), T(1.2, 1.5))),
    Binomial: (
        lambda: Binomial(T(10.0, 10.0), T(0.3, 0.6)),
        lambda: Binomial(T(10.0, 10.0), T(0.5, 0.4)),
    ),
    Categorical: (
        lambda: Categorical(T(0.2, 0.3, 0.5, 0.6, 0.3, 0.1).reshape(2, 3)),
        lambda: Categorical(T(0.4, 0.4, 0.2, 0.1, 0.1, 0.8).reshape(2, 3)),
    ),
    Cauchy: (lambda: Cauchy(T(0.0, 1.0), T(1.0, 0.5)), lambda: Cauchy(T(0.5, -1.0), T(2.0, 1.0))),
    ContinuousBernoulli: (
        lambda: ContinuousBernoulli(T(0.3, 0.8)),
        lambda: ContinuousBernoulli(T(0.6, 0.1)),
    ),
    Dirichlet: (
        lambda: Dirichlet(T(1.5, 2.0, 0.7, 3.0, 1.0, 2.0).reshape(2, 3)),
        lambda: Dirichlet(T(1.0, 1.0, 1.0, 0.5, 2.0, 4.0).reshape(2, 3)),
    ),
    Exponential: (lambda: Exponential(T(0.7, 2.0)), lambda: Exponential(T(1.5, 0.5))),
    Gamma: (lambda: Gamma(T(2.0, 5.0), T(1.5, 3.0)), lambda: Gamma(T(1.5, 2.0), T(1.0, 0.7))),
    Gumbel: (lambda: Gumbel(T(0.0, 1.0), T(1.0, 0.5)), lambda: Gumbel(T(0.5, -1.0), T(2.0, 1.0))),
    Geometric: (lambda: Geometric(T(0.3, 0.7)), lambda: Geometric(T(0.5, 0.2))),
    HalfNormal: (lambda: HalfNormal(T(1.0, 0.5)), lambda: HalfNormal(T(2.0, 1.0))),
    Laplace: (
        lambda: Laplace(T(0.0, 1.0), T(1.0, 0.5)),
        lambda: Laplace(T(0.5, -1.0), T(2.0, 1.0)),
    ),
    LowRankMultivariateNormal: (
        lambda: LowRankMultivariateNormal(
            T(0.0, 1.0, 2.0, 1.0, 0.0, 0.0).reshape(2, 3),
            T(1.0, 0.5, -1.0).reshape(3, 1),
            T(0.5, 1.0, 2.0),
        ),
        lambda: LowRankMultivariateNormal(
            T(1.0, 0.0, 0.0), T(0.2, 1.0, 0.3, 0.5, 0.1, 1.0).reshape(3, 2), T(1.0, 1.5, 0.5)
        ),
    ),
    MultivariateNormal: (
        lambda: MultivariateNormal(
            T(0.0, 1.0, 2.0, 1.0, 0.0, 0.0).reshape(2, 3),
            scale_tril=T(1.0, 0, 0, 0.3, 0.8, 0, -0.2, 0.1, 1.2).reshape(3, 3),
        ),
        lambda: MultivariateNormal(
            T(1.0, 0.0, 0.0), T(2.0, 0.3, 0.0, 0.3, 1.0, 0.2, 0.0, 0.2, 1.5).reshape(3, 3)
        ),
    ),
    Normal: (lambda: Normal(T(0.0, 1.0), T(1.0, 0.5)), lambda: Normal(T(0.5, -1.0), T(2.0, 1.0))),
    OneHotCategorical: (
        lambda: OneHotCategorical(T(0.2, 0.3, 0.5, 0.6, 0.3, 0.1).reshape(2, 3)),
        lambda: OneHotCategorical(T(0.4, 0.4, 0.2, 0.1, 0.1, 0.8).reshape(2, 3)),
    ),
    Pareto: (lambda: Pareto(T(1.0, 2.0), T(5.0, 6.0)), lambda: Pareto(T(0.05, 0.1), T(2.0, 3.0))),
    Poisson: (lambda: Poisson(T(0.7, 4.0)), lambda: Poisson(T(1.5, 3.0))),
    Uniform: (
        lambda: Uniform(T(0.1, 0.2), T(0.6, 0.9)),
        lambda: Uniform(T(-0.5, 0.0), T(1.0, 2.0)),
    ),
}
GENERIC = {ExponentialFamily, TransformedDistribution, Independent}
PAIRS = sorted(
    ((p, q) for p, q in _KL_REGISTRY if p not in GENERIC and q not in GENERIC),
    key=lambda pq: (pq[0].__name__, pq[1].__name__),
)


def test_every_registered_pair_has_examples():
    assert len(PAIRS) >= 80
    missing = {t for pair in PAIRS for t in pair if t not in EXAMPLES}
    assert not missing


def _monte_carlo_kl(p, q, n=20000):
    x = p.sample((n,))
    ratio = p.log_prob(x) - q.log_prob(x)
    return npy(ratio.mean(0)), npy(ratio.std(0)) / math.sqrt(n)


@pytest.mark.parametrize("types", PAIRS, ids=lambda pq: f"{pq[0].__name__}-{pq[1].__name__}")
def test_kl_matches_monte_carlo(types):
    torch.manual_seed(0)
    p = EXAMPLES[types[0]][0]()
    q = EXAMPLES[types[1]][1]()
    kl = kl_divergence(p, q)
    assert kl.shape == p.batch_shape
    x = p.sample((2000,))
    q_lax = EXAMPLES[types[1]][1]()
    outside = ~q_lax.support.check(x)
    if torch.isinf(kl).any():
        # infinite exactly where p puts mass outside q's support
        assert bool(torch.isinf(kl).all()), kl
        assert bool(outside.reshape(2000, -1).any())
        return
    assert not bool(outside.any()), "finite KL but p's samples leave q's support"
    mc, se = _monte_carlo_kl(p, q)
    np.testing.assert_array_less(np.abs(npy(kl) - mc), 5 * se + 1e-3)
    assert bool((kl >= -1e-9).all())


def _kl_by_quadrature(p, q, lo, hi):
    def integrand(v):
        x = T(v)
        lp = float(p.log_prob(x))
        return math.exp(lp) * (lp - float(q.log_prob(x)))

    return scipy.integrate.quad(integrand, lo, hi, limit=200)[0]


QUADRATURE = [
    (lambda: Normal(T(0.3), T(1.2)), lambda: Normal(T(-0.5), T(0.7)), -15, 15),
    (lambda: Gamma(T(2.5), T(1.5)), lambda: Gamma(T(1.5), T(0.5)), 0, 60),
    (lambda: Beta(T(2.5), T(1.5)), lambda: Beta(T(1.5), T(3.0)), 0, 1),
    (lambda: Normal(T(0.3), T(1.2)), lambda: Laplace(T(-0.5), T(0.7)), -15, 15),
    (lambda: Normal(T(0.3), T(1.2)), lambda: Gumbel(T(-0.5), T(1.7)), -15, 15),
    (lambda: Exponential(T(1.3)), lambda: Gumbel(T(0.5), T(1.7)), 0, 60),
    (lambda: Gamma(T(2.5), T(1.5)), lambda: Gumbel(T(0.5), T(1.7)), 0, 60),
    (lambda: Uniform(T(0.2), T(0.7)), lambda: Beta(T(1.5), T(3.0)), 0.2, 0.7),
    (lambda: Uniform(T(0.2), T(0.7)), lambda: Gumbel(T(0.1), T(0.4)), 0.2, 0.7),
    (lambda: Uniform(T(1.2), T(3.0)), lambda: Pareto(T(1.0), T(2.0)), 1.2, 3.0),
    (lambda: Pareto(T(1.0), T(3.5)), lambda: Gamma(T(1.5), T(0.5)), 1.0, 2000),
    (lambda: Laplace(T(0.5), T(0.7)), lambda: Laplace(T(-0.5), T(1.4)), -30, 30),
    (lambda: Cauchy(T(0.5), T(0.7)), lambda: Cauchy(T(-0.5), T(1.4)), -np.inf, np.inf),
    (lambda: ContinuousBernoulli(T(0.2)), lambda: ContinuousBernoulli(T(0.9)), 0, 1),
    (lambda: Beta(T(2.5), T(1.5)), lambda: ContinuousBernoulli(T(0.7)), 0, 1),
]


@pytest.mark.parametrize(
    "make_p, make_q, lo, hi",
    QUADRATURE,
    ids=lambda v: type(v()).__name__ if callable(v) else str(v),
)
def test_kl_matches_numerical_integration(make_p, make_q, lo, hi):
    p, q = make_p(), make_q()
    np.testing.assert_allclose(
        float(kl_divergence(p, q)), _kl_by_quadrature(p, q, lo, hi), rtol=1e-6, atol=1e-8
    )


def test_kl_normal_matches_the_textbook_formula_and_scipy_entropy():
    p, q = Normal(T(0.0), T(1.0)), Normal(T(1.0), T(2.0))
    expected = math.log(2.0) + (1 + 1) / (2 * 4) - 0.5
    np.testing.assert_allclose(float(kl_divergence(p, q)), expected)
    # KL(p || p) = 0 and cross-entropy = entropy + KL
    np.testing.assert_allclose(float(kl_divergence(p, p)), 0.0, atol=1e-12)
    np.testing.assert_allclose(float(p.entropy()), st.norm().entropy())


def test_kl_of_multivariate_normals_matches_the_dense_formula():
    p, q = EXAMPLES[MultivariateNormal][0](), EXAMPLES[LowRankMultivariateNormal][1]()
    q2 = EXAMPLES[LowRankMultivariateNormal][0]()
    for pp, qq in [(p, q), (q, p), (p, p), (q2, q), (q, q2), (q2, p)]:
        s0, s1 = npy(pp.covariance_matrix), npy(qq.covariance_matrix)
        m0, m1 = npy(pp.mean), npy(qq.mean)
        s1 = np.broadcast_to(s1, s0.shape) if s1.ndim < s0.ndim else s1
        s0 = np.broadcast_to(s0, s1.shape)
        m0, m1 = np.broadcast_arrays(m0, m1)
        inv = np.linalg.inv(s1)
        d = m1 - m0
        ref = 0.5 * (
            np.trace(inv @ s0, axis1=-2, axis2=-1)
            + np.einsum("...i,...ij,...j->...", d, inv, d)
            - 3
            + np.linalg.slogdet(s1)[1]
            - np.linalg.slogdet(s0)[1]
        )
        np.testing.assert_allclose(npy(kl_divergence(pp, qq)), ref, rtol=1e-9, atol=1e-12)


def test_generic_pairs():
    torch.manual_seed(1)
    # TransformedDistribution with equal transforms: the base KL
    p, q = LogNormal(T(0.2, 1.0), T(0.5, 0.8)), LogNormal(T(-0.3, 1.0), T(1.0, 0.5))
    np.testing.assert_allclose(
        npy(kl_divergence(p, q)), npy(kl_divergence(p.base_dist, q.base_dist))
    )
    # Independent: summed over the reinterpreted dims
    ip = Independent(Normal(torch.zeros(2, 3, dtype=F64), 1.0), 1)
    iq = Independent(Normal(torch.ones(2, 3, dtype=F64), 2.0), 1)
    kl = kl_divergence(ip, iq)
    assert kl.shape == (2,)
    np.testing.assert_allclose(npy(kl), npy(kl_divergence(ip.base_dist, iq.base_dist).sum(-1)))
    with pytest.raises(NotImplementedError):
        kl_divergence(
            Independent(Normal(torch.zeros(2, 3), 1.0), 2),
            Independent(Normal(torch.zeros(2, 3), 1.0), 1),
        )
    # ExponentialFamily fallback (Bregman divergence) for an unregistered same-type pair
    wp = Wishart(torch.tensor(5.0, dtype=F64), T(2.0, 0.5, 0.5, 1.0).reshape(2, 2))
    wq = Wishart(torch.tensor(4.0, dtype=F64), T(1.0, 0.2, 0.2, 1.5).reshape(2, 2))
    mc, se = _monte_carlo_kl(wp, wq)
    assert abs(float(kl_divergence(wp, wq)) - mc) < 5 * se + 1e-3
    # a subclass uses its parent's registration
    np.testing.assert_allclose(
        float(kl_divergence(Chi2(T(3.0)), Chi2(T(5.0)))),
        float(kl_divergence(Gamma(T(1.5), T(0.5)), Gamma(T(2.5), T(0.5)))),
    )


def test_kl_gradients_flow_to_parameters():
    loc = T(0.5).requires_grad_()
    kl_divergence(Normal(loc, T(1.0)), Normal(T(0.0), T(1.0))).sum().backward()
    np.testing.assert_allclose(float(loc.grad), 0.5)


def test_unregistered_pairs_raise():
    mix = MixtureSameFamily(Categorical(torch.ones(2)), Normal(torch.zeros(2), 1.0))
    with pytest.raises(NotImplementedError, match="MixtureSameFamily"):
        kl_divergence(mix, mix)
    with pytest.raises(NotImplementedError):
        kl_divergence(Normal(0.0, 1.0), Poisson(1.0))
    with pytest.raises(NotImplementedError):  # different exponential families
        kl_divergence(Poisson(T(1.0)), Geometric(T(0.5)))
    with pytest.raises(NotImplementedError):
        kl_divergence(Binomial(T(5.0), T(0.5)), Binomial(T(10.0), T(0.5)))
    assert torch.isinf(kl_divergence(Binomial(T(10.0), T(0.5)), Binomial(T(5.0), T(0.5))))


def test_dispatch_prefers_the_most_specific_and_warns_on_ambiguity():
    class P1(Normal):
        pass

    class Q1(Normal):
        pass

    class P2(P1):
        pass

    class Q2(Q1):
        pass

    @register_kl(P1, Normal)
    def _p1_normal(p, q):
        return torch.tensor(1.0)

    @register_kl(P2, Normal)
    def _p2_normal(p, q):
        return torch.tensor(2.0)

    try:
        assert float(kl_divergence(P2(0.0, 1.0), Normal(0.0, 1.0))) == 2.0
        assert float(kl_divergence(P1(0.0, 1.0), Normal(0.0, 1.0))) == 1.0
        # the generic Normal-Normal formula for plain Normals
        assert float(kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0))) == 0.0

        @register_kl(Normal, Q2)
        def _normal_q2(p, q):
            return torch.tensor(3.0)

        # (P2, Normal) and (Normal, Q2) both match (P2, Q2): ambiguous
        with pytest.warns(RuntimeWarning, match="ambiguous"):
            assert float(kl_divergence(P2(0.0, 1.0), Q2(0.0, 1.0))) == 2.0

        @register_kl(P2, Q2)
        def _p2_q2(p, q):
            return torch.tensor(4.0)

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert float(kl_divergence(P2(0.0, 1.0), Q2(0.0, 1.0))) == 4.0
    finally:
        for key in [(P1, Normal), (P2, Normal), (Normal, Q2), (P2, Q2)]:
            _KL_REGISTRY.pop(key, None)
        from torch.distributions import kl as kl_module

        kl_module._KL_MEMOIZE.clear()


def test_register_kl_checks_its_arguments():
    with pytest.raises(TypeError):
        register_kl(int, Normal)
    with pytest.raises(TypeError):
        register_kl(Normal, Normal(0.0, 1.0))


def _scipy_discrete_kl(p_pmf, q_pmf, support):
    p_vals, q_vals = p_pmf(support), q_pmf(support)
    keep = p_vals > 0
    return float(np.sum(p_vals[keep] * (np.log(p_vals[keep]) - np.log(q_vals[keep]))))


def _scipy_continuous_kl(p, q, lo, hi):
    def integrand(x):
        return p.pdf(x) * (p.logpdf(x) - q.logpdf(x)) if p.pdf(x) > 0 else 0.0

    return scipy.integrate.quad(integrand, lo, hi, limit=200)[0]


SCIPY_ORACLE = [
    (
        lambda: kl_divergence(Categorical(T(0.2, 0.3, 0.5)), Categorical(T(0.6, 0.1, 0.3))),
        lambda: st.entropy([0.2, 0.3, 0.5], [0.6, 0.1, 0.3]),
    ),
    (
        lambda: kl_divergence(Bernoulli(T(0.3)), Bernoulli(T(0.8))),
        lambda: st.entropy([0.7, 0.3], [0.2, 0.8]),
    ),
    (
        lambda: kl_divergence(Binomial(T(12.0), T(0.3)), Binomial(T(12.0), T(0.6))),
        lambda: _scipy_discrete_kl(st.binom(12, 0.3).pmf, st.binom(12, 0.6).pmf, np.arange(13)),
    ),
    (
        lambda: kl_divergence(Poisson(T(3.5)), Poisson(T(1.5))),
        lambda: _scipy_discrete_kl(st.poisson(3.5).pmf, st.poisson(1.5).pmf, np.arange(60)),
    ),
    (
        lambda: kl_divergence(Geometric(T(0.3)), Geometric(T(0.6))),
        lambda: _scipy_discrete_kl(
            st.geom(0.3, loc=-1).pmf, st.geom(0.6, loc=-1).pmf, np.arange(400)
        ),
    ),
    (
        lambda: kl_divergence(Bernoulli(T(0.3)), Poisson(T(1.5))),
        lambda: _scipy_discrete_kl(st.bernoulli(0.3).pmf, st.poisson(1.5).pmf, np.arange(2)),
    ),
    (
        lambda: kl_divergence(Normal(T(0.3), T(1.2)), Normal(T(-0.5), T(0.7))),
        lambda: _scipy_continuous_kl(st.norm(0.3, 1.2), st.norm(-0.5, 0.7), -20, 20),
    ),
    (
        lambda: kl_divergence(Gamma(T(2.5), T(1.5)), Exponential(T(0.5))),
        lambda: _scipy_continuous_kl(st.gamma(2.5, scale=1 / 1.5), st.expon(scale=2.0), 0, 80),
    ),
    (
        lambda: kl_divergence(Beta(T(2.5), T(1.5)), Normal(T(0.5), T(0.3))),
        lambda: _scipy_continuous_kl(st.beta(2.5, 1.5), st.norm(0.5, 0.3), 0, 1),
    ),
    (
        lambda: kl_divergence(Exponential(T(1.3)), Normal(T(0.5), T(2.0))),
        lambda: _scipy_continuous_kl(st.expon(scale=1 / 1.3), st.norm(0.5, 2.0), 0, 80),
    ),
    (
        lambda: kl_divergence(Pareto(T(1.0), T(4.5)), Normal(T(1.0), T(2.0))),
        lambda: _scipy_continuous_kl(st.pareto(4.5), st.norm(1.0, 2.0), 1, 5000),
    ),
    (
        lambda: kl_divergence(Laplace(T(0.2), T(0.5)), Normal(T(1.0), T(2.0))),
        lambda: _scipy_continuous_kl(st.laplace(0.2, 0.5), st.norm(1.0, 2.0), -40, 40),
    ),
    (
        lambda: kl_divergence(Gumbel(T(0.2), T(0.5)), Normal(T(1.0), T(2.0))),
        lambda: _scipy_continuous_kl(st.gumbel_r(0.2, 0.5), st.norm(1.0, 2.0), -20, 40),
    ),
    (
        lambda: kl_divergence(Uniform(T(0.5), T(2.0)), Exponential(T(0.7))),
        lambda: _scipy_continuous_kl(st.uniform(0.5, 1.5), st.expon(scale=1 / 0.7), 0.5, 2.0),
    ),
    (
        lambda: kl_divergence(Uniform(T(0.5), T(2.0)), Gamma(T(2.0), T(1.5))),
        lambda: _scipy_continuous_kl(st.uniform(0.5, 1.5), st.gamma(2.0, scale=1 / 1.5), 0.5, 2.0),
    ),
    (
        lambda: kl_divergence(HalfNormal(T(0.7)), HalfNormal(T(1.3))),
        lambda: _scipy_continuous_kl(st.halfnorm(scale=0.7), st.halfnorm(scale=1.3), 0, 20),
    ),
]


@pytest.mark.parametrize("ours, oracle", SCIPY_ORACLE, ids=[str(i) for i in range(16)])
def test_kl_matches_scipy(ours, oracle):
    np.testing.assert_allclose(float(ours()), oracle(), rtol=1e-6, atol=1e-9)
