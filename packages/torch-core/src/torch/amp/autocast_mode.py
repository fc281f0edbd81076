"""Autocast: ops that run in a lower-precision dtype inside a region, as PyTorch's autocast.

The state (enabled, dtype per device type; the weight cache) is per thread.  The hook is a
small Python wrapper around each op of PyTorch's CPU autocast lists that this torch has,
applied once, when ``import torch`` runs (after torch-autograd replaced the differentiable
ops with their gates, so a wrapper calls the gate and the casts it makes are recorded).
Every place a torch module or the Tensor class holds one of those ops gets the wrapper
(``torch.matmul``, ``torch._C.matmul``, ``Tensor.__matmul__``, ``torch.nn.functional.linear``,
...), so the torch functions written in Python that call them are covered too, as PyTorch's
composite ops are (``einsum`` reaches ``bmm``).  ``torch.nn.functional`` (torch-nn) is
wrapped as soon as it has been imported, before anything can take a name from it.

While no thread has autocast enabled, a wrapper costs one global read and a call; inside
an enabled region it casts the floating-point tensor arguments (float64 ones are left as
they are) of an op whose tensors are on the region's device type ('cpu' or 'cuda': the
device of its first tensor argument decides), then calls the op with autocast off for the
nested calls, as PyTorch's kernels do.  Both device types use the same op lists (PyTorch's
CPU lists).  The casts are ``Tensor.to``'s differentiable op (``_to_dtype``), so float32
parameters get float32 gradients.
"""

import copy
import functools
import sys
import threading
import types
import warnings

import torch
from torch import _C

__all__ = [
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "is_autocast_available",
]

Tensor = torch.Tensor
_float32 = torch.float32
_float64 = torch.float64
_is_grad_enabled = _C.is_grad_enabled
_DEVICE_TYPES = ("cpu", "cuda")


# ---------------------------------------------------------------- per-thread state
class _State:
    __slots__ = ("cpu", "token", "cuda", "dtypes", "cache_enabled", "cache", "nesting")

    def __init__(self):
        self.cpu = False  # CPU autocast on (the wrappers read these two)
        self.cuda = False  # CUDA autocast on
        self.token = None  # a _Token while this thread may have autocast on
        self.dtypes = {"cpu": torch.bfloat16, "cuda": torch.float16}
        self.cache_enabled = True
        self.cache = {}  # (id(weight), dtype) -> (weight, its version, its cast)
        self.nesting = 0


_local = threading.local()


def _state():
    """This thread's _State."""
    try:
        return _local.state
    except AttributeError:
        state = _local.state = _State()
        return state


# How many threads may have autocast on: while it is 0 a wrapper calls its op at once.
_active = 0
_lock = threading.RLock()


class _Token:
    """Counts in ``_active`` for as long as it lives (a thread that ends with autocast
    still on drops its token with its state)."""

    __slots__ = ()

    def __init__(self):
        global _active
        with _lock:
            _active += 1

    def __del__(self):
        global _active
        try:
            with _lock:
                _active -= 1
        except Exception:  # interpreter shutdown: the module's globals may be gone
            pass


def _set_enabled(state, device_type, enabled):
    if device_type == "cpu":
        state.cpu = enabled
    else:
        state.cuda = enabled
    if state.cpu or state.cuda:
        if state.token is None:
            state.token = _Token()
    else:
        state.token = None


def _device_type(device_type, fn):
    if device_type == "cpu" or device_type == "cuda":
        return device_type
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): device_type must be a str, not {type(device_type).__name__}")
    return torch.device(device_type).type  # "cuda:0" -> "cuda"; an unknown type raises


def is_autocast_available(device_type):
    """Whether autocast can be used for ``device_type``: True for 'cpu' and 'cuda' (the
    latter is accepted and disabled here, there being no GPU)."""
    try:
        return _device_type(device_type, "is_autocast_available") in _DEVICE_TYPES
    except (RuntimeError, TypeError):
        return False


