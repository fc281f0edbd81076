"""Rprop: per-coordinate step sizes that grow while the gradient keeps its sign."""

import torch

from .optimizer import Optimizer, _check_nonnegative

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun, 1993).

    Each coordinate has a step size, ``lr`` at first. Where the gradient (negated if
    ``maximize``) has the sign of the previous one, the step size is multiplied by
    ``etas[1]``; where the sign flipped, by ``etas[0]``, and the gradient counts as zero for
    this step; both clamped to ``step_sizes``. Then ``p -= step_size * sign(g)``.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_nonnegative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["prev"] = torch.zeros_like(p)
        state["step_size"] = torch.full_like(p, group["lr"])

    def _update(self, p, grad, state, group):
        eta_minus, eta_plus = group["etas"]
        prev = state["prev"]
        step_size = state["step_size"]
        agreement = grad.mul(prev)
        flipped = agreement < 0
        factor = torch.full_like(agreement, 1.0).masked_fill_(agreement > 0, eta_plus)
        factor.masked_fill_(flipped, eta_minus)
        step_size.mul_(factor).clamp_(*group["step_sizes"])
        grad = grad.masked_fill(flipped, 0)
        p.sub_(grad.sign().mul_(step_size))
        prev.copy_(grad)
