"""Lua's optim.lswolfe (from minFunc): a line search satisfying the strong Wolfe conditions."""

from ._utils import as_float, evaluate
from .polyinterp import _div, polyinterp


def _evaluate(opfunc, x, d):
    f, g = evaluate("lswolfe", opfunc, x)
    g = g.clone()  # opfunc may hand back the same gradient buffer every call
    return as_float("lswolfe", f), g, g.dot(d).item()


def lswolfe(opfunc, x, t, d, f, g, gtd, options=None):
    """Search along d from x for a step t with sufficient decrease and small slope.

    f, g and gtd are f(x), df/dx at x and ``g . d`` (negative: d must descend). options (a dict):
    c1 1e-4 (sufficient decrease), c2 0.9 (curvature), tolX 1e-9, maxIter 20.
    Returns ``(f_new, g_new, x, t, lsFuncEval)`` with x moved in place to ``x + t*d``.
    """
    options = options or {}
    c1 = options.get("c1", 1e-4)
    c2 = options.get("c2", 0.9)
    tolX = options.get("tolX", 1e-9)
    maxIter = options.get("maxIter", 20)
    f, gtd = float(f), float(gtd)

    x_init = x.clone()
    x.add_(d, alpha=t)
    f_new, g_new, gtd_new = _evaluate(opfunc, x, d)
    lsFuncEval = 1

    # Bracket an interval holding a point that satisfies the Wolfe conditions.
    LSiter, t_prev, done = 0, 0.0, False
    f_prev, g_prev, gtd_prev = f, g.clone(), gtd
    bracket = fvals = gvals = None
    while LSiter < maxIter:
        if f_new > f + c1 * t * gtd or (LSiter > 1 and f_new >= f_prev):
            bracket, fvals, gvals = [t_prev, t], [f_prev, f_new], [g_prev, g_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, fvals, gvals = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, fvals, gvals = [t_prev, t], [f_prev, f_new], [g_prev, g_new]
            break
        # extrapolate: the cubic's minimum within [t + 0.01 (t - t_prev), 10 t]
        previous, t_prev = t_prev, t
        t = polyinterp(
            [[previous, f_prev, gtd_prev], [t, f_new, gtd_new]], t + 0.01 * (t - previous), t * 10
        )
        f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
        x.copy_(x_init).add_(d, alpha=t)
        f_new, g_new, gtd_new = _evaluate(opfunc, x, d)
        lsFuncEval += 1
        LSiter += 1
    if LSiter == maxIter:
        bracket, fvals, gvals = [0.0, t], [f, f_new], [g, g_new]

    # Zoom: shrink the bracket until a point satisfies the conditions.
    insufProgress = False
    while not done and LSiter < maxIter:
        LOpos = 0 if fvals[0] <= fvals[1] else 1
        HIpos = 1 - LOpos
        f_LO = fvals[LOpos]
        t = polyinterp([[bracket[i], fvals[i], gvals[i].dot(d).item()] for i in (0, 1)])
        bmin, bmax = min(bracket), max(bracket)
        if _div(min(bmax - t, t - bmin), bmax - bmin) < 0.1:
            # too close to an end: once in a row is allowed, then move 10% inside
            if insufProgress or t >= bmax or t <= bmin:
                if abs(t - bmax) < abs(t - bmin):
                    t = bmax - 0.1 * (bmax - bmin)
                else:
                    t = bmin + 0.1 * (bmax - bmin)
                insufProgress = False
            else:
                insufProgress = True
        else:
            insufProgress = False

        x.copy_(x_init).add_(d, alpha=t)
        f_new, g_new, gtd_new = _evaluate(opfunc, x, d)
        lsFuncEval += 1
        LSiter += 1
        if f_new > f + c1 * t * gtd or f_new >= f_LO:
            bracket[HIpos], fvals[HIpos], gvals[HIpos] = t, f_new, g_new
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[HIpos] - bracket[LOpos]) >= 0:
                bracket[HIpos], fvals[HIpos], gvals[HIpos] = (
                    bracket[LOpos],
                    fvals[LOpos],
                    gvals[LOpos],
                )
            bracket[LOpos], fvals[LOpos], gvals[LOpos] = t, f_new, g_new
        if not done and abs((bracket[0] - bracket[1]) * gtd_new) < tolX:
            break

    LOpos = min(range(len(fvals)), key=lambda i: fvals[i])
    t = bracket[LOpos]
    x.copy_(x_init).add_(d, alpha=t)
    return fvals[LOpos], gvals[LOpos], x, t, lsFuncEval