def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for ``device_type`` in this thread (without an argument:
    'cuda', as in PyTorch). False inside an op that autocast wrapped."""
    device_type = _device_type(device_type, "is_autocast_enabled")
    state = _state()
    return state.cpu if device_type == "cpu" else state.cuda


def set_autocast_enabled(device_type, enabled=None):
    """Turns autocast on or off for ``device_type`` in this thread
    (``set_autocast_enabled(enabled)``, the older form, is for 'cuda')."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    device_type = _device_type(device_type, "set_autocast_enabled")
    if not isinstance(enabled, bool):
        raise TypeError(
            f"set_autocast_enabled(): enabled must be a bool, not {type(enabled).__name__}"
        )
    _set_enabled(_state(), device_type, enabled)


def get_autocast_dtype(device_type):
    """The dtype autocast casts to for ``device_type`` in this thread (bfloat16 for 'cpu'
    and float16 for 'cuda' unless set)."""
    return _state().dtypes[_device_type(device_type, "get_autocast_dtype")]


def set_autocast_dtype(device_type, dtype):
    """Sets the dtype autocast casts to for ``device_type`` in this thread."""
    device_type = _device_type(device_type, "set_autocast_dtype")
    if not isinstance(dtype, torch.dtype):
        raise TypeError(
            f"set_autocast_dtype(): dtype must be a torch.dtype, not {type(dtype).__name__}"
        )
    _state().dtypes[device_type] = dtype


def is_autocast_cache_enabled():
    """Whether autocast keeps the casts of weights (leaves that require grad) until the
    outermost autocast region exits."""
    return _state().cache_enabled


def set_autocast_cache_enabled(enabled):
    """Sets whether autocast keeps the casts of weights until the outermost region exits (see
    :func:`is_autocast_cache_enabled`)."""
    _state().cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Drops the kept casts of weights (the outermost ``autocast`` does on exit)."""
    _state().cache.clear()


def autocast_increment_nesting():
    """One more autocast region entered in this thread; returns the new depth."""
    state = _state()
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting():
    """One autocast region left in this thread; returns the new depth."""
    state = _state()
    state.nesting -= 1
    return state.nesting


def _deprecated(old, new):
    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def is_autocast_cpu_enabled():
    """Deprecated (warns): ``is_autocast_enabled('cpu')``."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _state().cpu


def set_autocast_cpu_enabled(enabled):
    """Deprecated (warns): ``set_autocast_enabled('cpu', enabled)``."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """Deprecated (warns): ``get_autocast_dtype('cpu')``."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    """Deprecated (warns): ``set_autocast_dtype('cpu', dtype)``."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """Deprecated (warns): ``get_autocast_dtype('cuda')``."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    """Deprecated (warns): ``set_autocast_dtype('cuda', dtype)``."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


