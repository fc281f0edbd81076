"""RAdam: Adam whose adaptive step is switched on as the variance estimate becomes reliable."""

import math

import torch

from .optimizer import Optimizer, _check_betas, _check_nonnegative, _update_moments

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Rectified Adam (Liu et al., 2019).

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p`` (or, with
    ``decoupled_weight_decay``, ``p *= 1 - lr * weight_decay`` first):
    ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``, ``r_inf = 2 / (1 - b2) - 1``,
    ``r_t = r_inf - 2 t b2^t / (1 - b2^t)``. If ``r_t > 5``:
    ``p -= lr m / (1 - b1^t) * rect * sqrt(1 - b2^t) / (sqrt(v) + eps)`` with
    ``rect = sqrt((r_t - 4)(r_t - 2) r_inf / ((r_inf - 4)(r_inf - 2) r_t))``;
    otherwise ``p -= lr m / (1 - b1^t)``.
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["exp_avg"] = torch.zeros_like(p)
        state["exp_avg_sq"] = torch.zeros_like(p)

    def _update(self, p, grad, state, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        step = state["step"].item()
        exp_avg = state["exp_avg"]
        exp_avg_sq = state["exp_avg_sq"]
        scratch = _update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2**step / bias_correction2
        if rho_t > 5.0:
            rect = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            denom = torch.sqrt(exp_avg_sq, out=scratch).add_(group["eps"])
            scale = lr * rect * math.sqrt(bias_correction2) / bias_correction1
            p.add_(torch.div(exp_avg, denom, out=denom), alpha=-scale)
        else:
            p.add_(exp_avg, alpha=-lr / bias_correction1)
