"""torch.amp: automatic mixed precision.

``torch.autocast("cpu")`` (also ``torch.amp.autocast``) runs the matrix products, linear
layers and convolutions of a region in bfloat16 (or float16) and the losses and
decompositions in float32; ``GradScaler`` scales the loss so that small gradients survive
float16 and skips the steps whose gradients overflowed.  See docs/amp.rst.

``import torch`` imports ``autocast_mode`` (it wraps the ops autocast casts); the
GradScaler module is imported on first use.
"""

import importlib

from torch.amp import autocast_mode  # noqa: F401  (torch.amp.autocast_mode, as in PyTorch)
from torch.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]


def __getattr__(name):
    if name in ("GradScaler", "grad_scaler"):
        module = importlib.import_module("torch.amp.grad_scaler")
        return module if name == "grad_scaler" else module.GradScaler
    raise AttributeError(f"module 'torch.amp' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | {"GradScaler", "grad_scaler"})
