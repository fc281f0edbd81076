"""The loss functions (nll_loss and cross_entropy are core kernels), and the
``reduction`` argument's handling that they share.

mse, l1, smooth_l1, huber and the binary cross entropies are one core kernel each (the
elementwise loss and its reduction in one pass, one autograd node) when input and target
have one shape and one float32/float64 dtype; the kernel answers NotImplemented otherwise,
and the loss is composed of tensor ops (broadcasting, type promotion, other dtypes).
"""

import math
import warnings

import torch
from torch import _C
from torch.nn._functional.activation import logsigmoid
from torch.nn._functional.common import _check_tensor, _float_only, _tensors
from torch.nn._functional.distance import _sum_sq, pairwise_distance

Tensor = torch.Tensor


class _Reduction:
    @staticmethod
    def legacy_get_string(size_average, reduce, emit_warning=True):
        """The reduction that the old ``size_average``/``reduce`` flags mean."""
        if size_average is None:
            size_average = True
        if reduce is None:
            reduce = True
        if size_average and reduce:
            ret = "mean"
        elif reduce:
            ret = "sum"
        else:
            ret = "none"
        if emit_warning:
            warnings.warn(
                f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
                "instead.",
                stacklevel=3,
            )
        return ret

    @staticmethod
    def get_enum(reduction):
        return {"none": 0, "mean": 1, "elementwise_mean": 1, "sum": 2}[reduction]


