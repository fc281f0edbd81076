"""Adagrad: per-coordinate step sizes shrinking with the sum of squared gradients."""

import torch
from torch._sparse import is_sparse_tensor, sparse_index

from .optimizer import Optimizer, _check_nonnegative

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011).

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``, at step ``t``:
    ``s += g^2`` (``s`` starts at ``initial_accumulator_value``) and
    ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)``.
    """

    # Sparse gradients are accepted, as PyTorch's Adagrad does.
    _sparse_grad_error = None

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
        # The accumulators exist from the start (a fresh state_dict already lists them); a
        # group added later gets its own at its first step.
        for group in self.param_groups:
            for p in group["params"]:
                self._start_state(self.state[p], p, group)

    def _init_state(self, state, p, group):
        state["sum"] = torch.full_like(p, group["initial_accumulator_value"])

    def _update(self, p, grad, state, group):
        clr = group["lr"] / (1 + (state["step"].item() - 1) * group["lr_decay"])
        if is_sparse_tensor(grad):  # only the gradient's rows: their sums grow, they move
            grad = grad.coalesce()
            index = sparse_index(grad)
            values = grad._values()
            total = state["sum"].index_put_(index, values * values, accumulate=True)[index]
            p.index_put_(index, values / (total.sqrt() + group["eps"]) * -clr, accumulate=True)
            return
        scratch = torch.mul(grad, grad)
        state["sum"].add_(scratch)
        std = torch.sqrt(state["sum"], out=scratch).add_(group["eps"])
        p.add_(torch.div(grad, std, out=std), alpha=-clr)
