"""Samplers the core lacks, written with tensor ops.

- :func:`standard_gamma`: Gamma(alpha, 1) draws by Marsaglia and Tsang's squeeze method
  (boosted for ``alpha < 1``), with a reparameterised gradient from implicit
  differentiation of the CDF: ``dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha)``, where
  ``P`` is the regularised lower incomplete gamma function. ``dP/dalpha`` comes from the
  power series of ``P`` (exact up to rounding) for ``alpha < 20`` and from the
  Wilson-Hilferty cube-root normal approximation (error O(1/alpha^2)) above.
- :func:`binomial`: Binomial(n, p) draws: geometric waiting times when ``n min(p, 1-p)`` is
  small, Hormann's BTRS rejection sampler otherwise.
- :func:`atanh`: the inverse hyperbolic tangent (the core has no ``torch.atanh``).
"""

import math

import torch

__all__ = []

_SERIES_MAX_ALPHA = 20.0


def _marsaglia_tsang(alpha):
    """Gamma(alpha, 1) draws for a float64 tensor ``alpha`` (no gradient)."""
    small = alpha < 1
    a = torch.where(small, alpha + 1, alpha)
    d = a - 1.0 / 3.0
    c = 1.0 / torch.sqrt(9.0 * d)
    out = torch.zeros_like(a)
    todo = torch.ones_like(a, dtype=torch.bool)
    while bool(todo.any()):
        z = torch.randn(a.shape, dtype=a.dtype, device=a.device)
        u = torch.rand(a.shape, dtype=a.dtype, device=a.device)
        v = (1 + c * z) ** 3
        ok = (v > 0) & (
            torch.log(u.clamp(min=1e-300))
            < 0.5 * z * z + d - d * v + d * torch.log(v.clamp(min=1e-300))
        )
        take = todo & ok
        out = torch.where(take, d * v, out)
        todo = todo & ~take
    # boost: Gamma(alpha) = Gamma(alpha + 1) * U^(1/alpha)
    u = torch.rand(a.shape, dtype=a.dtype, device=a.device).clamp(min=1e-300)
    out = torch.where(small, out * torch.exp(torch.log(u) / alpha), out)
    return out


def _dP_dalpha_series(x, alpha):
    """d/dalpha of the regularised lower incomplete gamma P(alpha, x), by its series
    ``P = sum_n exp((alpha + n) log x - x - lgamma(alpha + n + 1))`` (terms peak near
    ``n = x`` and are negligible beyond ``x + 12 sqrt(x) + 20``)."""
    if x.numel() == 0:
        return x
    x_max = float(x.max())
    terms = int(x_max + 12 * math.sqrt(x_max) + 20)
    n = torch.arange(terms, dtype=x.dtype, device=x.device)
    xs = x.unsqueeze(-1)
    an = alpha.unsqueeze(-1) + n
    log_x = torch.log(xs)
    # lgamma(alpha + n + 1) and digamma(alpha + n + 1) by their recurrences from n = 0
    # (cumulative sums; the core's lgamma/digamma cost far more per element)
    a1 = alpha.unsqueeze(-1) + 1
    later = n > 0
    lg = torch.lgamma(a1) + torch.cumsum(torch.where(later, torch.log(an), 0.0), -1)
    dg = torch.digamma(a1) + torch.cumsum(torch.where(later, 1 / an, 0.0), -1)
    log_terms = an * log_x - xs - lg
    return (torch.exp(log_terms) * (log_x - dg)).sum(-1)


def _standard_gamma_grad(x, alpha):
    """dx/dalpha of a Gamma(alpha, 1) draw x held at a fixed CDF level (float64)."""
    x = x.clamp(min=1e-300)
    # Wilson-Hilferty: (x / alpha)^(1/3) ~ Normal(1 - 1/(9 alpha), 1/(9 alpha)); hold the
    # standard normal z fixed and differentiate x = alpha (1 - 1/(9 alpha) + z / sqrt(9 alpha))^3.
    r = torch.pow(x / alpha, 1.0 / 3.0)
    s = torch.sqrt(9 * alpha)
    z = (r - 1 + 1 / (9 * alpha)) * s
    base = 1 - 1 / (9 * alpha) + z / s
    dbase = 1 / (9 * alpha * alpha) - z / (2 * alpha * s)
    out = (base**3 + 3 * alpha * base * base * dbase).reshape(-1)
    use_series = (alpha < _SERIES_MAX_ALPHA).reshape(-1)
    if bool(use_series.any()):
        idx = use_series.nonzero().reshape(-1)
        xa, aa = x.reshape(-1)[idx], alpha.reshape(-1)[idx]
        log_pdf = (aa - 1) * torch.log(xa) - xa - torch.lgamma(aa)
        series = -_dP_dalpha_series(xa, aa) / torch.exp(log_pdf)
        out = out.index_copy(0, idx, series)
    return out.reshape(x.shape)


