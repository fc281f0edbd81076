"""Special functions the core lacks, written with tensor ops.

- :func:`gammainc`: the regularised lower incomplete gamma function ``P(a, x)``, by its power
  series where ``x < a + 1`` and by a continued fraction for ``Q = 1 - P`` elsewhere
  (modified Lentz iteration), both with a fixed number of vectorised steps.
"""

import torch

__all__ = []

_STEPS = 200


def _series(a, x):
    # P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))
    term = torch.ones_like(x)
    total = torch.ones_like(x)
    ap = a
    for _ in range(_STEPS):
        ap = ap + 1
        term = term * x / ap
        total = total + term
    return total * torch.exp(a * torch.log(x) - x - torch.lgamma(a + 1))


def _continued_fraction(a, x):
    # Q(a, x) = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...))
    tiny = 1e-300
    b = x + 1 - a
    c = torch.full_like(x, 1 / tiny)
    d = 1 / b
    h = d
    for i in range(1, _STEPS):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = torch.where(d.abs() < tiny, torch.full_like(d, tiny), d)
        c = b + an / c
        c = torch.where(c.abs() < tiny, torch.full_like(c, tiny), c)
        d = 1 / d
        h = h * d * c
    return torch.exp(a * torch.log(x) - x - torch.lgamma(a)) * h


def gammainc(a, x):
    """The regularised lower incomplete gamma function ``P(a, x)`` (0 for ``x <= 0``)."""
    a, x = torch.broadcast_tensors(a, x)
    dtype = x.dtype
    a64, x64 = a.to(torch.float64), x.to(torch.float64)
    pos = x64 > 0
    xs = torch.where(pos, x64, torch.ones_like(x64))
    use_series = xs < a64 + 1
    xs_series = torch.where(use_series, xs, torch.zeros_like(xs) + 0.5)
    xs_cf = torch.where(use_series, a64 + 2, xs)
    p = torch.where(use_series, _series(a64, xs_series), 1 - _continued_fraction(a64, xs_cf))
    return torch.where(pos, p, torch.zeros_like(p)).to(dtype)
