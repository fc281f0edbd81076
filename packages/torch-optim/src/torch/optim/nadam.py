"""NAdam: Adam with Nesterov momentum."""

import math

import torch

from .optimizer import Optimizer, _check_betas, _check_nonnegative, _update_moments

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (Dozat, 2016), with the momentum schedule ``mu_t = b1 (1 - 0.96^(t psi) / 2)``,
    ``psi = momentum_decay``.

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p`` (or, with
    ``decoupled_weight_decay``, ``p *= 1 - lr * weight_decay`` first):
    ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
    ``m' = mu_{t+1} m / (1 - mu_1...mu_{t+1}) + (1 - mu_t) g / (1 - mu_1...mu_t)`` and
    ``p -= lr m' / (sqrt(v / (1 - b2^t)) + eps)``.
    """

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["mu_product"] = torch.tensor(1.0)
        state["exp_avg"] = torch.zeros_like(p)
        state["exp_avg_sq"] = torch.zeros_like(p)

    def _update(self, p, grad, state, group):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        step = state["step"].item()
        mu = beta1 * (1 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_product = state["mu_product"]
        mu_product *= mu
        product = mu_product.item()
        exp_avg = state["exp_avg"]
        exp_avg_sq = state["exp_avg_sq"]
        scratch = _update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
        # sqrt(v / c^2) + eps == (sqrt(v) + eps c) / c, c = sqrt(1 - b2^t)
        c = math.sqrt(1 - beta2**step)
        denom = torch.sqrt(exp_avg_sq, out=scratch).add_(group["eps"] * c)
        p.add_(grad.div(denom), alpha=-lr * c * (1 - mu) / (1 - product))
        p.add_(
            torch.div(exp_avg, denom, out=denom),
            alpha=-lr * c * mu_next / (1 - product * mu_next),
        )
