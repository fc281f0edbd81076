"""torch.cpu.amp: the older names of ``torch.amp`` with ``device_type="cpu"``; they warn
(FutureWarning) as in PyTorch."""

import warnings

import torch
import torch.amp

__all__ = ["GradScaler", "autocast"]


class autocast(torch.amp.autocast):
    """``torch.amp.autocast("cpu", ...)`` (deprecated name)."""

    def __init__(self, enabled=True, dtype=torch.bfloat16, cache_enabled=True):
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. "
            "Please use `torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(torch.amp.GradScaler):
    """``torch.amp.GradScaler("cpu", ...)`` (deprecated name)."""

    def __init__(
        self,
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        warnings.warn(
            "`torch.cpu.amp.GradScaler(args...)` is deprecated. "
            "Please use `torch.amp.GradScaler('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cpu",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )
