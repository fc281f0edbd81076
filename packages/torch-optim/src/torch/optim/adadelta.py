"""Adadelta: steps scaled by the ratio of running RMS of past updates and of gradients."""

import torch

from .optimizer import Optimizer, _check_nonnegative

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012).

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``:
    ``v = rho v + (1 - rho) g^2``, ``dx = sqrt(u + eps) / sqrt(v + eps) * g``,
    ``u = rho u + (1 - rho) dx^2`` and ``p -= lr * dx``.
    """

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        _check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonnegative(eps=eps, weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["square_avg"] = torch.zeros_like(p)
        state["acc_delta"] = torch.zeros_like(p)

    def _update(self, p, grad, state, group):
        rho = group["rho"]
        eps = group["eps"]
        square_avg = state["square_avg"]
        acc_delta = state["acc_delta"]
        square_avg.mul_(rho).add_(grad * grad, alpha=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).add_(torch.mul(delta, delta, out=std), alpha=1 - rho)
        p.add_(delta, alpha=-group["lr"])
