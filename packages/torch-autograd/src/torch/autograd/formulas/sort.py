"""Scans and order statistics: sort, topk, kthvalue, median, mode, quantile, cumulative ops.

The selections (sort, topk, kthvalue, median, mode, cummax/cummin) route each output's
gradient back to the input element it came from, through the index output.
"""

import math

import torch
from torch.autograd.formulas.reduce import index_scatter, may_be_true
from torch.autograd.graph import Formula, full_on


def _wrap(dim, ndim):
    return dim % ndim if ndim else 0


def _scatter_back(g, idx, shape, dim):
    """Zeros of ``shape`` with g added at ``idx`` along ``dim`` (g and idx of one shape)."""
    if len(shape) == 0:
        return g
    return full_on(shape, g.dtype, g, 0).scatter_add(_wrap(dim, len(shape)), idx, g)


class _Selection(Formula):
    """An op returning (values, indices) with values == x.gather(dim, indices)."""

    multi_output = True

    def _keep(self, out, x, dim):
        self.save_for_backward(out[1])
        self.shape = tuple(x.shape)
        self.dim = dim
        return (x,)

    def backward(self, g, _indices_grad=None):
        (idx,) = self.saved_tensors
        return (_scatter_back(g, idx, self.shape, self.dim),)


class SortBackward0(_Selection):
    names = ("_sort",)

    def save(self, out, x, dim, descending):
        return self._keep(out, x, dim)


class TopkBackward0(_Selection):
    names = ("_topk",)

    def save(self, out, x, k, dim, largest):
        return self._keep(out, x, dim)


class CummaxBackward0(_Selection):
    """cummax / cummin: each running extreme came from one element (the index output)."""

    names = ("_cummax", "_cummin")

    def save(self, out, x, dim):
        return self._keep(out, x, dim)


class _RowReduction(Formula):
    """A (value, index) per row: the gradient goes to the index (keepdim decides the shape)."""

    multi_output = True

    def _keep(self, out, x, dim, keepdim):
        self.save_for_backward(out[1])
        self.shape = tuple(x.shape)
        self.dim = dim
        self.keepdim = keepdim
        return (x,)

    def backward(self, g, _indices_grad=None):
        (idx,) = self.saved_tensors
        return (index_scatter(g, idx, self.shape, self.dim, self.keepdim),)


class KthvalueBackward0(_RowReduction):
    names = ("_kthvalue",)

    def save(self, out, x, k, dim, keepdim):
        return self._keep(out, x, dim, keepdim)


class MedianBackward1(_RowReduction):
    names = ("_median_dim",)

    def save(self, out, x, dim, keepdim, ignore_nan):
        return self._keep(out, x, dim, keepdim)


class ModeBackward0(_RowReduction):
    names = ("_mode",)

    def save(self, out, x, dim, keepdim):
        return self._keep(out, x, dim, keepdim)


class MedianBackward0(Formula):
    """median of all values: no index comes back, so the gradient is shared evenly by the
    elements equal to the result (the NaNs when the result is NaN)."""

    names = ("_median_all",)

    def save(self, out, x, ignore_nan):
        self.save_for_backward(x, out)
        return (x,)

    def backward(self, g):
        x, out = self.saved_tensors
        mask = torch.where(out.isnan(), x.isnan(), x == out).to(g.dtype)  # (no read-back)
        return (mask * (g / mask.sum()),)


class QuantileBackward0(Formula):
    """Each quantile interpolates between two sorted values with weights fixed by q and the
    row length: the gradient goes to those two elements with the same weights."""

    names = ("_quantile",)

    def save(self, out, x, q, q_dim, dim, all_dims, keepdim, interpolation, ignore_nan):
        self.save_for_backward(x)
        self.q, self.q_dim, self.dim, self.all_dims = list(q), q_dim, dim, all_dims
        self.interpolation, self.ignore_nan = interpolation, ignore_nan
        return (x,)

    def backward(self, g):
        (x,) = self.saved_tensors
        src = x.reshape(-1) if self.all_dims or x.dim() == 0 else x
        d = 0 if self.all_dims else _wrap(self.dim, src.dim())
        idx = torch.movedim(torch.sort(src.detach(), d).indices, d, -1)  # (*rows, n)
        rows, n = tuple(idx.shape[:-1]), idx.shape[-1]
        lo, hi, w_lo, w_hi = self._positions(torch.movedim(src.detach(), d, -1))
        # g -> (*rows, nq): one column per quantile
        g = g.reshape(len(self.q), *rows) if self.q_dim else g.reshape(1, *rows)
        g = torch.movedim(g, 0, -1)
        gx = full_on((*rows, n), g.dtype, g, 0)
        gx = gx.scatter_add(-1, idx.gather(-1, lo), g * w_lo)
        gx = gx.scatter_add(-1, idx.gather(-1, hi), g * w_hi)
        return (torch.movedim(gx, -1, d).reshape(x.shape),)

    def _positions(self, rows):
        """Sorted positions (lo, hi) of each row's quantiles, (*rows, nq), and their weights."""
        n = rows.shape[-1]
        nan = rows.isnan()
        valid = n - nan.sum(-1, keepdim=True)  # NaNs sort last
        # the rank in the input's precision, as the forward computes it
        q = torch.tensor(self.q, dtype=rows.dtype, device=rows.device)
        pos = (q * (valid - 1).clamp(min=0).to(rows.dtype)).to(torch.float64)
        lo, hi = pos.floor(), pos.ceil()
        frac = pos - lo
        how = self.interpolation
        if how == "linear":
            w_lo, w_hi = 1 - frac, frac
        elif how == "midpoint":
            w_lo, w_hi = torch.full_like(pos, 0.5), torch.full_like(pos, 0.5)
        else:  # one element: lower, higher, nearest
            if how != "lower":
                lo = hi if how == "higher" else pos.round()
            w_lo, w_hi = torch.ones_like(pos), torch.zeros_like(pos)
        # rows whose result is NaN: the gradient goes to a NaN, the last sorted element
        undefined = (valid == 0) if self.ignore_nan else (valid < n)
        last = torch.full_like(pos, n - 1)
        lo, hi = torch.where(undefined, last, lo), torch.where(undefined, last, hi)
        w_lo = torch.where(undefined, 1.0, w_lo)
        w_hi = torch.where(undefined, 0.0, w_hi)
        dtype = rows.dtype
        return lo.to(torch.int64), hi.to(torch.int64), w_lo.to(dtype), w_hi.to(dtype)


