"""Lua's optim.lbfgs: limited-memory BFGS after minFunc (Mark Schmidt)."""

from ._utils import as_float, check_x, evaluate, number, tables


def lbfgs(opfunc, x, config=None, state=None):
    """Up to maxIter L-BFGS iterations; returns ``(x, f_hist, nEvals)``.

    f_hist lists f at the start and after every step; nEvals counts this call's evaluations.
    config keys: maxIter 20, maxEval 1.25*maxIter, tolFun 1e-5 (stop when sum|g| is below),
    tolX 1e-9 (stop on small steps or f changes), nCorrection 100 (history length),
    lineSearch None (a function like ``optim.lswolfe``; else fixed steps of learningRate),
    lineSearchOptions None, learningRate 1, verbose False. state keeps funcEval, nIter and
    the history (d, t, old_dirs, old_stps, Hdiag, g_old, f_old), so a later call resumes.
    """
    config, state = tables(config, state)
    check_x("lbfgs", x)
    maxIter = number("lbfgs", config, "maxIter", 20)
    maxEval = number("lbfgs", config, "maxEval", maxIter * 1.25)
    tolFun = number("lbfgs", config, "tolFun", 1e-5)
    tolX = number("lbfgs", config, "tolX", 1e-9)
    nCorrection = number("lbfgs", config, "nCorrection", 100)
    lineSearch = config.get("lineSearch")
    lineSearchOpts = config.get("lineSearchOptions")
    learningRate = number("lbfgs", config, "learningRate", 1)
    verbose = print if config.get("verbose") else (lambda *args: None)
    if lineSearch is not None and not callable(lineSearch):
        raise TypeError(f"optim.lbfgs: config['lineSearch'] must be a function, got {lineSearch!r}")
    state["funcEval"] = state.get("funcEval") or 0
    state["nIter"] = state.get("nIter") or 0

    f, g = evaluate("lbfgs", opfunc, x)
    f, g = as_float("lbfgs", f), g.clone()
    f_hist = [f]
    currentFuncEval = 1
    state["funcEval"] += 1
    if g.abs().sum().item() <= tolFun:
        verbose("<optim.lbfgs> optimality condition below tolFun")
        return x, f_hist, currentFuncEval

    d, t = state.get("d"), state.get("t")
    old_dirs, old_stps = state.get("old_dirs"), state.get("old_stps")
    Hdiag, g_old, f_old = state.get("Hdiag"), state.get("g_old"), state.get("f_old")

    nIter = 0
    while nIter < maxIter:
        nIter += 1
        state["nIter"] += 1

        # descent direction
        if state["nIter"] == 1:
            d = g.neg()
            old_dirs, old_stps, Hdiag = [], [], 1.0
        else:
            y = g.sub(g_old)
            s = d.mul(t)
            ys = y.dot(s).item()
            if ys > 1e-10:  # curvature is positive: remember the pair (Lua names s 'dir')
                if len(old_dirs) == nCorrection:
                    old_dirs.pop(0)
                    old_stps.pop(0)
                old_dirs.append(s)
                old_stps.append(y)
                Hdiag = ys / y.dot(y).item()
            # two-loop recursion: d = -H g
            k = len(old_dirs)
            ro = [1 / old_stps[i].dot(old_dirs[i]).item() for i in range(k)]
            al = [0.0] * k
            q = g.neg()
            for i in range(k - 1, -1, -1):
                al[i] = old_dirs[i].dot(q).item() * ro[i]
                q.add_(old_stps[i], alpha=-al[i])
            d = q.mul(Hdiag)
            for i in range(k):
                be_i = old_stps[i].dot(d).item() * ro[i]
                d.add_(old_dirs[i], alpha=al[i] - be_i)
        g_old = g.clone()
        f_old = f

        # step length
        gtd = g.dot(d).item()
        if gtd > -tolX:  # no descent along d
            break
        if state["nIter"] == 1:
            t = min(1.0, 1.0 / g.abs().sum().item()) * learningRate
        else:
            t = learningRate

        if lineSearch is not None:
            f, g, x, t, lsFuncEval = lineSearch(opfunc, x, t, d, f, g, gtd, lineSearchOpts)
            f, g = as_float("lbfgs", f), g.clone()
            f_hist.append(f)
        else:
            x.add_(d, alpha=t)
            lsFuncEval = 0
            if nIter != maxIter:  # the last step's value is not needed (stochastic use)
                f, g = evaluate("lbfgs", opfunc, x)
                f, g = as_float("lbfgs", f), g.clone()
                lsFuncEval = 1
                f_hist.append(f)
        currentFuncEval += lsFuncEval
        state["funcEval"] += lsFuncEval

        # stopping tests
        if nIter == maxIter:
            verbose("<optim.lbfgs> reached max number of iterations")
            break
        if currentFuncEval >= maxEval:
            verbose("<optim.lbfgs> max nb of function evals")
            break
        if g.abs().sum().item() <= tolFun:
            verbose("<optim.lbfgs> optimality condition below tolFun")
            break
        if d.abs().sum().item() * abs(t) <= tolX:
            verbose("<optim.lbfgs> step size below tolX")
            break
        if abs(f - f_old) < tolX:
            verbose("<optim.lbfgs> function value changing less than tolX")
            break

    state.update(
        d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, Hdiag=Hdiag, g_old=g_old, f_old=f_old
    )
    return x, f_hist, currentFuncEval
