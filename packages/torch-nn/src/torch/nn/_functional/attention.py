"""Scaled dot-product attention and multi-head attention."""

import math

import torch
from torch.nn import functional as F
from torch.nn._functional.common import _float_only, _kernel, _tensors


def _causal_mask(L, S, dtype, device):
    """0 on and below the diagonal, -inf above, shape (L, S)."""
    keep = torch.ones(L, S, dtype=torch.bool, device=device).tril()
    return torch.zeros(L, S, dtype=dtype, device=device).masked_fill(keep.logical_not(), -math.inf)


def _mha_mask(mask, dtype):
    """A MultiheadAttention mask as an additive float mask (boolean: True is masked out)."""
    if mask is None or mask.dtype != torch.bool:
        return mask
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, -math.inf)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):  # fmt: skip
    """softmax(Q K^T * scale + mask) V over the last two dimensions.

    query (..., L, E), key (..., S, E), value (..., S, Ev).  ``attn_mask``: a boolean mask
    (True: take part in attention) or an additive float mask, broadcast to (..., L, S);
    ``is_causal``: each query attends to keys at its position and before; ``scale``
    defaults to 1/sqrt(E); ``dropout_p`` drops attention weights."""
    op = "scaled_dot_product_attention"
    _tensors(op, query=query, key=key, value=value)
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(
            f"{op}(): Expected query, key, and value to all be at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead."
        )
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            f"{op}(): Expected query, key, and value to have the same dtype, but got "
            f"query.dtype: {query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype}"
        )
    _float_only(query, op)
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(
            f"{op}(): dropout probability has to be between 0 and 1, but got {dropout_p}"
        )
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"{op}(): expected query (..., L, E), key (..., S, E) and value (..., S, Ev), got "
            f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}"
        )
    L, S = query.shape[-2], key.shape[-2]
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
        )
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    e = query.shape[-1]
    s = (1.0 / math.sqrt(e) if e else math.inf) if scale is None else scale
    scores = torch.matmul(query * s, key.transpose(-2, -1))
    if is_causal:
        scores = scores + _causal_mask(L, S, scores.dtype, scores.device)
    elif attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    attn = _kernel("softmax")(scores, -1)
    # a query that may attend to no key (its whole row masked) gets zeros, not NaN
    attn = attn.masked_fill((scores == -math.inf).all(-1, keepdim=True), 0.0)
    if dropout_p > 0.0:
        attn = _kernel("dropout")(attn, dropout_p, True)
    return torch.matmul(attn, value)


def _with_one_more_key(attn_mask, key_padding_mask, N):
    """The masks (either may be None) with a column of zeros for a key appended to the
    keys (bias_k's, or add_zero_attn's zeros): that key is attended to."""
    if attn_mask is not None:
        attn_mask = torch.cat([attn_mask, attn_mask.new_zeros((*attn_mask.shape[:-1], 1))], -1)
    if key_padding_mask is not None:
        key_padding_mask = torch.cat([key_padding_mask, key_padding_mask.new_zeros((N, 1))], -1)
    return attn_mask, key_padding_mask


def _in_projection(q, k, v, w, b, E, separate):
    if separate is not None:
        wq, wk, wv = separate
        bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
        return F.linear(q, wq, bq), F.linear(k, wk, bk), F.linear(v, wv, bv)
    if k is v and q is k:  # self-attention: one matmul
        return F.linear(q, w, b).chunk(3, -1)
    wq, wk, wv = w.chunk(3)
    bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, wq, bq), F.linear(k, wk, bk), F.linear(v, wv, bv)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True,
                                 is_causal=False):  # fmt: skip
    """Multi-head attention on sequence-first inputs: query (L, N, E) or (L, E), key and
    value (S, N, E) or (S, E).  Returns (output (L, N, E), weights (N, L, S) averaged over
    heads, (N, H, L, S) otherwise, or None without ``need_weights``)."""
    if query.dim() not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
            f"query tensor"
        )
    batched = query.dim() == 3
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(
            f"For {'batched (3-D)' if batched else 'unbatched (2-D)'} `query`, expected `key` and "
            f"`value` to be {query.dim()}-D but found {key.dim()}-D and {value.dim()}-D tensors "
            f"respectively"
        )
    if not use_separate_proj_weight and in_proj_weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(
            f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}"
        )
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    if E != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}"
        )
    if E % num_heads:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    hd = E // num_heads
    if is_causal and attn_mask is None:
        attn_mask = _causal_mask(L, key.shape[0], query.dtype, query.device)
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, E, separate)
    attn_mask = _mha_mask(attn_mask, q.dtype)
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        k = torch.cat([k, bias_k.reshape(1, 1, E).expand(1, N, E)])
        v = torch.cat([v, bias_v.reshape(1, 1, E).expand(1, N, E)])
        attn_mask, key_padding_mask = _with_one_more_key(attn_mask, key_padding_mask, N)
    # (L, N, E) -> (N * H, L, hd)
    q = q.reshape(L, N * num_heads, hd).transpose(0, 1)
    k = k.reshape(k.shape[0], N * num_heads, hd) if static_k is None else static_k
    v = v.reshape(v.shape[0], N * num_heads, hd) if static_v is None else static_v
    if static_k is None:
        k = k.transpose(0, 1)
    if static_v is None:
        v = v.transpose(0, 1)
    if add_zero_attn:
        k = torch.cat([k, k.new_zeros((N * num_heads, 1, hd))], 1)
        v = torch.cat([v, v.new_zeros((N * num_heads, 1, hd))], 1)
        attn_mask, key_padding_mask = _with_one_more_key(attn_mask, key_padding_mask, N)
    S = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape != (N, S):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(N, S)}, but got "
                f"{tuple(key_padding_mask.shape)}"
            )
        kpm = _mha_mask(key_padding_mask, q.dtype)
        kpm = kpm.reshape(N, 1, 1, S).expand(N, num_heads, 1, S).reshape(N * num_heads, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    scores = torch.matmul(q * (1.0 / math.sqrt(hd)), k.transpose(1, 2))
    if attn_mask is not None:
        scores = scores + attn_mask
    attn = _kernel("softmax")(scores, -1)
    if dropout_p > 0.0:
        attn = _kernel("dropout")(attn, dropout_p, True)
    out = torch.matmul(attn, v)  # (N * H, L, hd)
    out = out.transpose(0, 1).reshape(L * N, E)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    weights = None
    if need_weights:
        weights = attn.reshape(N, num_heads, L, S)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            weights = weights.squeeze(0)
    if not batched:
        out = out.squeeze(1)
    return out, weights
