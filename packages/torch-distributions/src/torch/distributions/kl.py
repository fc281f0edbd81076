"""Kullback-Leibler divergences: :func:`kl_divergence` and the :func:`register_kl`
registry of closed forms.

``kl_divergence(p, q)`` looks up the most specific function registered for
``(type(p), type(q))`` (walking both classes' MROs); when two registrations are equally
specific in different directions it warns and takes the one that is most specific for ``p``.
Unregistered pairs raise ``NotImplementedError``. Pairs whose supports make the divergence
infinite (``p`` puts mass where ``q`` has none) return ``inf``.
"""

import math
import warnings
from functools import total_ordering

import torch
import torch.nn.functional as F
from torch.distributions.bernoulli import Bernoulli
from torch.distributions.beta import Beta
from torch.distributions.binomial import Binomial
from torch.distributions.categorical import Categorical
from torch.distributions.cauchy import Cauchy
from torch.distributions.continuous_bernoulli import ContinuousBernoulli
from torch.distributions.dirichlet import Dirichlet
from torch.distributions.distribution import Distribution
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.exponential import Exponential
from torch.distributions.gamma import Gamma
from torch.distributions.geometric import Geometric
from torch.distributions.gumbel import Gumbel
from torch.distributions.half_normal import HalfNormal
from torch.distributions.independent import Independent
from torch.distributions.laplace import Laplace
from torch.distributions.lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _batch_lowrank_logdet,
    _batch_lowrank_mahalanobis,
)
from torch.distributions.multivariate_normal import MultivariateNormal, _batch_mahalanobis
from torch.distributions.normal import Normal
from torch.distributions.one_hot_categorical import OneHotCategorical
from torch.distributions.pareto import Pareto
from torch.distributions.poisson import Poisson
from torch.distributions.transformed_distribution import TransformedDistribution
from torch.distributions.uniform import Uniform
from torch.distributions.utils import _sum_rightmost, euler_constant

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function
_KL_MEMOIZE = {}  # (type_p, type_q) -> the function that dispatch chose


def register_kl(type_p, type_q):
    """Decorator registering a pairwise KL function ``fn(p, q)`` for distributions of types
    ``type_p`` and ``type_q`` (and their subclasses, unless something more specific is
    registered).

    Example (a closed form for a distribution of your own)::

        class MyNormal(Normal):
            ...

        @register_kl(MyNormal, MyNormal)
        def kl_mynormal_mynormal(p, q):
            return ...  # one value per batch entry

    Where two registrations match a pair equally well in different directions (say
    ``(BaseP, DerivedQ)`` and ``(DerivedP, BaseQ)`` for ``(DerivedP, DerivedQ)``),
    :func:`kl_divergence` warns; register the exact pair to settle it.
    """
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"register_kl: type_p must be a Distribution subclass, got {type_p!r}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"register_kl: type_q must be a Distribution subclass, got {type_q!r}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the best match may have changed
        return fun

    return decorator