def _reduction_of(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_size_mismatch(input, target, op="loss"):
    _tensors(op, input=input, target=target)
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _float_losses(input, target, op):
    """NotImplementedError where input and target promote to a non-float dtype (PyTorch's
    kernels of these losses are floating-point only)."""
    dt = torch.promote_types(input.dtype, target.dtype)
    if not dt.is_floating_point:
        raise NotImplementedError(
            f"{op}(): not implemented for {dt} (input {input.dtype}, target {target.dtype}); "
            "expected floating-point tensors"
        )


def _weighted(loss, weight):
    return loss if weight is None else loss * weight


_CODES = {"none": 0, "mean": 1, "sum": 2}


def _code(reduction, size_average=None, reduce=None):
    """The kernels' reduction code, or None where the composed path decides (legacy flags,
    invalid values)."""
    if size_average is None and reduce is None and reduction.__class__ is str:
        return _CODES.get(reduction)
    return None


def _positive(value):
    return value.__class__ in (int, float) and value > 0


def _weight_mean(loss, weight, reduction):
    """mse_loss's and l1_loss's weighted reduction: 'mean' divides by the sum of the weights
    (PyTorch's), which must have the input's size."""
    if weight.shape != loss.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``|input - target|``, reduced."""
    code = _code(reduction, size_average, reduce)
    if code is not None and weight is None:
        out = _C._l1_loss(input, target, None, None, code, 0.0)
        if out is not NotImplemented:
            return out
    _warn_size_mismatch(input, target, "l1_loss")
    reduction = _reduction_of(size_average, reduce, reduction)
    loss = torch.abs(input - target)
    return _reduce(loss, reduction) if weight is None else _weight_mean(loss, weight, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)^2, reduced."""
    code = _code(reduction, size_average, reduce)
    if code is not None and weight is None:
        out = _C._mse_loss(input, target, None, None, code, 0.0)
        if out is not NotImplemented:
            return out
    _warn_size_mismatch(input, target, "mse_loss")
    _float_losses(input, target, "mse_loss")
    reduction = _reduction_of(size_average, reduce, reduction)
    d = input - target
    if weight is not None:
        return _weight_mean(d * d, weight, reduction)
    if reduction in ("mean", "sum") and d.dtype.is_floating_point:
        total = _C._sum_sq(d, None, False, None)  # one pass, no d * d tensor
        return total / d.numel() if reduction == "mean" else total
    return _reduce(d * d, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input - target``)."""
    code = _code(reduction, size_average, reduce)
    if code is not None and (beta.__class__ in (int, float) and beta >= 0):
        kernel = _C._smooth_l1_loss if beta > 0 else _C._l1_loss  # (beta 0 is the L1 loss)
        out = kernel(input, target, None, None, code, beta)
        if out is not NotImplemented:
            return out
    _warn_size_mismatch(input, target, "smooth_l1_loss")
    _float_losses(input, target, "smooth_l1_loss")
    reduction = _reduction_of(size_average, reduce, reduction)
    if not beta >= 0:  # (NaN too)
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = torch.abs(input - target)
    if beta == 0:
        return _reduce(d, reduction)
    loss = torch.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    code = _code(reduction)
    if code is not None and weight is None and _positive(delta):
        out = _C._huber_loss(input, target, None, None, code, delta)
        if out is not NotImplemented:
            return out
    _warn_size_mismatch(input, target, "huber_loss")
    _float_losses(input, target, "huber_loss")
    if not delta > 0:  # (NaN too)
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = torch.abs(input - target)
    loss = torch.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return _reduce(_weighted(loss, weight), reduction)


def _bce_shape_check(input, target):
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )


def _no_grad_weights(op, **weights):
    """PyTorch's kernels take no gradient for weight and pos_weight: it refuses them."""
    for name, w in weights.items():
        if w is not None and getattr(w, "requires_grad", False) and torch.is_grad_enabled():
            raise RuntimeError(
                f"The function '{op}' is not differentiable with respect to argument '{name}'. "
                "This input cannot have requires_grad True."
            )


def _outside_unit(t):
    return bool(torch.logical_not((t >= 0) & (t <= 1)).any())  # (NaN is outside)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):  # fmt: skip
    """-(t log(x) + (1 - t) log(1 - x)), each log clamped to >= -100."""
    op = "binary_cross_entropy"
    if weight is not None:
        _no_grad_weights(op, weight=weight)
    code = _code(reduction, size_average, reduce)
    if code is not None:
        out = _C._binary_cross_entropy(input, target, weight, None, code, 0.0)
        if out is not NotImplemented:
            return out
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors(op, input=input, target=target)
    _bce_shape_check(input, target)
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"binary_cross_entropy(): Found dtype {target.dtype} (target) but expected "
            f"{input.dtype} (the input's)"
        )
    if input.numel() and _outside_unit(input):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if target.numel() and _outside_unit(target):
        raise RuntimeError("all elements of target should be between 0 and 1")
    log_x = torch.clamp(torch.log(input), min=-100.0)
    log_1mx = torch.clamp(torch.log1p(-input), min=-100.0)
    loss = -(target * (log_x - log_1mx) + log_1mx)
    return _reduce(_weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):  # fmt: skip
    """binary_cross_entropy(sigmoid(input), target), computed stably; ``pos_weight``
    weighs the positive term (one value per class, broadcast over the last dimension)."""
    op = "binary_cross_entropy_with_logits"
    if weight is not None or pos_weight is not None:
        _no_grad_weights(op, weight=weight, pos_weight=pos_weight)
    code = _code(reduction, size_average, reduce)
    if code is not None:
        out = _C._binary_cross_entropy_with_logits(input, target, weight, pos_weight, code, 0.0)
        if out is not NotImplemented:
            return out
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors(op, input=input, target=target)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    _float_only(input, op)
    if not target.is_floating_point():
        raise RuntimeError(
            f"{op}(): result type Float can't be cast to the desired output type of the target "
            f"({target.dtype}); use a floating-point target"
        )
    # log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|))
    log_sig_neg = torch.clamp(-input, min=0.0) + torch.log1p(torch.exp(-torch.abs(input)))
    if pos_weight is None:
        loss = (1 - target) * input + log_sig_neg
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * log_sig_neg
    return _reduce(_weighted(loss, weight), reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) (input holds log-probabilities; target too when
    ``log_target``).  'batchmean' divides the sum by the batch size."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("kl_div", input=input, target=target)
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError(
            f"kl_div: Integral inputs not supported (input {input.dtype}, target {target.dtype})"
        )
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    if log_target:
        loss = torch.exp(target) * (target - input)
    else:
        safe = torch.where(target > 0, target, 1.0)
        loss = target * torch.log(safe) - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() else 1)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):  # fmt: skip
    """max(0, -target * (input1 - input2) + margin)."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("margin_ranking_loss", input1=input1, input2=input2, target=target)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce(torch.clamp(-target * (input1 - input2) + margin, min=0.0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):  # fmt: skip
    """x where target is 1, max(0, margin - x) where target is -1."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("hinge_embedding_loss", input=input, target=target)
    zeros = torch.zeros_like(input)
    margin_part = torch.where(target != 1, torch.clamp(margin - input, min=0.0), zeros)
    self_part = torch.where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input))."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("soft_margin_loss", input=input, target=target)
    z = -(target * input)  # (negating an unsigned target first would wrap around)
    loss = torch.clamp(z, min=0.0) + torch.log1p(torch.exp(-torch.abs(z)))
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):  # fmt: skip
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    if target.dim() > 1:
        raise RuntimeError(
            f"cosine_embedding_loss(): 0D or 1D target tensor expected, multi-target not "
            f"supported (got target of shape {tuple(target.shape)})"
        )
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2):
        raise RuntimeError(
            f"cosine_embedding_loss: expected 1D or 2D inputs of the same dimension, got "
            f"{list(input1.shape)} and {list(input2.shape)}"
        )
    dim = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag = torch.clamp(_sum_sq(input1, dim, False) * _sum_sq(input2, dim, False), min=eps).sqrt()
    cos = prod / mag
    zeros = torch.zeros_like(cos)
    pos = torch.where(target == 1, 1 - cos, zeros)
    neg = torch.where(target == -1, torch.clamp(cos - margin, min=0.0), zeros)
    return _reduce(pos + neg, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):  # fmt: skip
    """max(d(a, p) - d(a, n) + margin, 0) with d the pairwise p-norm distance; ``swap``
    uses min(d(a, n), d(p, n))."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss(): margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1 or dims[0] not in (1, 2):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions (1 or 2), but got: anchor {dims[0]}D, positive {dims[1]}D, and "
            f"negative {dims[2]}D inputs"
        )
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torch.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(torch.clamp(d_pos - d_neg + margin, min=0.0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):  # fmt: skip
    """The triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with a custom distance
    ``distance_function(x, y)`` (pairwise Euclidean distance when None); ``swap`` also uses
    d(p, n) when smaller. Reduced by ``reduction``."""
    op = "triplet_margin_with_distance_loss"
    _tensors(op, anchor=anchor, positive=positive, negative=negative)
    if margin <= 0:
        raise ValueError(f"{op}(): margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            f"{op}(): The anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and "
            f"negative {dims[2]}D inputs"
        )
    _check_reduction(reduction)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = torch.minimum(d_neg, dist(positive, negative))
    return _reduce(torch.clamp(d_pos - d_neg + margin, min=0.0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):  # fmt: skip
    """-(t log sigmoid(x) + (1 - t) log sigmoid(-x)), averaged over the classes (last
    dimension), then reduced over the batch."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("multilabel_soft_margin_loss", input=input, target=target)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    loss = _weighted(loss, weight)
    # the class dim is the input's last (the loss may have more leading dims from target)
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):  # fmt: skip
    """exp(x) - t x (``log_input``) or x - t log(x + eps); ``full`` adds Stirling's term."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors("poisson_nll_loss", input=input, target=target)
    from torch._nn_ops import _float

    eps = _float(eps, "poisson_nll_loss", "eps")
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input + eps)
    if full:
        stirling = target * torch.log(torch.where(target > 1, target, 1.0)) - target
        stirling = stirling + 0.5 * torch.log(2 * math.pi * torch.where(target > 1, target, 1.0))
        loss = loss + torch.where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi))."""
    if not isinstance(var, Tensor):
        var = torch.full_like(input, float(var))
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.shape[:-1] == var.shape[:-1] and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = torch.clamp(var, min=eps)
    d = input - target
    loss = 0.5 * (torch.log(var) + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):  # fmt: skip
    """sum_{i != y} max(0, margin - x[y] + x[i])^p / C per sample."""
    op = "multi_margin_loss"
    reduction = _reduction_of(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _tensors(op, input=input, target=target)
    if input.dtype in (torch.float16, torch.bfloat16):
        raise NotImplementedError(f"{op}(): not implemented for {input.dtype}")
    if input.dim() > 2 or input.numel() == 0 and (input.dim() < 2 or input.shape[1] == 0):
        raise RuntimeError(
            f"{op}(): Expected non-empty vector or matrix with optional 0-dim batch size, but "
            f"got: {list(input.shape)}"
        )
    n = input.shape[0] if input.dim() == 2 else 1
    if target.dim() > 1 or target.numel() != n or (input.dim() == 2 and target.dim() != 1):
        raise RuntimeError(
            f"{op}(): target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{n}], but got {list(target.shape)}. Input "
            f"size: {list(input.shape)}"
        )
    if target.dtype != torch.int64:
        raise RuntimeError(f"{op}(): expected target of scalar type Long but found {target.dtype}")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    c = x.shape[1]
    if weight is not None:
        _check_tensor(weight, op, "weight")
        if weight.dim() > 1 or weight.numel() != c:
            raise RuntimeError(
                f"{op}(): inconsistent weight size, expected {c} but got {list(weight.shape)}"
            )
    t = target.reshape(-1, 1)
    x_y = x.gather(1, t)
    z = margin - x_y + x
    m = torch.where(z > 0, z, 0.0)  # (a NaN margin adds nothing, as in PyTorch)
    if p == 2:
        m = m * m
    if weight is not None:
        m = m * weight.reshape(-1).index_select(0, t.reshape(-1)).unsqueeze(1)
    is_y = torch.zeros(x.shape, dtype=torch.bool, device=x.device).scatter_(1, t, True)
    loss = m.masked_fill(is_y, 0).sum(1) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-class multi-label hinge loss: per sample,
    sum over its targets j and its non-target classes i of max(0, 1 - (x[y_j] - x[i])) / C.

    input (C) or (N, C); target of the same shape, int64, holding the sample's target
    classes first and padded with -1 (the targets are those before the first -1)."""
    op = "multilabel_margin_loss"
    reduction = _reduction_of(size_average, reduce, reduction)
    _tensors(op, input=input, target=target)
    _check_reduction(reduction)
    if input.dim() > 2 or (input.numel() == 0 and (input.dim() < 2 or input.shape[1] == 0)):
        raise RuntimeError(
            f"{op}(): Expected non-empty vector or matrix with optional 0-dim batch size, but "
            f"got: {list(input.shape)}"
        )
    if target.shape != input.shape:
        raise RuntimeError(
            f"{op}(): inconsistent target size: {list(target.shape)} for input of size: "
            f"{list(input.shape)}"
        )
    if not input.is_floating_point() or input.dtype in (torch.float16, torch.bfloat16):
        raise NotImplementedError(f"{op}(): not implemented for {input.dtype}")
    if target.dtype != torch.int64:
        raise RuntimeError(f"{op}(): expected target of scalar type Long but found {target.dtype}")
    c = input.shape[-1] if input.dim() else 1
    x = input.reshape(-1, c)
    t = target.reshape(-1, c)
    if t.numel() and (bool((t < -1).any()) or bool((t >= c).any())):
        raise RuntimeError(f"{op}(): argument #2 'target' is out of range (classes 0..{c - 1})")
    # the targets of a row are the prefix before its first -1
    active = (t != -1).long().cumprod(1)
    k = int(active.sum(1).max()) if t.shape[0] else 0
    active, safe = active[:, :k].bool(), torch.where(active.bool(), t, 0)[:, :k]
    hits = torch.zeros(t.shape, dtype=torch.int64, device=t.device)
    hits = hits.scatter_add(1, safe, active.long())
    non_target = (hits == 0).unsqueeze(1)  # (N, 1, C)
    x_y = x.gather(1, safe).unsqueeze(2)  # (N, k, 1)
    z = 1 - x_y + x.unsqueeze(1)  # (N, k, C): the margin of target j over class i
    keep = active.unsqueeze(2) & non_target & (z > 0)
    loss = torch.where(keep, z, 0.0).sum((1, 2)) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)
