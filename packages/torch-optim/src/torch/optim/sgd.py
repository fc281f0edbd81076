"""Stochastic gradient descent, with optional momentum, Nesterov momentum and weight decay."""

import torch
from torch._sparse import add_sparse_, is_sparse_tensor

from .optimizer import Optimizer, _check_nonnegative

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent.

    With ``g`` the gradient (negated if ``maximize``) plus ``weight_decay * p``: if
    ``momentum`` is set, ``b = momentum * b + (1 - dampening) * g`` (``b = g`` at the first
    step) and ``g = g + momentum * b`` (``nesterov``) or ``g = b``; then ``p -= lr * g``.
    """

    # Sparse gradients are accepted, as PyTorch's SGD does.
    _sparse_grad_error = None

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

    def _step_state(self, p, group):
        # Only momentum keeps state (no step count): without it, state_dict's state stays empty.
        return self.state[p] if group["momentum"] != 0 else None

    def _update(self, p, grad, state, group):
        if is_sparse_tensor(grad):
            return self._update_sparse(p, grad, state, group)
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:  # the first step's buffer is the gradient itself
                buf = state["momentum_buffer"] = grad.detach().clone()
            elif group["dampening"] == 0:  # one pass over buf: buf = grad + momentum * buf
                torch.add(grad, buf, alpha=momentum, out=buf)
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(grad, alpha=-group["lr"])

    def _update_sparse(self, p, grad, state, group):
        """A sparse gradient: only its rows move; the momentum buffer is sparse (coalesced
        after each step, so it holds each row once), as in PyTorch."""
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.detach().clone().coalesce_()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"]).coalesce_()
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        add_sparse_(p, grad, -group["lr"])
