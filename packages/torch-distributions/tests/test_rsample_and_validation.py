"""Reparameterised sampling (gradients against finite differences and against the
derivatives of known moments) and argument validation (ValueError for bad parameters and
out-of-support values, set_default_validate_args)."""

import math

import numpy as np
import pytest
import scipy.special as sp
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
    Distribution,
    Exponential,
    FisherSnedecor,
    Gamma,
    Geometric,
    Gumbel,
    HalfCauchy,
    HalfNormal,
    Kumaraswamy,
    Laplace,
    LogisticNormal,
    LogNormal,
    LowRankMultivariateNormal,
    Multinomial,
    MultivariateNormal,
    NegativeBinomial,
    Normal,
    OneHotCategorical,
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
from torch.distributions._sampling import standard_gamma

# Distributions whose rsample is a deterministic function of the parameters given the random
# stream: re-seeding and perturbing one parameter gives a finite-difference derivative of
# each sample. (name, constructor taking the parameter tensors, parameter values)
PATHWISE = [
    ("Normal", lambda a, b: Normal(a, b), (T(0.3, -1.0), T(1.5, 0.5))),
    ("Uniform", lambda a, b: Uniform(a, b), (T(0.3, -1.0), T(1.5, 0.5))),
    ("Exponential", lambda a: Exponential(a), (T(0.7, 2.0),)),
    ("Laplace", lambda a, b: Laplace(a, b), (T(0.3, -1.0), T(1.5, 0.5))),
    ("Cauchy", lambda a, b: Cauchy(a, b), (T(0.3, -1.0), T(1.5, 0.5))),
    ("LogNormal", lambda a, b: LogNormal(a, b), (T(0.3, -1.0), T(0.5, 0.25))),
    ("Gumbel-base", lambda a, b: Gumbel(a, b), (T(0.3, -1.0), T(1.5, 0.5))),
    ("HalfNormal", lambda a: HalfNormal(a), (T(0.7, 2.0),)),
    ("HalfCauchy", lambda a: HalfCauchy(a), (T(0.7, 2.0),)),
    ("Weibull", lambda a, b: Weibull(a, b), (T(0.7, 2.0), T(1.5, 0.8))),
    ("Pareto", lambda a, b: Pareto(a, b), (T(0.7, 2.0), T(1.5, 3.0))),
    ("Kumaraswamy", lambda a, b: Kumaraswamy(a, b), (T(0.7, 2.0), T(1.5, 3.0))),
    ("ContinuousBernoulli", lambda a: ContinuousBernoulli(a), (T(0.2, 0.8),)),
    ("RelaxedBernoulli", lambda a: RelaxedBernoulli(T(0.5), logits=a), (T(0.2, -0.8),)),
    (
        "RelaxedOneHotCategorical",
        lambda a: RelaxedOneHotCategorical(T(0.5), logits=a),
        (T(0.2, -0.8, 0.1),),
    ),
    ("LogisticNormal", lambda a, b: LogisticNormal(a, b), (T(0.3, -1.0), T(1.5, 0.5))),
    (
        "MultivariateNormal",
        lambda a, b: MultivariateNormal(a, scale_tril=b),
        (T(0.3, -1.0), T(1.5, 0.0, 0.4, 0.5).reshape(2, 2)),
    ),
    (
        "LowRankMultivariateNormal",
        lambda a, w, d: LowRankMultivariateNormal(a, w, d),
        (T(0.3, -1.0), T(1.0, 0.5).reshape(2, 1), T(0.5, 2.0)),
    ),
]


@pytest.mark.parametrize("name, make, params", PATHWISE, ids=[c[0] for c in PATHWISE])
def test_rsample_gradient_matches_finite_differences(name, make, params):
    params = [p.clone().requires_grad_() for p in params]
    d = make(*params)
    assert d.has_rsample
    weights = torch.linspace(0.5, 1.5, d._extended_shape((3,)).numel(), dtype=torch.float64)
    weights = weights.reshape(d._extended_shape((3,)))

    def f(*ps):
        torch.manual_seed(0)
        return (make(*ps).rsample((3,)) * weights).sum()

    grads = torch.autograd.grad(f(*params), params)
    h = 1e-6
    for i, p in enumerate(params):
        flat = p.detach().reshape(-1)
        for j in range(flat.numel()):
            if name == "MultivariateNormal" and i == 1 and j == 1:
                continue  # above the diagonal: not a parameter of scale_tril
            up, down = flat.clone(), flat.clone()
            up[j] += h
            down[j] -= h
            args_up = [q.detach() if k != i else up.reshape(p.shape) for k, q in enumerate(params)]
            args_dn = [
                q.detach() if k != i else down.reshape(p.shape) for k, q in enumerate(params)
            ]
            fd = (float(f(*args_up)) - float(f(*args_dn))) / (2 * h)
            np.testing.assert_allclose(float(grads[i].reshape(-1)[j]), fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("alpha", [0.05, 0.3, 1.0, 2.5, 10.0, 19.0, 21.0, 80.0])
def test_standard_gamma_gradient_is_the_implicit_derivative(alpha):
    """dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha), with P from scipy.special.gammainc."""
    torch.manual_seed(1)
    a = torch.full((2000,), alpha, dtype=torch.float64, requires_grad=True)
    x = standard_gamma(a)
    x.sum().backward()
    xs = npy(x)
    h = 1e-5 * alpha
    dP = (sp.gammainc(alpha + h, xs) - sp.gammainc(alpha - h, xs)) / (2 * h)
    pdf = np.exp((alpha - 1) * np.log(xs) - xs - sp.gammaln(alpha))
    ref = -dP / pdf
    ok = pdf > 1e-8  # far tails: the finite difference of P itself loses its digits
    tol = 1e-4 if alpha < 20 else 5e-3  # Wilson-Hilferty above 20 (see _sampling)
    np.testing.assert_allclose(npy(a.grad)[ok], ref[ok], rtol=tol, atol=1e-6 * max(1, alpha))


GAMMA_BASED = [
    # constructor from params, analytic mean as a differentiable function of params
    ("Gamma", lambda a, b: Gamma(a, b), lambda a, b: a / b, (T(0.4, 3.0), T(1.5, 0.7))),
    ("Beta", lambda a, b: Beta(a, b), lambda a, b: a / (a + b), (T(0.4, 3.0), T(1.5, 0.7))),
    ("Chi2", lambda a: Chi2(a), lambda a: a, (T(0.8, 5.0),)),
    (
        "Dirichlet",
        lambda a: Dirichlet(a),
        lambda a: a / a.sum(-1, keepdim=True),
        (T(0.4, 3.0, 1.2),),
    ),
    (
        "FisherSnedecor",
        lambda a, b: FisherSnedecor(a, b),
        lambda a, b: b / (b - 2) + 0 * a,
        (T(3.0, 8.0), T(9.0, 12.0)),
    ),
    ("StudentT-scale", lambda a: StudentT(T(5.0), a, T(2.0)), lambda a: a, (T(0.3, -1.0),)),
]


@pytest.mark.parametrize(
    "name, make, mean_fn, params", GAMMA_BASED, ids=[c[0] for c in GAMMA_BASED]
)
def test_rsample_gradient_of_the_mean_matches_the_analytic_derivative(name, make, mean_fn, params):
    """Per-sample gradients d(sample)/d(param) average to d(mean)/d(param): give every draw
    its own copy of the parameters, so one backward pass yields all per-sample gradients,
    and compare their mean with the analytic derivative within 5 standard errors."""
    torch.manual_seed(2)
    n = 10000
    per_sample = [p.expand((n,) + p.shape).clone().requires_grad_() for p in params]
    d = make(*per_sample)
    assert d.has_rsample
    x = d.rsample()
    leaves = [p.clone().requires_grad_() for p in params]
    mean = mean_fn(*leaves)
    for i in range(x.shape[-1]):
        grads = torch.autograd.grad(x[:, i].sum(), per_sample, retain_graph=True)
        refs = torch.autograd.grad(mean[i], leaves, retain_graph=True, allow_unused=True)
        for g, ref, p in zip(grads, refs, params):
            ref = npy(torch.zeros_like(p) if ref is None else ref)
            g = npy(g)
            se = g.std(0) / math.sqrt(n)
            assert np.all(np.abs(g.mean(0) - ref) <= 5 * se + 1e-9), (name, g.mean(0), ref, se)


def test_wishart_rsample_is_differentiable_and_has_the_right_mean():
    torch.manual_seed(3)
    cov = T(2.0, 0.5, 0.5, 1.0).reshape(2, 2)
    df = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
    d = Wishart(df, cov)
    x = d.rsample((20000,))
    np.testing.assert_allclose(npy(x.mean(0)), 5.0 * npy(cov), rtol=0.05)
    (g,) = torch.autograd.grad(x.mean(0)[0, 0], df)
    np.testing.assert_allclose(float(g), 2.0, rtol=0.05)  # d(df * cov[0, 0]) / d(df)
    assert d.log_prob(x[:5]).shape == (5,)


def test_sample_does_not_record_gradients():
    loc = T(0.0, 1.0).requires_grad_()
    assert not Normal(loc, 1.0).sample().requires_grad
    assert Normal(loc, 1.0).rsample().requires_grad
    a = T(1.0, 2.0).requires_grad_()
    assert not Gamma(a, 1.0).sample().requires_grad and Gamma(a, 1.0).rsample().requires_grad


@pytest.mark.parametrize(
    "d",
    [
        Bernoulli(0.3),
        Categorical(torch.ones(3)),
        Poisson(2.0),
        Binomial(3, 0.5),
        Geometric(0.5),
        VonMises(0.0, 1.0),
        Multinomial(3, torch.ones(3)),
        NegativeBinomial(2.0, 0.5),
        OneHotCategorical(torch.ones(3)),
    ],
    ids=lambda d: type(d).__name__,
)
def test_non_reparameterised_distributions_have_no_rsample(d):
    assert not d.has_rsample
    with pytest.raises(NotImplementedError):
        d.rsample()


def test_score_function_gradient_of_log_prob():
    p = T(0.3).requires_grad_()
    Bernoulli(p).log_prob(T(1.0)).sum().backward()
    np.testing.assert_allclose(float(p.grad), 1 / 0.3)
    logits = T(0.1, 0.5, -0.2).requires_grad_()
    Categorical(logits=logits).log_prob(torch.tensor(1)).backward()
    np.testing.assert_allclose(
        npy(logits.grad), np.eye(3)[1] - sp.softmax([0.1, 0.5, -0.2]), rtol=1e-9
    )


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------

BAD_PARAMETERS = [
    ("Normal scale", lambda: Normal(0.0, -1.0)),
    ("Normal loc nan", lambda: Normal(T(float("nan")), 1.0)),
    ("Bernoulli probs", lambda: Bernoulli(T(1.5))),
    ("Categorical probs", lambda: Categorical(T(-0.1, 1.1))),
    ("Uniform low >= high", lambda: Uniform(T(1.0), T(0.0))),
    ("Gamma concentration", lambda: Gamma(T(-1.0), 1.0)),
    ("Gamma rate", lambda: Gamma(1.0, T(0.0))),
    ("Beta", lambda: Beta(T(0.0), T(1.0))),
    ("Dirichlet", lambda: Dirichlet(T(1.0, -1.0))),
    ("Exponential", lambda: Exponential(T(-2.0))),
    ("Poisson", lambda: Poisson(T(-1.0))),
    ("Binomial count", lambda: Binomial(T(2.5), T(0.5))),
    ("Binomial probs", lambda: Binomial(3, T(1.5))),
    (
        "MVN covariance",
        lambda: MultivariateNormal(torch.zeros(2), T(1.0, 2.0, 2.0, 1.0).reshape(2, 2)),
    ),
    ("MVN scale_tril", lambda: MultivariateNormal(torch.zeros(2), -torch.eye(2))),
    ("Laplace", lambda: Laplace(0.0, T(-1.0))),
    ("StudentT df", lambda: StudentT(T(-1.0))),
    ("Geometric zero", lambda: Geometric(T(0.0))),
    ("ContinuousBernoulli", lambda: ContinuousBernoulli(T(1.2))),
    ("Pareto", lambda: Pareto(T(1.0), T(-1.0))),
    ("Weibull", lambda: Weibull(T(-1.0), T(1.0))),
    ("VonMises", lambda: VonMises(T(0.0), T(-1.0))),
    ("Wishart df", lambda: Wishart(T(0.5), torch.eye(2))),
    (
        "LowRankMVN diag",
        lambda: LowRankMultivariateNormal(T(0.0, 0.0), T(1.0, 1.0).reshape(2, 1), T(1.0, -1.0)),
    ),
]


@pytest.mark.parametrize("name, make", BAD_PARAMETERS, ids=[c[0] for c in BAD_PARAMETERS])
def test_bad_parameters_raise_value_error(name, make):
    with pytest.raises(ValueError):
        make()


OUT_OF_SUPPORT = [
    (lambda: Normal(0.0, 1.0), T(float("nan"))),
    (lambda: Bernoulli(0.3), T(0.5)),
    (lambda: Categorical(torch.ones(3)), torch.tensor(3)),
    (lambda: Uniform(0.0, 1.0), T(1.5)),
    (lambda: Gamma(1.0, 1.0), T(-1.0)),
    (lambda: Beta(1.0, 1.0), T(1.5)),
    (lambda: Dirichlet(torch.ones(3)), T(0.5, 0.2, 0.2)),
    (lambda: Exponential(1.0), T(-0.1)),
    (lambda: Poisson(1.0), T(1.5)),
    (lambda: Binomial(3, 0.5), T(4.0)),
    (lambda: Geometric(0.5), T(-1.0)),
    (lambda: Multinomial(3, torch.ones(2)), T(1.0, -1.0)),
    (lambda: OneHotCategorical(torch.ones(3)), T(1.0, 1.0, 0.0)),
    (lambda: HalfNormal(1.0), T(-1.0)),
    (lambda: LogNormal(0.0, 1.0), T(-1.0)),
    (lambda: Pareto(T(2.0), T(1.0)), T(1.0)),
    (lambda: MultivariateNormal(torch.zeros(2), torch.eye(2)), T(0.0, float("nan"))),
]


@pytest.mark.parametrize(
    "make, value", OUT_OF_SUPPORT, ids=lambda x: type(x()).__name__ if callable(x) else ""
)
def test_out_of_support_values_raise_value_error(make, value):
    with pytest.raises(ValueError, match="support"):
        make().log_prob(value)


def test_value_shape_errors():
    with pytest.raises(ValueError, match="event_shape"):
        MultivariateNormal(torch.zeros(3), torch.eye(3)).log_prob(torch.zeros(2))
    with pytest.raises(ValueError, match="broadcastable"):
        Normal(torch.zeros(3), 1.0).log_prob(torch.zeros(2))
    with pytest.raises(ValueError, match="Tensor"):
        Normal(0.0, 1.0).log_prob(0.5)


def test_validation_can_be_turned_off():
    d = Normal(0.0, -1.0, validate_args=False)  # no error
    assert torch.isnan(d.log_prob(T(0.0)))
    assert Bernoulli(0.3, validate_args=False).log_prob(T(0.5)).shape == (1,)
    old = Distribution._validate_args
    try:
        Distribution.set_default_validate_args(False)
        Gamma(T(-1.0), 1.0)
        Uniform(0.0, 1.0).log_prob(T(3.0))
        with pytest.raises(ValueError):
            Gamma(T(-1.0), 1.0, validate_args=True)
    finally:
        Distribution.set_default_validate_args(old)
    with pytest.raises(ValueError):
        Gamma(T(-1.0), 1.0)
    with pytest.raises(ValueError):
        Distribution.set_default_validate_args("yes")


def test_probs_and_logits_are_exclusive():
    for cls in (Bernoulli, Categorical, Geometric, OneHotCategorical):
        with pytest.raises(ValueError, match="not both"):
            cls(probs=T(0.5, 0.5), logits=T(0.0, 0.0))
        with pytest.raises(ValueError, match="not both"):
            cls()


def test_mvn_requires_exactly_one_matrix():
    with pytest.raises(ValueError, match="exactly one"):
        MultivariateNormal(torch.zeros(2))
    with pytest.raises(ValueError, match="exactly one"):
        MultivariateNormal(torch.zeros(2), torch.eye(2), scale_tril=torch.eye(2))


def test_arg_constraints_and_support_are_declared():
    assert set(Normal.arg_constraints) == {"loc", "scale"}
    assert Normal.support.check(T(1.0)).all()
    assert not Gamma.support.check(T(-1.0)).any()
    d = Uniform(T(0.0), T(2.0))
    assert bool(d.support.check(T(1.0)).all()) and not bool(d.support.check(T(3.0)).any())
    assert Binomial(T(4.0), T(0.5)).support.upper_bound.tolist() == [4.0]
