"""oneDNN (formerly MKL-DNN), Intel's CPU kernel library: float32 convolutions use it where
the optional ``onednn-cpu-gomp`` wheel is installed (``pip install "torch-core[mkl]"``).

``torch.backends.mkldnn.enabled = False`` (or ``with torch.backends.mkldnn.flags(enabled=False)``)
sends them back to this project's own kernels."""

import contextlib
import glob
import importlib.metadata
import os
import sys
import types

from torch import _C

__all__ = ["flags", "is_available"]


def is_available():
    """Whether oneDNN is loaded in this process."""
    return _C._has_onednn()


@contextlib.contextmanager
def flags(enabled=False):
    """Set ``enabled`` inside the block, restoring it after."""
    old = _C._onednn_enabled()
    _C._set_onednn_enabled(bool(enabled))
    try:
        yield
    finally:
        _C._set_onednn_enabled(old)


def _library():
    """The path of the installed ``onednn-cpu-gomp`` wheel's libdnnl, or None."""
    try:
        dist = importlib.metadata.distribution("onednn-cpu-gomp")
    except importlib.metadata.PackageNotFoundError:
        return None
    # The wheel puts its library in the environment's lib/, two levels above site-packages.
    found = sorted(glob.glob(os.path.join(dist.locate_file(""), "..", "..", "libdnnl.so.3*")))
    if not found:
        found = [str(f.locate()) for f in dist.files or () if f.name.startswith("libdnnl.so.3")]
    return os.path.realpath(found[-1]) if found else None


def _load():
    """Run convolutions through oneDNN when it is installed; warn (and keep our kernels)
    when an installed oneDNN cannot be used."""
    path = _library()
    if path is None:
        return
    why = _C._load_onednn(path)
    if why:
        import warnings

        msg = f"torch: oneDNN at {path} is not used ({why}); convolutions use our kernels"
        warnings.warn(msg, stacklevel=2)


class _Module(types.ModuleType):
    @property
    def enabled(self):
        """Whether float32 convolutions go to oneDNN (where it is loaded)."""
        return _C._onednn_enabled()

    @enabled.setter
    def enabled(self, value):
        if not isinstance(value, bool):  # RuntimeError, as PyTorch raises
            raise RuntimeError(
                f"torch.backends.mkldnn.enabled expects a bool, got {type(value).__name__}"
            )
        _C._set_onednn_enabled(value)


sys.modules[__name__].__class__ = _Module
