"""Parametrizations built on :mod:`torch.nn.utils.parametrize`: ``weight_norm``,
``spectral_norm`` and ``orthogonal``.

Each registers a parametrization module on ``module.<name>``, so the original tensors live
in ``module.parametrizations.<name>`` (``original``, or ``original0``/``original1`` for
weight norm's g and v) and ``module.<name>`` is computed from them on access.
"""

from enum import Enum, auto

import torch
from torch.nn import functional as F
from torch.nn.modules.module import Module
from torch.nn.utils import parametrize
from torch.nn.utils.weight_norm import _norm_except_dim, _weight_norm

Tensor = torch.Tensor

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------- dense helpers
def _conj_t(x):
    """The conjugate transpose of the last two dimensions."""
    x = x.transpose(-2, -1)
    return x.conj() if x.is_complex() else x


def _eye_like(x, n):
    return torch.eye(n, dtype=x.dtype, device=x.device)


def _householder_product(a, tau):
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^H, where v_i is
    column i of a (m, n) below the diagonal with a 1 on it (LAPACK's representation)."""
    m, n = a.shape[-2], a.shape[-1]
    k = tau.shape[-1]
    rows = torch.arange(m, device=a.device).unsqueeze(-1)
    q = _eye_like(a, m).expand(*a.shape[:-2], m, m)
    for i in range(k):
        below = (rows > i).to(a.dtype)
        v = a[..., :, i : i + 1] * below + (rows == i).to(a.dtype)
        vh = _conj_t(v)
        q = q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * torch.matmul(torch.matmul(q, v), vh)
    return q[..., :, :n]


def _geqrf(a):
    """The QR decomposition of real (..., m, n) matrices in LAPACK's form: R on and above the
    diagonal, the Householder vectors below it, and their factors tau.  No gradient."""
    with torch.no_grad():
        a = a.clone()
        m, n = a.shape[-2], a.shape[-1]
        k = min(m, n)
        tau = a.new_zeros(*a.shape[:-2], k)
        for j in range(k):
            x = a[..., j:, j]
            alpha = x[..., 0]
            tail = x[..., 1:]
            tail_norm = torch.linalg.vector_norm(tail, dim=-1) if m - j > 1 else alpha * 0
            reflect = tail_norm != 0
            sign = torch.where(alpha >= 0, 1.0, -1.0).to(a.dtype)
            beta = -sign * torch.sqrt(alpha * alpha + tail_norm * tail_norm)
            safe_beta = torch.where(reflect, beta, 1.0).to(a.dtype)
            t = torch.where(reflect, (beta - alpha) / safe_beta, 0.0).to(a.dtype)
            scale = torch.where(reflect, 1.0 / (alpha - safe_beta), 0.0).to(a.dtype)
            v_tail = tail * scale.unsqueeze(-1)
            # apply H = I - t [1; v] [1; v]^T to the columns on the right
            if j + 1 < n:
                block = a[..., j:, j + 1 :]
                v = torch.cat([torch.ones_like(alpha).unsqueeze(-1), v_tail], -1)
                w = torch.matmul(v.unsqueeze(-2), block)  # (..., 1, n - j - 1)
                block.sub_(t.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w)
            a[..., j, j] = torch.where(reflect, beta, alpha)
            a[..., j + 1 :, j] = torch.where(reflect.unsqueeze(-1), v_tail, tail)
            tau[..., j] = t
    return a, tau


# ---------------------------------------------------------------- orthogonal
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _is_orthogonal(q):
    k = q.shape[-1]
    eps = 10.0 * q.shape[-2] * torch.finfo(q.dtype).eps
    return torch.allclose(torch.matmul(_conj_t(q), q), _eye_like(q, k), atol=eps)


def _make_orthogonal(a):
    """The Q of a = QR with R's diagonal non-negative (a tall)."""
    q, r = torch.linalg.qr(a)
    signs = r.diagonal(dim1=-2, dim2=-1)
    signs = torch.where(signs < 0, -1.0, 1.0).to(q.dtype)
    return q * signs.unsqueeze(-2)


class _Orthogonal(Module):
    """Maps an unconstrained (..., n, k) tensor to one with orthonormal columns (rows, for
    n < k): the matrix exponential or the Cayley transform of a skew-symmetric matrix built
    from its lower triangle, or a product of Householder reflections.  With
    ``use_trivialization`` the result is multiplied by ``base`` (an orthogonal matrix fixed
    at registration and on each assignment), so the original starts at the identity."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.transpose(-2, -1)
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:  # complete to a square matrix with zero columns
                X = torch.cat([X, X.new_zeros(*X.shape[:-2], n, n - k)], -1)
            A = X - _conj_t(X)  # skew-symmetric (skew-hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = torch.matrix_exp(A)
            else:
                eye = _eye_like(A, n)
                Q = torch.linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = _householder_product(A, tau)
            # the diagonal of X (+-1) flips columns; it takes no gradient
            Q = Q * X.detach().diagonal(dim1=-2, dim2=-1).trunc().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = torch.matmul(self.base, Q)
        if transposed:
            Q = Q.transpose(-2, -1)
        return Q

    def right_inverse(self, Q):
        with torch.no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor "
                    f"of shape {Q.shape}."
                )
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transposed = n < k
            if transposed:
                Q = Q.transpose(-2, -1)
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map != _OrthMaps.householder:
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                # the Householder vectors of Q's QR, with R's diagonal signs on the diagonal
                A, tau = _geqrf(Q)
                diag = A.diagonal(dim1=-2, dim2=-1)
                signs = torch.where(diag < 0, -1.0, 1.0).to(A.dtype)
                signs = torch.where(tau == 0, -signs, signs)  # no reflection: undo the flip
                diag.copy_(signs)
                return A.transpose(-2, -1) if transposed else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:  # complete Q to an orthogonal n x n matrix
                extra = torch.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(torch.cat([Q, extra], -1))
            self.base = Q
            # -I: the original that every map sends to the identity (householder flips it)
            neg_id = torch.zeros_like(Q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain the matrix (or batch of matrices) ``module.<name>`` to have orthonormal
    columns (or rows, where it is wide).

    ``orthogonal_map``: 'matrix_exp' (the default for square matrices), 'cayley' or
    'householder' (the default otherwise).  With ``use_trivialization`` (the default) the
    map is applied around a base point that assignments to ``module.<name>`` set; without,
    only the Householder map can be assigned to.  Returns module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, str(orthogonal_map), None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---------------------------------------------------------------- weight norm
class _WeightNorm(Module):
    """weight = g * v / ||v|| (the norm over all dimensions but ``dim``)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||``: the magnitude g is
    ``module.parametrizations.<name>.original0`` (shape 1 except along ``dim``; a scalar for
    ``dim=None``) and the direction v is ``original1``.  A state_dict with the older
    ``<name>_g``/``<name>_v`` keys (of :func:`torch.nn.utils.weight_norm`) loads into it.
    Returns module."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def convert_old_keys(state_dict, prefix, local_metadata, strict, missing_keys,
                         unexpected_keys, error_msgs):  # fmt: skip
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(convert_old_keys)
    return module


