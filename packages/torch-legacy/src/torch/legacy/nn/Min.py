from ._extremum import _Extremum


class Min(_Extremum):
    """The minimum over ``dimension``."""

    def _reduce(self, input, dim):
        return input.min(dim, keepdim=True)
