"""Backward formulas of the NN kernels: pooling, softmax, nll_loss, batch_norm, embedding,
padding and interpolation.

Most of these ops are linear maps with a backward kernel that is their adjoint (avg_pool and
avg_pool_backward, pad and pad_backward, nll_loss and nll_loss_backward, ...): each one's
gradient is the other, so gradients of any order stay exact.  Max pooling's backward is a
scatter by the saved indices, whose gradient is a gather.  The softmax backward kernels
have closed-form gradients.  batch_norm's backward runs its kernel when no graph is being
built and a composite of differentiable ops under ``create_graph``.
"""

import math

import torch
from torch import _C
from torch.autograd.formulas.indexing import IndexAdd
from torch.autograd.graph import Formula, full_on


# ---------------------------------------------------------------- pooling
class MaxPoolBackward0(Formula):
    """max_pool / adaptive_max_pool -> (values, indices): the gradient goes to each max."""

    names = ("_max_pool", "_adaptive_max_pool")
    multi_output = True

    def save(self, out, x, kernel_or_size, *args):
        self.save_for_backward(out[1])
        self.shape = list(x.shape)
        self.D = len(kernel_or_size)
        return (x,)

    def backward(self, g, _indices_grad=None):
        (indices,) = self.saved_tensors
        return (_C._max_pool_backward(g, indices, self.shape, self.D),)


class MaxPoolBackwardBackward0(Formula):
    """zeros(in_shape) with g added at the indices: its gradient reads gg at the indices."""

    names = ("_max_pool_backward",)

    def save(self, out, g, indices, in_shape, D):
        self.save_for_backward(indices)
        self.D = D
        return (g,)

    def backward(self, gg):
        (indices,) = self.saved_tensors
        lead = list(gg.shape[: gg.dim() - self.D])
        flat = gg.reshape(lead + [math.prod(gg.shape[gg.dim() - self.D :])])
        idx = indices.reshape(lead + [math.prod(indices.shape[indices.dim() - self.D :])])
        return (torch.gather(flat, -1, idx).reshape(indices.shape),)


class AvgPoolBackward0(Formula):
    names = ("_avg_pool",)

    def save(self, out, x, *args):
        self.shape = list(x.shape)
        self.args = args
        return (x,)

    def backward(self, g):
        return (_C._avg_pool_backward(g, self.shape, *self.args),)


class AvgPoolBackwardBackward0(Formula):
    names = ("_avg_pool_backward",)

    def save(self, out, g, in_shape, *args):
        self.args = args
        return (g,)

    def backward(self, gg):
        return (_C._avg_pool(gg, *self.args),)


class AdaptiveAvgPoolBackward0(Formula):
    names = ("_adaptive_avg_pool",)

    def save(self, out, x, output_size):
        self.shape = list(x.shape)
        self.D = len(output_size)
        return (x,)

    def backward(self, g):
        return (_C._adaptive_avg_pool_backward(g, self.shape, self.D),)


class AdaptiveAvgPoolBackwardBackward0(Formula):
    names = ("_adaptive_avg_pool_backward",)

    def save(self, out, g, in_shape, D):
        self.size = list(g.shape[g.dim() - D :])
        return (g,)

    def backward(self, gg):
        return (_C._adaptive_avg_pool(gg, self.size),)


# ---------------------------------------------------------------- softmax
class SoftmaxBackward0(Formula):
    names = ("_softmax",)
    saved_names = ("result",)
    saved_attrs = {"dim": lambda n: n.dim}

    def save(self, out, x, dim):
        self.save_for_backward(out)
        self.dim = dim
        return (x,)

    def backward(self, g):
        (y,) = self.saved_tensors
        return (_C._softmax_backward(g, y, self.dim),)


class LogSoftmaxBackward0(Formula):
    names = ("_log_softmax",)
    saved_names = ("result",)
    saved_attrs = {"dim": lambda n: n.dim}

    def save(self, out, x, dim):
        self.save_for_backward(out)
        self.dim = dim
        return (x,)

    def backward(self, g):
        (y,) = self.saved_tensors
        return (_C._log_softmax_backward(g, y, self.dim),)


def _sum(t, dim):
    return t.sum(dim, keepdim=True) if t.dim() else t


