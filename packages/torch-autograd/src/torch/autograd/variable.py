"""``Variable``: since PyTorch 0.4 a Variable is a Tensor; the name stays for old code."""

import warnings

import torch


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, torch.Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(t, requires_grad=False, volatile=False)`` returns a tensor sharing t's data.

    ``volatile=True`` (pre-0.4 inference mode) is accepted with a warning and gives a tensor
    that does not require grad; use ``torch.no_grad()`` instead.
    """

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
            requires_grad = False
        if data is None:
            data = torch.empty(0)
        if not isinstance(data, torch.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = data.detach()
        if requires_grad:
            t.requires_grad_()
        return t
