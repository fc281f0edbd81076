"""Transforms: forward/inverse round trips, log_abs_det_jacobian against numerical
Jacobians, domains/codomains, shapes, caching; constraints' check; the biject_to and
transform_to registries; TransformedDistribution densities."""

import math

import numpy as np
import pytest
import scipy.stats as st
from _distributions_testing import T, npy

import torch
from torch.distributions import (
    Normal,
    TransformedDistribution,
    Uniform,
    biject_to,
    constraints,
    transform_to,
)
from torch.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    identity_transform,
)
from torch.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix

# (name, transform, a function producing a batch of inputs in the domain)
# The inputs have shape (batch,) + the transform's domain event shape.
BIJECTIONS = [
    ("Exp", ExpTransform(), lambda: torch.randn(4, dtype=torch.float64)),
    (
        "Affine",
        AffineTransform(T(1.0, -2.0, 0.5, 3.0), T(2.0, -0.5, 3.0, 1.5)),
        lambda: torch.randn(4, dtype=torch.float64),
    ),
    ("AffineScalar", AffineTransform(1.0, -2.5), lambda: torch.randn(4, dtype=torch.float64)),
    ("Sigmoid", SigmoidTransform(), lambda: torch.randn(4, dtype=torch.float64)),
    ("Softplus", SoftplusTransform(), lambda: torch.randn(4, dtype=torch.float64)),
    ("Tanh", TanhTransform(), lambda: torch.randn(4, dtype=torch.float64)),
    (
        "Power",
        PowerTransform(T(0.5, 2.0, -1.0, 3.0)),
        lambda: torch.rand(4, dtype=torch.float64) + 0.5,
    ),
    (
        "Compose",
        ComposeTransform([AffineTransform(0.5, 2.0), ExpTransform(), AffineTransform(1.0, 3.0)]),
        lambda: torch.randn(4, dtype=torch.float64),
    ),
    ("ExpInverse", ExpTransform().inv, lambda: torch.rand(4, dtype=torch.float64) + 0.1),
    ("SigmoidInverse", SigmoidTransform().inv, lambda: torch.rand(4, dtype=torch.float64)),
    (
        "CDF",
        CumulativeDistributionTransform(Normal(T(0.5), T(2.0))),
        lambda: torch.randn(4, dtype=torch.float64),
    ),
]

VECTOR_BIJECTIONS = [
    ("StickBreaking", StickBreakingTransform(), lambda: torch.randn(3, 4, dtype=torch.float64)),
    (
        "AffineEvent1",
        AffineTransform(T(1.0, 2.0, 3.0), T(2.0, -1.0, 0.5), event_dim=1),
        lambda: torch.randn(2, 3, dtype=torch.float64),
    ),
    (
        "IndependentExp",
        IndependentTransform(ExpTransform(), 1),
        lambda: torch.randn(2, 3, dtype=torch.float64),
    ),
    ("CorrCholesky", CorrCholeskyTransform(), lambda: torch.randn(2, 6, dtype=torch.float64)),
    (
        "Cat",
        CatTransform([ExpTransform(), AffineTransform(1.0, 2.0)], dim=-1, lengths=[2, 1]),
        lambda: torch.randn(2, 3, dtype=torch.float64),
    ),
    (
        "Stack",
        StackTransform([ExpTransform(), SigmoidTransform(), AffineTransform(1.0, 2.0)], dim=-1),
        lambda: torch.randn(2, 3, dtype=torch.float64),
    ),
]