class SoftmaxBackwardBackward0(Formula):
    """out = y * (g - sum(g * y)): d/dg is the same map applied to gg; d/dy is
    gg * (g - sum(g * y)) - g * sum(gg * y)."""

    names = ("_softmax_backward",)

    def save(self, out, g, y, dim):
        self.save_for_backward(g, y)
        self.dim = dim
        return (g, y)

    def backward(self, gg):
        g, y = self.saved_tensors
        grad_g = grad_y = None
        if self.needs_input_grad[0]:
            grad_g = _C._softmax_backward(gg, y, self.dim)
        if self.needs_input_grad[1]:
            grad_y = gg * (g - _sum(g * y, self.dim)) - g * _sum(gg * y, self.dim)
        return grad_g, grad_y


class LogSoftmaxBackwardBackward0(Formula):
    """out = g - exp(y) * sum(g): d/dg gives gg - sum(gg * exp(y)); d/dy gives
    -gg * exp(y) * sum(g)."""

    names = ("_log_softmax_backward",)

    def save(self, out, g, y, dim):
        self.save_for_backward(g, y)
        self.dim = dim
        return (g, y)

    def backward(self, gg):
        g, y = self.saved_tensors
        e = y.exp()
        grad_g = grad_y = None
        if self.needs_input_grad[0]:
            grad_g = gg - _sum(gg * e, self.dim)
        if self.needs_input_grad[1]:
            grad_y = -gg * e * _sum(g, self.dim)
        return grad_g, grad_y


# ---------------------------------------------------------------- nll_loss
class NllLossBackward0(Formula):
    """nll_loss's loss alone (what torch.nn.functional calls); linear in the input (no
    gradient for the weight). The backward kernel counts the total weight of 'mean' again."""

    names = ("_nll_loss_value",)

    def save(self, out, x, target, weight, reduction, ignore_index):
        self.save_for_backward(target, weight)
        self.reduction, self.ignore_index = reduction, ignore_index
        self.classes = x.size(1)
        return (x,)

    def backward(self, g):
        target, weight = self.saved_tensors
        return (
            _C._nll_loss_backward(
                g, target, weight, self.reduction, self.ignore_index, None, self.classes
            ),
        )


class NllLossWithTotalBackward0(Formula):
    """nll_loss -> (loss, total_weight); linear in the input (no gradient for the weight)."""

    names = ("_nll_loss",)
    multi_output = True

    def save(self, out, x, target, weight, reduction, ignore_index):
        self.save_for_backward(target, weight, out[1].detach())
        self.reduction, self.ignore_index = reduction, ignore_index
        self.classes = x.shape[1]
        return (x,)

    def backward(self, g, _total_grad=None):
        target, weight, total = self.saved_tensors
        return (
            _C._nll_loss_backward(
                g, target, weight, self.reduction, self.ignore_index, total, self.classes
            ),
        )


class NllLossBackwardBackward0(Formula):
    names = ("_nll_loss_backward",)

    def save(self, out, g, target, weight, reduction, ignore_index, total, classes):
        self.save_for_backward(target, weight)
        self.reduction, self.ignore_index = reduction, ignore_index
        return (g,)

    def backward(self, gg):
        target, weight = self.saved_tensors
        return (_C._nll_loss_value(gg, target, weight, self.reduction, self.ignore_index),)


# ---------------------------------------------------------------- elementwise losses
class MseLossBackward0(Formula):
    """The elementwise losses (one kernel each, with their reduction): the gradients of input
    and target in one pass each (a kernel), or differentiable ops under ``create_graph``."""

    names = ("_mse_loss",)
    kind = 0

    def save(self, out, x, y, weight, pos_weight, reduction, p):
        self.save_for_backward(x, y, weight, pos_weight)
        self.reduction, self.p = reduction, p
        return (x, y)

    def backward(self, g):
        x, y, weight, pos_weight = self.saved_tensors
        args = (self.kind, g, x, y, weight, pos_weight, self.reduction, self.p)
        if torch.is_grad_enabled():  # create_graph: differentiable ops
            return _loss_grads(*args, *self.needs_input_grad)
        return _C._pointwise_loss_backward(*args, *self.needs_input_grad)


class L1LossBackward0(MseLossBackward0):
    names = ("_l1_loss",)
    kind = 1


class SmoothL1LossBackward0(MseLossBackward0):
    names = ("_smooth_l1_loss",)
    kind = 2


class HuberLossBackward0(MseLossBackward0):
    names = ("_huber_loss",)
    kind = 3


class BinaryCrossEntropyBackward0(MseLossBackward0):
    names = ("_binary_cross_entropy",)
    kind = 4


