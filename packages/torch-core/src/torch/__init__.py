"""torch: tensors with a compiled C++ core, written from scratch with PyTorch's API.

torch-core installs this package; torch-autograd, torch-nn, torch-optim,
torch-multiprocessing and torch-legacy each add a subpackage.
"""

# Other wheels install subpackages (torch/nn, ...): extend __path__ so they are found in
# regular and editable installs alike.
__path__ = __import__("pkgutil").extend_path(__path__, __name__)

import os as _os

# OpenMP's idle threads keep GNU OpenMP's default: spin briefly, then sleep. Every product
# and kernel runs on that one pool (Note [One thread pool], Note [MKL]), so a spinning thread
# takes no core from another pool, and back-to-back kernels skip a wake-up each (sleeping at
# once made a transformer's training step 12% slower). OpenBLAS's own threads (LAPACK) by
# default spin for 2^28 cycles (~0.1 s) after each call, and an OpenMP kernel running
# meanwhile gets half the cores (the MNIST training step ran 1.8x slower): 2^20 cycles
# (~0.4 ms). Read when the library loads, below.
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "20")
# MKL (where installed) without its memory manager, which keeps each product's packing
# buffers for reuse: the MNIST example's peak memory was ~25 MB higher with it, for no
# measurable speed. Read when MKL loads (torch.backends.mkl._load).
_os.environ.setdefault("MKL_DISABLE_FAST_MM", "1")

import scipy_openblas32 as _openblas  # noqa: E402,F401  (loads the BLAS library _C links against)

from torch import _C, _packages
from torch._C import (  # noqa: F401
    Generator,
    Tensor,
    bfloat16,
    bool,
    can_cast,
    complex64,
    complex128,
    default_generator,
    device,
    dtype,
    float16,
    float32,
    float64,
    from_dlpack,
    from_numpy,
    get_default_dtype,
    get_num_threads,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    set_num_threads,
    uint8,
)
from torch._packages import install_missing_package_hints
from torch._size import Size
from torch.backends import mkl as _mkl
from torch.backends import mkldnn as _mkldnn
from torch.version import __version__  # noqa: F401

# Intel's libraries where their optional wheels are installed (torch-core[mkl]): MKL's
# matrix products (Note [MKL] in cpu_gemm.h), oneDNN's convolutions (Note [oneDNN]).
_mkl._load()
_mkldnn._load()

_C._set_size_class(Size)

# dtype aliases, as in PyTorch
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128

# The breadth of the core (torch.linalg is imported with _tensor above). These come after
# torch._C's names so that they may extend them (torch.where(cond) with one argument, ...).
from torch import (  # noqa: E402,F401  (_tensor adds Python-side Tensor methods)
    _sparse,
    _tensor,
    linalg,
    serialization,  # noqa: E402
)
from torch._C import (  # noqa: E402,F401
    abs,
    absolute,
    acos,
    acosh,
    add,
    addcdiv,
    addcmul,
    addmm,
    addmv,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    baddbmm,
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    bmm,
    ceil,
    cos,
    cosh,
    div,
    divide,
    dot,
    eq,
    erf,
    erfinv,
    exp,
    exp2,
    expm1,
    fix,
    floor,
    floor_divide,
    fmod,
    frac,
    ge,
    greater,
    greater_equal,
    gt,
    isfinite,
    isinf,
    isnan,
    le,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    matmul,
    maximum,
    minimum,
    mm,
    mul,
    multinomial,
    multiply,
    mv,
    ne,
    neg,
    negative,
    not_equal,
    pow,
    reciprocal,
    relu,
    remainder,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    sub,
    subtract,
    tan,
    tanh,
    true_divide,
    trunc,
    where,
)

# Sparse tensors (torch._sparse): torch.sparse_coo_tensor & co. The core functions given a
# sparse argument (torch.add, torch.mm, ...) hand it to the layout's own code in the core's
# gates (Note [Subclass override] in bind_grad.cpp).
globals().update(_sparse.torch_functions())
from torch._complex import *  # noqa: E402,F403
from torch._conv import *  # noqa: E402,F403
from torch._creation import *  # noqa: E402,F403
from torch._dtypes import *  # noqa: E402,F403
from torch._functional import *  # noqa: E402,F403
from torch._grad_mode import (  # noqa: E402,F401
    enable_grad,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference,
    is_inference_mode_enabled,
    no_grad,
    set_anomaly_enabled,
    set_grad_enabled,
)
from torch._index_ops import *  # noqa: E402,F403
from torch._indexing import *  # noqa: E402,F403
from torch._math_ops import *  # noqa: E402,F403
from torch._memory_format import *  # noqa: E402,F403
from torch._nn_ops import *  # noqa: E402,F403
from torch._shape_ops import *  # noqa: E402,F403
from torch._sorting import *  # noqa: E402,F403
from torch._spectral import *  # noqa: E402,F403
from torch._tensor_str import set_printoptions  # noqa: E402,F401
from torch.backends import (  # noqa: E402,F401  (global switches; torch.backends.cudnn, ...)
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    get_num_interop_threads,
    is_deterministic_algorithms_warn_only_enabled,
    is_warn_always_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_num_interop_threads,
    set_warn_always,
    use_deterministic_algorithms,
)
from torch.compiler import compile  # noqa: E402,F401,A004
from torch.serialization import load, save  # noqa: E402,F401
from torch.special import erfc, logit, sinc, xlogy  # noqa: E402,F401  (also torch.special.*)
from torch.storage import *  # noqa: E402,F403


class OutOfMemoryError(RuntimeError):
    """An allocation failed for want of memory (``torch.cuda.OutOfMemoryError`` is this
    class)."""


install_missing_package_hints(__path__)

# With torch-autograd installed, importing it fills the core's grad gates with formulas.
if _packages.installed(__path__, "autograd"):
    import torch.autograd  # noqa: E402,F401

# Mixed precision: torch.amp wraps the ops that autocast casts, once, here; each wrapper
# calls its op's grad gate (made by the core, so autograd records under autocast).
from torch.amp.autocast_mode import (  # noqa: E402,F401
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)

_sparse.seal()  # sparse tensors refuse the dense methods added above (exp, view, ...)

# Submodules reachable as attributes after a plain `import torch`, as in PyTorch
# (`torch.utils.data.DataLoader`, `torch.cuda.is_available()`), each imported on first use
# so that `import torch` stays fast. Those of other wheels name their package when missing.
_LAZY_SUBMODULES = frozenset(
    (
        "accelerator",
        "amp",
        "autograd",
        "cpu",
        "cuda",
        "distributed",
        "distributions",
        "fft",
        "func",
        "functional",
        "fx",
        "hub",
        "jit",
        "legacy",
        "multiprocessing",
        "nn",
        "onnx",
        "optim",
        "profiler",
        "random",
        "sparse",
        "special",
        "testing",
        "utils",
    )
)


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _packages.import_submodule(__name__, name)
    if name == "vmap":  # torch.vmap is torch.func.vmap (torch-autograd)
        return _packages.import_submodule(__name__, "func").vmap
    if name == "ops":  # torch.ops.<namespace>.<op> (torch._ops), made on first use
        from torch._ops import ops

        globals()["ops"] = ops
        return ops
    raise AttributeError(f"module 'torch' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBMODULES | {"ops"})


del _openblas, _os
