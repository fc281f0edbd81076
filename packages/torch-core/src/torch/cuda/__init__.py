"""torch.cuda: NVIDIA GPUs, through the core's CUDA backend.

The same build of torch-core serves machines with and without a GPU. On first need (the
first ``is_available()``, or the first use of CUDA) this module finds the NVIDIA driver
(``libcuda.so.1``), NVRTC and cuBLAS (see :mod:`torch.cuda._libs`; NVRTC and cuBLAS come
with ``pip install "torch-core[cuda]"``) and asks the core to load them
(``torch._C._cuda_load``). That happens once per process, under a lock.

Where that works and the driver sees a GPU, ``is_available()`` is True and the module
works for real: devices, streams and events, the caching allocator's counters, the GPU
random number generators (Philox: a seed and an offset per device), and tensors on
``"cuda"``. The backend's kernels are CUDA C++ compiled by NVRTC, at run time, for the
architecture of the GPU in use, and cached on disk.

Where it does not (no driver, no GPU, NVRTC or cuBLAS missing, or a core built without the
backend), the module answers as PyTorch does on a machine without CUDA, and never raises
from ``is_available()``::

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

The seeding functions then do nothing, the memory counters read 0, and
``get_rng_state_all()`` is empty. What needs a GPU (``current_device``,
``get_device_name``, ``synchronize``, creating a CUDA tensor, ...) raises an error that
starts with PyTorch's "Torch not compiled with CUDA enabled" and says what is missing and
what to do. PyTorch raises AssertionError there on its CPU builds and RuntimeError on its
CUDA builds without a driver; the error raised here is both, so that either ``except``
clause catches it.
"""

import collections
import contextlib
import os
import struct
import threading
import warnings
import weakref

import torch
from torch import _C
from torch.cuda import _libs

__all__ = [
    "Event",
    "OutOfMemoryError",
    "Stream",
    "StreamContext",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_arch_list",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_gencode_flags",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "ipc_collect",
    "is_available",
    "is_bf16_supported",
    "is_current_stream_capturing",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_stats",
    "memory_summary",
    "reset_accumulated_memory_stats",
    "reset_max_memory_allocated",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_per_process_memory_fraction",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "stream",
    "synchronize",
]

OutOfMemoryError = torch.OutOfMemoryError

# The architectures every kernel is compile-checked for in CI (tests/test_cuda_cpu.py).
_CHECKED_ARCHS = ("sm_80", "sm_90")
_NOT_BUILT = "this build of torch has only the CPU backend"


class _CudaUnavailableError(RuntimeError, AssertionError):
    """CUDA was needed and cannot be used here (see the module docstring for why it is also
    an AssertionError)."""


# ---------------------------------------------------------------- loading, once
_lock = threading.RLock()
_load_reason = None  # None: not tried yet; "": loaded with a GPU; else why CUDA is unusable
_device_count = 0
_initialized = False
_in_bad_fork = False
_queued = collections.OrderedDict()  # calls waiting for initialisation (seeding), by key


def _after_fork_in_child():
    global _in_bad_fork, _lock
    _lock = threading.RLock()  # another thread may have held it at the fork
    if _initialized:
        _in_bad_fork = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _explain(reason, libs):
    """A readable account of why ``_C._cuda_load`` failed (it returned `reason`)."""
    low = reason.lower()
    if "libcuda" in low:
        return f"no NVIDIA driver: {_libs.DRIVER} cannot be loaded ({reason})"
    if "no_device" in low or "no device" in low:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        hint = f"; CUDA_VISIBLE_DEVICES={visible!r}" if visible is not None else ""
        return f"no CUDA GPU: the NVIDIA driver finds no device ({reason}{hint})"
    if "cuinit" in low:
        return f"the NVIDIA driver failed to initialise ({reason})"
    for name, lib in (("nvrtc", libs.nvrtc), ("cublas", libs.cublas)):
        if name in low:
            return (
                f"{lib.describe()}; loading it failed ({reason}). Install NVRTC and cuBLAS "
                f"with: {_libs.PIP_INSTALL}"
            )
    return reason