class BinaryCrossEntropyWithLogitsBackward0(MseLossBackward0):
    names = ("_binary_cross_entropy_with_logits",)
    kind = 5


def _log_sigmoid(x):
    return torch.clamp(x, max=0.0) - torch.log1p(torch.exp(-torch.abs(x)))


def _loss_grads(kind, g, x, y, weight, pos_weight, reduction, p, need_x, need_y):
    """The kernel's gradients (PyTorch's formulas) as differentiable ops."""
    if reduction == 1:
        g = g / x.numel()
    if weight is not None:
        g = g * weight
    d = x - y
    dx = dy = None
    if kind == 0:
        dx = 2 * d
    elif kind == 1:
        dx = torch.sign(d)
    elif kind == 2:
        dx = torch.where(d <= -p, -1.0, torch.where(d >= p, 1.0, d / p))
    elif kind == 3:
        dx = torch.where(d <= -p, -p, torch.where(d >= p, p, d))
    elif kind == 4:
        dx = d / torch.clamp((1 - x) * x, min=1e-12)
        dy = torch.log1p(-x) - torch.log(x)
    elif pos_weight is None:
        dx, dy = torch.sigmoid(x) - y, -x
    else:
        t = pos_weight * y
        dx = (t + 1 - y) * torch.sigmoid(x) - t
        dy = (1 - pos_weight) * _log_sigmoid(x) - x
    if dy is None:
        dy = -dx
    return (g * dx if need_x else None, g * dy if need_y else None)


# ---------------------------------------------------------------- batch_norm
class NativeBatchNormBackward0(Formula):
    """batch_norm on (N, C, *) -> (out, mean, invstd); mean and invstd are internal (the
    Python function returns only out) and get no gradient of their own. (Named as PyTorch's
    CPU batch norm node.)"""

    names = ("_batch_norm",)
    multi_output = True

    def save(self, out, x, weight, bias, running_mean, running_var, training, momentum, eps):
        self.save_for_backward(x, weight, out[1].detach(), out[2].detach())
        self.training, self.eps = training, eps
        return (x, weight, bias)

    def backward(self, g, _mean_grad=None, _invstd_grad=None):
        x, weight, mean, invstd = self.saved_tensors
        if torch.is_grad_enabled():  # create_graph: differentiable ops
            gx, gw, gb = _batch_norm_grads(g, x, weight, mean, invstd, self.training, self.eps)
        else:
            gx, gw, gb = _C._batch_norm_backward(g, x, weight, mean, invstd, self.training)
        need = self.needs_input_grad
        return (
            gx if need[0] else None,
            gw if need[1] and weight is not None else None,
            gb if need[2] else None,
        )


def _batch_norm_grads(g, x, weight, mean, invstd, training, eps):
    """The gradients of batch_norm as differentiable ops of (g, x, weight): in training the
    statistics are recomputed from x, so that second derivatives see their dependence on x."""
    dims = [0, *range(2, x.dim())]  # x: (N, C, *)
    per_channel = (1, -1) + (1,) * (x.dim() - 2)
    if training:
        xmu = x - x.mean(dims, keepdim=True)
        rstd = ((xmu * xmu).mean(dims, keepdim=True) + eps).rsqrt()
    else:
        xmu = x - mean.reshape(per_channel)
        rstd = invstd.reshape(per_channel)
    xhat = xmu * rstd
    gw = (g * xhat).sum(dims)
    gb = g.sum(dims)
    gh = g if weight is None else g * weight.reshape(per_channel)
    if training:
        gh = gh - gh.mean(dims, keepdim=True) - xhat * (gh * xhat).mean(dims, keepdim=True)
    return gh * rstd, gw, gb


# ---------------------------------------------------------------- layer_norm
class NativeLayerNormBackward0(Formula):
    """layer_norm over the last k dims of x -> (out, mean, rstd); mean and rstd are internal
    (the Python function returns only out) and get no gradient of their own."""

    names = ("_layer_norm",)
    multi_output = True

    def save(self, out, x, k, weight, bias, eps):
        self.save_for_backward(x, weight, out[1].detach(), out[2].detach())
        self.k, self.eps = k, eps
        return (x, weight, bias)

    def backward(self, g, _mean_grad=None, _rstd_grad=None):
        x, weight, mean, rstd = self.saved_tensors
        if torch.is_grad_enabled():  # create_graph: differentiable ops
            gx, gw, gb = _layer_norm_grads(g, x, self.k, weight, self.eps)
        else:
            gx, gw, gb = _C._layer_norm_backward(g, x, self.k, weight, mean, rstd)
        need = self.needs_input_grad
        return (
            gx if need[0] else None,
            gw if need[1] and weight is not None else None,
            gb if need[2] else None,
        )


def _layer_norm_grads(g, x, k, weight, eps):
    """The gradients of layer_norm as differentiable ops of (g, x, weight), the statistics
    recomputed from x so that second derivatives see their dependence on x."""
    shape, length = x.shape, math.prod(x.shape[x.dim() - k :])
    g, x = g.reshape(-1, length), x.reshape(-1, length)
    w = None if weight is None else weight.reshape(length)
    gx, gw, gb = _row_norm_grads(g, x, w, eps)
    tail = shape[len(shape) - k :]
    return gx.reshape(shape), gw.reshape(tail), gb.reshape(tail)


def _row_norm_grads(g, x, weight, eps):
    """_layer_norm_grads on (rows, L)."""
    xmu = x - x.mean(1, keepdim=True)
    rstd = ((xmu * xmu).mean(1, keepdim=True) + eps).rsqrt()
    xhat = xmu * rstd
    gw = (g * xhat).sum(0)
    gb = g.sum(0)
    gh = g if weight is None else g * weight
    gh = gh - gh.mean(1, keepdim=True) - xhat * (gh * xhat).mean(1, keepdim=True)
    return gh * rstd, gw, gb


# ---------------------------------------------------------------- embedding
def _counts(flat, rows, ones):
    """How often each of ``rows`` rows appears in the indices ``flat``, in ones' dtype and on
    its device (an index_add of ones: bincount would make its own tensors)."""
    return full_on(rows, ones.dtype, ones, 0).index_add_(0, flat, ones)


class EmbeddingBackward0(Formula):
    """weight[indices]: the gradient rows are added into the weight's rows, except at
    padding_idx; scale_grad_by_freq divides by each index's count."""

    names = ("_embedding",)

    def save(self, out, weight, indices, padding_idx, scale_grad_by_freq):
        self.save_for_backward(indices)
        self.shape = tuple(weight.shape)
        self.padding_idx, self.scale = padding_idx, scale_grad_by_freq
        return (weight,)

    def backward(self, g):
        (indices,) = self.saved_tensors
        rows, dim = self.shape
        flat = indices.reshape(-1)
        g = g.reshape(flat.shape[0], dim)
        if self.padding_idx >= 0 or self.scale:
            factor = torch.ones(flat.shape[0], dtype=g.dtype, device=g.device)
            if self.scale:
                factor = 1 / _counts(flat, rows, factor)[flat]
            if self.padding_idx >= 0:
                factor = torch.where(flat == self.padding_idx, 0.0, factor)
            g = g * factor.reshape(-1, 1)
        return (IndexAdd.apply(g, 0, flat, (rows, dim)),)


# ---------------------------------------------------------------- padding and interpolation
class PadBackward0(Formula):
    names = ("_pad",)

    def save(self, out, x, pads, mode, value):
        self.shape = list(x.shape)
        self.pads, self.mode = pads, mode
        return (x,)

    def backward(self, g):
        return (_C._pad_backward(g, self.shape, self.pads, self.mode),)


class PadBackwardBackward0(Formula):
    names = ("_pad_backward",)

    def save(self, out, g, in_shape, pads, mode):
        self.pads, self.mode = pads, mode
        return (g,)

    def backward(self, gg):
        return (_C._pad(gg, self.pads, self.mode, 0.0),)


class InterpolateBackward0(Formula):
    names = ("_interpolate",)

    def save(self, out, x, size, scales, mode, align_corners):
        self.shape = list(x.shape)
        self.scales, self.mode, self.align = scales, mode, align_corners
        self.D = len(size)
        return (x,)

    def backward(self, g):
        return (
            _C._interpolate_backward(g, self.shape, self.scales, self.mode, self.align, self.D),
        )


class InterpolateBackwardBackward0(Formula):
    names = ("_interpolate_backward",)

    def save(self, out, g, in_shape, scales, mode, align_corners, D):
        self.size = list(g.shape[g.dim() - D :])
        self.scales, self.mode, self.align = scales, mode, align_corners
        return (g,)

    def backward(self, gg):
        return (_C._interpolate(gg, self.size, self.scales, self.mode, self.align),)
