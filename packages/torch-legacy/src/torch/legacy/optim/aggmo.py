"""optim.aggmo: aggregated momentum (Lucas, Sun, Zemel & Grosse, ICLR 2019), Lua-style."""

import numbers

import torch

from ._utils import check_x, evaluate, number, tables


def aggmo(opfunc, x, config=None, state=None):
    """One AggMo step; returns ``(x, f(x) before the step)``.

    One velocity per damping factor: ``v_i = momentum[i] * v_i - df/dx``, then
    ``x += lr / K * sum(v_i)``. config keys: learningRate 1e-3, learningRateDecay 0,
    weightDecay 0, momentum [0, 0.9, 0.99]. state keeps evalCounter and momentumBuffers
    (the K velocities).
    """
    config, state = tables(config, state)
    check_x("aggmo", x)
    lr = number("aggmo", config, "learningRate", 1e-3)
    lrd = number("aggmo", config, "learningRateDecay", 0)
    wd = number("aggmo", config, "weightDecay", 0)
    betas = config.get("momentum")
    betas = [0.0, 0.9, 0.99] if betas is None else betas
    if (
        not isinstance(betas, (list, tuple))
        or not betas
        or not all(isinstance(b, numbers.Real) and not isinstance(b, bool) for b in betas)
    ):
        raise TypeError(f"optim.aggmo: config['momentum'] must be a list of numbers, got {betas!r}")
    state.setdefault("evalCounter", 0)

    fx, dfdx = evaluate("aggmo", opfunc, x)
    if wd != 0:
        dfdx = dfdx.add(x, alpha=wd)
    clr = lr / (1 + state["evalCounter"] * lrd)
    if state.get("momentumBuffers") is None:
        state["momentumBuffers"] = [torch.zeros_like(x) for _ in betas]
    for beta, velocity in zip(betas, state["momentumBuffers"]):
        velocity.mul_(beta).sub_(dfdx)
        x.add_(velocity, alpha=clr / len(betas))
    state["evalCounter"] += 1
    return x, fx
