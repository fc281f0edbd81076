"""torch.accelerator: the device-neutral view of the current accelerator (CUDA, MPS, ...).

This build has none, so, as PyTorch answers on a machine without one, ``is_available()``
is False, ``current_accelerator()`` None and ``device_count()`` 0; the rest raises. The
usual first lines of a program pick the CPU::

    use_accel = torch.accelerator.is_available()
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
"""

__all__ = [
    "current_accelerator",
    "current_device_index",
    "current_stream",
    "device_count",
    "empty_cache",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "set_device_index",
    "synchronize",
]


def is_available():
    """Whether an accelerator can be used: False."""
    return False


def current_accelerator(check_available=False):
    """The accelerator's device type (``torch.device("cuda")``, ...), or None: None."""
    return None


def device_count():
    """How many accelerator devices can be used: 0."""
    return 0


def _needs_accelerator(name):
    def fn(*args, **kwargs):
        raise RuntimeError(
            f"torch.accelerator.{name}: cannot access an accelerator device when none is "
            "available (this build has only the CPU backend; torch.accelerator.is_available() "
            "is False)"
        )

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Needs an accelerator: raises RuntimeError here, as there is none."
    return fn


current_device_index = _needs_accelerator("current_device_index")
set_device_index = _needs_accelerator("set_device_index")
current_stream = _needs_accelerator("current_stream")
synchronize = _needs_accelerator("synchronize")
empty_cache = _needs_accelerator("empty_cache")
memory_allocated = _needs_accelerator("memory_allocated")
max_memory_allocated = _needs_accelerator("max_memory_allocated")
memory_reserved = _needs_accelerator("memory_reserved")
max_memory_reserved = _needs_accelerator("max_memory_reserved")
memory_stats = _needs_accelerator("memory_stats")
reset_peak_memory_stats = _needs_accelerator("reset_peak_memory_stats")
