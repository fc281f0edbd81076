"""torch.cuda on a machine without a usable GPU, as PyTorch behaves there.

This build has only the CPU backend (the CUDA backend plugs into the core's dispatch table
later), so ``is_available()`` is False and ``device_count()`` is 0, and the usual first
line of a program picks the CPU::

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

What PyTorch answers without a GPU, this module answers the same way: the seeding
functions do nothing, the memory counters read 0, ``get_rng_state_all()`` is empty. What
needs a GPU (``current_device``, ``get_device_name``, ``synchronize``, creating a CUDA
tensor, ...) raises an error that starts with PyTorch's "Torch not compiled with CUDA
enabled" and says what to do. PyTorch raises AssertionError there on its CPU builds and
RuntimeError on its CUDA builds without a driver; the error raised here is both, so that
either ``except`` clause catches it.
"""

import collections
import contextlib
import warnings

import torch

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
    "stream",
    "synchronize",
]

OutOfMemoryError = torch.OutOfMemoryError


class _CudaUnavailableError(RuntimeError, AssertionError):
    """CUDA was needed and this build has no CUDA backend (see the module docstring for why
    it is also an AssertionError)."""


def _unavailable(what):
    """The error for an attempt to `what` ("move a tensor to cuda:0") without CUDA."""
    return _CudaUnavailableError(
        f"Torch not compiled with CUDA enabled: this build of torch has only the CPU "
        f"backend, so it cannot {what}. torch.cuda.is_available() is False; use the CPU "
        "instead (device = 'cuda' if torch.cuda.is_available() else 'cpu')"
    )


def _lazy_init():
    raise _unavailable("initialise CUDA")


# ---------------------------------------------------------------- what is there
def is_available():
    """Whether a CUDA GPU can be used: False (this build has no CUDA backend)."""
    return False


def device_count():
    """The number of CUDA GPUs that can be used: 0."""
    return 0


def is_initialized():
    """Whether CUDA has been initialised: never, here."""
    return False


def _is_compiled():
    return False


def init():
    """Initialise CUDA now rather than on first use: raises, as there is no CUDA."""
    _lazy_init()


def is_bf16_supported(including_emulation=True):
    """Whether the current GPU computes in bfloat16: False without a GPU."""
    return False


def get_arch_list():
    """The GPU architectures this build has kernels for: none."""
    return []


def get_gencode_flags():
    """The NVCC ``-gencode`` flags of this build: none."""
    return ""


def _index(device, optional=False):
    """The CUDA device index that `device` (int, str, torch.device or None) names."""
    if device is None:
        return -1 if optional else 0
    if isinstance(device, int):
        return device
    device = torch.device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return 0 if device.index is None else device.index


def _needs_gpu(name, what):
    def fn(*args, **kwargs):
        raise _unavailable(what)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Needs a GPU: raises here, as there is none (it would {what})."
    return fn


current_device = _needs_gpu("current_device", "report the current device")
get_device_name = _needs_gpu("get_device_name", "name a device")
get_device_properties = _needs_gpu("get_device_properties", "read a device's properties")
get_device_capability = _needs_gpu("get_device_capability", "read a device's capability")
synchronize = _needs_gpu("synchronize", "wait for a device's kernels")
current_stream = _needs_gpu("current_stream", "return a device's current stream")
default_stream = _needs_gpu("default_stream", "return a device's default stream")
ipc_collect = _needs_gpu("ipc_collect", "free CUDA memory shared between processes")
mem_get_info = _needs_gpu("mem_get_info", "read a device's free and total memory")
set_per_process_memory_fraction = _needs_gpu(
    "set_per_process_memory_fraction", "limit a device's memory"
)
memory_summary = _needs_gpu("memory_summary", "summarise a device's memory")
reset_peak_memory_stats = _needs_gpu("reset_peak_memory_stats", "reset a device's counters")
reset_max_memory_allocated = _needs_gpu("reset_max_memory_allocated", "reset a device's counters")
reset_accumulated_memory_stats = _needs_gpu(
    "reset_accumulated_memory_stats", "reset a device's counters"
)


def set_device(device):
    """Select the current GPU; a negative index does nothing, as in PyTorch."""
    index = _index(device)
    if index >= 0:
        raise _unavailable(f"select device cuda:{index}")


# ---------------------------------------------------------------- memory counters
def memory_allocated(device=None):
    """Bytes held by tensors on the GPU: 0."""
    return 0


def max_memory_allocated(device=None):
    """The peak of ``memory_allocated``: 0."""
    return 0


def memory_reserved(device=None):
    """Bytes held by the caching allocator: 0."""
    return 0


def max_memory_reserved(device=None):
    """The peak of ``memory_reserved``: 0."""
    return 0


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


def memory_stats(device=None):
    """The caching allocator's statistics: none before CUDA starts."""
    return collections.OrderedDict()


def empty_cache():
    """Give cached GPU memory back to the driver: nothing is cached."""


# ---------------------------------------------------------------- random numbers
# PyTorch queues these until CUDA starts, which never happens here: they do nothing.
def manual_seed(seed):
    """Seed the current GPU's generator: nothing to seed (`seed` must still be an int)."""
    int(seed)


def manual_seed_all(seed):
    """Seed every GPU's generator: nothing to seed (`seed` must still be an int)."""
    int(seed)


def seed():
    """Seed the current GPU's generator randomly: nothing to seed."""


def seed_all():
    """Seed every GPU's generator randomly: nothing to seed."""


def initial_seed():
    """The current GPU's seed: raises, as there is no GPU."""
    raise _unavailable("read a GPU generator's seed")


def get_rng_state(device="cuda"):
    """A GPU generator's state: raises, as there is no GPU."""
    raise _unavailable("read a GPU generator's state")


def get_rng_state_all():
    """Every GPU generator's state: an empty list."""
    return []


def set_rng_state(new_state, device="cuda"):
    """Set a GPU generator's state: nothing to set."""


def set_rng_state_all(new_states):
    """Set every GPU generator's state: nothing to set."""


# ---------------------------------------------------------------- devices and streams
class device:
    """Context manager that makes `device` the current GPU inside the block. A negative
    index or None changes nothing; a GPU index raises on entry, as there is none."""

    def __init__(self, device):
        self.idx = _index(device, optional=True)

    def __enter__(self):
        if self.idx >= 0:
            raise _unavailable(f"select device cuda:{self.idx}")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """``device`` for the GPU that `obj` (a tensor) is on; a CPU tensor changes nothing."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class Stream:
    """A queue of GPU work: cannot be created without CUDA."""

    def __new__(cls, *args, **kwargs):
        raise _unavailable("create a CUDA stream")


class Event:
    """A marker in a GPU stream: cannot be created without CUDA."""

    def __new__(cls, *args, **kwargs):
        raise _unavailable("create a CUDA event")


class StreamContext(contextlib.AbstractContextManager):
    """Runs the block on `stream`; ``None`` (the only stream there can be here) changes
    nothing."""

    def __init__(self, stream):
        self.stream = stream

    def __exit__(self, *exc):
        return False


def stream(stream):
    """``StreamContext(stream)``: ``with torch.cuda.stream(None):`` changes nothing."""
    return StreamContext(stream)


from torch.cuda import amp  # noqa: E402,F401
