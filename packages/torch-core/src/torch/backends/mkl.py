"""Intel MKL: float32/float64 matrix products use it where the optional ``mkl`` wheel is
installed (``pip install "torch-core[mkl]"``); otherwise they use OpenBLAS."""

import glob
import importlib.metadata
import os

from torch import _C

__all__ = ["is_available"]


def is_available():
    """Whether matrix products run on MKL in this process."""
    return _C._has_mkl()


def _library():
    """The path of the installed ``mkl`` wheel's libmkl_rt, or None."""
    try:
        dist = importlib.metadata.distribution("mkl")
    except importlib.metadata.PackageNotFoundError:
        return None
    # The wheel puts its libraries in the environment's lib/, two levels above site-packages.
    found = sorted(glob.glob(os.path.join(dist.locate_file(""), "..", "..", "libmkl_rt.so.*")))
    if not found:
        found = [str(f.locate()) for f in dist.files or () if f.name.startswith("libmkl_rt.so")]
    return os.path.realpath(found[-1]) if found else None


def _load():
    """Route the core's products to MKL when it is installed; warn (and keep OpenBLAS) when
    an installed MKL cannot be used."""
    path = _library()
    if path is None:
        return
    why = _C._load_mkl(path)
    if why:
        import warnings

        msg = f"torch: MKL at {path} is not used ({why}); matrix products use OpenBLAS"
        warnings.warn(msg, stacklevel=2)
