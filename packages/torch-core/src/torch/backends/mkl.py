"""Intel MKL: not in this build (matrix products go to OpenBLAS)."""

__all__ = ["is_available"]


def is_available():
    """Whether this build uses MKL: False."""
    return False