# ---------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight as a matrix (``dim``
    as the rows), estimated by the power method with the buffers ``_u`` and ``_v``
    (refined ``n_power_iterations`` steps per call in training mode); a 1-D weight is
    divided by its norm."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                f"got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            with torch.no_grad():
                weight_mat = self._reshape_weight_to_matrix(weight)
                h, w = weight_mat.shape
                u = F.normalize(weight_mat.new_empty(h).normal_(0, 1), dim=0, eps=eps)
                v = F.normalize(weight_mat.new_empty(w).normal_(0, 1), dim=0, eps=eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            order = [self.dim, *(d for d in range(weight.dim()) if d != self.dim)]
            weight = weight.permute(*order)
        return weight.reshape(weight.shape[0], -1)

    def _power_method(self, weight_mat, n_power_iterations):
        """Refine the buffers _u and _v in place (no gradient)."""
        with torch.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(torch.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(
                    F.normalize(torch.mv(_conj_t(weight_mat), self._u), dim=0, eps=self.eps)
                )

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        wv = torch.mv(weight_mat, v)
        sigma = (u.conj() * wv).sum() if u.is_complex() else torch.dot(u, wv)
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by the power method (15
    steps at registration, then ``n_power_iterations`` per access in training mode; the
    estimate is frozen in eval mode).  ``dim``: the dimension taken as the rows of the
    matrix (default 0; 1 for the transposed convolutions).  The buffers are
    ``module.parametrizations.<name>[0]._u`` and ``._v``.  Returns module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from torch.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