def _try_load():
    global _device_count
    if not hasattr(_C, "_cuda_load"):
        return _NOT_BUILT
    problem = _libs.driver_problem()
    if problem:
        return f"no NVIDIA driver: {_libs.DRIVER} cannot be loaded ({problem})"
    libs = _libs.find()
    reason = _C._cuda_load(*libs.args())
    if reason:
        return _explain(reason, libs)
    n = _C._cuda_device_count()
    if n <= 0:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        hint = f" (CUDA_VISIBLE_DEVICES={visible!r})" if visible is not None else ""
        return f"no CUDA GPU: the NVIDIA driver loaded but reports no device{hint}"
    _device_count = n
    return ""


def _load():
    """Load CUDA once (thread safe); returns "" when it can be used, else why not."""
    global _load_reason
    reason = _load_reason
    if reason is None:
        with _lock:
            if _load_reason is None:
                try:
                    _load_reason = _try_load()
                except Exception as e:  # is_available() must never raise
                    _load_reason = f"loading CUDA failed ({type(e).__name__}: {e})"
            reason = _load_reason
    return reason


def _unavailable(what, reason=None):
    """The error for an attempt to `what` ("move a tensor to cuda:0") without CUDA."""
    if reason is None:
        reason = _load() or _NOT_BUILT
    detail = reason if reason == _NOT_BUILT else f"CUDA cannot be used here: {reason}"
    return _CudaUnavailableError(
        f"Torch not compiled with CUDA enabled: {detail}, so torch cannot {what}. "
        "torch.cuda.is_available() is False; use the CPU instead "
        "(device = 'cuda' if torch.cuda.is_available() else 'cpu')"
    )


def _invalid_device(index):
    return RuntimeError(
        f"CUDA error: invalid device ordinal: cuda:{index} was asked for, but there "
        f"{'is' if _device_count == 1 else 'are'} {_device_count} CUDA "
        f"device{'' if _device_count == 1 else 's'} (cuda:0 to cuda:{_device_count - 1})"
    )


def _require(what, index=None):
    """Initialise CUDA if needed, or raise the error for `what`; checks device `index`."""
    global _initialized
    if not _initialized or _in_bad_fork:
        if _in_bad_fork:
            raise RuntimeError(
                "Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                "multiprocessing, you must use the 'spawn' start method"
            )
        reason = _load()
        if reason:
            raise _unavailable(what, reason)
        with _lock:
            if not _initialized:
                while _queued:  # seeds and RNG states set before CUDA started
                    _, call = _queued.popitem(last=False)
                    call()
                _initialized = True
    if index is not None and not 0 <= index < _device_count:
        raise _invalid_device(index)


def _lazy_init():
    """Initialise CUDA if it is not yet (raises the clear error where it cannot be used)."""
    if not _initialized or _in_bad_fork:
        _require("initialise CUDA")


def _lazy_call(key, call):
    """Run `call` now if CUDA is initialised, else when it is (latest call per key wins)."""
    if _initialized and not _in_bad_fork:
        call()
        return
    with _lock:
        if _initialized:
            call()
        else:
            _queued.pop(key, None)
            _queued[key] = call


# ---------------------------------------------------------------- what is there
def is_available():
    """Whether a CUDA GPU can be used. Loads CUDA on first call (never raises)."""
    return _load() == ""


def device_count():
    """The number of CUDA GPUs that can be used (0 where CUDA cannot be used)."""
    return _device_count if _load() == "" else 0


def is_initialized():
    """Whether CUDA has been initialised in this process (by first use or :func:`init`)."""
    return _initialized and not _in_bad_fork


def _is_compiled():
    """Whether the core has the CUDA backend (it may still lack a driver or a GPU)."""
    return hasattr(_C, "_cuda_load")


def init():
    """Initialise CUDA now rather than on first use (raises where it cannot be used)."""
    _lazy_init()


def is_current_stream_capturing():
    """Whether a CUDA graph is being captured: never (there is no graph capture)."""
    return False


def _current_index():
    return _C._cuda_current_device()


