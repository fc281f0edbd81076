"""torch.cuda.amp: PyTorch's older names of ``torch.amp`` with ``device_type="cuda"``.

Each warns that it is deprecated (FutureWarning). Where CUDA is available they are mixed
precision on the GPU; where it is not, as in PyTorch, ``autocast`` and ``GradScaler`` are
accepted and disabled (with a warning when they were asked to be enabled): the block runs
in the dtypes it was written in, ``scale(loss)`` returns the loss itself and
``step(optimizer)`` simply calls ``optimizer.step()``. Mixed-precision training code
therefore runs unchanged on the CPU; ``torch.autocast("cpu")`` and
``torch.amp.GradScaler("cpu")`` are mixed precision there.
"""

import warnings

import torch
import torch.amp

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


def _deprecated(old, new):
    warnings.warn(
        f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use `torch.amp.{new}` instead.",
        FutureWarning,
        stacklevel=3,
    )


def amp_definitely_not_available():
    """Whether CUDA mixed precision certainly cannot run: True, there is no GPU."""
    return not torch.cuda.is_available()


class autocast(torch.amp.autocast):
    """``torch.amp.autocast("cuda", ...)`` (deprecated name).

    >>> with torch.cuda.amp.autocast(enabled=False):
    ...     (torch.ones(2) * 2).dtype
    torch.float32
    """

    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        _deprecated("autocast", "autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.amp.custom_fwd(device_type="cuda")`` (deprecated name)."""
    _deprecated("custom_fwd", "custom_fwd(args..., device_type='cuda')")
    return torch.amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """``torch.amp.custom_bwd(device_type="cuda")`` (deprecated name)."""
    _deprecated("custom_bwd", "custom_bwd(args..., device_type='cuda')")
    return torch.amp.custom_bwd(bwd, device_type="cuda")


class GradScaler(torch.amp.GradScaler):
    """``torch.amp.GradScaler("cuda", ...)`` (deprecated name); disabled without CUDA
    (``scale(x)`` is ``x``, ``unscale_`` and ``update`` do nothing, ``step(optimizer)``
    calls ``optimizer.step()``).

    >>> scaler = torch.cuda.amp.GradScaler(enabled=False)
    >>> scaler.scale(torch.tensor(3.0))
    tensor(3.)
    """

    def __init__(
        self,
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        _deprecated("GradScaler", "GradScaler('cuda', args...)")
        super().__init__(
            "cuda",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )
