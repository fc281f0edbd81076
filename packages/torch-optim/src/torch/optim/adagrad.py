"""Adagrad: per-coordinate step sizes shrinking with the sum of squared gradients."""

import torch

from .optimizer import (
    Optimizer,
    _check_nonnegative,
    _check_not_differentiable,
    _closure_loss,
    _next_step,
    _regularized_grad,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011).

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``, at step ``t``:
    ``s += g^2`` (``s`` starts at ``initial_accumulator_value``) and
    ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)``.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        _check_nonnegative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        _check_not_differentiable(differentiable)
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        # The accumulators exist from the start (a fresh state_dict already lists them).
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p, group)

    @staticmethod
    def _init_state(state, p, group):
        state["step"] = torch.tensor(0.0)
        state["sum"] = torch.full_like(p, group["initial_accumulator_value"])

    @torch.no_grad()
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = group["lr"]
            lr_decay = group["lr_decay"]
            weight_decay = group["weight_decay"]
            eps = group["eps"]
            maximize = group["maximize"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                state = self.state[p]
                if not state:  # a group added after construction
                    self._init_state(state, p, group)
                grad = _regularized_grad(p, grad, maximize, weight_decay)
                clr = lr / (1 + (_next_step(state) - 1) * lr_decay)
                scratch = torch.mul(grad, grad)
                state["sum"].add_(scratch)
                std = torch.sqrt(state["sum"], out=scratch).add_(eps)
                p.add_(torch.div(grad, std, out=std), alpha=-clr)
        return loss
