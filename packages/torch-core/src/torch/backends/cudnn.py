"""cuDNN, NVIDIA's library of neural-network kernels: not in this build.

``is_available()`` is False and ``version()`` None. The flags keep what programs set
(``torch.backends.cudnn.benchmark = True`` is the usual first line of a training script)
and refuse anything but a bool, as PyTorch's do; nothing reads them until a CUDA backend
does.
"""

import contextlib
import sys
import types

__all__ = ["flags", "is_acceptable", "is_available", "version"]


def is_available():
    """Whether cuDNN can be used: False (this build has no CUDA backend)."""
    return False


def version():
    """cuDNN's version number, or None when it is not available."""
    return None


def is_acceptable(tensor):
    """Whether cuDNN can take `tensor`: only CUDA tensors with cuDNN present."""
    return False


class _Flag:
    """A module attribute that only takes a bool."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, module, owner=None):
        return self if module is None else module.__dict__["_" + self.name]

    def __set__(self, module, value):
        if not isinstance(value, bool):  # RuntimeError, as PyTorch raises
            raise RuntimeError(
                f"torch.backends.cudnn.{self.name} expects a bool, got {type(value).__name__}"
            )
        module.__dict__["_" + self.name] = value


class _CudnnModule(types.ModuleType):
    enabled = _Flag()
    benchmark = _Flag()
    deterministic = _Flag()
    allow_tf32 = _Flag()


_enabled, _benchmark, _deterministic, _allow_tf32 = True, False, False, True
benchmark_limit = None  # PyTorch reports None where cuDNN is absent


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
    """Set all four flags for the body of a ``with`` block, restoring them after."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    saved = [getattr(module, n) for n in names]
    try:
        for name, value in zip(names, (enabled, benchmark, deterministic, allow_tf32)):
            setattr(module, name, value)
        yield
    finally:
        for name, value in zip(names, saved):
            setattr(module, name, value)


sys.modules[__name__].__class__ = _CudnnModule