# ---------------------------------------------------------------- scans


def _reverse_cumsum(g, dim):
    """sum over j >= i along dim (the adjoint of cumsum)."""
    return g.flip(dim).cumsum(dim).flip(dim)


class CumsumBackward0(Formula):
    names = ("_cumsum",)

    def save(self, out, x, dim, dtype=None):
        self.dim = dim
        self.dtype = x.dtype
        return (x,)

    def backward(self, g):
        if g.dim():
            g = _reverse_cumsum(g, _wrap(self.dim, g.dim()))
        return (g if g.dtype == self.dtype else g.to(self.dtype),)


class CumprodBackward0(Formula):
    """d y_i / d x_k = prod_{j <= i, j != k} x_j for i >= k; exact when some x are zero."""

    names = ("_cumprod",)

    def save(self, out, x, dim, dtype=None):
        self.save_for_backward(x, out)
        self.dim = dim
        return (x,)

    def backward(self, g):
        x, y = self.saved_tensors
        if x.dim() == 0:
            return (g.to(x.dtype),)
        d = _wrap(self.dim, x.dim())
        xs = x.to(y.dtype)
        zero = xs == 0
        if not may_be_true(zero):
            return ((_reverse_cumsum(g * y, d) / xs).to(x.dtype),)
        if torch.is_grad_enabled():  # create_graph: a form whose derivative is exact too
            return (_cumprod_grad_quadratic(g, xs, d).to(x.dtype),)
        # Along each row, with z the first zero: k < z divides by x_k != 0 (the terms of
        # i >= z are zero in y already); k = z gets prod_{j<z} x_j * sum_{i>=z} g_i
        # prod_{z<j<=i} x_j; k > z gets 0 (x_z is in every product).
        seen = zero.to(torch.int64).cumsum(d)
        before = seen == 0
        first_zero = zero & (seen == 1)
        one = torch.ones_like(xs)
        grad_before = _reverse_cumsum(g * y, d) / torch.where(before, xs, one)
        head = torch.where(before, xs, one).prod(d, keepdim=True)  # prod_{j<z} x_j
        tail = torch.where(before | first_zero, one, xs).cumprod(d)  # prod_{z<j<=i} x_j
        grad_zero = head * _reverse_cumsum(g * tail, d)
        zeros = torch.zeros_like(grad_before)
        grad = torch.where(before, grad_before, torch.where(first_zero, grad_zero, zeros))
        return (grad.to(x.dtype),)


def _cumprod_grad_quadratic(g, x, d):
    """sum_{i>=k} g_i prod_{j<=i, j!=k} x_j with the products spelled out, (n, n) per row:
    unlike the O(n) form, its derivative stays right where x_k > z depends on a zero x_z."""
    n = x.shape[d]
    x, g = torch.movedim(x, d, -1), torch.movedim(g, d, -1)
    eye = torch.eye(n, dtype=torch.bool, device=x.device)
    others = torch.where(eye, 1.0, x.unsqueeze(-2).expand(*x.shape[:-1], n, n))  # [k, j]
    products = others.cumprod(-1)  # [k, i] = prod_{j <= i, j != k} x_j
    later = torch.ones(n, n, dtype=torch.bool, device=x.device).triu()  # i >= k
    grad = torch.where(later, products * g.unsqueeze(-2), 0.0).sum(-1)
    return torch.movedim(grad, -1, d)


class LogcumsumexpBackward0(Formula):
    """gx_k = sum_{i>=k} g_i exp(x_k - y_i), summed in log space (positive and negative g
    apart) so that no exp overflows."""

    names = ("_logcumsumexp",)

    def save(self, out, x, dim, dtype=None):
        self.save_for_backward(x, out)
        self.dim = dim
        return (x,)

    def backward(self, g):
        x, y = self.saved_tensors
        if x.dim() == 0:
            return (g,)
        d = _wrap(self.dim, x.dim())
        # y_i = -inf only after x_j = -inf for all j <= i: those x get 0, not exp(nan)
        y = torch.where(y == -math.inf, 0.0, y)

        def part(w):  # exp(x_k + log sum_{i>=k} w_i exp(-y_i)) for w >= 0
            pos = w > 0
            log_w = torch.where(pos, torch.where(pos, w, torch.ones_like(w)).log(), -math.inf)
            return (x + (log_w - y).flip(d).logcumsumexp(d).flip(d)).exp()

        zero = torch.zeros_like(g)
        return (part(torch.where(g > 0, g, zero)) - part(torch.where(g < 0, -g, zero)),)
