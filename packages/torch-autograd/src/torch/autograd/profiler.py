"""``torch.autograd.profiler``: the older names of the profiler (see :mod:`torch.profiler`).

``profile(enabled=True, use_cuda=False, record_shapes=False, ...)`` collects the
``record_function`` ranges and the ops' ``aten::`` events like ``torch.profiler.profile``
(``record_function`` is the same class); ``emit_nvtx`` and ``emit_itt``, which forward
ranges to NVIDIA's and Intel's tools, do nothing here.
"""

import contextlib

from torch.profiler import EventList, FunctionEvent, FunctionEventAvg, record_function
from torch.profiler import profile as _profile

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "emit_itt",
    "emit_nvtx",
    "profile",
    "record_function",
]


class profile(_profile):  # noqa: N801  (PyTorch's name)
    """The autograd profiler: as :class:`torch.profiler.profile`, with ``enabled`` first."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, **kwargs):
        super().__init__(enabled=enabled, **kwargs)


class emit_nvtx(contextlib.nullcontext):  # noqa: N801  (PyTorch's name)
    """Would forward ranges to NVIDIA's tools (nvprof, Nsight); does nothing here."""

    def __init__(self, enabled=True, record_shapes=False):
        super().__init__()


class emit_itt(contextlib.nullcontext):  # noqa: N801  (PyTorch's name)
    """Would forward ranges to Intel's VTune; does nothing here."""

    def __init__(self, enabled=True, record_shapes=False):
        super().__init__()
