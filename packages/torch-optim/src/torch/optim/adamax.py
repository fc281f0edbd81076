"""Adamax: Adam with the infinity norm in place of the second moment."""

import torch

from .optimizer import Optimizer, _check_betas, _check_nonnegative

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

    def _init_state(self, state, p, group):
        state["exp_avg"] = torch.zeros_like(p)
        state["exp_inf"] = torch.zeros_like(p)

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        exp_avg = state["exp_avg"]
        exp_inf = state["exp_inf"]
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_inf.mul_(beta2).maximum_(grad.abs().add_(group["eps"]))
        bias_correction = 1 - beta1 ** state["step"].item()
        p.add_(exp_avg.div(exp_inf), alpha=-group["lr"] / bias_correction)
