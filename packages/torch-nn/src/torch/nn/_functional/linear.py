"""linear and bilinear."""

import math

import torch
from torch.nn._functional.common import _check_tensor, _tensors


def _same_dtype(op, **tensors):
    """TypeError for a non-tensor, RuntimeError where the tensors' dtypes differ (PyTorch
    promotes none of these operands)."""
    given = {k: t for k, t in tensors.items() if t is not None}
    for name, t in given.items():
        _check_tensor(t, op, name)
    if len({t.dtype for t in given.values()}) > 1:
        kinds = ", ".join(f"{k}: {t.dtype}" for k, t in given.items())
        raise RuntimeError(f"{op}(): expected all tensors to have the same dtype, got {kinds}")


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: input ``(*, in_features)``, weight (out_features,
    in_features), bias (out_features) or None."""
    _tensors("linear", input=input, weight=weight)
    _same_dtype("linear", input=input, weight=weight, bias=bias)
    if weight.dim() not in (1, 2):
        raise RuntimeError(
            f"linear(): expected weight to be 1-D or 2-D, got shape {tuple(weight.shape)}"
        )
    if input.dim() > 2 and weight.dim() == 2:
        # (*, in) as one (rows, in) matrix: one product forward and backward, and the
        # weight's gradient comes out of one GEMM instead of a batch of them summed.
        lead = input.shape[:-1]
        out = linear(input.reshape(math.prod(lead), input.shape[-1]), weight, bias)
        return out.view(*lead, out.shape[-1])
    if bias is None:
        return torch.matmul(input, weight.t())
    if input.dim() == 2:  # (addmm's backward makes only the products that are needed)
        return torch.addmm(bias, input, weight.t())
    return torch.matmul(input, weight.t()) + bias


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T W_k x2 + b_k``: input1 ``(*, in1)``, input2 ``(*, in2)``, weight
    (out, in1, in2), bias (out)."""
    _tensors("bilinear", input1=input1, input2=input2, weight=weight)
    _same_dtype("bilinear", input1=input1, input2=input2, weight=weight, bias=bias)
    if input1.dim() == 0 or input2.dim() == 0:
        raise RuntimeError("bilinear(): input1 and input2 must have at least 1 dimension")
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear(): input1 and input2 must have the same size except in the last "
            f"dimension, got {list(input1.shape)} and {list(input2.shape)}"
        )
    if (
        weight.dim() != 3
        or weight.shape[1] != input1.shape[-1]
        or weight.shape[2] != input2.shape[-1]
    ):
        raise RuntimeError(
            f"bilinear(): expected weight of shape (out, {input1.shape[-1]}, "
            f"{input2.shape[-1]}), got {list(weight.shape)}"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got bias of shape "
            f"{tuple(bias.shape)} but expected ({weight.shape[0]},)"
        )
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out, n1, n2 = weight.shape
    # (B, in1) @ (in1, out*in2) -> (B, out, in2), then contract in2 with x2
    t = torch.matmul(x1, weight.permute(1, 0, 2).reshape(n1, out * n2)).reshape(-1, out, n2)
    y = torch.matmul(t, x2.unsqueeze(-1)).squeeze(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, out)
