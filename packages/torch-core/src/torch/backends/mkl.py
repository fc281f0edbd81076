"""Intel MKL: float32/float64 matrix products use it where the optional ``mkl`` wheel is
installed (``pip install "torch-core[mkl]"``); otherwise they use OpenBLAS."""

from torch import _C

__all__ = ["is_available"]


def is_available():
    """Whether matrix products run on MKL in this process."""
    return _C._has_mkl()


def _load():
    """Route the core's products to MKL when its wheel is installed."""
    from torch.backends import _load_wheel_library

    _load_wheel_library("mkl", "libmkl_rt.so", _C._load_mkl, "matrix products use OpenBLAS")
