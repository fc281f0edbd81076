"""torch.cuda.nvtx: the NVTX range and mark calls that programs put in for NVIDIA's profilers.

This build sends the markers nowhere (it does not load NVIDIA's NVTX library, so Nsight
Systems shows no ranges of these calls); the functions keep PyTorch's arguments and return
values, so a program instrumented with them runs unchanged, with or without a GPU.

>>> with torch.cuda.nvtx.range("step {}", 3):
...     torch.cuda.nvtx.range_push("inner")
...     torch.cuda.nvtx.range_pop()
1
1
"""

import contextlib
import itertools
import threading

__all__ = ["mark", "range", "range_end", "range_pop", "range_push", "range_start"]

_local = threading.local()
_ids = itertools.count(1)


def _stack():
    try:
        return _local.stack
    except AttributeError:
        _local.stack = []
        return _local.stack


def range_push(msg):
    """Starts a nested range named ``msg`` in this thread; returns its depth (from 0)."""
    stack = _stack()
    stack.append(str(msg))
    return len(stack) - 1


def range_pop():
    """Ends this thread's innermost range; returns the depth it had (-1 when none was
    open)."""
    stack = _stack()
    if not stack:
        return -1
    stack.pop()
    return len(stack)


def range_start(msg):
    """Starts a range that may end on another thread; returns its id for ``range_end``."""
    return next(_ids)


def range_end(range_id):
    """Ends the range ``range_start`` returned ``range_id`` for."""


def mark(msg):
    """An instantaneous marker named ``msg``."""


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """A range around a block (or, as a decorator, a function): ``msg.format(*args,
    **kwargs)`` names it."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
