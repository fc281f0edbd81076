"""Embedding lookups: embedding and embedding_bag."""

import builtins

from torch import _C
from torch._checks import check_tensor
from torch._creation import arange, zeros
from torch._index_ops import bincount, searchsorted
from torch._nn_args import _HALF_FLOATS, _WIDE_FLOATS, _compute_dtype, _float, _int

__all__ = ["embedding", "embedding_bag"]


def _renorm_rows_(weight, indices, max_norm, norm_type):
    """Rescales (in place, untracked) the rows of weight referenced by indices whose
    ``norm_type``-norm exceeds ``max_norm`` to that norm."""
    from torch._grad_mode import no_grad

    with no_grad():
        rows = indices.reshape(-1).unique()
        if rows.numel() == 0:
            return
        sel = weight[rows]
        norms = sel.norm(norm_type, 1, keepdim=True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = sel * scale


def _indices(input, op):
    check_tensor(input, op)
    if input.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(
            f"{op}(): expected input to hold indices (an integer tensor, int64 or int32), got "
            f"{input.dtype}"
        )
    return input if input.dtype == _C.int64 else input.to(_C.int64)


def _padding_idx(padding_idx, num, op):
    if padding_idx is None:
        return -1
    p = _int(padding_idx, op, "padding_idx")
    if not -num <= p < num:
        raise AssertionError(f"{op}(): Padding_idx must be within num_embeddings ({num}), got {p}")
    return p % num


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """The rows of ``weight`` (num_embeddings, dim) at the indices ``input``: shape
    ``(*input.shape, dim)``. The ``padding_idx`` row gets no gradient; ``scale_grad_by_freq``
    divides each row's gradient by how often it occurs in ``input``; ``max_norm`` first
    rescales (in place) the referenced rows whose norm exceeds it."""
    op = "embedding"
    idx = _indices(input, op)
    check_tensor(weight, op, "weight", None)
    if weight.dim() != 2:
        raise RuntimeError(f"{op}(): expected a 2-D weight, got shape {tuple(weight.shape)}")
    pad = _padding_idx(padding_idx, weight.shape[0], op)
    if max_norm is not None:
        max_norm = _float(max_norm, op, "max_norm")
        _renorm_rows_(weight, idx, max_norm, _float(norm_type, op, "norm_type"))
    if weight.dtype in _WIDE_FLOATS or weight.dtype in _HALF_FLOATS:
        w = weight.to(_compute_dtype(weight, op))
        scale = builtins.bool(scale_grad_by_freq)
        if sparse and w.requires_grad and _C.is_grad_enabled():
            # the weight's gradient is a sparse COO tensor (torch-autograd records it)
            from torch.autograd._sparse import embedding_sparse_grad

            return embedding_sparse_grad(w, idx, pad, scale).to(weight.dtype)
        return _C._embedding(w, idx, pad, scale).to(weight.dtype)
    # integer and bool tables are looked up as they are (nothing to differentiate)
    n = weight.shape[0]
    if idx.numel() and (builtins.bool((idx < 0).any()) or builtins.bool((idx >= n).any())):
        raise IndexError(f"{op}(): index out of range in self (a weight of {n} rows)")
    return weight.index_select(0, idx.reshape(-1)).reshape(builtins.list(idx.shape) + [-1])


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, averages or takes the max of the embeddings of each bag: the rows of a 2-D
    ``input``, or the runs of a 1-D ``input`` that start at ``offsets``. Entries equal to
    ``padding_idx`` are left out; an empty bag gives zeros."""
    op = "embedding_bag"
    idx = _indices(input, op)
    check_tensor(weight, op, "weight", None)
    if weight.dim() != 2:
        raise ValueError(
            f"{op}(): weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if not weight.is_floating_point():
        raise RuntimeError(
            f"{op}(): expected weight to have a floating-point dtype (Half, BFloat16, Float, "
            f"Double), got {weight.dtype}"
        )
    n = weight.shape[0]
    if idx.numel() and (builtins.bool((idx < 0).any()) or builtins.bool((idx >= n).any())):
        bad = idx[(idx < 0) | (idx >= n)].reshape(-1)[0]
        raise RuntimeError(
            f"{op}(): input holds the index {builtins.int(bad)}, which is not in the valid "
            f"range [0, {n})"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"{op}(): mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"{op}(): per_sample_weights is only supported for mode='sum' (got mode="
                f"'{mode}'). Please open a feature request on GitHub."
            )
        if per_sample_weights.shape != idx.shape:
            raise ValueError(
                f"{op}(): per_sample_weights of shape {tuple(per_sample_weights.shape)} must "
                f"match input of shape {tuple(idx.shape)}"
            )
    if idx.dim() == 2:
        if offsets is not None:
            raise ValueError(f"{op}(): if input is 2D, then offsets has to be None")
        nbags, length = idx.shape
        bag = arange(nbags).reshape(-1, 1).expand(nbags, length).reshape(-1)
        flat = idx.reshape(-1)
    elif idx.dim() == 1:
        if offsets is None:
            raise ValueError(f"{op}(): offsets has to be a 1D Tensor but got None")
        offsets = _indices(offsets, op)
        if offsets.dim() != 1:
            raise ValueError(f"{op}(): offsets has to be a 1D Tensor")
        starts = offsets[:-1] if include_last_offset else offsets
        nbags = starts.shape[0]
        if nbags and (builtins.int(starts[0]) != 0):
            raise RuntimeError(
                f"{op}(): offsets[0] has to be 0 (the first bag starts at position 0), got "
                f"{builtins.int(starts[0])}"
            )
        if offsets.numel() and builtins.int(offsets[-1]) > idx.shape[0]:
            raise RuntimeError(
                f"{op}(): offsets[-1] can not be greater than input's length {idx.shape[0]} "
                f"but got offsets[-1] of {builtins.int(offsets[-1])}"
            )
        if offsets.numel() > 1 and builtins.bool((offsets[1:] < offsets[:-1]).any()):
            raise RuntimeError(f"{op}(): offsets must be non-decreasing, got {offsets.tolist()}")
        flat = idx
        pos = arange(idx.shape[0])
        bag = (searchsorted(starts, pos, right=True) - 1) if nbags else pos
    else:
        raise ValueError(
            f"{op}(): input has to be 1D or 2D Tensor, but got Tensor of dimension {idx.dim()}"
        )
    psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    pad = _padding_idx(padding_idx, weight.shape[0], op)
    if pad >= 0:
        keep = flat != pad
        flat, bag = flat[keep], bag[keep]
        psw = None if psw is None else psw[keep]
    emb = embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    d = weight.shape[1]
    if mode == "max":
        out = zeros(nbags, d, dtype=weight.dtype)
        if flat.numel() == 0:
            return out
        return out.scatter_reduce(
            0, bag.reshape(-1, 1).expand(-1, d), emb, "amax", include_self=False
        )
    if psw is not None:
        emb = emb * psw.reshape(-1, 1)
    if idx.dim() == 2 and pad < 0 and length:
        # bags of one length: a sum over a dim (its gradient is an expand, not a gather)
        rows = emb.reshape(nbags, length, d)
        return rows.sum(1) if mode == "sum" else rows.mean(1)
    # index_put accumulates rows several times faster than the core's index_add
    out = zeros(nbags, d, dtype=weight.dtype).index_put((bag,), emb, accumulate=True)
    if mode == "mean":
        counts = bincount(bag, minlength=nbags).to(weight.dtype)
        out = out / counts.clamp(min=1).reshape(-1, 1)
    return out
