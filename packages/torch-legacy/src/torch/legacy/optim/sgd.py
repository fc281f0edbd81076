"""Lua's optim.sgd: stochastic gradient descent with momentum, Nesterov and per-element rates."""

from ._utils import check_x, evaluate, number, per_element, tables


def sgd(opfunc, x, config=None, state=None):
    """One SGD step; returns ``(x, f(x) before the step)``.

    config keys (Lua's defaults): learningRate 1e-3, learningRateDecay 0, weightDecay 0,
    weightDecays None (a tensor, used when weightDecay is 0), momentum 0, dampening
    (= momentum), nesterov False, learningRates None (a tensor). state (defaults to config)
    keeps evalCounter and the momentum buffer dfdx. x is updated in place.
    """
    config, state = tables(config, state)
    check_x("sgd", x)
    lr = number("sgd", config, "learningRate", 1e-3)
    lrd = number("sgd", config, "learningRateDecay", 0)
    wd = number("sgd", config, "weightDecay", 0)
    mom = number("sgd", config, "momentum", 0)
    damp = number("sgd", config, "dampening", mom)
    nesterov = bool(config.get("nesterov") or False)
    lrs = per_element("sgd", config, "learningRates", x)
    wds = per_element("sgd", config, "weightDecays", x)
    state.setdefault("evalCounter", 0)
    if nesterov and not (mom > 0 and damp == 0):
        raise ValueError(
            "optim.sgd: config['nesterov'] needs config['momentum'] > 0 and "
            f"config['dampening'] == 0, got momentum={mom}, dampening={damp}"
        )

    fx, dfdx = evaluate("sgd", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)
    elif wds is not None:
        dfdx = dfdx.add(wds * x)

    if mom != 0:
        if state.get("dfdx") is None:
            state["dfdx"] = dfdx.clone()
        else:
            state["dfdx"].mul_(mom).add_(dfdx, alpha=1 - damp)
        dfdx = dfdx.add(state["dfdx"], alpha=mom) if nesterov else state["dfdx"]

    clr = lr / (1 + state["evalCounter"] * lrd)
    x.add_(dfdx if lrs is None else lrs * dfdx, alpha=-clr)
    state["evalCounter"] += 1
    return x, fx
