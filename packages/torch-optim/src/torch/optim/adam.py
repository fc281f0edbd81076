"""Adam: moment estimates of the gradient and of its square, with bias correction."""

import math

import torch

from .optimizer import Optimizer, _check_betas, _check_nonnegative, _update_moments

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2014), with the AMSGrad variant and L2 or decoupled weight decay.

    With ``g`` the gradient (negated if ``maximize``), plus ``weight_decay * p`` unless
    ``decoupled_weight_decay`` (then ``p *= 1 - lr * weight_decay`` first, as AdamW):
    ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2`` (``v`` its running maximum with
    ``amsgrad``), ``p -= lr * m / (1 - b1^t) / (sqrt(v / (1 - b2^t)) + eps)``.
    """

    _sparse_grad_error = (
        "Adam does not support sparse gradients, please consider SparseAdam instead"
    )

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["exp_avg"] = torch.zeros_like(p)
        state["exp_avg_sq"] = torch.zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = torch.zeros_like(p)

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        amsgrad = group["amsgrad"]
        step = state["step"].item()
        exp_avg = state["exp_avg"]
        exp_avg_sq = state["exp_avg_sq"]
        # lr m/(1-b1^t) / (sqrt(v)/c + eps) with c = sqrt(1-b2^t), as
        # (lr c/(1-b1^t)) m / (sqrt(v) + eps c): one pass over the tensor less.
        c = math.sqrt(1 - beta2**step)
        step_size = group["lr"] * c / (1 - beta1**step)
        if _fusable(p, grad, exp_avg):  # the whole update in one pass (core kernel)
            max_sq = state["max_exp_avg_sq"] if amsgrad else None
            torch._C._adam_update_(
                p, grad, exp_avg, exp_avg_sq, max_sq, beta1, beta2, step_size, eps * c
            )
            return
        scratch = _update_moments(exp_avg, exp_avg_sq, grad, beta1, beta2)
        second = state["max_exp_avg_sq"].maximum_(exp_avg_sq) if amsgrad else exp_avg_sq
        denom = torch.sqrt(second, out=scratch).add_(eps * c)
        p.add_(torch.div(exp_avg, denom, out=denom), alpha=-step_size)


def _fusable(p, grad, exp_avg):
    """Whether the core's fused update applies: dense float tensors of one dtype and layout."""
    return (
        p.dtype in (torch.float32, torch.float64)
        and grad.dtype == p.dtype
        and p.is_contiguous()
        and grad.is_contiguous()
        and exp_avg.is_contiguous()
    )
