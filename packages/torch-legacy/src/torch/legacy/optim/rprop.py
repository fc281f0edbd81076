"""Lua's optim.rprop (Riedmiller): per-element step sizes driven by gradient sign changes."""

import torch

from ._utils import check_x, evaluate, number, tables


def rprop(opfunc, x, config=None, state=None):
    """``niter`` Rprop steps; returns ``(x, [f before each step])``.

    config keys: stepsize 0.1 (initial, for every element), etaplus 1.2, etaminus 0.5,
    stepsizemax 50, stepsizemin 1e-6, niter 1. state keeps delta (the last gradient used)
    and stepsize (now a per-element tensor: as in Lua, with state = config it replaces the
    initial number, which is read only once).
    """
    config, state = tables(config, state)
    check_x("rprop", x)
    etaplus = number("rprop", config, "etaplus", 1.2)
    etaminus = number("rprop", config, "etaminus", 0.5)
    stepsizemax = number("rprop", config, "stepsizemax", 50.0)
    stepsizemin = number("rprop", config, "stepsizemin", 1e-6)
    niter = number("rprop", config, "niter", 1)

    hfx = []
    for _ in range(int(niter)):
        fx, dfdx = evaluate("rprop", opfunc, x)
        if state.get("delta") is None:
            initial = number("rprop", config, "stepsize", 0.1)
            state["delta"] = torch.zeros_like(x)
            state["stepsize"] = torch.full_like(x, initial)
        sign = (dfdx * state["delta"]).sign()
        stepsize = state["stepsize"]
        factor = torch.ones_like(x).masked_fill_(sign > 0, etaplus).masked_fill_(sign < 0, etaminus)
        stepsize.mul_(factor)
        # Lua clips the top first, then the bottom
        stepsize.masked_fill_(stepsize > stepsizemax, stepsizemax)
        stepsize.masked_fill_(stepsize < stepsizemin, stepsizemin)
        dfdx = dfdx.masked_fill(sign < 0, 0)  # after a sign change, skip this element
        x.addcmul_(dfdx.sign(), stepsize, value=-1)
        state["delta"].copy_(dfdx)
        hfx.append(fx)
    return x, hfx