def _named_index(device):
    """The index `device` (int, str or torch.device) names; None for a cuda device without
    one. Raises ValueError for another device type."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str) and device.isdigit():
        return int(device)
    device = torch.device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return device.index


def _device_index(device, optional=False, what="use a CUDA device"):
    """The CUDA device index `device` (None, int, str or torch.device) names; None or a
    device without an index is the current device (-1 with `optional` and None)."""
    if device is None and optional:
        return -1
    index = None if device is None else _named_index(device)
    if index is not None:
        return index
    _require(what)
    return _current_index()


def _index(device, optional=False):
    """The device index of a context manager (``device(None)``: -1, nothing selected)."""
    if device is None:
        return -1 if optional else 0
    index = _named_index(device)
    if index is not None:
        return index
    return _current_index() if is_initialized() else 0


class _guard:
    """Makes device `index` current inside the block (cheap when it already is)."""

    __slots__ = ("index", "prev")

    def __init__(self, index):
        self.index = index

    def __enter__(self):
        self.prev = _C._cuda_current_device()
        if self.prev != self.index:
            _C._cuda_set_device(self.index)

    def __exit__(self, *exc):
        if self.prev != self.index:
            _C._cuda_set_device(self.prev)
        return False


def current_device():
    """The index of the current CUDA device."""
    _require("report the current device")
    return _current_index()


def set_device(device):
    """Select the current GPU; a negative index does nothing, as in PyTorch."""
    index = _index(device)
    if index >= 0:
        _require(f"select device cuda:{index}", index)
        _C._cuda_set_device(index)


class _CudaDeviceProperties:
    """What :func:`get_device_properties` returns: ``name``, ``major``, ``minor`` (the
    compute capability), ``total_memory`` (bytes) and ``multi_processor_count``."""

    __slots__ = ("name", "major", "minor", "total_memory", "multi_processor_count")

    def __init__(self, name, major, minor, total_memory, multi_processor_count):
        self.name = name
        self.major = major
        self.minor = minor
        self.total_memory = total_memory
        self.multi_processor_count = multi_processor_count

    def __repr__(self):
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
            f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


_properties = {}


def get_device_properties(device=None):
    """The properties of a GPU (the current one by default)."""
    index = _device_index(device, what="read a device's properties")
    _require("read a device's properties", index)
    props = _properties.get(index)
    if props is None:
        major, minor = _C._cuda_device_capability(index)
        props = _properties[index] = _CudaDeviceProperties(
            _C._cuda_device_name(index),
            major,
            minor,
            _C._cuda_device_total_memory(index),
            _C._cuda_device_sm_count(index),
        )
    return props


def get_device_name(device=None):
    """The name of a GPU ("NVIDIA H100 80GB HBM3", ...)."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """A GPU's compute capability as (major, minor): (9, 0) for an H100."""
    props = get_device_properties(device)
    return props.major, props.minor


def is_bf16_supported(including_emulation=True):
    """Whether the current GPU computes in bfloat16 (compute capability 8.0 and later)."""
    if not is_available():
        return False
    return get_device_capability()[0] >= 8


def get_arch_list():
    """The GPU architectures this build has kernels for.

    There are no prebuilt kernels: NVRTC compiles each kernel at run time for the
    architecture of the GPU it runs on. The list names the architectures every kernel is
    compile-checked for in CI (sm_80, sm_90) and those of the GPUs present; empty where
    CUDA cannot be used."""
    if not is_available():
        return []
    archs = set(_CHECKED_ARCHS)
    for i in range(device_count()):
        major, minor = get_device_capability(i)
        archs.add(f"sm_{major}{minor}")
    return sorted(archs, key=lambda a: int(a[3:]))


def get_gencode_flags():
    """The NVCC ``-gencode`` flags of this build: none (kernels are compiled by NVRTC at
    run time, for the GPU in use)."""
    return ""


def synchronize(device=None):
    """Wait until every kernel queued on a GPU (the current one by default) has finished."""
    index = _device_index(device, what="wait for a device's kernels")
    _require("wait for a device's kernels", index)
    _C._cuda_synchronize(index)


def ipc_collect():
    """Free GPU memory shared with other processes: nothing is shared (no IPC support)."""
    _require("free CUDA memory shared between processes")