@pytest.mark.parametrize(
    "name, t, make_x",
    BIJECTIONS + VECTOR_BIJECTIONS,
    ids=[c[0] for c in BIJECTIONS + VECTOR_BIJECTIONS],
)
def test_inverse_round_trip(name, t, make_x):
    torch.manual_seed(0)
    x = make_x()
    y = t(x)
    assert bool(t.codomain.check(y).all())
    assert bool(t.domain.check(x).all())
    np.testing.assert_allclose(npy(t.inv(y)), npy(x), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(npy(t.inv.inv(x)), npy(y), rtol=1e-12)
    assert t.bijective and t.inv.bijective
    assert t.forward_shape(x.shape) == y.shape and t.inverse_shape(y.shape) == x.shape


def _numerical_jacobian(f, x, h=1e-6):
    """d f(x)_flat / d x_flat for one event (central differences)."""
    flat = x.reshape(-1)
    cols = []
    for j in range(flat.numel()):
        up, dn = flat.clone(), flat.clone()
        up[j] += h
        dn[j] -= h
        cols.append((f(up.reshape(x.shape)) - f(dn.reshape(x.shape))).reshape(-1) / (2 * h))
    return npy(torch.stack(cols, -1))


@pytest.mark.parametrize("name, t, make_x", BIJECTIONS, ids=[c[0] for c in BIJECTIONS])
def test_log_abs_det_jacobian_elementwise(name, t, make_x):
    torch.manual_seed(1)
    x = make_x()
    y = t(x)
    ladj = npy(t.log_abs_det_jacobian(x, y))
    jac = _numerical_jacobian(t, x)
    np.testing.assert_allclose(jac, np.diag(np.diag(jac)), atol=1e-8)  # elementwise
    np.testing.assert_allclose(ladj, np.log(np.abs(np.diag(jac))), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "name, t, make_x", VECTOR_BIJECTIONS, ids=[c[0] for c in VECTOR_BIJECTIONS]
)
def test_log_abs_det_jacobian_vector(name, t, make_x):
    torch.manual_seed(2)
    x = make_x()
    y = t(x)
    ladj = npy(t.log_abs_det_jacobian(x, y))
    for b in range(x.shape[0]):
        if name == "StickBreaking":
            # maps R^k onto a k-dimensional simplex in R^(k+1): use its first k coordinates
            def f(v):
                return t(v)[..., :-1]
        elif name == "CorrCholesky":
            # the free coordinates of L are its strictly lower entries
            def f(v):
                return tril_matrix_to_vec(t(v), diag=-1)
        else:
            f = t
        jac = _numerical_jacobian(f, x[b])
        if name in ("Cat", "Stack"):
            # the event dim is 0 for these parts: one log-det per coordinate
            np.testing.assert_allclose(ladj[b], np.log(np.abs(np.diag(jac))), rtol=1e-6)
        else:
            np.testing.assert_allclose(ladj[b], np.linalg.slogdet(jac)[1], rtol=1e-6, atol=1e-7)


def test_non_bijective_transforms():
    x = T(-2.0, 3.0)
    a = AbsTransform()
    np.testing.assert_allclose(npy(a(x)), [2.0, 3.0])
    np.testing.assert_allclose(npy(a.inv(T(2.0))), [2.0])
    assert not a.bijective
    s = SoftmaxTransform()
    y = s(T(0.0, math.log(3.0)))
    np.testing.assert_allclose(npy(y), [0.25, 0.75])
    np.testing.assert_allclose(npy(s(s.inv(y))), npy(y))
    assert not s.bijective and s.codomain is constraints.simplex
    lc = LowerCholeskyTransform()
    m = torch.randn(3, 3, dtype=torch.float64)
    L = lc(m)
    assert bool(constraints.lower_cholesky.check(L))
    np.testing.assert_allclose(npy(lc(lc.inv(L))), npy(L))
    pd = PositiveDefiniteTransform()
    P = pd(m)
    assert bool(constraints.positive_definite.check(P))
    np.testing.assert_allclose(npy(pd(pd.inv(P))), npy(P), rtol=1e-9)


def test_reshape_transform():
    t = ReshapeTransform((6,), (2, 3))
    x = torch.arange(12.0).reshape(2, 6)
    y = t(x)
    assert y.shape == (2, 2, 3) and bool((t.inv(y) == x).all())
    assert t.log_abs_det_jacobian(x, y).shape == (2,)
    assert bool((t.log_abs_det_jacobian(x, y) == 0).all())
    assert t.forward_shape((5, 6)) == (5, 2, 3) and t.inverse_shape((5, 2, 3)) == (5, 6)
    with pytest.raises(ValueError):
        ReshapeTransform((4,), (5,))


def test_sign_and_event_dims():
    assert ExpTransform().sign == 1 and AffineTransform(0.0, -2.0).sign == -1
    assert ExpTransform().inv.sign == 1 and SigmoidTransform().sign == 1
    assert ComposeTransform([AffineTransform(0.0, -1.0), ExpTransform()]).sign == -1
    assert StickBreakingTransform().domain.event_dim == 1
    c = ComposeTransform([ExpTransform(), StickBreakingTransform()])
    assert c.domain.event_dim == 1 and c.codomain.event_dim == 1
    assert IndependentTransform(ExpTransform(), 2).domain.event_dim == 2
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    assert IndependentTransform(ExpTransform(), 2).log_abs_det_jacobian(x, x.exp()).shape == (3,)
    # a compose with vector parts sums elementwise parts over the event
    ladj = c.log_abs_det_jacobian(x, c(x))
    assert ladj.shape == (3, 4)


def test_caching_returns_the_same_input():
    t = ExpTransform().with_cache(1)
    x = torch.randn(3)
    y = t(x)
    assert t.inv(y) is x and t(x) is y
    assert ExpTransform().with_cache(0)(x) is not ExpTransform()(x)
    assert TanhTransform(cache_size=1).with_cache(1)._cache_size == 1
    with pytest.raises(ValueError):
        ExpTransform(cache_size=2)


def test_equality():
    assert ExpTransform() == ExpTransform() and ExpTransform().inv == ExpTransform().inv
    assert AffineTransform(1.0, 2.0) == AffineTransform(1.0, 2.0)
    assert AffineTransform(1.0, 2.0) != AffineTransform(1.0, 3.0)
    assert ComposeTransform([ExpTransform()]) == ComposeTransform([ExpTransform()])
    assert ExpTransform() != SigmoidTransform()
    assert identity_transform(T(2.0)).item() == 2.0


def test_tanh_jacobian_is_stable_for_large_inputs():
    x = T(-40.0, 40.0)
    ladj = TanhTransform().log_abs_det_jacobian(x, x.tanh())
    assert torch.isfinite(ladj).all()
    np.testing.assert_allclose(npy(ladj), [math.log(4) - 80] * 2, rtol=1e-12)


# ---------------------------------------------------------------------------------------
# Constraints
# ---------------------------------------------------------------------------------------

CONSTRAINT_CASES = [
    (constraints.real, [0.0, -1e30], [float("nan")]),
    (constraints.positive, [1e-30, 5.0], [0.0, -1.0]),
    (constraints.nonnegative, [0.0, 5.0], [-1e-30]),
    (constraints.greater_than(2.0), [2.5], [2.0]),
    (constraints.greater_than_eq(2.0), [2.0], [1.9]),
    (constraints.less_than(2.0), [1.0], [2.0]),
    (constraints.interval(0.0, 1.0), [0.0, 1.0], [1.1, -0.1]),
    (constraints.half_open_interval(0.0, 1.0), [0.0, 0.9], [1.0]),
    (constraints.unit_interval, [0.5], [2.0]),
    (constraints.boolean, [0.0, 1.0], [0.5, 2.0]),
    (constraints.nonnegative_integer, [0.0, 3.0], [-1.0, 1.5]),
    (constraints.positive_integer, [1.0], [0.0]),
    (constraints.integer_interval(0, 3), [0.0, 3.0], [4.0, 0.5]),
]


@pytest.mark.parametrize("c, good, bad", CONSTRAINT_CASES, ids=lambda c: repr(c)[:30])
def test_scalar_constraints(c, good, bad):
    assert bool(c.check(torch.tensor(good)).all())
    assert not bool(c.check(torch.tensor(bad)).any())
    assert c.event_dim == 0


def test_event_constraints():
    assert constraints.simplex.check(T(0.2, 0.8)) and not constraints.simplex.check(T(0.2, 0.7))
    assert constraints.simplex.event_dim == 1
    assert constraints.one_hot.check(T(0.0, 1.0)) and not constraints.one_hot.check(T(1.0, 1.0))
    assert constraints.real_vector.check(T(1.0, 2.0)).shape == ()
    assert not constraints.real_vector.check(T(1.0, float("nan")))
    assert constraints.multinomial(3).check(T(1.0, 2.0))
    assert not constraints.multinomial(3).check(T(2.0, 2.0))
    eye = torch.eye(3, dtype=torch.float64)
    for c in (
        constraints.lower_triangular,
        constraints.lower_cholesky,
        constraints.positive_definite,
        constraints.positive_semidefinite,
        constraints.symmetric,
        constraints.square,
        constraints.corr_cholesky,
    ):
        assert bool(c.check(eye)) and c.event_dim == 2
    upper = T(1.0, 1.0, 0.0, 1.0).reshape(2, 2)
    assert not constraints.lower_triangular.check(upper)
    assert not constraints.lower_cholesky.check(-torch.eye(2))
    assert not constraints.positive_definite.check(T(1.0, 2.0, 2.0, 1.0).reshape(2, 2))
    assert constraints.positive_semidefinite.check(T(1.0, 1.0, 1.0, 1.0).reshape(2, 2))
    assert not constraints.symmetric.check(upper)
    assert not constraints.square.check(torch.zeros(2, 3))
    assert not constraints.corr_cholesky.check(2 * torch.eye(2))
    batch = torch.eye(2).expand(4, 2, 2)
    assert constraints.lower_cholesky.check(batch).shape == (4,)


def test_independent_cat_stack_and_dependent_constraints():
    c = constraints.independent(constraints.positive, 1)
    assert c.event_dim == 1
    np.testing.assert_array_equal(npy(c.check(T(1.0, 2.0, -1.0, 2.0).reshape(2, 2))), [True, False])
    cat = constraints.cat([constraints.positive, constraints.real], dim=0, lengths=[1, 2])
    np.testing.assert_array_equal(npy(cat.check(T(-1.0, -1.0, 3.0))), [False, True, True])
    stack = constraints.stack([constraints.positive, constraints.real], dim=0)
    np.testing.assert_array_equal(npy(stack.check(T(-1.0, -1.0))), [False, True])
    assert constraints.is_dependent(constraints.dependent)
    assert not constraints.is_dependent(constraints.real)
    with pytest.raises(ValueError):
        constraints.dependent.check(T(1.0))
    assert constraints.is_dependent(Uniform.support)  # on the class: depends on parameters
    assert constraints.dependent(is_discrete=True, event_dim=1).event_dim == 1


def test_tril_vector_round_trip():
    m = torch.arange(16.0).reshape(4, 4)
    for diag in (-1, 0, 1):
        v = tril_matrix_to_vec(m, diag)
        np.testing.assert_array_equal(npy(vec_to_tril_matrix(v, diag)), np.tril(npy(m), diag))


# ---------------------------------------------------------------------------------------
# biject_to / transform_to
# ---------------------------------------------------------------------------------------

REGISTRY_CASES = [
    constraints.real,
    constraints.positive,
    constraints.nonnegative,
    constraints.greater_than(T(1.5)),
    constraints.greater_than_eq(-3.0),
    constraints.less_than(T(2.0)),
    constraints.interval(-2.0, T(5.0)),
    constraints.half_open_interval(1.0, 3.0),
    constraints.unit_interval,
    constraints.simplex,
    constraints.corr_cholesky,
    constraints.independent(constraints.positive, 1),
    constraints.cat([constraints.positive, constraints.unit_interval], dim=-1, lengths=[2, 1]),
    constraints.stack([constraints.positive, constraints.real, constraints.unit_interval], -1),
]


@pytest.mark.parametrize("c", REGISTRY_CASES, ids=lambda c: repr(c)[:40])
@pytest.mark.parametrize("registry", [biject_to, transform_to], ids=["biject", "transform"])
def test_registries_map_the_reals_onto_the_constraint(c, registry):
    torch.manual_seed(3)
    t = registry(c)
    if c is constraints.simplex and registry is biject_to:
        x = torch.randn(5, 3, dtype=torch.float64)
    elif c is constraints.corr_cholesky:
        x = torch.randn(5, 3, dtype=torch.float64)
    else:
        x = torch.randn(5, 3, dtype=torch.float64)
    y = t(x)
    assert bool(c.check(y).all())
    if registry is biject_to or c is not constraints.simplex:
        np.testing.assert_allclose(npy(t.inv(y)), npy(x), rtol=1e-6, atol=1e-8)
    if registry is biject_to:
        assert t.bijective


def test_registry_lower_cholesky_positive_definite_and_errors():
    m = torch.randn(3, 3, dtype=torch.float64)
    assert constraints.lower_cholesky.check(transform_to(constraints.lower_cholesky)(m))
    assert constraints.positive_definite.check(transform_to(constraints.positive_definite)(m))
    with pytest.raises(NotImplementedError):
        biject_to(constraints.boolean)
    with pytest.raises(NotImplementedError):
        biject_to(constraints.lower_cholesky)  # not bijective from all matrices
    with pytest.raises(TypeError):
        biject_to.register(int, lambda c: ExpTransform())


def test_registering_a_custom_constraint():
    class _Odd(constraints.Constraint):
        def check(self, value):
            return value % 2 == 1

    transform_to.register(_Odd, lambda c: AffineTransform(1.0, 2.0))
    try:
        assert isinstance(transform_to(_Odd()), AffineTransform)
    finally:
        del transform_to._registry[_Odd]


def test_unconstrained_optimisation_through_transform_to():
    # fit a positive scale by optimising an unconstrained parameter
    torch.manual_seed(4)
    data = torch.randn(2000, dtype=torch.float64) * 3.0
    raw = torch.zeros((), dtype=torch.float64, requires_grad=True)
    t = transform_to(Normal.arg_constraints["scale"])
    for _ in range(200):
        loss = -Normal(0.0, t(raw)).log_prob(data).mean()
        (g,) = torch.autograd.grad(loss, raw)
        with torch.no_grad():
            raw -= 0.5 * g
    assert abs(float(t(raw)) - float(data.pow(2).mean().sqrt())) < 1e-3


# ---------------------------------------------------------------------------------------
# TransformedDistribution
# ---------------------------------------------------------------------------------------


def test_transformed_distribution_log_normal_matches_scipy():
    d = TransformedDistribution(Normal(T(0.5), T(0.8)), [ExpTransform()])
    x = T(0.3, 1.0, 4.0)
    np.testing.assert_allclose(
        npy(d.log_prob(x)), st.lognorm(0.8, scale=math.exp(0.5)).logpdf(npy(x)), rtol=1e-9
    )
    np.testing.assert_allclose(
        npy(d.cdf(x)), st.lognorm(0.8, scale=math.exp(0.5)).cdf(npy(x)), rtol=1e-9
    )
    np.testing.assert_allclose(
        npy(d.icdf(T(0.2, 0.7))), st.lognorm(0.8, scale=math.exp(0.5)).ppf([0.2, 0.7]), rtol=1e-9
    )
    assert d.has_rsample and d.support.check(T(1.0))


def test_transformed_distribution_with_decreasing_transform_flips_the_cdf():
    d = TransformedDistribution(Uniform(T(0.0), T(1.0)), [AffineTransform(0.0, -2.0)])
    # Y = -2 U on [-2, 0]: P(Y <= -0.5) = P(U >= 0.25)
    np.testing.assert_allclose(npy(d.cdf(T(-0.5))), [0.75])
    np.testing.assert_allclose(npy(d.icdf(T(0.25))), [-1.5])
    np.testing.assert_allclose(npy(d.log_prob(T(-0.5))), [math.log(0.5)])


def test_transformed_distribution_event_dims():
    base = Normal(torch.zeros(4, 3, dtype=torch.float64), torch.ones(4, 3, dtype=torch.float64))
    d = TransformedDistribution(base, [StickBreakingTransform()])
    assert d.batch_shape == (4,) and d.event_shape == (4,)
    s = d.sample((2,))
    assert s.shape == (2, 4, 4) and d.log_prob(s).shape == (2, 4)
    r = TransformedDistribution(base, [ReshapeTransform((3,), (3, 1))])
    assert r.batch_shape == (4,) and r.event_shape == (3, 1)
    e = d.expand((5, 4))
    assert e.batch_shape == (5, 4) and e.sample().shape == (5, 4, 4)
    with pytest.raises(ValueError):
        TransformedDistribution(base, "not a transform")
