"""ASGD: stochastic gradient descent with a decaying step size and iterate averaging."""

import torch

from .optimizer import Optimizer, _check_nonnegative

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky, 1992).

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``, at step ``t``:
    ``p *= 1 - lambd * eta``, ``p -= eta * g``, then the average ``ax += mu (p - ax)`` (a copy
    of ``p`` while ``mu == 1``); ``eta = lr / (1 + lambd lr t)^alpha`` and
    ``mu = 1 / max(1, t - t0)`` for the next step. ``state[p]["ax"]`` holds the average.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_nonnegative(lr=lr, weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["eta"] = torch.tensor(float(group["lr"]))
        state["mu"] = torch.tensor(1.0)
        state["ax"] = torch.zeros_like(p)

    def _update(self, p, grad, state, group):
        lr = group["lr"]
        lambd = group["lambd"]
        step = state["step"].item()
        eta = state["eta"].item()
        mu = state["mu"].item()
        p.mul_(1 - lambd * eta).add_(grad, alpha=-eta)
        ax = state["ax"]
        if mu != 1:
            ax.add_(p.sub(ax), alpha=mu)
        else:
            ax.copy_(p)
        state["eta"].fill_(lr / (1 + lambd * lr * step) ** group["alpha"])
        state["mu"].fill_(1 / max(1, step - group["t0"]))
