"""Stochastic gradient descent, with optional momentum, Nesterov momentum and weight decay."""

import torch

from .optimizer import (
    Optimizer,
    _check_nonnegative,
    _check_not_differentiable,
    _closure_loss,
    _regularized_grad,
)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent.

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``: if
    ``momentum`` is set, ``b = momentum * b + (1 - dampening) * g`` (``b = g`` at the first
    step) and ``g = g + momentum * b`` (``nesterov``) or ``g = b``; then ``p -= lr * g``.
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        _check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_not_differentiable(differentiable)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            dampening = group["dampening"]
            weight_decay = group["weight_decay"]
            nesterov = group["nesterov"]
            maximize = group["maximize"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                grad = _regularized_grad(p, grad, maximize, weight_decay)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = grad.detach().clone()
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buf, alpha=momentum) if nesterov else buf
                p.add_(grad, alpha=-lr)
        return loss
