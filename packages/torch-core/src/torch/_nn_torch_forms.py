"""The torch.<name> forms of NN functions, installed onto the torch module (and the two Tensor
methods, hardshrink and prelu) when torch._nn_ops is imported.

Two kinds. Most are torch.nn.functional's function under the same signature (cosine_similarity,
pdist, pixel_shuffle, prelu, rms_norm, ...); they call torch-nn's one implementation, and
without torch-nn installed the call names the package to install. The others keep ATen's
argument order, which differs from torch.nn.functional's: batch_norm and instance_norm take
the affine parameters before the running statistics, embedding takes the weight first, the
losses take ``reduction`` as an int (0 none, the default as in PyTorch's bindings; 1 mean; 2
sum), constant_pad_nd is
``pad(mode="constant")``, and the recurrent cells compute one step from explicit weights.
"""

import torch
from torch import _C
from torch._nn_ops import _from_functional
from torch._tensor import tensor_method

# torch.<name> is torch.nn.functional.<name>, same arguments.
_SAME = (
    "cosine_similarity", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "prelu", "hardshrink", "bilinear", "rms_norm",
)  # fmt: skip


def _reduce(loss, reduction, op):
    """ATen's int ``reduction`` applied to an unreduced loss: 0 none, 1 mean, 2 sum."""
    if isinstance(reduction, bool) or reduction not in (0, 1, 2):
        raise ValueError(
            f"{op}(): reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction!r}"
        )
    return loss if reduction == 0 else loss.mean() if reduction == 1 else loss.sum()


def _F():  # noqa: N802
    import torch.nn.functional as F

    return F


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):  # fmt: skip
    """:func:`torch.nn.functional.batch_norm` with ATen's argument order (``cudnn_enabled`` is
    ignored)."""
    from torch._nn_norms import batch_norm as bn

    return bn(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):  # fmt: skip
    """:func:`torch.nn.functional.instance_norm` with ATen's argument order."""
    from torch._nn_norms import instance_norm as inorm

    return inorm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """:func:`torch.nn.functional.embedding` with the weight first; a negative
    ``padding_idx`` means no padding row (ATen's convention)."""
    from torch._nn_embedding import embedding as emb

    padding = None if padding_idx is None or padding_idx < 0 else padding_idx
    return emb(indices, weight, padding, None, 2.0, scale_grad_by_freq, sparse)


def constant_pad_nd(input, pad, value=0):
    """Pads ``input`` with ``value``: :func:`torch.nn.functional.pad` in constant mode
    (negative pads crop)."""
    from torch._nn_resample import pad as pad_fn

    return pad_fn(input, pad, "constant", value)


# The losses: PyTorch's torch.<loss> bindings default to no reduction (whatever ATen's schema
# says), and torch.kl_div does not warn about 'mean' as torch.nn.functional.kl_div does.
def kl_div(input, target, reduction=0, *, log_target=False):
    """:func:`torch.nn.functional.kl_div` with an int ``reduction`` (1: the plain mean)."""
    loss = _F().kl_div(input, target, reduction="none", log_target=log_target)
    return _reduce(loss, reduction, "kl_div")


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """:func:`torch.nn.functional.binary_cross_entropy_with_logits` with an int
    ``reduction``."""
    loss = _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction="none", pos_weight=pos_weight
    )
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """:func:`torch.nn.functional.margin_ranking_loss` with an int ``reduction``."""
    loss = _F().margin_ranking_loss(input1, input2, target, margin, reduction="none")
    return _reduce(loss, reduction, "margin_ranking_loss")


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """:func:`torch.nn.functional.hinge_embedding_loss` with an int ``reduction``."""
    loss = _F().hinge_embedding_loss(input, target, margin, reduction="none")
    return _reduce(loss, reduction, "hinge_embedding_loss")


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """:func:`torch.nn.functional.cosine_embedding_loss` with an int ``reduction``."""
    loss = _F().cosine_embedding_loss(input1, input2, target, margin, reduction="none")
    return _reduce(loss, reduction, "cosine_embedding_loss")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction=0):  # fmt: skip
    """:func:`torch.nn.functional.triplet_margin_loss` with an int ``reduction``."""
    loss = _F().triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction="none"
    )
    return _reduce(loss, reduction, "triplet_margin_loss")


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """:func:`torch.nn.functional.poisson_nll_loss`, every argument required, ``reduction``
    an int."""
    loss = _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction="none")
    return _reduce(loss, reduction, "poisson_nll_loss")


# ---------------------------------------------------------------- recurrent cells
def _cell_inputs(op, input, hx, w_ih, w_hh, gates):
    for name, t in (("input", input), ("w_ih", w_ih), ("w_hh", w_hh), *hx):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    hidden = hx[0][1].shape[-1]
    if w_ih.shape[0] != gates * hidden:
        raise RuntimeError(
            f"weight_ih first dim must be {gates} * hidden_size = {gates * hidden}, but got "
            f"{w_ih.shape[0]}"
        )
    if w_hh.shape[0] != gates * hidden:
        raise RuntimeError(
            f"weight_hh first dim must be {gates} * hidden_size = {gates * hidden}, but got "
            f"{w_hh.shape[0]}"
        )
    if input.shape[-1] != w_ih.shape[-1]:
        raise RuntimeError(
            f"{op}: input has inconsistent input_size: got {input.shape[-1]} expected "
            f"{w_ih.shape[-1]}"
        )


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: ``(h', c')`` from ``input`` (batch, input_size) and ``hx = (h, c)``
    (gates i, f, g, o stacked in the weights' rows, as in :class:`torch.nn.LSTMCell`)."""
    from torch.nn.modules._rnn_functional import _lstm_step

    h, c = hx
    _cell_inputs("lstm_cell", input, (("hx[0]", h), ("hx[1]", c)), w_ih, w_hh, 4)
    return _lstm_step(_F().linear(input, w_ih, b_ih), h, c, w_hh, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: ``h'`` from ``input`` and ``hx`` (gates r, z, n stacked)."""
    from torch.nn.modules._rnn_functional import _gru_step

    _cell_inputs("gru_cell", input, (("hx", hx),), w_ih, w_hh, 3)
    return _gru_step(_F().linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def _rnn_cell(name, relu):
    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        from torch.nn.modules._rnn_functional import _rnn_step

        _cell_inputs(name, input, (("hx", hx),), w_ih, w_hh, 1)
        return _rnn_step(_F().linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu)

    cell.__name__ = cell.__qualname__ = name
    act = "relu" if relu else "tanh"
    cell.__doc__ = f"One Elman RNN step: ``{act}(input W_ih^T + b_ih + hx W_hh^T + b_hh)``."
    return cell


rnn_tanh_cell = _rnn_cell("rnn_tanh_cell", False)
rnn_relu_cell = _rnn_cell("rnn_relu_cell", True)

_ATEN = (
    batch_norm, instance_norm, embedding, constant_pad_nd, kl_div,
    binary_cross_entropy_with_logits, margin_ranking_loss, hinge_embedding_loss,
    cosine_embedding_loss, triplet_margin_loss, poisson_nll_loss, lstm_cell, gru_cell,
    rnn_tanh_cell, rnn_relu_cell,
)  # fmt: skip


def install():
    for name in _SAME:
        setattr(torch, name, _from_functional(name))
    for fn in _ATEN:
        setattr(torch, fn.__name__, fn)
    for name in ("hardshrink", "prelu"):
        tensor_method(_from_functional(name), name)
