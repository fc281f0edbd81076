"""Sparse gradients: embedding lookups whose weight gets a sparse COO ``.grad``.

``F.embedding(..., sparse=True)`` (and so ``EmbeddingBag(sparse=True)``) calls
:func:`embedding_sparse_grad` when its weight requires grad: the forward is the dense lookup,
the backward returns a COO tensor with one entry per looked-up index (repeats not summed, as
in PyTorch), so an optimizer step touches only those rows. See Note [sparse autograd] in
torch._sparse for how sparse tensors carry gradients.
"""

import torch
from torch import _C
from torch._sparse import _coo
from torch.autograd.formulas.nn import _counts
from torch.autograd.function import Function


class EmbeddingSparseBackward(Function):
    """weight[indices] with a sparse gradient for weight."""

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.shape = tuple(weight.shape)
        ctx.padding_idx, ctx.scale = padding_idx, scale_grad_by_freq
        return _C._embedding(weight, indices, padding_idx, scale_grad_by_freq)

    @staticmethod
    def backward(ctx, g):
        (indices,) = ctx.saved_tensors
        rows, dim = ctx.shape
        flat = indices.reshape(-1)
        g = g.reshape(flat.shape[0], dim)
        if ctx.scale:
            ones = torch.ones(flat.shape[0], dtype=g.dtype, device=g.device)
            g = g / _counts(flat, rows, ones)[flat].reshape(-1, 1)
        if ctx.padding_idx >= 0:
            keep = (flat != ctx.padding_idx).nonzero().reshape(-1)
            flat, g = flat[keep], g[keep]
        return _coo(flat.reshape(1, -1), g, ctx.shape), None, None, None


def embedding_sparse_grad(weight, indices, padding_idx, scale_grad_by_freq):
    """The embedding lookup, recorded so that ``weight`` gets a sparse gradient."""
    return EmbeddingSparseBackward.apply(weight, indices, padding_idx, scale_grad_by_freq)
