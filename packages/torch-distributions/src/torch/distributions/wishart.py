"""The Wishart distribution."""

import math
import warnings
from numbers import Number

import torch
from torch.distributions import constraints
from torch.distributions._sampling import standard_gamma
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.multivariate_normal import _scale_tril_from
from torch.distributions.utils import lazy_property

__all__ = ["Wishart"]


def _mvdigamma(x, p):
    """The multivariate digamma: ``sum_{i=0}^{p-1} digamma(x - i / 2)``."""
    offsets = torch.arange(p, dtype=x.dtype, device=x.device) / 2
    return torch.digamma(x.unsqueeze(-1) - offsets).sum(-1)


class Wishart(ExponentialFamily):
    r"""The Wishart distribution over ``p x p`` positive-definite matrices with ``df``
    degrees of freedom and scale matrix given by exactly one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril``: the distribution of ``sum_i x_i x_i^T`` for
    ``df`` draws ``x_i ~ MultivariateNormal(0, covariance_matrix)``.

    Samples use the Bartlett decomposition (chi-squared diagonal from reparameterised
    gamma draws, standard normal below it), so ``rsample`` is available.

    Args:
        df (float or Tensor): degrees of freedom, greater than ``p - 1``.
        covariance_matrix (Tensor): positive-definite scale matrix.
        precision_matrix (Tensor): its inverse.
        scale_tril (Tensor): its lower Cholesky factor.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Wishart(torch.tensor([4.0]), torch.eye(2))
        >>> m.sample().shape
        torch.Size([1, 2, 2])
    """

    arg_constraints = {
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
        "df": constraints.greater_than(0),
    }
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(
        self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None
    ):
        if (covariance_matrix is not None) + (scale_tril is not None) + (
            precision_matrix is not None
        ) != 1:
            raise ValueError(
                "Wishart: pass exactly one of covariance_matrix, precision_matrix and scale_tril"
            )
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError(
                "Wishart: the scale matrix needs two dimensions (after any batch dimensions)"
            )
        if isinstance(df, Number):
            batch_shape = torch.Size(param.shape[:-2])
            self.df = torch.tensor(float(df), dtype=param.dtype, device=param.device).expand(
                batch_shape
            )
        else:
            batch_shape = torch.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(
                f"Wishart: df must be greater than p - 1 = {event_shape[-1] - 1}, got {df}"
            )
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))

        self.arg_constraints = dict(type(self).arg_constraints)
        self.arg_constraints["df"] = constraints.greater_than(event_shape[-1] - 1)
        if self.df.lt(event_shape[-1]).any():
            warnings.warn(
                "Wishart: with p - 1 < df < p, samples are likely to be singular",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]

        self._unbroadcasted_scale_tril = _scale_tril_from(
            scale_tril, covariance_matrix, precision_matrix
        )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = torch.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        new.arg_constraints = self.arg_constraints
        matrices = ("covariance_matrix", "scale_tril", "precision_matrix")
        return self._expand_into(new, batch_shape, *matrices, param_shape=cov_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = torch.eye(self._event_shape[-1], dtype=L.dtype, device=L.device).expand(L.shape)
        L_inv = torch.linalg.solve_triangular(L, eye, upper=False)
        return (L_inv.transpose(-2, -1) @ L_inv).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.reshape(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, float("nan"))
        return factor.reshape(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self.df.reshape(self._batch_shape + (1, 1)) * (
            V.pow(2) + torch.einsum("...i,...j->...ij", diag_V, diag_V)
        )

    def _bartlett_sample(self, sample_shape=()):
        p = self._event_shape[-1]
        shape = torch.Size(sample_shape) + self._batch_shape
        df = self.df.expand(shape).unsqueeze(-1)
        dfs = df - torch.arange(p, dtype=df.dtype, device=df.device)
        chi2 = 2 * standard_gamma(0.5 * dfs)  # Chi2(df - i) on the diagonal
        noise = torch.diag_embed(chi2.sqrt())
        normals = torch.randn(shape + (p, p), dtype=df.dtype, device=df.device).tril(-1)
        noise = noise + normals
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Reparameterised Bartlett draws. Draws that come out singular in floating point
        (possible for ``df`` close to ``p - 1``) are redrawn up to ``max_try_correction``
        times (default 3)."""
        if max_try_correction is None:
            max_try_correction = 3
        sample = self._bartlett_sample(sample_shape)
        is_singular = torch.linalg.cholesky_ex(sample).info.ne(0)
        for _ in range(max_try_correction):
            if not bool(is_singular.any()):
                break
            new_sample = self._bartlett_sample(sample_shape)
            sample = torch.where(is_singular[..., None, None], new_sample, sample)
            is_singular = torch.linalg.cholesky_ex(sample).info.ne(0)
        if bool(is_singular.any()):
            warnings.warn(
                "Wishart.rsample: some samples are still singular after the redraws",
                stacklevel=2,
            )
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        log_det_scale = 2 * self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = (self.precision_matrix * value).sum((-2, -1))
        return (
            -nu * (p * math.log(2) + log_det_scale) / 2
            - torch.mvlgamma(nu / 2, p)
            + (nu - p - 1) / 2 * torch.linalg.slogdet(value)[1]
            - trace / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        log_det_scale = 2 * self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) / 2 * log_det_scale
            + p * (p + 1) / 2 * math.log(2)
            + torch.mvlgamma(nu / 2, p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        nu = self.df
        return -self.precision_matrix / 2, (nu - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (
            -torch.linalg.slogdet(-2 * x)[1] + p * math.log(2)
        ) + torch.mvlgamma(y + (p + 1) / 2, p)
