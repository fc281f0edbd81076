"""The MultivariateNormal distribution."""

import math

import torch
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector product with broadcasting batch dims."""
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """The squared Mahalanobis distance ``x^T (L L^T)^-1 x`` for a lower Cholesky factor
    ``L``, broadcasting the batch dimensions of both."""
    n = bx.size(-1)
    shape = torch.broadcast_shapes(bL.shape[:-2], bx.shape[:-1])
    L = bL.expand(shape + (n, n))
    x = bx.expand(shape + (n,))
    sol = torch.linalg.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return sol.pow(2).sum(-1)


def _precision_to_scale_tril(P):
    # P = L L^T with L = flip(chol(flip(P)))^-T ... computed via the inverse of the
    # Cholesky factor of P: if P = U^T U is reversed-Cholesky, then Sigma = U^-1 U^-T.
    Lf = torch.linalg.cholesky(torch.flip(P, (-2, -1)))
    L_inv = torch.transpose(torch.flip(Lf, (-2, -1)), -2, -1)
    eye = torch.eye(P.shape[-1], dtype=P.dtype, device=P.device).expand(L_inv.shape)
    L = torch.linalg.solve_triangular(L_inv, eye, upper=False)
    return L


def _scale_tril_from(scale_tril, covariance_matrix, precision_matrix):
    """The lower Cholesky factor of the covariance, from whichever of the three is given."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return torch.linalg.cholesky(covariance_matrix)
    return _precision_to_scale_tril(precision_matrix)


class MultivariateNormal(Distribution):
    r"""The multivariate normal distribution with mean ``loc`` and a positive-definite
    covariance given by exactly one of ``covariance_matrix``, ``precision_matrix`` or
    ``scale_tril`` (the lower Cholesky factor of the covariance; the cheapest to use).

    Args:
        loc (Tensor): mean, shape ``batch_shape + (D,)``.
        covariance_matrix (Tensor): positive-definite covariance, ``(..., D, D)``.
        precision_matrix (Tensor): positive-definite precision, ``(..., D, D)``.
        scale_tril (Tensor): lower-triangular factor with positive diagonal, ``(..., D, D)``.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = MultivariateNormal(torch.zeros(2), torch.eye(2))
        >>> m.log_prob(torch.zeros(2))
        tensor(-1.8379)
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        if loc.dim() < 1:
            raise ValueError("MultivariateNormal: loc needs a last dimension (the event)")
        if (covariance_matrix is not None) + (scale_tril is not None) + (
            precision_matrix is not None
        ) != 1:
            raise ValueError(
                "MultivariateNormal: pass exactly one of covariance_matrix, "
                "precision_matrix and scale_tril"
            )
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError(
                    "MultivariateNormal: scale_tril needs two dimensions (after any batch "
                    "dimensions)"
                )
            batch_shape = torch.broadcast_shapes(scale_tril.shape[:-2], loc.shape[:-1])
            self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError(
                    "MultivariateNormal: covariance_matrix needs two dimensions (after any "
                    "batch dimensions)"
                )
            batch_shape = torch.broadcast_shapes(covariance_matrix.shape[:-2], loc.shape[:-1])
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (-1, -1))
        else:
            if precision_matrix.dim() < 2:
                raise ValueError(
                    "MultivariateNormal: precision_matrix needs two dimensions (after any "
                    "batch dimensions)"
                )
            batch_shape = torch.broadcast_shapes(precision_matrix.shape[:-2], loc.shape[:-1])
            self.precision_matrix = precision_matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))

        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

        self._unbroadcasted_scale_tril = _scale_tril_from(
            scale_tril, covariance_matrix, precision_matrix
        )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = torch.Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        matrices = ("covariance_matrix", "scale_tril", "precision_matrix")
        return self._expand_into(new, batch_shape, *matrices, param_shape=cov_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(
            self._batch_shape + self._event_shape + self._event_shape
        )

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torch.matmul(L, L.transpose(-2, -1)).expand(
            self._batch_shape + self._event_shape + self._event_shape
        )

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = torch.eye(self._event_shape[-1], dtype=self.loc.dtype, device=self.loc.device).expand(
            L.shape
        )
        L_inv = torch.linalg.solve_triangular(L, eye, upper=False)
        return torch.matmul(L_inv.transpose(-2, -1), L_inv).expand(
            self._batch_shape + self._event_shape + self._event_shape
        )

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return (
            self._unbroadcasted_scale_tril.pow(2)
            .sum(-1)
            .expand(self._batch_shape + self._event_shape)
        )

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
