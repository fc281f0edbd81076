"""Adadelta: steps scaled by the ratio of running RMS of past updates and of gradients."""

import torch

from .optimizer import (
    Optimizer,
    _check_nonnegative,
    _check_not_differentiable,
    _closure_loss,
    _regularized_grad,
)

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
        _check_not_differentiable(differentiable)
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

    @torch.no_grad()
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = group["lr"]
            rho = group["rho"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            maximize = group["maximize"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = torch.tensor(0.0)
                    state["square_avg"] = torch.zeros_like(p)
                    state["acc_delta"] = torch.zeros_like(p)
                grad = _regularized_grad(p, grad, maximize, weight_decay)
                state["step"] += 1
                square_avg = state["square_avg"]
                acc_delta = state["acc_delta"]
                square_avg.mul_(rho).add_(grad * grad, alpha=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                acc_delta.mul_(rho).add_(torch.mul(delta, delta, out=std), alpha=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
