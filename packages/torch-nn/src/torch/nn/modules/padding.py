"""Padding modules over F.pad (torch-core's kernel)."""

from torch.nn import functional as F
from torch.nn.modules.module import Module
from torch.nn.modules.utils import _ntuple

__all__ = [
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]  # fmt: skip


class _PadNd(Module):
    _n = 2
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self._n)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim of (C, W) or (N, C, W) input with ``value``: ``padding`` an int or
    (left, right)."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims of (C, H, W) or (N, C, H, W) input with ``value``: ``padding`` an int
    or (left, right, top, bottom)."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims of (C, D, H, W) or (N, C, D, H, W) input with ``value``: ``padding``
    an int or a 6-tuple, last dim first."""

    _n = 3


class _ZeroPad(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad):
    """Pads the last dim with zeros: ``padding`` an int or (left, right)."""

    _n = 1


class ZeroPad2d(_ZeroPad):
    """Pads the last 2 dims with zeros: ``padding`` an int or (left, right, top, bottom)."""

    _n = 2


class ZeroPad3d(_ZeroPad):
    """Pads the last 3 dims with zeros: ``padding`` an int or a 6-tuple, last dim first."""

    _n = 3


def _mode_class(name, mode, n):
    return type(name, (_PadNd,), {"_n": n, "_mode": mode, "__module__": __name__,
                                  "__doc__": f"F.pad(input, padding, mode={mode!r})."})  # fmt: skip


ReflectionPad1d = _mode_class("ReflectionPad1d", "reflect", 1)
ReflectionPad2d = _mode_class("ReflectionPad2d", "reflect", 2)
ReflectionPad3d = _mode_class("ReflectionPad3d", "reflect", 3)
ReplicationPad1d = _mode_class("ReplicationPad1d", "replicate", 1)
ReplicationPad2d = _mode_class("ReplicationPad2d", "replicate", 2)
ReplicationPad3d = _mode_class("ReplicationPad3d", "replicate", 3)
CircularPad1d = _mode_class("CircularPad1d", "circular", 1)
CircularPad2d = _mode_class("CircularPad2d", "circular", 2)
CircularPad3d = _mode_class("CircularPad3d", "circular", 3)
