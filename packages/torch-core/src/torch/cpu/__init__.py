"""torch.cpu: the CPU as a device module, with the names ``torch.cuda`` has.

The CPU is always there: ``is_available()`` is True, there is one device, ``"cpu"``, and
its work runs in order on the calling thread, so ``synchronize()`` has nothing to wait for
and its one stream and events do nothing.  ``torch.cpu.amp`` is mixed precision on the CPU
(``torch.amp`` with ``device_type="cpu"``).
"""

import contextlib

__all__ = [
    "Event",
    "Stream",
    "StreamContext",
    "current_device",
    "current_stream",
    "device_count",
    "is_available",
    "is_initialized",
    "set_device",
    "stream",
    "synchronize",
]


def is_available():
    """Whether the CPU can be used: always."""
    return True


def is_initialized():
    """Whether the CPU device is initialised: always."""
    return True


def device_count():
    """The number of CPU devices: 1 (the cores all belong to it)."""
    return 1


def current_device():
    """The current CPU device: ``"cpu"``."""
    return "cpu"


def set_device(device):
    """Select the CPU device: there is one, nothing to do."""


def synchronize(device=None):
    """Wait for the CPU's queued work: it runs on the calling thread, nothing is queued."""


class Stream:
    """The CPU's stream: work runs in order on the calling thread, so it does nothing."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self, event=None):
        return event if event is not None else Event()

    def wait_event(self, event):
        pass

    def synchronize(self):
        pass

    def query(self):
        return True


class Event:
    """A marker in the CPU's stream: already reached when recorded."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_stream = Stream()


def current_stream(device=None):
    """The CPU's one stream."""
    return _default_stream


class StreamContext(contextlib.AbstractContextManager):
    """Runs the block on ``stream``: the CPU has one, so nothing changes."""

    def __init__(self, stream):
        self.stream = stream

    def __exit__(self, *exc):
        return False


def stream(stream):
    """``StreamContext(stream)``."""
    return StreamContext(stream)


from torch.cpu import amp  # noqa: E402,F401