class _StandardGamma(torch.autograd.Function):
    """Gamma(alpha, 1) draws with the implicit reparameterisation gradient."""

    @staticmethod
    def forward(ctx, alpha):
        a64 = alpha.detach().to(torch.float64)
        x = _marsaglia_tsang(a64)
        tiny = torch.finfo(alpha.dtype).tiny
        x_out = x.to(alpha.dtype).clamp(min=tiny)
        ctx.save_for_backward(a64, x)
        return x_out

    @staticmethod
    def backward(ctx, grad):
        a64, x = ctx.saved_tensors
        dx = _standard_gamma_grad(x, a64).to(grad.dtype)
        return grad * dx


def standard_gamma(alpha):
    """Gamma(alpha, 1) samples, one per entry of ``alpha``; differentiable in ``alpha``."""
    return _StandardGamma.apply(alpha)


def dirichlet(concentration):
    """Dirichlet samples over the last dimension (normalised gamma draws)."""
    g = standard_gamma(concentration)
    tiny = torch.finfo(g.dtype).tiny
    out = g / g.sum(-1, keepdim=True)
    return out.clamp(min=tiny, max=1 - torch.finfo(g.dtype).eps)


def _binomial_inversion(n, p):
    """Count geometric waiting times that fit into n trials (p <= 0.5, n p small)."""
    log_q = torch.log1p(-p)
    count = torch.zeros_like(n)
    total = torch.zeros_like(n)
    active = (n > 0) & (p > 0)
    while bool(active.any()):
        u = torch.rand(n.shape, dtype=n.dtype, device=n.device).clamp(min=1e-300)
        g = torch.ceil(torch.log(u) / log_q)
        total = torch.where(active, total + g, total)
        active = active & (total <= n)
        count = torch.where(active, count + 1, count)
    return count


def _binomial_btrs(n, p):
    """Hormann's BTRS: transformed rejection with a squeeze (p <= 0.5, n p >= 10)."""
    q = 1 - p
    spq = torch.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = torch.log(p / q)
    m = torch.floor((n + 1) * p)
    h = torch.lgamma(m + 1) + torch.lgamma(n - m + 1)
    out = torch.zeros_like(n)
    todo = torch.ones_like(n, dtype=torch.bool)
    while bool(todo.any()):
        u = torch.rand(n.shape, dtype=n.dtype, device=n.device) - 0.5
        v = torch.rand(n.shape, dtype=n.dtype, device=n.device)
        us = 0.5 - u.abs()
        k = torch.floor((2 * a / us + b) * u + c)
        inside = (k >= 0) & (k <= n)
        quick = inside & (us >= 0.07) & (v <= v_r)
        log_v = torch.log(v * alpha / (a / (us * us) + b))
        kk = k.clamp(min=0)
        kk = torch.where(kk > n, n, kk)
        exact = inside & (
            log_v <= h - torch.lgamma(kk + 1) - torch.lgamma(n - kk + 1) + (kk - m) * lpq
        )
        take = todo & (quick | exact)
        out = torch.where(take, k, out)
        todo = todo & ~take
    return out


def binomial(total_count, probs):
    """Binomial(total_count, probs) draws (float tensors of one shape), without gradient."""
    n = total_count.detach().to(torch.float64)
    p = probs.detach().to(torch.float64)
    flip = p > 0.5
    pp = torch.where(flip, 1 - p, p)
    big = n * pp >= 10
    safe_p = torch.where(big, pp, torch.full_like(pp, 0.25))
    safe_n = torch.where(big, n, torch.full_like(n, 100.0))
    out = torch.zeros_like(n)
    if bool(big.any()):
        out = torch.where(big, _binomial_btrs(safe_n, safe_p), out)
    if bool((~big).any()):
        small_n = torch.where(big, torch.zeros_like(n), n)
        small_p = torch.where(big, torch.zeros_like(pp), pp)
        out = torch.where(big, out, _binomial_inversion(small_n, small_p))
    out = torch.where(flip, n - out, out)
    return out.to(probs.dtype)


def atanh(x):
    """The inverse hyperbolic tangent ``0.5 * log((1 + x) / (1 - x))``."""
    return 0.5 * (torch.log1p(x) - torch.log1p(-x))


def log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0``."""
    return torch.where(x > -math.log(2.0), torch.log(-torch.expm1(x)), torch.log1p(-torch.exp(x)))
