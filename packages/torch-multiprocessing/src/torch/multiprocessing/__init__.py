"""torch.multiprocessing: Python's ``multiprocessing`` with tensors passed through shared memory.

Everything ``multiprocessing`` exports is here. Importing this module registers reductions with
``multiprocessing.reduction.ForkingPickler``: a tensor or storage put on a Queue, sent through a
Pipe, given to a Pool or a spawned Process is moved to shared memory and arrives as a view of
the same memory. With the fork start method a Process's arguments are not pickled, so
:class:`Process` moves the tensors among them to shared memory before forking.
"""

import multiprocessing
from multiprocessing import *  # noqa: F403
from multiprocessing import context as _context

from . import _shared_memory, reductions
from ._shared_memory import (
    get_all_sharing_strategies,
    get_sharing_strategy,
    set_sharing_strategy,
)
from .spawn import (
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__version__ = "0.1.0"

reductions.init_reductions()


def _share_arguments(value):
    """Move the tensors in a fork-started Process's arguments to shared memory."""
    import torch

    if isinstance(value, torch.Tensor):
        value.share_memory_()
    elif isinstance(value, (torch.UntypedStorage, torch.storage.TypedStorage)):
        _shared_memory.share(value if isinstance(value, torch.UntypedStorage) else value.untyped())
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _share_arguments(item)
    elif isinstance(value, dict):
        for item in value.values():
            _share_arguments(item)
    elif hasattr(value, "share_memory") and hasattr(value, "parameters"):  # an nn.Module
        value.share_memory()


class _SharesForkArguments:
    def start(self):
        method = self._start_method or multiprocessing.get_start_method()
        if method == "fork":
            _share_arguments(self._args)
            _share_arguments(self._kwargs)
        super().start()


class Process(_SharesForkArguments, _context.Process):
    """``multiprocessing.Process`` whose tensor arguments travel through shared memory: started
    with 'fork', it moves the tensors in ``args``/``kwargs`` into shared memory first, so that
    parent and child see the same values."""

    pass


class ForkProcess(_SharesForkArguments, _context.ForkProcess):
    pass


class _Concrete:
    """Our concrete contexts answer get_context(method) with our contexts, not the stdlib's."""

    def get_context(self, method=None):
        return self if method is None else _default_context.get_context(method)


class ForkContext(_Concrete, _context.ForkContext):
    Process = ForkProcess


class SpawnContext(_Concrete, _context.SpawnContext):
    pass


class ForkServerContext(_Concrete, _context.ForkServerContext):
    pass


_contexts = {"fork": ForkContext(), "spawn": SpawnContext(), "forkserver": ForkServerContext()}


class DefaultContext(_context.DefaultContext):
    """The module-level API. The start method is multiprocessing's own global choice, so
    ``torch.multiprocessing.set_start_method`` and ``multiprocessing.set_start_method`` agree."""

    Process = Process

    def __init__(self):
        pass

    def get_context(self, method=None):
        """The context of a start method ('fork', 'spawn', 'forkserver'; the default when None):
        an object with this module's API (``Process``, ``Queue``, ``Pool``, ...) bound to that
        method."""
        method = method or multiprocessing.get_start_method()
        if method not in _contexts:
            raise ValueError(f"cannot find context for {method!r}; valid: {', '.join(_contexts)}")
        context = _contexts[method]
        context._check_available()
        return context

    def set_start_method(self, method, force=False):
        """Sets the default start method ('fork', 'spawn' or 'forkserver') for this program;
        raises RuntimeError if it was set already, unless ``force``."""
        multiprocessing.set_start_method(method, force=force)

    def get_start_method(self, allow_none=False):
        """The default start method; with ``allow_none``, None if it has not been fixed yet."""
        return multiprocessing.get_start_method(allow_none=allow_none)


_default_context = DefaultContext()
__all__ = [name for name in dir(_default_context) if not name.startswith("_")]
globals().update((name, getattr(_default_context, name)) for name in __all__)
__all__ += [
    "get_sharing_strategy",
    "set_sharing_strategy",
    "get_all_sharing_strategies",
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessRaisedException",
    "ProcessExitedException",
]


def _share_storage(storage):
    """Tensor.share_memory_: move `storage` into shared memory (no-op if it is there)."""
    _shared_memory.share(storage)


def _is_shared(storage):
    return _shared_memory.segment_of(storage) is not None
