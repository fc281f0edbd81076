"""Global switches of the compute backends, as PyTorch names them.

``torch.backends.cudnn``, ``.cuda``, ``.mps``, ``.openmp``, ``.mkldnn`` and ``.mkl`` report
what this build has (the CPU backend with OpenMP and OpenBLAS, and Intel's MKL and oneDNN
where torch-core's ``[mkl]`` extra is installed; CUDA and cuDNN where a GPU and NVIDIA's
libraries are present; no MPS) and keep their flags, so programs that set them run
unchanged. This module also
keeps the process-wide settings behind ``torch.set_float32_matmul_precision`` and
``torch.use_deterministic_algorithms``.

The CPU kernels compute float32 products in float32 whatever the precision setting, and
give the same result for the same input on every run (with the same thread count); the
settings are recorded and reported back, and take effect once a backend that has faster,
less precise or non-deterministic kernels (the CUDA one) reads them.
"""

import glob
import importlib.metadata
import os
import sys
import warnings

from torch import _C, _packages

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_deterministic_debug_mode",
    "get_float32_matmul_precision",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "use_deterministic_algorithms",
    "set_warn_always",
    "is_warn_always_enabled",
    "get_num_interop_threads",
    "set_num_interop_threads",
]

_PRECISIONS = ("highest", "high", "medium")
_float32_matmul_precision = "highest"
_deterministic = False
_deterministic_warn_only = False


def get_float32_matmul_precision():
    """The float32 matrix-product precision: ``"highest"`` (the default), ``"high"`` or
    ``"medium"``."""
    return _float32_matmul_precision


def set_float32_matmul_precision(precision):
    """Allow float32 products to use faster, less precise internal types: ``"highest"``
    (float32 throughout), ``"high"`` (TF32 on GPUs), ``"medium"`` (bfloat16). An unknown
    value warns and changes nothing, as in PyTorch.

    >>> torch.set_float32_matmul_precision("high")
    >>> torch.backends.cuda.matmul.allow_tf32
    True
    >>> torch.set_float32_matmul_precision("highest")
    """
    global _float32_matmul_precision
    if precision not in _PRECISIONS:
        warnings.warn(
            f"set_float32_matmul_precision: {precision!r} is not one of 'highest', 'high' or "
            "'medium'; the precision is unchanged",
            UserWarning,
            stacklevel=2,
        )
        return
    _float32_matmul_precision = precision
    _C._cuda_set_allow_tf32(precision != "highest")  # cuBLAS reads it: TF32 unless "highest"


def _check_bool(value, what):
    if not isinstance(value, bool):
        raise TypeError(f"{what}: expected a bool, got {type(value).__name__}")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask every op to use a deterministic algorithm (``mode=True``).

    Every CPU kernel of this build already is (for a given thread count), so this only
    records the setting, which ``are_deterministic_algorithms_enabled()`` reports."""
    global _deterministic, _deterministic_warn_only
    _check_bool(mode, "use_deterministic_algorithms(mode)")
    _check_bool(warn_only, "use_deterministic_algorithms(warn_only)")
    _deterministic, _deterministic_warn_only = mode, warn_only
    cudnn = sys.modules.get(__name__ + ".cudnn")
    if cudnn is not None:  # its convolutions read the switch (else it reads it on import)
        cudnn._sync()


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled():
    """Whether ``use_deterministic_algorithms(True, warn_only=True)`` is in force."""
    return _deterministic_warn_only


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    """``"default"``/0 (off), ``"warn"``/1 (deterministic, warn only) or ``"error"``/2
    (deterministic): the same switch as ``use_deterministic_algorithms``."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "set_deterministic_debug_mode: expected one of 'default', 'warn', 'error', "
                f"got {debug_mode!r}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"set_deterministic_debug_mode: expected 0, 1 or 2, got {debug_mode!r}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0, 1 or 2, as set by ``set_deterministic_debug_mode``."""
    if not _deterministic:
        return 0
    return 1 if _deterministic_warn_only else 2


_warn_always = False
_interop_threads = None  # None until set: the intra-op thread count


def set_warn_always(b):
    """Make the warnings that PyTorch issues once per process issue every time (a recorded
    flag: the warnings here already come from Python's own warnings filters)."""
    global _warn_always
    _check_bool(b, "set_warn_always")
    _warn_always = b


def is_warn_always_enabled():
    """Whether :func:`set_warn_always` is on."""
    return _warn_always


def get_num_interop_threads():
    """The number of threads for inter-op parallelism. The ops here run one at a time, each on
    the one intra-op pool, so this is the value set, or the intra-op thread count."""
    return _C.get_num_threads() if _interop_threads is None else _interop_threads


def set_num_interop_threads(num_threads):
    """Records the inter-op thread count (see :func:`get_num_interop_threads`); as in PyTorch,
    it may be set once, to a positive int."""
    global _interop_threads
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop_threads is not None:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _interop_threads = num_threads


_SUBMODULES = frozenset({"cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"})


def __getattr__(name):  # torch.backends.cudnn works after a plain `import torch`
    if name in _SUBMODULES:
        return _packages.import_submodule(__name__, name)
    raise AttributeError(f"module 'torch.backends' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)


def _load_wheel_library(dist, prefix, load, what):
    """Hands ``load`` (a core function: path -> "" or why not) the library ``prefix*`` of the
    installed wheel ``dist`` (Intel's ``mkl``, ``onednn-cpu-gomp``); nothing when the wheel
    is absent, a warning naming ``what`` keeps working without it when it cannot be used."""
    try:
        found = importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return
    # The wheels put their libraries in the environment's lib/, two levels above
    # site-packages; their file lists say where otherwise.
    paths = sorted(glob.glob(os.path.join(found.locate_file(""), "..", "..", prefix + "*")))
    if not paths:
        paths = [str(f.locate()) for f in found.files or () if f.name.startswith(prefix)]
    if not paths:
        return
    path = os.path.realpath(paths[-1])
    why = load(path)
    if why:
        warnings.warn(f"torch: {dist} at {path} is not used ({why}); {what}", stacklevel=3)
