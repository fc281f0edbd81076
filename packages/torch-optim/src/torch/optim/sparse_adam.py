"""SparseAdam: Adam for parameters with sparse gradients (embedding tables), lazily."""

import math

import torch
from torch._sparse import is_sparse_tensor, sparse_index

from .optimizer import Optimizer, _check_betas, _check_nonnegative

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """The lazy Adam of sparse gradients: each step touches only the rows the gradient
    holds.

    With ``g`` the coalesced sparse gradient (negated if ``maximize``) and ``[r]`` its rows,
    at step ``t`` of the parameter: ``m[r] += (1 - b1) (g - m[r])``,
    ``v[r] += (1 - b2) (g^2 - v[r])`` and
    ``p[r] -= lr sqrt(1 - b2^t) / (1 - b1^t) * m[r] / (sqrt(v[r]) + eps)``; the other rows
    of ``p``, ``m`` and ``v`` stay as they are. Dense gradients are refused (use Adam).
    """

    _sparse_grad_error = None

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)

    def _step_state(self, p, group):
        state = self.state[p]
        if not state:
            state["step"] = 0  # an int, as PyTorch's SparseAdam keeps it
            state["exp_avg"] = torch.zeros_like(p)
            state["exp_avg_sq"] = torch.zeros_like(p)
        state["step"] += 1
        return state

    def _update(self, p, grad, state, group):
        if not is_sparse_tensor(grad):
            raise RuntimeError(
                "SparseAdam does not support dense gradients, please consider Adam instead"
            )
        beta1, beta2 = group["betas"]
        grad = grad.coalesce()
        index = sparse_index(grad)
        g = grad._values()
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m_rows = m[index]
        m_rows = m_rows + (g - m_rows) * (1 - beta1)
        v_rows = v[index]
        v_rows = v_rows + (g * g - v_rows) * (1 - beta2)
        m.index_put_(index, m_rows)
        v.index_put_(index, v_rows)
        t = state["step"]
        step_size = group["lr"] * math.sqrt(1 - beta2**t) / (1 - beta1**t)
        p.index_put_(index, m_rows / (v_rows.sqrt() + group["eps"]) * -step_size, accumulate=True)