@total_ordering
class _Match:
    """A registered pair ranked by how far up each MRO its types sit (smaller is more
    specific)."""

    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [
        (super_p, super_q)
        for super_p, super_q in _KL_REGISTRY
        if issubclass(type_p, super_p) and issubclass(type_q, super_q)
    ]
    if not matches:
        return NotImplemented
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    # most specific for p first, then for q; and the other way round
    left = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    right = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    left_fun = _KL_REGISTRY[left]
    right_fun = _KL_REGISTRY[right]
    if left_fun is not right_fun:
        warnings.warn(
            f"kl_divergence({type_p.__name__}, {type_q.__name__}) is ambiguous: "
            f"({left[0].__name__}, {left[1].__name__}) and ({right[0].__name__}, "
            f"{right[1].__name__}) match equally well; using the first. Settle it with "
            f"register_kl({left[0].__name__}, {right[1].__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return left_fun


def _infinite_like(tensor):
    """A tensor of infinities shaped like ``tensor``."""
    return torch.full_like(tensor, math.inf)


def _x_log_x(tensor):
    return tensor * tensor.log()


def _batch_trace_XXT(bmat):
    """The trace of ``X X^T`` for a batch of matrices: the squared Frobenius norm."""
    return bmat.pow(2).sum((-2, -1))


def kl_divergence(p, q):
    r"""The Kullback-Leibler divergence :math:`KL(p \| q) = \int p(x) \log(p(x) / q(x)) dx`
    between two distributions, batched over their batch shape.

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second distribution.

    Returns:
        Tensor: one divergence per batch entry, of shape ``batch_shape``.

    Raises:
        NotImplementedError: if no closed form is registered for the two types (see
            :func:`register_kl`).

    Example::

        >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
        tensor(0.5000)
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
            f"q type {q.__class__.__name__}; register one with "
            "torch.distributions.kl.register_kl"
        )
    return fun(p, q)


################################################################################
# Same family
################################################################################


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p / q) + (1 - p) log((1 - p) / (1 - q)), with log p = -softplus(-logit)
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, math.inf)
    t1 = t1.masked_fill(p.probs == 0, 0)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, math.inf)
    t2 = t2.masked_fill(p.probs == 1, 0)
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_params_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_params_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * torch.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * torch.digamma(p.concentration0)
    t5 = (sum_params_q - sum_params_p) * torch.digamma(sum_params_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    # only defined (finite) when p's trials are no more than q's
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (
        p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
        + (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    )
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill(q.probs == 0, math.inf)
    t = t.masked_fill(p.probs == 0, 0)
    return t.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._log_norm() + torch.log1p(-p.probs)
    t3 = -q._log_norm() - torch.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p_concentration = p.concentration.sum(-1)
    sum_q_concentration = q.concentration.sum(-1)
    t1 = sum_p_concentration.lgamma() - sum_q_concentration.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p_concentration.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # the Bregman divergence of the log normaliser A:
    # KL = A(eta_q) - A(eta_p) - <eta_q - eta_p, grad A(eta_p)>
    if type(p) is not type(q):
        raise NotImplementedError(
            f"kl_divergence({type(p).__name__}, {type(q).__name__}): the Bregman-divergence "
            "fallback works only within one exponential family; register_kl a closed form"
        )
    p_nparams = [np_.detach().requires_grad_() for np_ in p._natural_params]
    q_nparams = q._natural_params
    with torch.enable_grad():
        lg_normal = p._log_normalizer(*p_nparams)
        gradients = torch.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        term = (qnp - pnp) * g
        result = result - _sum_rightmost(term, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * torch.log(p.rate / q.rate)
    t2 = torch.lgamma(q.concentration) - torch.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * torch.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = torch.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + euler_constant)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * torch.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


def _check_mvn_event_shapes(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            f"kl_divergence: the multivariate normals have event shapes "
            f"{tuple(p.event_shape)} and {tuple(q.event_shape)}, which differ"
        )


def _half_log_det_tril(L):
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _lowrank_half_log_det(d):
    return 0.5 * _batch_lowrank_logdet(
        d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril
    )


def _lowrank_mahalanobis(q, diff):
    """``diff^T Sigma_q^-1 diff`` for ``q`` low-rank."""
    return _batch_lowrank_mahalanobis(
        q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, diff, q._capacitance_tril
    )


def _lowrank_inverse_trace(q, factor=None, diag=None):
    """``tr(Sigma_q^-1 Sigma_p)`` for ``q`` low-rank, with ``Sigma_p = S S^T + diag(d)`` given
    by ``factor`` ``S`` (``(..., n, k)``) and/or ``diag`` ``d`` (``(..., n)``). Woodbury:
    ``Sigma_q^-1 = D^-1 - A^T A`` with ``A = C^-1/2 W^T D^-1``, ``C`` the capacitance."""
    W, D = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    A = torch.linalg.solve_triangular(
        q._capacitance_tril, W.transpose(-2, -1) / D.unsqueeze(-2), upper=False
    )
    total = 0
    if factor is not None:
        total = total + (factor.pow(2) / D.unsqueeze(-1)).sum((-2, -1))
        total = total - _batch_trace_XXT(torch.matmul(A, factor))
    if diag is not None:
        total = total + (diag / D).sum(-1) - (A.pow(2) * diag.unsqueeze(-2)).sum((-2, -1))
    return total


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    # 0.5 [tr(Sq^-1 Sp) + M - k] + log det Lq - log det Lp, through Cholesky factors
    _check_mvn_event_shapes(p, q)
    n = p.event_shape[0]
    half_term1 = _half_log_det_tril(q._unbroadcasted_scale_tril) - _half_log_det_tril(
        p._unbroadcasted_scale_tril
    )
    batch = torch.broadcast_shapes(
        q._unbroadcasted_scale_tril.shape[:-2], p._unbroadcasted_scale_tril.shape[:-2]
    )
    Lq = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    Lp = p._unbroadcasted_scale_tril.expand(batch + (n, n))
    term2 = _batch_trace_XXT(torch.linalg.solve_triangular(Lq, Lp, upper=False))
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    # Woodbury for q's inverse, the determinant lemma for both log-determinants
    _check_mvn_event_shapes(p, q)
    n = p.event_shape[0]
    term1 = _lowrank_half_log_det(q) - _lowrank_half_log_det(p)
    term2 = _lowrank_inverse_trace(q, p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    return term1 + 0.5 * (term2 + term3 - n)


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _check_mvn_event_shapes(p, q)
    n = p.event_shape[0]
    term1 = _lowrank_half_log_det(q) - _half_log_det_tril(p._unbroadcasted_scale_tril)
    term2 = _lowrank_inverse_trace(q, factor=p._unbroadcasted_scale_tril)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    return term1 + 0.5 * (term2 + term3 - n)


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _check_mvn_event_shapes(p, q)
    n = p.event_shape[0]
    term1 = _half_log_det_tril(q._unbroadcasted_scale_tril) - _lowrank_half_log_det(p)
    Lq = q._unbroadcasted_scale_tril
    W, D = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    # tr(Sigma_q^-1 (W W^T + diag(D))) = ||Lq^-1 W||^2 + sum_i D_i ||Lq^-1 e_i||^2
    n_ = Lq.shape[-1]
    eye = torch.eye(n_, dtype=Lq.dtype, device=Lq.device)
    Lq_inv = torch.linalg.solve_triangular(Lq, eye.expand(Lq.shape), upper=False)
    term2 = _batch_trace_XXT(torch.matmul(Lq_inv, W)) + (Lq_inv.pow(2) * D.unsqueeze(-2)).sum(
        (-2, -1)
    )
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    return term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    t1 = q.alpha * scale_ratio.log()
    t2 = -alpha_ratio.log()
    result = t1 + t2 + alpha_ratio - 1
    return result.masked_fill(p.scale < q.scale, math.inf)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions needs equal transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions needs equal event shapes")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "KL between Independent distributions with different reinterpreted_batch_ndims"
        )
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


################################################################################
# Across families. Each is -H(p) - E_p[log q(X)] with the moments of p that log q
# needs, or infinity where p's support is not inside q's.
################################################################################


def _log_normal_density_mean(second_moment_about_loc, q):
    """E_p[log q(X)] for q Normal, given E_p[(X - q.loc)^2]."""
    return (
        -q.scale.log()
        - 0.5 * math.log(2 * math.pi)
        - second_moment_about_loc / (2 * q.scale.pow(2))
    )


def _log_gamma_density_mean(mean, mean_log, q):
    """E_p[log q(X)] for q Gamma, given E_p[X] and E_p[log X]."""
    return (
        q.concentration * q.rate.log()
        - torch.lgamma(q.concentration)
        + (q.concentration - 1) * mean_log
        - q.rate * mean
    )


def _log_gumbel_density_mean(mean, mean_exp_neg, q):
    """E_p[log q(X)] for q Gumbel, given E_p[X] and E_p[exp(-(X - q.loc) / q.scale)]."""
    return -q.scale.log() - (mean - q.loc) / q.scale - mean_exp_neg


def _log_cb_density_mean(mean, q):
    """E_p[log q(X)] for q ContinuousBernoulli, given E_p[X]."""
    return mean * q.logits + torch.log1p(-q.probs) + q._log_norm()


# p puts mass where q has none: the divergence is infinite.
_INFINITE_KL = {
    Beta: (Pareto,),
    ContinuousBernoulli: (Pareto,),
    Exponential: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gamma: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gumbel: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Laplace: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Normal: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Pareto: (Beta, ContinuousBernoulli, Uniform),
    Poisson: (Bernoulli, Binomial),
}


def _kl_infinity(p, q):
    return _infinite_like(p.mean)


for _type_p, _types_q in _INFINITE_KL.items():
    for _type_q in _types_q:
        register_kl(_type_p, _type_q)(_kl_infinity)


@register_kl(Beta, Normal)
@register_kl(ContinuousBernoulli, Normal)
@register_kl(Gamma, Normal)
@register_kl(Gumbel, Normal)
@register_kl(Uniform, Normal)
def _kl_normal_from_moments(p, q):
    """KL(p || q) for q Normal, from the entropy, mean and variance of p."""
    second = p.variance + (p.mean - q.loc).pow(2)
    return -p.entropy() - _log_normal_density_mean(second, q)


@register_kl(Beta, Exponential)
@register_kl(ContinuousBernoulli, Exponential)
@register_kl(Gamma, Exponential)
def _kl_exponential_from_mean(p, q):
    """KL(p || q) for q Exponential, from the entropy and mean of p."""
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Uniform)
@register_kl(ContinuousBernoulli, Uniform)
def _kl_unit_interval_uniform(p, q):
    """KL(p || q) for p on [0, 1] and q Uniform."""
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low > 0) | (q.high < 1), math.inf)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - _log_cb_density_mean(p.mean, q)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    mean_log = torch.digamma(p.concentration1) - torch.digamma(p.concentration1 + p.concentration0)
    return -p.entropy() - _log_gamma_density_mean(p.mean, mean_log, q)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    mean_log = -euler_constant - p.rate.log()
    return -p.entropy() - _log_gamma_density_mean(p.rate.reciprocal(), mean_log, q)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    # E[exp(-X / b)] = rate / (rate + 1 / b) for X ~ Exponential(rate)
    mean_exp_neg = torch.exp(q.loc / q.scale) * p.rate / (p.rate + q.scale.reciprocal())
    return -p.entropy() - _log_gumbel_density_mean(p.rate.reciprocal(), mean_exp_neg, q)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    second = p.rate.pow(-2) + (p.rate.reciprocal() - q.loc).pow(2)
    return -p.entropy() - _log_normal_density_mean(second, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    # E[exp(-X / b)] = (rate / (rate + 1 / b))^a, the moment generating function
    mgf = (p.rate / (p.rate + q.scale.reciprocal())).pow(p.concentration)
    mean_exp_neg = torch.exp(q.loc / q.scale) * mgf
    return -p.entropy() - _log_gumbel_density_mean(p.mean, mean_exp_neg, q)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    second = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -p.entropy() - _log_normal_density_mean(second, q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # E[exp(-(X - m) / b)] for X ~ Normal(mu, s): exp(-(mu - m) / b + s^2 / (2 b^2))
    mean_exp_neg = torch.exp(-(p.loc - q.loc) / q.scale + p.scale.pow(2) / (2 * q.scale.pow(2)))
    return -p.entropy() - _log_gumbel_density_mean(p.loc, mean_exp_neg, q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|X - m| for X ~ Normal(mu, s): the mean of a folded normal
    d = p.loc - q.loc
    s = p.scale
    mean_abs = s * math.sqrt(2 / math.pi) * torch.exp(-d.pow(2) / (2 * s.pow(2))) + d * torch.erf(
        d / (s * math.sqrt(2))
    )
    return -p.entropy() + torch.log(2 * q.scale) + mean_abs / q.scale


def _pareto_mean_log(p):
    return p.scale.log() + p.alpha.reciprocal()


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    return _kl_exponential_from_mean(p, q).masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    result = -p.entropy() - _log_gamma_density_mean(p.mean, _pareto_mean_log(p), q)
    return result.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    return _kl_normal_from_moments(p, q).masked_fill(p.alpha <= 2, math.inf)


def _uniform_mean_log(a, b):
    """E[log X] for X ~ Uniform(a, b), a >= 0: (b log b - b - a log a + a) / (b - a)."""
    return (torch.xlogy(b, b) - b - torch.xlogy(a, a) + a) / (b - a)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    common = (p.high - p.low).clamp(min=0)
    lo = p.low.clamp(min=0, max=1)
    hi = p.high.clamp(min=0, max=1)
    mean_log_x = _uniform_mean_log(lo, hi)
    mean_log_1mx = _uniform_mean_log(1 - hi, 1 - lo)
    log_q = (
        (q.concentration1 - 1) * mean_log_x
        + (q.concentration0 - 1) * mean_log_1mx
        - (
            torch.lgamma(q.concentration1)
            + torch.lgamma(q.concentration0)
            - torch.lgamma(q.concentration1 + q.concentration0)
        )
    )
    result = -common.log() - log_q
    return result.masked_fill((p.high > 1) | (p.low < 0), math.inf)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - _log_cb_density_mean(p.mean, q)
    return result.masked_fill((p.high > 1) | (p.low < 0), math.inf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    return _kl_exponential_from_mean(p, q).masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    # where p.low < 0 the result is infinite; clamp so the formula stays finite there
    lo = p.low.clamp(min=0)
    mean_log = _uniform_mean_log(lo, torch.where(p.high > lo, p.high, lo + 1))
    result = -p.entropy() - _log_gamma_density_mean(p.mean, mean_log, q)
    return result.masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    # E[exp(-(X - m) / b)] = b (exp(-(a - m) / b) - exp(-(c - m) / b)) / (c - a)
    e_low = torch.exp(-(p.low - q.loc) / q.scale)
    e_high = torch.exp(-(p.high - q.loc) / q.scale)
    mean_exp_neg = q.scale * (e_low - e_high) / (p.high - p.low)
    return -p.entropy() - _log_gumbel_density_mean(p.mean, mean_exp_neg, q)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    # where p.low < q.scale the result is infinite; clamp so the formula stays finite there
    lo = torch.maximum(p.low, q.scale)
    mean_log = _uniform_mean_log(lo, torch.where(p.high > lo, p.high, lo + 1))
    log_q = q.alpha.log() + q.alpha * q.scale.log() - (q.alpha + 1) * mean_log
    result = -p.entropy() - log_q
    return result.masked_fill(p.low < q.scale, math.inf)
