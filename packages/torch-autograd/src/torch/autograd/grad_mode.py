"""Grad mode (kept by the core; see ``torch._grad_mode``)."""

from torch._grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
