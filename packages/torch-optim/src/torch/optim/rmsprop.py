"""RMSprop: gradients divided by a running root mean square of past gradients."""

import torch

from .optimizer import Optimizer, _check_nonnegative

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture 6e), optionally centered and with momentum.

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``:
    ``v = alpha v + (1 - alpha) g^2``; if ``centered``, ``a = alpha a + (1 - alpha) g`` and
    ``v' = v - a^2``, else ``v' = v``. Then with ``momentum``:
    ``b = momentum b + g / (sqrt(v') + eps)``, ``p -= lr b``; without:
    ``p -= lr g / (sqrt(v') + eps)``.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_nonnegative(
            lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha
        )
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["square_avg"] = torch.zeros_like(p)

    def _update(self, p, grad, state, group):
        alpha = group["alpha"]
        momentum = group["momentum"]
        square_avg = state["square_avg"]
        scratch = torch.mul(grad, grad)
        square_avg.mul_(alpha).add_(scratch, alpha=1 - alpha)
        if group["centered"]:
            grad_avg = _buffer(state, "grad_avg", p)
            grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
            centered_avg = torch.mul(grad_avg, grad_avg, out=scratch).neg_()
            avg = centered_avg.add_(square_avg).sqrt_()
        else:
            avg = torch.sqrt(square_avg, out=scratch)
        update = torch.div(grad, avg.add_(group["eps"]), out=avg)
        if momentum > 0:
            update = _buffer(state, "momentum_buffer", p).mul_(momentum).add_(update)
        p.add_(update, alpha=-group["lr"])


def _buffer(state, name, p):
    """``state[name]``, created as zeros the first time it is needed."""
    buf = state.get(name)
    if buf is None:
        buf = state[name] = torch.zeros_like(p)
    return buf