def mem_get_info(device=None):
    """(free, total) bytes of a GPU's memory, as the driver reports them."""
    index = _device_index(device, what="read a device's free and total memory")
    _require("read a device's free and total memory", index)
    return tuple(_C._cuda_mem_get_info(index))


def set_per_process_memory_fraction(fraction, device=None):
    """Limit the caching allocator to a fraction of a GPU's memory: not supported yet."""
    index = _device_index(device, what="limit a device's memory")
    _require("limit a device's memory", index)
    if not isinstance(fraction, float) or not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    raise NotImplementedError(
        "torch.cuda.set_per_process_memory_fraction: the caching allocator has no memory limit yet"
    )


# ---------------------------------------------------------------- memory counters
_accumulated_base = {}  # device -> the raw counters at reset_accumulated_memory_stats


def _stats_index(device):
    index = _C._cuda_current_device() if device is None else _device_index(device)
    if not 0 <= index < _device_count:
        raise _invalid_device(index)
    return index


def memory_stats(device=None):
    """The caching allocator's statistics for a GPU, under PyTorch's key names
    ("allocated_bytes.all.current", "reserved_bytes.all.peak", "num_ooms", ...), sorted by
    key; empty before CUDA is initialised."""
    if not is_initialized():
        return collections.OrderedDict()
    index = _stats_index(device)
    raw = _C._cuda_memory_stats(index)
    base = _accumulated_base.get(index, {})

    def count(key):
        return raw.get(key, 0) - base.get(key, 0)

    stats = {
        "allocated_bytes.all.current": raw["allocated"],
        "allocated_bytes.all.peak": raw["peak_allocated"],
        "active_bytes.all.current": raw["allocated"],
        "active_bytes.all.peak": raw["peak_allocated"],
        "reserved_bytes.all.current": raw["reserved"],
        "reserved_bytes.all.peak": raw["peak_reserved"],
        "allocation.all.current": raw.get("num_allocs", 0) - raw.get("num_frees", 0),
        "allocation.all.allocated": count("num_allocs"),
        "allocation.all.freed": count("num_frees"),
        "num_alloc_retries": count("num_alloc_retries"),
        "num_ooms": count("num_ooms"),
    }
    return collections.OrderedDict(sorted(stats.items()))


def memory_allocated(device=None):
    """Bytes held by tensors on a GPU (0 before CUDA is initialised)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """The peak of ``memory_allocated`` since the start or the last reset."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the driver (in use or cached)."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    """The peak of ``memory_reserved`` since the start or the last reset."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def memory_cached(device=None):
    """The old name of ``memory_reserved``."""
    warnings.warn(
        "torch.cuda.memory_cached has been renamed to torch.cuda.memory_reserved",
        FutureWarning,
        stacklevel=2,
    )
    return memory_reserved(device)


def max_memory_cached(device=None):
    """The old name of ``max_memory_reserved``."""
    warnings.warn(
        "torch.cuda.max_memory_cached has been renamed to torch.cuda.max_memory_reserved",
        FutureWarning,
        stacklevel=2,
    )
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None):
    """Restart the peaks (``max_memory_allocated``, ``max_memory_reserved``) from now."""
    _require("reset a device's counters")
    _C._cuda_reset_peak_stats(_stats_index(device))


def reset_max_memory_allocated(device=None):
    """The old name of ``reset_peak_memory_stats`` (which resets every peak)."""
    warnings.warn(
        "torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, "
        "which resets every peak memory statistic",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    """Restart the counts (allocations, frees, retries, OOMs) from zero."""
    _require("reset a device's counters")
    index = _stats_index(device)
    _accumulated_base[index] = dict(_C._cuda_memory_stats(index))


def _bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n} B" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024


def memory_summary(device=None, abbreviated=False):
    """A readable table of a GPU's memory statistics (``print(torch.cuda.memory_summary())``)."""
    _require("summarise a device's memory")
    index = _stats_index(device)
    s = memory_stats(index)
    props = get_device_properties(index)
    free, total = mem_get_info(index)
    width = 66
    rule, thick = "-" * width, "=" * width
    lines = [
        thick,
        f" Memory of cuda:{index} ({props.name}), torch.cuda caching allocator",
        thick,
        f" {'':<24}{'current':>20}{'peak':>20}",
        rule,
        f" {'allocated (tensors)':<24}{_bytes(s['allocated_bytes.all.current']):>20}"
        f"{_bytes(s['allocated_bytes.all.peak']):>20}",
        f" {'reserved (allocator)':<24}{_bytes(s['reserved_bytes.all.current']):>20}"
        f"{_bytes(s['reserved_bytes.all.peak']):>20}",
        f" {'cached, not in use':<24}"
        f"{_bytes(s['reserved_bytes.all.current'] - s['allocated_bytes.all.current']):>20}",
    ]
    if not abbreviated:
        lines += [
            rule,
            f" {'live allocations':<24}{s['allocation.all.current']:>20}",
            f" {'allocations / frees':<24}"
            f"{s['allocation.all.allocated']:>20}{s['allocation.all.freed']:>20}",
            f" {'alloc retries / OOMs':<24}{s['num_alloc_retries']:>20}{s['num_ooms']:>20}",
            rule,
            f" {'device free / total':<24}{_bytes(free):>20}{_bytes(total):>20}",
        ]
    lines.append(thick)
    return "\n".join(lines) + "\n"


