"""Lua's optim.nag: SGD with Nesterov's accelerated gradient (Sutskever et al., ICML 2013)."""

from ._utils import check_x, evaluate, number, per_element, tables


def nag(opfunc, x, config=None, state=None):
    """One NAG step; returns ``(x, f)`` with f evaluated at the look-ahead point.

    config keys: learningRate 1e-3, learningRateDecay 0, weightDecay 0, momentum 0.9 (must be
    > 0), learningRates None. state keeps evalCounter, the velocity dfdx and x_copy. The
    gradient is taken at ``x + momentum * dfdx``; x is updated in place.
    """
    config, state = tables(config, state)
    check_x("nag", x)
    lr = number("nag", config, "learningRate", 1e-3)
    lrd = number("nag", config, "learningRateDecay", 0)
    wd = number("nag", config, "weightDecay", 0)
    mom = number("nag", config, "momentum", 0.9)
    lrs = per_element("nag", config, "learningRates", x)
    state.setdefault("evalCounter", 0)
    if mom <= 0:
        raise ValueError(
            "optim.nag: config['momentum'] must be positive for Nesterov Accelerated "
            f"Gradient, got {mom}"
        )

    state["x_copy"] = x.clone()
    if state.get("dfdx") is not None:
        x.add_(state["dfdx"], alpha=mom)  # look ahead along the velocity
    fx, dfdx = evaluate("nag", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)

    clr = lr / (1 + state["evalCounter"] * lrd)
    if state.get("dfdx") is None:
        state["dfdx"] = dfdx.new_zeros(dfdx.shape)
    else:
        state["dfdx"].mul_(mom)
    state["dfdx"].add_(dfdx if lrs is None else lrs * dfdx, alpha=-clr)
    state["x_copy"].add_(state["dfdx"])
    x.copy_(state["x_copy"])
    state["evalCounter"] += 1
    return x, fx
