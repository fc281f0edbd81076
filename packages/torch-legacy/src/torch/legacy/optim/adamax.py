"""Lua's optim.adamax (Kingma & Ba, section 7): Adam with an infinity-norm second moment."""

import torch

from ._utils import check_x, evaluate, number, tables


def adamax(opfunc, x, config=None, state=None):
    """One AdaMax step; returns ``(x, f(x) before the step)``.

    config keys: learningRate 2e-3, beta1 0.9, beta2 0.999, epsilon 1e-38, weightDecay 0.
    state keeps t, m (moving mean of gradients) and u (``max(beta2*u, |g| + epsilon)``).
    """
    config, state = tables(config, state)
    check_x("adamax", x)
    lr = number("adamax", config, "learningRate", 2e-3)
    beta1 = number("adamax", config, "beta1", 0.9)
    beta2 = number("adamax", config, "beta2", 0.999)
    eps = number("adamax", config, "epsilon", 1e-38)
    wd = number("adamax", config, "weightDecay", 0)

    fx, dfdx = evaluate("adamax", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)
    state["t"] = state.get("t") or 0
    if state.get("m") is None:
        state["m"] = torch.zeros_like(x)
        state["u"] = torch.zeros_like(x)
    state["t"] += 1
    state["m"].mul_(beta1).add_(dfdx, alpha=1 - beta1)
    state["u"].copy_(torch.maximum(state["u"].mul(beta2), dfdx.abs().add_(eps)))
    x.addcdiv_(state["m"], state["u"], value=-lr / (1 - beta1 ** state["t"]))
    return x, fx
