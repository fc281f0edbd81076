"""``torch.nn.attention``: choosing the kernels behind ``F.scaled_dot_product_attention``.

``sdpa_kernel(backends)`` is a context manager that enables only the named backends for its
body (through the switches of ``torch.backends.cuda``: ``flash_sdp_enabled()`` and the rest)
and restores the previous switches on exit. On the CPU this build has one attention kernel,
which runs whatever the switches say, so programs that pin a backend run unchanged.
"""

import contextlib
import enum

import torch.backends.cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The scaled-dot-product-attention backends, numbered as in PyTorch."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# each backend's switch in torch.backends.cuda: (getter, setter)
_SWITCHES = {
    SDPBackend.MATH: (_cuda.math_sdp_enabled, _cuda.enable_math_sdp),
    SDPBackend.FLASH_ATTENTION: (_cuda.flash_sdp_enabled, _cuda.enable_flash_sdp),
    SDPBackend.EFFICIENT_ATTENTION: (
        _cuda.mem_efficient_sdp_enabled,
        _cuda.enable_mem_efficient_sdp,
    ),
    SDPBackend.CUDNN_ATTENTION: (_cuda.cudnn_sdp_enabled, _cuda.enable_cudnn_sdp),
}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Enable only ``backends`` (an ``SDPBackend`` or a list of them) for the body of the
    ``with`` block; the switches in effect before are restored when it exits, also on an
    exception. ``set_priority`` (the list's order as a preference) changes nothing here."""
    if not isinstance(backends, (list, SDPBackend)):
        # PyTorch raises AssertionError here (explicitly, not through assert)
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    previous = {b: get() for b, (get, _) in _SWITCHES.items()}
    try:
        for b, (_, enable) in _SWITCHES.items():
            enable(b in chosen)
        yield {}
    finally:
        for b, (_, enable) in _SWITCHES.items():
            enable(previous[b])
