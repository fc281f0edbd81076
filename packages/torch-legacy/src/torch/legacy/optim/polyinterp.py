"""Lua's optim.polyinterp (from minFunc): minimum of the polynomial through points (t, f, f')."""

import cmath
import math

import torch


def _div(a, b):
    """IEEE division, as Lua computes it: x/0 is +-inf, 0/0 is nan."""
    if b != 0:
        return a / b
    return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1, b)


def _roots(coeffs):
    """Complex roots of sum(coeffs[i] * x^(n-i)), highest power first; none if all are zero."""
    c = [0.0 if abs(v) < 1e-12 else v for v in coeffs]
    while c and c[0] == 0:
        c.pop(0)
    zeros_at_origin = 0
    while c and c[-1] == 0:
        c.pop()
        zeros_at_origin += 1
    if not c:
        return []
    roots = [0j] * zeros_at_origin
    degree = len(c) - 1
    if degree == 1:
        roots.append(complex(-c[1] / c[0]))
    elif degree == 2:
        a, b, cc = c
        disc = b * b - 4 * a * cc
        if disc >= 0:  # real roots come out with an imaginary part of exactly 0
            s = math.sqrt(disc)
            roots += [complex((-b + s) / (2 * a)), complex((-b - s) / (2 * a))]
        else:
            s = cmath.sqrt(disc)
            roots += [(-b + s) / (2 * a), (-b - s) / (2 * a)]
    elif degree > 2:
        roots += _durand_kerner([v / c[0] for v in c])
    return roots


def _durand_kerner(monic):
    """Roots of a monic polynomial by simultaneous (Weierstrass) iteration; near-real ones snap
    to the real axis so that the candidates test below can keep them."""
    n = len(monic) - 1
    radius = 1 + max(abs(v) for v in monic[1:])
    z = [radius * cmath.exp(2j * math.pi * (k + 0.25) / n) for k in range(n)]
    for _ in range(500):
        moved = 0.0
        for k in range(n):
            value = 0j
            for coeff in monic:
                value = value * z[k] + coeff
            denom = 1 + 0j
            for j in range(n):
                if j != k:
                    denom *= z[k] - z[j]
            step = value / denom if denom != 0 else 0j
            z[k] -= step
            moved = max(moved, abs(step))
        if moved < 1e-14 * radius:
            break
    return [complex(r.real, 0.0) if abs(r.imag) <= 1e-9 * max(1.0, abs(r)) else r for r in z]


def _cubic_minimum(points):
    """The common case: 2 points with values and slopes, no bounds (closed form)."""
    lo, hi = sorted(points, key=lambda p: p[0])  # stable: the first smallest position is 'lo'
    (x1, f1, g1), (x2, f2, g2) = lo, hi
    d1 = g1 + g2 - 3 * _div(f1 - f2, x1 - x2)
    disc = d1 * d1 - g1 * g2
    if not disc >= 0:  # no real d2 (Lua tests sqrt's result for nan)
        return (x1 + x2) / 2
    d2 = math.sqrt(disc)
    t = x2 - (x2 - x1) * _div(g2 + d2 - d1, g2 - g1 + 2 * d2)
    if math.isnan(t):
        return (x1 + x2) / 2
    return min(max(t, x1), x2)


def polyinterp(points, xminBound=None, xmaxBound=None):
    """Position of the minimum of the polynomial interpolating N points ``(t, f(t), f'(t))``.

    points: an (N, 3) tensor or nested list. The candidates are the bounds (default: the
    smallest and largest t), the points and the polynomial's real critical points inside the
    bounds; the one with the lowest interpolated value wins, and the bounds' midpoint is
    returned when none qualifies. Returns a float (Lua also returned fmin in the general case).
    """
    if isinstance(points, torch.Tensor):
        points = points.tolist()
    points = [[float(v) for v in p] for p in points]
    if not points or any(len(p) != 3 for p in points):
        raise ValueError(f"optim.polyinterp: points must be N rows of (t, f, df), got {points!r}")
    n = len(points)
    if n == 2 and xminBound is None and xmaxBound is None:
        return _cubic_minimum(points)

    order = 2 * n - 1
    ts = [p[0] for p in points]
    lo = min(ts) if xminBound is None else float(xminBound)
    hi = max(ts) if xmaxBound is None else float(xmaxBound)

    # Solve for the coefficients (highest power first) matching every value and slope.
    rows = [[t**j for j in range(order, -1, -1)] for t in ts]
    rows += [[j * t ** (j - 1) if j > 0 else 0.0 for j in range(order, -1, -1)] for t in ts]
    rhs = [p[1] for p in points] + [p[2] for p in points]
    A = torch.tensor(rows, dtype=torch.float64)
    b = torch.tensor(rhs, dtype=torch.float64).reshape(-1, 1)
    try:
        params = torch.linalg.solve(A, b).reshape(-1).tolist()
    except Exception:  # coincident points: no unique polynomial, so bisect
        return (lo + hi) / 2
    params = [0.0 if abs(v) <= 1e-12 else v for v in params]
    dparams = [params[i] * (order - i) for i in range(order)]

    candidates = [complex(lo), complex(hi)] + [complex(t) for t in ts]
    if all(math.isfinite(v) for v in dparams):
        candidates += _roots(dparams)

    best, fmin = (lo + hi) / 2, math.inf
    for c in candidates:
        if c.imag == 0 and lo <= c.real <= hi:
            value = 0.0
            for coeff in params:
                value = value * c.real + coeff
            if value < fmin:
                best, fmin = c.real, value
    return best
