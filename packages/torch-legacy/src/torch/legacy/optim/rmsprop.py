"""Lua's optim.rmsprop: steps divided by a leaky RMS of past gradients."""

import torch

from ._utils import check_x, evaluate, number, tables


def rmsprop(opfunc, x, config=None, state=None):
    """One RMSprop step; returns ``(x, f(x) before the step)``.

    config keys: learningRate 1e-2, alpha 0.99, epsilon 1e-8, weightDecay 0. state keeps m,
    the leaky mean of squared gradients (starting at zero).
    """
    config, state = tables(config, state)
    check_x("rmsprop", x)
    lr = number("rmsprop", config, "learningRate", 1e-2)
    alpha = number("rmsprop", config, "alpha", 0.99)
    eps = number("rmsprop", config, "epsilon", 1e-8)
    wd = number("rmsprop", config, "weightDecay", 0)

    fx, dfdx = evaluate("rmsprop", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)
    if state.get("m") is None:
        state["m"] = torch.zeros_like(x)
    state["m"].mul_(alpha).addcmul_(dfdx, dfdx, value=1 - alpha)
    x.addcdiv_(dfdx, state["m"].sqrt().add_(eps), value=-lr)
    return x, fx