def empty_cache():
    """Give the caching allocator's unused GPU memory back to the driver (so that other
    processes can use it); tensors keep theirs. Nothing to do before CUDA starts."""
    if is_initialized():
        _C._cuda_empty_cache()


# ---------------------------------------------------------------- random numbers
# Before CUDA starts, seeding is queued (the latest call of each kind runs when it starts),
# as in PyTorch; where CUDA cannot be used it therefore does nothing.
def _seed_value(seed):
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise RuntimeError("Overflow when unpacking long")
    return seed % 2**64


def _seed_device(index, seed):
    with _guard(index):
        _C._cuda_set_rng_state(struct.pack("<QQ", seed, 0))


def manual_seed(seed):
    """Seed the current GPU's generator (``manual_seed_all`` seeds every GPU's)."""
    seed = _seed_value(seed)

    def call():
        if _device_count == 1:
            _C._cuda_manual_seed(seed)
        else:
            _seed_device(_C._cuda_current_device(), seed)

    _lazy_call("seed", call)


def manual_seed_all(seed):
    """Seed every GPU's generator."""
    seed = _seed_value(seed)
    _lazy_call("seed_all", lambda: _C._cuda_manual_seed(seed))


def _random_seed():
    return int.from_bytes(os.urandom(8), "little")


def seed():
    """Seed the current GPU's generator with a random number."""
    manual_seed(_random_seed())


def seed_all():
    """Seed every GPU's generator with a random number."""
    manual_seed_all(_random_seed())


def initial_seed():
    """The seed of the current GPU's generator."""
    _require("read a GPU generator's seed")
    with _guard(_C._cuda_current_device()):
        return _C._cuda_initial_seed()


def get_rng_state(device="cuda"):
    """A GPU generator's state, a 16-byte ``torch.uint8`` tensor (seed and offset)."""
    _require("read a GPU generator's state")
    index = _device_index(device)
    _require("read a GPU generator's state", index)
    with _guard(index):
        state = _C._cuda_get_rng_state()
    return torch.tensor(list(state), dtype=torch.uint8)


def get_rng_state_all():
    """Every GPU generator's state (an empty list where CUDA cannot be used)."""
    return [get_rng_state(i) for i in range(device_count())]


def _state_bytes(new_state):
    if not isinstance(new_state, torch.Tensor) or new_state.dtype != torch.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    return bytes(new_state.cpu().reshape(-1).tolist())


def set_rng_state(new_state, device="cuda"):
    """Restore a GPU generator's state from :func:`get_rng_state`."""
    state = _state_bytes(new_state)

    def call():
        index = _device_index(device)
        if not 0 <= index < _device_count:
            raise _invalid_device(index)
        with _guard(index):
            _C._cuda_set_rng_state(state)

    _lazy_call(("state", str(device)), call)


