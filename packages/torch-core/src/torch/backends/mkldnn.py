"""oneDNN (formerly MKL-DNN), Intel's CPU kernel library: float32 convolutions use it where
the optional ``onednn-cpu-gomp`` wheel is installed (``pip install "torch-core[mkl]"``).

``torch.backends.mkldnn.enabled = False`` (or ``with torch.backends.mkldnn.flags(enabled=False)``)
sends them back to this project's own kernels."""

import contextlib
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


def _load():
    """Run convolutions through oneDNN when its wheel is installed."""
    from torch.backends import _load_wheel_library

    _load_wheel_library(
        "onednn-cpu-gomp", "libdnnl.so.3", _C._load_onednn, "convolutions use our kernels"
    )


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
