"""Adamax: Adam with the infinity norm in place of the second moment."""

import torch

from .optimizer import (
    Optimizer,
    _check_betas,
    _check_nonnegative,
    _check_not_differentiable,
    _closure_loss,
    _next_step,
    _regularized_grad,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, 2014, section 7).

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``:
    ``m = b1 m + (1 - b1) g``, ``u = max(b2 u, |g| + eps)``, ``p -= lr / (1 - b1^t) * m / u``.
    """

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        _check_not_differentiable(differentiable)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
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
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_inf"] = torch.zeros_like(p)
                grad = _regularized_grad(p, grad, maximize, weight_decay)
                step = _next_step(state)
                exp_avg = state["exp_avg"]
                exp_inf = state["exp_inf"]
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_inf.mul_(beta2).maximum_(grad.abs().add_(eps))
                p.add_(exp_avg.div(exp_inf), alpha=-lr / (1 - beta1**step))
        return loss
