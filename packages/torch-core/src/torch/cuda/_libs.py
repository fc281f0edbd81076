"""Finding the NVIDIA libraries the CUDA backend loads at run time.

The compiled core has no link-time dependency on CUDA: ``torch.cuda`` finds three shared
libraries here and hands their paths to ``torch._C._cuda_load``, which ``dlopen``\\ s them:

- the driver, ``libcuda.so.1``, which comes with the NVIDIA driver and is always loaded by
  its soname (the dynamic loader knows where the driver installed it);
- NVRTC (``libnvrtc.so.13``), which compiles the backend's CUDA C++ kernels at run time;
- cuBLAS (``libcublas.so.13``), for matrix products.

cuDNN (``libcudnn.so.9``, for convolutions) is found the same way, but only when the first
convolution on a GPU needs it (``torch.backends.cudnn``); ``pip install nvidia-cudnn-cu13``
installs it.

NVRTC, cuBLAS and cuDNN are looked for, in this order:

1. NVIDIA's ``cuda.pathfinder`` package, when it is installed
   (``cuda.pathfinder.load_nvidia_dynamic_lib``);
2. NVIDIA's pip wheels on ``sys.path`` (``nvidia/cu13/lib`` for CUDA 13; the older layouts
   ``nvidia/cuda_nvrtc/lib`` and ``nvidia/cublas/lib``; cuDNN's ``nvidia/cudnn/lib``), which
   ``pip install "torch-core[cuda]"`` installs;
3. a CUDA toolkit: ``$CUDA_HOME`` (or ``$CUDA_PATH``), then ``/usr/local/cuda``, in their
   ``lib64`` and ``lib`` folders;
4. the bare soname, left to the dynamic loader (``LD_LIBRARY_PATH``, ``ldconfig``).

:func:`find` returns what it found together with a readable account of where it looked,
which ``torch.cuda`` puts in its error messages when a library cannot be loaded.
"""

import ctypes
import dataclasses
import os
import sys

__all__ = [
    "DRIVER",
    "PIP_INSTALL",
    "PIP_INSTALL_CUDNN",
    "Library",
    "Libraries",
    "driver_problem",
    "find",
    "find_library",
]

DRIVER = "libcuda.so.1"
PIP_INSTALL = 'pip install "torch-core[cuda]"'
PIP_INSTALL_CUDNN = "pip install nvidia-cudnn-cu13"

# name -> (soname, its human name, the wheel folders (relative to a sys.path entry) holding it)
_WANTED = {
    "nvrtc": ("libnvrtc.so.13", "NVRTC", ("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib")),
    "cublas": ("libcublas.so.13", "cuBLAS", ("nvidia/cu13/lib", "nvidia/cublas/lib")),
    "cudnn": ("libcudnn.so.9", "cuDNN", ("nvidia/cudnn/lib", "nvidia/cu13/lib")),
}
_DEFAULT_TOOLKIT = "/usr/local/cuda"


@dataclasses.dataclass(frozen=True)
class Library:
    """One library to load: ``path`` is what to ``dlopen`` (an absolute path, or the soname
    when nothing was found), ``via`` says how it was found ("cuda.pathfinder", "wheel",
    "toolkit" or "soname"), ``searched`` lists where it was looked for."""

    name: str
    soname: str
    path: str
    via: str
    searched: tuple = ()

    @property
    def found(self):
        """Whether a file was found (else ``path`` is the soname, for the loader to search)."""
        return self.via != "soname"

    def describe(self):
        """A readable account of the search, for error messages."""
        human = _WANTED[self.name][1] if self.name in _WANTED else self.name
        if self.found:
            return f"{human}: {self.path} (found via {self.via})"
        where = "; ".join(self.searched) or "nowhere"
        return (
            f"{human} ({self.soname}) was not found (looked in: {where}), so it is left to "
            "the dynamic loader's search path"
        )


@dataclasses.dataclass(frozen=True)
class Libraries:
    """The three libraries for ``_C._cuda_load(driver, nvrtc, cublas)``."""

    driver: str
    nvrtc: Library
    cublas: Library

    def args(self):
        """The arguments of ``_C._cuda_load``."""
        return self.driver, self.nvrtc.path, self.cublas.path

    def missing(self):
        """The libraries not found as files (left to the loader), each described."""
        return [lib.describe() for lib in (self.nvrtc, self.cublas) if not lib.found]


def _pathfinder(name):
    """The absolute path cuda.pathfinder finds for `name`, or (None, why not)."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
    except Exception:  # not installed (or broken): the other ways remain
        return None, "cuda.pathfinder (not installed)"
    try:
        loaded = load_nvidia_dynamic_lib(name)
    except Exception as e:  # DynamicLibNotFoundError and friends
        return None, f"cuda.pathfinder ({type(e).__name__}: {str(e)[:200]})"
    path = getattr(loaded, "abs_path", None)
    if path and os.path.isfile(path):
        return path, None
    return None, "cuda.pathfinder (no absolute path)"


def _in_folder(folder, soname):
    """``folder/soname`` (or a versioned ``soname.x.y`` file there) if it exists, else None."""
    path = os.path.join(folder, soname)
    if os.path.isfile(path):
        return path
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(soname + "."))
    except OSError:
        return None
    for n in names:
        if os.path.isfile(os.path.join(folder, n)):
            return os.path.join(folder, n)
    return None


def _toolkits(environ):
    """The CUDA toolkit roots to search, in order (each once)."""
    roots = []
    for root in (environ.get("CUDA_HOME"), environ.get("CUDA_PATH"), _DEFAULT_TOOLKIT):
        if root and root not in roots:
            roots.append(root)
    return roots


def find_library(name, *, search_path=None, environ=None, use_pathfinder=True):
    """Find library `name` ("nvrtc", "cublas" or "cudnn"); see the module docstring for the
    order.

    `search_path` (default ``sys.path``), `environ` (default ``os.environ``) and
    `use_pathfinder` exist for tests."""
    soname, _, wheel_dirs = _WANTED[name]
    search_path = sys.path if search_path is None else search_path
    environ = os.environ if environ is None else environ
    searched = []
    if use_pathfinder:
        path, why = _pathfinder(name)
        if path:
            return Library(name, soname, path, "cuda.pathfinder")
        searched.append(why)
    for entry in search_path:
        if not isinstance(entry, str) or not entry or not os.path.isdir(entry):
            continue
        for sub in wheel_dirs:
            path = _in_folder(os.path.join(entry, sub), soname)
            if path:
                return Library(name, soname, os.path.abspath(path), "wheel")
    searched.append("NVIDIA's wheels on sys.path (" + ", ".join(wheel_dirs) + ")")
    for root in _toolkits(environ):
        for lib in ("lib64", "lib"):
            path = _in_folder(os.path.join(root, lib), soname)
            if path:
                return Library(name, soname, os.path.abspath(path), "toolkit")
        searched.append(f"{root}/lib64, {root}/lib")
    return Library(name, soname, soname, "soname", tuple(searched))


def find(**kwargs):
    """The driver's soname and where NVRTC and cuBLAS are (keywords as :func:`find_library`)."""
    return Libraries(DRIVER, find_library("nvrtc", **kwargs), find_library("cublas", **kwargs))


def driver_problem(driver=DRIVER):
    """Why the NVIDIA driver library cannot be loaded, or None when it can. (Loading it is
    harmless: the core loads the same library right after.)"""
    try:
        ctypes.CDLL(driver, mode=getattr(os, "RTLD_LOCAL", 0))
    except OSError as e:
        return str(e) or f"{driver}: cannot be loaded"
    return None
