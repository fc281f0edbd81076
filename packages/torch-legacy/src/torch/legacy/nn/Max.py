from ._extremum import _Extremum


class Max(_Extremum):
    """The maximum over ``dimension``."""

    def _reduce(self, input, dim):
        return input.max(dim, keepdim=True)
