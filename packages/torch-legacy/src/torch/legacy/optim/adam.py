"""Lua's optim.adam (Kingma & Ba): bias-corrected first and second moment estimates."""

import math

import torch

from ._utils import check_x, evaluate, number, tables


def adam(opfunc, x, config=None, state=None):
    """One Adam step; returns ``(x, f(x) before the step)``.

    config keys: learningRate 1e-3, beta1 0.9, beta2 0.999, epsilon 1e-8, weightDecay 0.
    state keeps t (steps taken), m and v. The step is ``lr*sqrt(1-beta2^t)/(1-beta1^t)``
    times ``m / (sqrt(v) + epsilon)``.
    """
    config, state = tables(config, state)
    check_x("adam", x)
    lr = number("adam", config, "learningRate", 1e-3)
    beta1 = number("adam", config, "beta1", 0.9)
    beta2 = number("adam", config, "beta2", 0.999)
    eps = number("adam", config, "epsilon", 1e-8)
    wd = number("adam", config, "weightDecay", 0)

    fx, dfdx = evaluate("adam", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)
    state["t"] = state.get("t") or 0
    if state.get("m") is None:
        state["m"] = torch.zeros_like(x)
        state["v"] = torch.zeros_like(x)
    state["t"] += 1
    state["m"].mul_(beta1).add_(dfdx, alpha=1 - beta1)
    state["v"].mul_(beta2).addcmul_(dfdx, dfdx, value=1 - beta2)
    denom = state["v"].sqrt().add_(eps)
    step = lr * math.sqrt(1 - beta2 ** state["t"]) / (1 - beta1 ** state["t"])
    x.addcdiv_(state["m"], denom, value=-step)
    return x, fx