def set_rng_state_all(new_states):
    """Restore every GPU generator's state (a list, one state per GPU)."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


# ---------------------------------------------------------------- device contexts
class device:
    """Context manager that makes `device` the current GPU inside the block. A negative
    index or None changes nothing."""

    def __init__(self, device):
        self.idx = _index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return
        _require(f"select device cuda:{self.idx}", self.idx)
        self.prev_idx = _C._cuda_current_device()
        if self.prev_idx != self.idx:
            _C._cuda_set_device(self.idx)

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _C._cuda_set_device(self.prev_idx)
        return False


class device_of(device):
    """``device`` for the GPU that `obj` (a tensor) is on; a CPU tensor changes nothing."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


# ---------------------------------------------------------------- streams and events
_stream_priorities = {}  # (device, handle) -> priority, of the streams created here
_streams = weakref.WeakValueDictionary()  # (device, handle) -> the Stream made for it
_current_refs = {}  # (thread, device) -> the Stream set current (kept alive while it is)


class Stream:
    """A queue of GPU work on one device: kernels queued on a stream run in order; work on
    different streams may overlap. ``Stream()`` creates one on the current device;
    ``priority`` below 0 is served first."""

    def __init__(self, device=None, priority=0, **kwargs):
        _require("create a CUDA stream")
        index = _device_index(device, what="create a CUDA stream")
        _require("create a CUDA stream", index)
        with _guard(index):
            handle = _C._cuda_stream_create(int(priority))
        self._setup(index, handle, int(priority), True)
        _stream_priorities[(index, handle)] = int(priority)
        _streams[(index, handle)] = self

    def _setup(self, index, handle, priority, owned):
        self._core = _C  # the core that made the stream destroys it
        self.device_index = index
        self.cuda_stream = handle
        self.priority = priority
        self._owned = owned

    @classmethod
    def _wrap(cls, index, handle):
        """The Stream object for an existing stream (the same object while it lives)."""
        found = _streams.get((index, handle))
        if found is not None:
            return found
        s = cls.__new__(cls)
        s._setup(index, handle, _stream_priorities.get((index, handle), 0), False)
        return s

    @property
    def device(self):
        return torch.device("cuda", self.device_index)

    @property
    def device_type(self):
        return "cuda"

    def query(self):
        """Whether all work queued on the stream has finished."""
        with _guard(self.device_index):
            return bool(_C._cuda_stream_query(self.cuda_stream))

    def synchronize(self):
        """Wait until all work queued on the stream has finished."""
        with _guard(self.device_index):
            _C._cuda_stream_synchronize(self.cuda_stream)

    def wait_event(self, event):
        """Make work queued on this stream from now on wait for `event` (no host wait)."""
        if event._handle is None:
            return  # an event never recorded is complete
        with _guard(self.device_index):
            _C._cuda_stream_wait_event(self.cuda_stream, event._handle)

    def wait_stream(self, stream):
        """Make work queued on this stream from now on wait for the work queued on
        `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record `event` (a new Event when None) on this stream; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return NotImplemented
        return (self.cuda_stream, self.device_index) == (other.cuda_stream, other.device_index)

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return (
            f"<torch.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"
        )

    def __del__(self):
        if getattr(self, "_owned", False):
            self._owned = False
            key = (self.device_index, self.cuda_stream)
            _stream_priorities.pop(key, None)
            with contextlib.suppress(Exception):  # also at interpreter exit
                self._core._cuda_stream_destroy(self.cuda_stream)


class Event:
    """A marker in a GPU stream: ``record()`` it on a stream, then ``query()``,
    ``synchronize()`` or ``wait()`` for the work queued before it, or time the work
    between two events with ``elapsed_time`` (both made with ``enable_timing=True``).

    ``blocking`` and ``interprocess`` are accepted; waiting is always by the driver's
    synchronisation, and events cannot be shared between processes (``ipc_handle``
    raises)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        _require("create a CUDA event")
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.interprocess = bool(interprocess)
        self._handle = None  # created on first record, on the stream's device
        self._device_index = None

    @property
    def cuda_event(self):
        return self._handle or 0

    @property
    def device(self):
        return None if self._device_index is None else torch.device("cuda", self._device_index)

    def record(self, stream=None):
        """Record the event on `stream` (the current stream when None)."""
        if stream is None:
            stream = current_stream()
        if self._handle is None:
            with _guard(stream.device_index):
                self._handle = _C._cuda_event_create(self.enable_timing)
            self._core = _C  # the core that made the event destroys it
            self._device_index = stream.device_index
        elif self._device_index != stream.device_index:
            raise RuntimeError(
                f"Event device cuda:{self._device_index} does not match recording stream's "
                f"device cuda:{stream.device_index}."
            )
        with _guard(stream.device_index):
            _C._cuda_event_record(self._handle, stream.cuda_stream)

    def wait(self, stream=None):
        """Make work queued on `stream` (the current stream) from now on wait for it."""
        if stream is None:
            stream = current_stream()
        stream.wait_event(self)

    def query(self):
        """Whether the work before the event has finished (True if never recorded)."""
        if self._handle is None:
            return True
        return bool(_C._cuda_event_query(self._handle))

    def synchronize(self):
        """Wait until the work before the event has finished."""
        if self._handle is not None:
            _C._cuda_event_synchronize(self._handle)

    def elapsed_time(self, end_event):
        """Milliseconds between this event and `end_event` (both recorded, both made with
        ``enable_timing=True``; waits for `end_event`)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._handle is None or end_event._handle is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        end_event.synchronize()
        return float(_C._cuda_event_elapsed_ms(self._handle, end_event._handle))

    def ipc_handle(self):
        raise NotImplementedError("torch.cuda.Event: events cannot be shared between processes")

    def __repr__(self):
        if self._handle is None:
            return "<torch.cuda.Event uninitialized>"
        return f"<torch.cuda.Event {self._handle:#x}>"

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            with contextlib.suppress(Exception):
                self._core._cuda_event_destroy(handle)


def current_stream(device=None):
    """The stream that work on `device` (the current GPU) is queued on, in this thread."""
    index = _device_index(device, what="return a device's current stream")
    _require("return a device's current stream", index)
    with _guard(index):
        return Stream._wrap(index, _C._cuda_current_stream())


def default_stream(device=None):
    """The default stream of `device` (the current GPU)."""
    index = _device_index(device, what="return a device's default stream")
    _require("return a device's default stream", index)
    return Stream._wrap(index, 0)


def set_stream(stream):
    """Queue work on `stream` from now on (in this thread); makes its device current.
    ``None`` changes nothing. Prefer the :func:`stream` context manager."""
    if stream is None:
        return
    _require("set the current stream", stream.device_index)
    if _C._cuda_current_device() != stream.device_index:
        _C._cuda_set_device(stream.device_index)
    _C._cuda_set_stream(stream.cuda_stream)
    _current_refs[(threading.get_ident(), stream.device_index)] = stream


class StreamContext(contextlib.AbstractContextManager):
    """Runs the block with `stream` current (and its device current); restores the
    previous streams and device after it. ``None`` changes nothing."""

    def __init__(self, stream):
        self.stream = stream
        self.idx = -1 if stream is None else stream.device_index
        self.src_prev_stream = None
        self.dst_prev_stream = None

    def __enter__(self):
        cur = self.stream
        if cur is None or self.idx == -1:
            return
        self.src_prev_stream = current_stream(None)
        self.dst_prev_stream = None
        if self.src_prev_stream.device_index != cur.device_index:
            with device(cur.device_index):
                self.dst_prev_stream = current_stream(cur.device_index)
        set_stream(cur)

    def __exit__(self, *exc):
        if self.stream is None or self.src_prev_stream is None:
            return False
        if self.dst_prev_stream is not None:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)
        return False


def stream(stream):
    """``StreamContext(stream)``: ``with torch.cuda.stream(s):`` queues the block's work on
    ``s``; ``with torch.cuda.stream(None):`` changes nothing."""
    return StreamContext(stream)


from torch.cuda import amp, nvtx  # noqa: E402,F401
