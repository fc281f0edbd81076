"""Lua's optim.asgd: averaged SGD as in L. Bottou's sgd-2.0."""

import torch

from ._utils import check_x, evaluate, number, tables


def asgd(opfunc, x, config=None, state=None):
    """One ASGD step; returns ``(x, f(x) before the step, ax)``, ax the averaged x.

    ``x := (1 - lambda*eta_t) x - eta_t df/dx``, ``ax := ax + mu_t (x - ax)``, then
    ``eta_t = eta0 / (1 + lambda*eta0*t)^alpha`` and ``mu_t = 1/max(1, t - t0)``.
    config keys (written back into config, as Lua does): eta0 1e-4, lambda 1e-4, alpha 0.75,
    t0 1e6. state keeps eta_t, mu_t, t and ax.
    """
    config, state = tables(config, state)
    check_x("asgd", x)
    for key, default in (("eta0", 1e-4), ("lambda", 1e-4), ("alpha", 0.75), ("t0", 1e6)):
        config[key] = number("asgd", config, key, default)
    state["eta_t"] = state.get("eta_t") or config["eta0"]
    state["mu_t"] = state.get("mu_t") or 1
    state["t"] = state.get("t") or 0

    fx, dfdx = evaluate("asgd", opfunc, x)
    x.mul_(1 - config["lambda"] * state["eta_t"])
    x.add_(dfdx, alpha=-state["eta_t"])
    if state.get("ax") is None:
        state["ax"] = torch.zeros_like(x)
    if state["mu_t"] != 1:
        state["ax"].add_(x.sub(state["ax"]).mul_(state["mu_t"]))
    else:
        state["ax"].copy_(x)

    state["t"] += 1
    eta0, lam = config["eta0"], config["lambda"]
    state["eta_t"] = eta0 / (1 + lam * eta0 * state["t"]) ** config["alpha"]
    state["mu_t"] = 1 / max(1, state["t"] - config["t0"])
    return x, fx, state["ax"]
