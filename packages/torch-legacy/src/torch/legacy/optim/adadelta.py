"""Lua's optim.adadelta (Zeiler 2012): no learning rate, steps scaled by past steps' RMS."""

import torch

from ._utils import check_x, evaluate, number, tables


def adadelta(opfunc, x, config=None, state=None):
    """One AdaDelta step; returns ``(x, f(x) before the step)``.

    config keys: rho 0.9, eps 1e-6, weightDecay 0. state keeps evalCounter, paramVariance
    (running mean of squared gradients) and accDelta (running mean of squared steps).
    """
    config, state = tables(config, state)
    check_x("adadelta", x)
    rho = number("adadelta", config, "rho", 0.9)
    eps = number("adadelta", config, "eps", 1e-6)
    wd = number("adadelta", config, "weightDecay", 0)
    state.setdefault("evalCounter", 0)

    fx, dfdx = evaluate("adadelta", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)
    if state.get("paramVariance") is None:
        state["paramVariance"] = torch.zeros_like(x)
        state["accDelta"] = torch.zeros_like(x)
    state["paramVariance"].mul_(rho).addcmul_(dfdx, dfdx, value=1 - rho)
    std = state["paramVariance"].add(eps).sqrt()
    delta = state["accDelta"].add(eps).sqrt().div_(std).mul_(dfdx)
    x.sub_(delta)
    state["accDelta"].mul_(rho).addcmul_(delta, delta, value=1 - rho)
    state["evalCounter"] += 1
    return x, fx