# ---------------------------------------------------------------- the context manager
class autocast:
    """Context manager and decorator: inside, the ops of the autocast lists run in
    ``dtype`` (matrix products, linear layers, convolutions) or in float32 (losses,
    decompositions), the others in the dtypes of their inputs.

    ``device_type`` is 'cpu' (``dtype`` bfloat16 unless given or set with
    ``torch.set_autocast_dtype``; float16 is allowed too) or 'cuda' (``dtype`` float16
    unless given or set; bfloat16 is allowed too), which is disabled with a warning where
    CUDA is not available.  ``enabled=False`` turns autocast off for a
    region nested in an enabled one.  ``cache_enabled`` keeps the casts of weights (leaves
    that require grad) until the outermost region exits.

    >>> with torch.autocast("cpu"):
    ...     torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype
    torch.bfloat16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}' (this "
                "build has autocast for 'cpu' and 'cuda')"
            )
        self.device = _device_type(device_type, "autocast")
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        if not isinstance(self.fast_dtype, torch.dtype):
            raise TypeError(
                f"autocast(): dtype must be a torch.dtype, not {type(self.fast_dtype).__name__}"
            )
        self._cache_enabled = (
            is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        )
        enabled = bool(enabled)
        if enabled and self.device == "cuda" and not torch.cuda.is_available():
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        elif enabled and self.device == "cuda" and self.fast_dtype not in _LOWER:
            warnings.warn(
                "In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CUDA Autocast only supports dtypes of torch.float16 and torch.bfloat16 "
                "currently.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        elif enabled and self.fast_dtype not in _LOWER:
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        state = _state()
        self.prev_cache_enabled = state.cache_enabled
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = state.dtypes[self.device]
        set_autocast_enabled(self.device, self._enabled)
        state.dtypes[self.device] = self.fast_dtype
        state.nesting += 1
        state.cache_enabled = self._cache_enabled
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        state = _state()
        state.nesting -= 1
        if state.nesting == 0:  # left the outermost region: the weights' casts go
            state.cache.clear()
        set_autocast_enabled(self.device, self.prev)
        state.dtypes[self.device] = self.prev_fastdtype
        state.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) needs a callable, got {type(func).__name__}; as a context "
                "manager it is `with torch.autocast(device_type=...):`"
            )

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with copy.copy(self):  # a copy per call: recursion and threads each save their own
                return func(*args, **kwargs)

        return decorate_autocast

    def __repr__(self):
        return (
            f"{type(self).__module__}.{type(self).__qualname__}(device_type={self.device!r}, "
            f"dtype={self.fast_dtype}, enabled={self._enabled})"
        )


# ---------------------------------------------------------------- custom autograd Functions
def _cast_inputs(value, dtype):
    if isinstance(value, Tensor):
        return value._to_dtype(dtype, False) if value.dtype in _ELIGIBLE else value
    if isinstance(value, dict):
        return {k: _cast_inputs(v, dtype) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_cast_inputs(v, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of a custom ``torch.autograd.Function`` used under
    autocast.  With ``cast_inputs`` (a dtype) the forward runs with autocast off and its
    floating-point tensor arguments cast to that dtype, when it is called inside an enabled
    region; without, it runs in the region's state, which ``custom_bwd`` then restores for
    the backward."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_inputs(args, cast_inputs), **_cast_inputs(kwargs, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of a custom ``torch.autograd.Function``: it runs in
    the autocast state its ``forward`` (decorated with ``custom_fwd``) ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(
            device_type=device_type,
            enabled=getattr(ctx, "_fwd_used_autocast", False),
            dtype=getattr(ctx, "_dtype", None),
        ):
            return bwd(*args, **kwargs)

    return decorate_bwd


# ---------------------------------------------------------------- the ops and their casts
# Policies: "lower" casts to the autocast dtype; "lower_fp32" does too, then computes in
# float32 and returns the autocast dtype (the core's convolutions have float32 and float64
# kernels only: the inputs are rounded as PyTorch's bfloat16 kernels take them, and the
# result too); "fp32" casts to float32; "promote" casts to the widest floating dtype among
# the arguments; a function of the arguments picks one of these, or None for no cast.


def _pad_policy(args, kwargs):
    # F.pad is a float32 op where PyTorch's kernel is: reflection over 1 or 2 dims,
    # replication over 1 to 3
    pad = args[1] if len(args) > 1 else kwargs.get("pad", ())
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    try:
        dims = len(pad) // 2
    except TypeError:
        return None
    if mode == "replicate" or (mode == "reflect" and dims in (1, 2)):
        return "fp32"
    return None


# PyTorch's CPU autocast lists ("CPU Op-Specific Behavior" in its amp documentation), by
# where the ops live here. Names this torch does not have are skipped; a name found in
# several places is one object, wrapped once. "torch.nn.functional" also means the core's
# kernels that it serves (torch._conv, torch._nn_ops).
_OPS = (
    (
        "lower",
        {
            "torch": "matmul mm bmm addmm baddbmm addbmm conv_tbc prelu",
            "torch.Tensor": "matmul __matmul__ __rmatmul__ mm bmm addmm baddbmm addbmm prelu",
            "torch.linalg": "matmul vecdot",
            "torch.nn.functional": "linear prelu scaled_dot_product_attention conv_tbc",
        },
    ),
    (
        "lower_fp32",
        {
            "torch.nn.functional": (
                "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d"
            ),
            # the fused recurrence of nn.RNN/LSTM/GRU (torch-nn): PyTorch's CPU LSTM is on
            # the lower-precision list; its float32 kernels take all inputs of one dtype
            "torch.nn.modules.rnn": "_recurrence",
        },
    ),
    (
        "fp32",
        {
            "torch": (
                "prod quantile nanquantile trace cholesky cholesky_inverse cholesky_solve "
                "inverse pinverse qr svd triangular_solve lu_solve geqrf orgqr ormqr polar "
                "stft cdist view_as_complex"
            ),
            "torch.Tensor": (
                "prod quantile nanquantile trace cholesky cholesky_inverse cholesky_solve "
                "inverse pinverse qr svd triangular_solve lu_solve geqrf orgqr ormqr stft"
            ),
            "torch.linalg": (
                "cond matrix_rank solve cholesky cholesky_ex svdvals eigvals eigvalsh inv "
                "inv_ex householder_product tensorinv tensorsolve qr svd eig eigh lstsq"
            ),
            "torch.fft": (
                "fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft"
            ),
            "torch.nn.functional": (
                "avg_pool3d max_pool3d max_unpool1d max_unpool2d max_unpool3d "
                "adaptive_avg_pool3d adaptive_max_pool3d fractional_max_pool2d "
                "fractional_max_pool3d grid_sample mse_loss l1_loss smooth_l1_loss huber_loss "
                "nll_loss cross_entropy binary_cross_entropy binary_cross_entropy_with_logits "
                "kl_div margin_ranking_loss hinge_embedding_loss soft_margin_loss "
                "cosine_embedding_loss triplet_margin_loss poisson_nll_loss multi_margin_loss "
                "multilabel_margin_loss ctc_loss"
            ),
        },
    ),
    ("promote", {"torch": "cat stack index_copy", "torch.Tensor": "index_copy"}),
    (_pad_policy, {"torch.nn.functional": "pad"}),
)


_ELIGIBLE = frozenset((torch.float16, torch.bfloat16, _float32))  # floating, not float64
_LOWER = (torch.bfloat16, torch.float16)


def _cast_tensor(t, dtype, cache):
    """t (an eligible tensor of another dtype) cast to dtype; with a cache, the cast of a
    float32 weight (a leaf that requires grad, not a view) is made once, and again after
    the weight changed in place (an optimizer step: PyTorch would reuse the stale cast)."""
    if (
        cache is not None
        and t.dtype is _float32
        and t.requires_grad
        and t.is_leaf
        and t._base is None
    ):
        key = (id(t), dtype)
        hit = cache.get(key)
        if hit is None or hit[1] != t._version:
            # the entry holds t, so that no other tensor gets its id while it is there
            hit = cache[key] = (t, t._version, t._to_dtype(dtype, False))
        return hit[2]
    return t._to_dtype(dtype, False)


def _cast(value, dtype, cache):
    """value (a tensor, or a list or tuple of them) with its floating-point tensors, but
    float64 ones, cast to dtype."""
    if isinstance(value, Tensor):
        vdtype = value.dtype
        if vdtype is dtype or vdtype not in _ELIGIBLE:
            return value
        return _cast_tensor(value, dtype, cache)
    if type(value) in (list, tuple):
        return type(value)([_cast(v, dtype, cache) for v in value])
    return value


def _widest(args, kwargs, lower):
    """float32 if a floating-point tensor argument (not float64) is not of the autocast
    dtype, else that dtype; None when there is no such argument."""
    found = None
    for value in (*args, *kwargs.values()):
        for t in value if type(value) in (list, tuple) else (value,):
            if isinstance(t, Tensor) and t.dtype in _ELIGIBLE:
                if t.dtype is not lower:
                    return _float32
                found = lower
    return found


def _cast_result(value, dtype):
    if isinstance(value, Tensor):
        return value._to_dtype(dtype, False) if value.dtype is _float32 else value
    if type(value) in (list, tuple):
        return type(value)([_cast_result(v, dtype) for v in value])
    return value


def _device_type_of(args, kwargs):
    """The device type of the first tensor argument (in a list or tuple too), or None."""
    for value in (*args, *kwargs.values()):
        for t in value if type(value) in (list, tuple) else (value,):
            if isinstance(t, Tensor):
                return t.device.type
    return None


def _autocast_call(op, policy, args, kwargs):
    state = _state()
    if not (state.cpu or state.cuda) or (kwargs and kwargs.get("out") is not None):
        return op(*args, **kwargs)  # autocast is off in this thread; out= forms are not cast
    device_type = _device_type_of(args, kwargs)
    if not (state.cpu if device_type == "cpu" else state.cuda and device_type == "cuda"):
        return op(*args, **kwargs)  # not on a device type whose autocast is on
    if policy.__class__ is not str:
        policy = policy(args, kwargs)
        if policy is None:
            return op(*args, **kwargs)
    cache = None
    if policy == "fp32":
        dtype = _float32
    elif policy == "promote":
        dtype = _widest(args, kwargs, state.dtypes[device_type])
        if dtype is None:
            return op(*args, **kwargs)
    else:
        dtype = state.dtypes[device_type]
        if state.cache_enabled and _is_grad_enabled():
            cache = state.cache
    cast = []
    for value in args:
        if isinstance(value, Tensor):
            vdtype = value.dtype
            if vdtype is not dtype and vdtype in _ELIGIBLE:
                value = _cast_tensor(value, dtype, cache)
        elif type(value) in (list, tuple):
            value = _cast(value, dtype, cache)
        cast.append(value)
    if kwargs:
        kwargs = {k: _cast(v, dtype, cache) for k, v in kwargs.items()}
    if policy == "lower_fp32":
        cast = [_cast(v, _float32, None) for v in cast]
        kwargs = {k: _cast(v, _float32, None) for k, v in kwargs.items()}
    was_cpu, was_cuda = state.cpu, state.cuda
    state.cpu = state.cuda = False  # the op's own calls are not cast again (the token stays)
    try:
        out = op(*cast, **kwargs)
    finally:
        state.cpu, state.cuda = was_cpu, was_cuda
        if state.token is None:  # the op turned autocast off and on again
            state.token = _Token()
    return _cast_result(out, dtype) if policy == "lower_fp32" else out


def _wrap(op, policy, name, where):
    def wrapper(*args, **kwargs):
        if _active:
            return _autocast_call(op, policy, args, kwargs)
        if kwargs:
            return op(*args, **kwargs)
        return op(*args)

    functools.update_wrapper(wrapper, op)
    if not isinstance(op, types.FunctionType):  # a core op: its names are the binding's
        wrapper.__name__ = name
        wrapper.__qualname__ = "Tensor." + name if where == "torch.Tensor" else name
        if where == "torch.Tensor":
            wrapper.__module__ = "torch"
    wrapper._autocast_policy = policy
    return wrapper


def _namespaces(where):
    if where == "torch.Tensor":
        return [Tensor.__dict__]
    modules = ["torch._conv", "torch._nn_ops", where] if where == "torch.nn.functional" else [where]
    return [vars(sys.modules[m]) for m in modules if m in sys.modules]


def _install(module=None):
    """Wraps the listed ops of every loaded namespace and puts the wrappers wherever a torch
    module or the Tensor class holds those ops; with ``module`` (just imported), there."""
    wrappers = {}  # id(op) -> wrapper
    for policy, places in _OPS:
        for where, names in places.items():
            for namespace in _namespaces(where):
                for name in names.split():
                    op = namespace.get(name)
                    if op is None or id(op) in wrappers or hasattr(op, "_autocast_policy"):
                        continue
                    wrappers[id(op)] = _wrap(op, policy, name, where)
    if not wrappers:
        return
    if module is not None:
        holders = [module]
    else:
        holders = [Tensor]
        holders += [
            m
            for name, m in list(sys.modules.items())
            if m is not None and (name == "torch" or name.startswith("torch."))
        ]
    for holder in holders:
        for key, value in list(vars(holder).items()):
            if id(value) in wrappers:
                setattr(holder, key, wrappers[id(value)])


class _WrapsOnImport:
    """First on ``sys.meta_path``: finds the modules of other wheels that have ops to wrap
    (``torch.nn.functional``, ...) with the other finders and has their loader wrap those
    ops right after the module has run, before anything can take a name from it."""

    names = frozenset(("torch.nn.functional", "torch.nn.modules.rnn", "torch.fft"))

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _InstallingLoader(spec.loader)
        return spec


class _InstallingLoader:
    """A module's loader, which then wraps the autocast ops (``_install``)."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _install(module)

    def __getattr__(self, name):  # get_source, get_resource_reader, ...
        return getattr(self.loader, name)


if not any(type(f).__name__ == "_WrapsOnImport" for f in sys.meta_path):
    sys.meta_path.insert(0, _WrapsOnImport())
_install()
