"""The LKJCholesky distribution."""

import math

import torch
from torch.distributions import constraints
from torch.distributions.beta import Beta
from torch.distributions.distribution import Distribution
from torch.distributions.utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    r"""The LKJ distribution (Lewandowski, Kurowicka and Joe, 2009) over Cholesky factors
    ``L`` of ``dim x dim`` correlation matrices, with density proportional to
    :math:`\det(L L^T)^{\eta - 1}` for the correlation matrix, i.e.
    :math:`\prod_{i=2}^{D} L_{ii}^{D - i + 2\eta - 2}` for the factor.

    Sampling uses the onion method: row ``i`` of ``L`` is a uniform direction scaled by
    the square root of a ``Beta(i / 2, eta + (D - 1 - i) / 2)`` draw, with the diagonal
    completing the row to unit norm.

    Args:
        dim (int): the matrix dimension, at least 2.
        concentration (float or Tensor): ``eta``, positive; 1 gives a uniform distribution
            over correlation matrices.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> l = LKJCholesky(3, 0.5)
        >>> L = l.sample()
        >>> (L @ L.T).diagonal()
        tensor([1.0000, 1.0000, 1.0000])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"LKJCholesky: dim must be an integer of at least 2, got {dim}")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = torch.Size((dim, dim))
        # Row k (k = 1..dim-1) of L has k off-diagonal entries whose squared norm is
        # Beta(k / 2, eta + (dim - 1 - k) / 2) (the onion method). Row 0 has none; its Beta
        # gets a harmless placeholder first concentration and is masked out in sample().
        k = torch.arange(self.dim, dtype=self.concentration.dtype, device=self.concentration.device)
        beta_conc1 = torch.where(k > 0, k / 2, torch.full_like(k, 0.5))
        beta_conc0 = self.concentration.unsqueeze(-1) + (self.dim - 1 - k) / 2
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = torch.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        return self._expand_into(new, batch_shape)

    def sample(self, sample_shape=()):
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = torch.randn(
                self._extended_shape(sample_shape), dtype=y.dtype, device=y.device
            ).tril(-1)
            norms = torch.linalg.norm(u_normal, dim=-1, keepdim=True)
            u_hypersphere = u_normal / norms.clamp(min=torch.finfo(y.dtype).tiny)
            # row 0 has no off-diagonal part
            row_mask = torch.ones(self.dim, 1, dtype=y.dtype, device=y.device)
            row_mask[0] = 0
            u_hypersphere = u_hypersphere * row_mask
            w = torch.sqrt(y) * u_hypersphere
            tiny = torch.finfo(w.dtype).tiny
            diag_elems = torch.clamp(1 - torch.sum(w**2, dim=-1), min=tiny).sqrt()
            return w + torch.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1, dtype=value.dtype, device=value.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = torch.sum(order * diag_elems.log(), dim=-1)
        # the normaliser, from the Beta integrals of the onion construction
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = torch.lgamma(alpha) * dm1
        numerator = torch.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
