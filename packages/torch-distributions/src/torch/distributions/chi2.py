"""The Chi2 distribution."""

import torch
from torch.distributions import constraints
from torch.distributions.gamma import Gamma
from torch.distributions.utils import broadcast_all

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Args:
        df (float or Tensor): degrees of freedom, positive.
        validate_args (bool, optional): check parameters and ``log_prob`` values.

    Example::

        >>> m = Chi2(torch.tensor([2.0]))
        >>> m.mean
        tensor([2.])
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, torch.full_like(df, 0.5), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        """Degrees of freedom."""
        return self.concentration * 2
