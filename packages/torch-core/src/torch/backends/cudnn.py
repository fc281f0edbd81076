"""cuDNN, NVIDIA's library of neural-network kernels: convolutions on CUDA run on it.

cuDNN 9 (``libcudnn.so.9``, from ``pip install nvidia-cudnn-cu13`` or a system install) is
loaded at run time, on the first convolution on a GPU or the first ``is_available()`` /
``version()``, never at import; :mod:`torch.cuda._libs` finds it as it finds NVRTC and
cuBLAS. Where it cannot be used, ``is_available()`` is False and ``version()`` None, and a
convolution on a GPU raises ``NotImplementedError`` saying what is missing.

The flags are PyTorch's, and take only a bool (``RuntimeError`` otherwise):

- ``benchmark`` (False): time cuDNN's algorithms on the first call of each convolution
  shape and keep the fastest (``cudnnFind...``), instead of cuDNN's heuristic choice;
- ``deterministic`` (False): only algorithms that give the same result on every run (also
  asked for by ``torch.use_deterministic_algorithms(True)``);
- ``allow_tf32`` (True): float32 convolutions may use TF32 tensor cores (about 10 bits of
  mantissa in the products); False keeps them in full float32;
- ``enabled`` (True): kept for programs that set it. There is no other CUDA convolution
  here, so convolutions on a GPU use cuDNN either way.
"""

import contextlib
import sys
import threading
import types

from torch import _C

__all__ = ["flags", "is_acceptable", "is_available", "version"]

_lock = threading.Lock()
_load_reason = None  # None: not tried; "": loaded; else why cuDNN cannot be used


def _try_load():
    if not hasattr(_C, "_cuda_cudnn_load"):
        return "this build of torch has only the CPU backend"
    import torch.cuda
    from torch.cuda import _libs

    if not torch.cuda.is_available():
        return "CUDA cannot be used here (torch.cuda.is_available() is False)"
    lib = _libs.find_library("cudnn")
    why = _C._cuda_cudnn_load(lib.path)
    if why:
        return f"{lib.describe()}; loading it failed ({why})"
    return ""


def _load():
    """Load cuDNN once (thread safe): "" when it can be used, else why not. The core calls
    this on the first convolution on a GPU."""
    global _load_reason
    if _load_reason is None:
        with _lock:
            if _load_reason is None:
                try:
                    _load_reason = _try_load()
                except Exception as e:  # is_available() must never raise
                    _load_reason = f"loading cuDNN failed ({type(e).__name__}: {e})"
    return _load_reason


def is_available():
    """Whether cuDNN can be used (a usable GPU and cuDNN 9 found). Never raises."""
    return _load() == ""


def version():
    """cuDNN's version as an int (``major * 10000 + minor * 100 + patch``, e.g. 92801 for
    9.28.1), or None when it is not available."""
    return _C._cuda_cudnn_version() if is_available() else None


_CUDNN_DTYPES = ("float16", "bfloat16", "float32", "float64")


def is_acceptable(tensor):
    """Whether cuDNN can take `tensor`: a CUDA tensor of a floating dtype, cuDNN enabled and
    present."""
    if not _enabled or tensor.device.type != "cuda":
        return False
    if str(tensor.dtype).removeprefix("torch.") not in _CUDNN_DTYPES:
        return False
    return is_available()


def _sync():
    """Hand the flags to the core's convolutions (the global deterministic switch too)."""
    if not hasattr(_C, "_cuda_cudnn_set_flags"):
        return
    import torch.backends

    module = sys.modules[__name__]
    deterministic = module._deterministic or torch.backends.are_deterministic_algorithms_enabled()
    _C._cuda_cudnn_set_flags(module._benchmark, deterministic, module._allow_tf32)


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
        _sync()


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
_sync()  # the core starts with the same defaults; this also covers a reload
