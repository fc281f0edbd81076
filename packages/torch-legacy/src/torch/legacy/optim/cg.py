"""Lua's optim.cg: nonlinear conjugate gradients, a rewrite of Carl E. Rasmussen's minimize.m."""

import math

import torch

from ._utils import as_float, check_x, evaluate, number, tables
from .polyinterp import _div


def _finite(v):
    return not (math.isnan(v) or math.isinf(v))


def cg(opfunc, x, config=None, state=None):
    """Polak-Ribiere conjugate gradients with a cubic-interpolation line search (Wolfe-Powell
    conditions); returns ``(x, f_hist, nEvals)``.

    f_hist lists f at the start and after each successful line search. The budget is counted in
    function evaluations. config keys: rho 0.01 and sig 0.5 (the Wolfe-Powell constants),
    int 0.1 (do not evaluate within 0.1 of the bracket's ends), ext 3.0 (extrapolate at most
    3 times the step), maxIter 20 (evaluations per line search), ratio 100 (largest slope
    ratio), maxEval 1.25*maxIter. state keeps the work tensors df0, df1, df2, s and x0.
    A failed line search ends the call after a second failure in a row, as in minimize.m
    (Lua's 0 is true, so its port stopped at the first one).
    """
    config, state = tables(config, state)
    check_x("cg", x)
    rho = number("cg", config, "rho", 0.01)
    sig = number("cg", config, "sig", 0.5)
    interp = number("cg", config, "int", 0.1)
    ext = number("cg", config, "ext", 3.0)
    maxIter = number("cg", config, "maxIter", 20)
    ratio = number("cg", config, "ratio", 100)
    maxEval = number("cg", config, "maxEval", maxIter * 1.25)
    red = 1.0

    def call():
        f, g = evaluate("cg", opfunc, x)
        return as_float("cg", f), g.clone()

    i = 0
    ls_failed = False
    fx = []
    f1, df1 = call()
    fx.append(f1)
    i += 1
    s = df1.neg()  # initial search direction: steepest descent
    d1 = -s.dot(s).item()  # slope
    z1 = red / (1 - d1)  # initial step
    x0, df0 = torch.zeros_like(x), torch.zeros_like(x)

    while i < abs(maxEval):
        x0.copy_(x)
        f0 = f1
        df0.copy_(df1)
        x.add_(s, alpha=z1)
        f2, df2 = call()
        i += 1
        d2 = df2.dot(s).item()
        f3, d3, z3 = f1, d1, -z1  # point 3 starts equal to point 1
        m = min(maxIter, maxEval - i)
        success = False
        limit = -1.0
        while True:
            # interpolate back while the Wolfe-Powell conditions fail
            while (f2 > f1 + z1 * rho * d1 or d2 > -sig * d1) and m > 0:
                limit = z1
                if f2 > f1:  # quadratic fit
                    z2 = z3 - _div(0.5 * d3 * z3 * z3, d3 * z3 + f2 - f3)
                else:  # cubic fit
                    A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
                    B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
                    disc = B * B - A * d2 * z3 * z3
                    z2 = (math.sqrt(disc) - B) / A if disc >= 0 and A != 0 else math.nan
                if not _finite(z2):
                    z2 = z3 / 2  # bisect when the fit is numerically unusable
                z2 = max(min(z2, interp * z3), (1 - interp) * z3)
                z1 += z2
                x.add_(s, alpha=z2)
                f2, df2 = call()
                i += 1
                m -= 1
                d2 = df2.dot(s).item()
                z3 -= z2
            if f2 > f1 + z1 * rho * d1 or d2 > -sig * d1:
                break  # failure
            if d2 > sig * d1:
                success = True
                break
            if m == 0:
                break  # out of evaluations
            # extrapolate with a cubic
            A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
            B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
            disc = B * B - A * d2 * z3 * z3
            denom = B + math.sqrt(disc) if disc >= 0 else math.nan
            z2 = -d2 * z3 * z3 / denom if denom != 0 else math.nan
            if not _finite(z2) or z2 < 0:
                z2 = z1 * (ext - 1) if limit < -0.5 else (limit - z1) / 2
            elif limit > -0.5 and z2 + z1 > limit:
                z2 = (limit - z1) / 2
            elif limit < -0.5 and z2 + z1 > z1 * ext:
                z2 = z1 * (ext - 1)
            elif z2 < -z3 * interp:
                z2 = -z3 * interp
            elif limit > -0.5 and z2 < (limit - z1) * (1 - interp):
                z2 = (limit - z1) * (1 - interp)
            f3, d3, z3 = f2, d2, -z2
            z1 += z2
            x.add_(s, alpha=z2)
            f2, df2 = call()
            i += 1
            m -= 1
            d2 = df2.dot(s).item()

        if success:
            f1 = f2
            fx.append(f1)
            # Polak-Ribiere direction
            ss = (df2.dot(df2).item() - df2.dot(df1).item()) / df1.dot(df1).item()
            s.mul_(ss).sub_(df2)
            df1, df2 = df2, df1
            d2 = df1.dot(s).item()
            if d2 > 0:  # not a descent direction: restart along -gradient
                s = df1.neg()
                d2 = -s.dot(s).item()
            z1 = z1 * min(ratio, d1 / (d2 - 1e-320))
            d1 = d2
            ls_failed = False
        else:
            x.copy_(x0)
            f1 = f0
            df1.copy_(df0)
            if ls_failed or i > maxEval:
                break  # two failures in a row, or out of evaluations
            df1, df2 = df2, df1
            s = df1.neg()
            d1 = -s.dot(s).item()
            z1 = 1 / (1 - d1)
            ls_failed = True

    state.update(df0=df0, df1=df1, df2=df2, x0=x0, s=s)
    return x, fx, i
