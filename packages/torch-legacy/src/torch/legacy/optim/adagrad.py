"""Lua's optim.adagrad: per-element rates scaled by the root of the summed squared gradients."""

import torch

from ._utils import check_x, evaluate, number, tables


def adagrad(opfunc, x, config=None, state=None):
    """One AdaGrad step; returns ``(x, f(x) before the step)``.

    config keys: learningRate 1e-3, learningRateDecay 0, weightDecay 0. state keeps
    evalCounter and paramVariance (the sum of squared gradients); the 1e-10 added to its
    root is fixed, as in Lua.
    """
    config, state = tables(config, state)
    check_x("adagrad", x)
    lr = number("adagrad", config, "learningRate", 1e-3)
    lrd = number("adagrad", config, "learningRateDecay", 0)
    wd = number("adagrad", config, "weightDecay", 0)
    state.setdefault("evalCounter", 0)

    fx, dfdx = evaluate("adagrad", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)
    clr = lr / (1 + state["evalCounter"] * lrd)
    if state.get("paramVariance") is None:
        state["paramVariance"] = torch.zeros_like(x)
    state["paramVariance"].addcmul_(dfdx, dfdx)
    std = state["paramVariance"].sqrt().add_(1e-10)
    x.addcdiv_(dfdx, std, value=-clr)
    state["evalCounter"] += 1
    return x, fx
