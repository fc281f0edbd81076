"""torch.cuda.amp (mixed precision on the GPU) where CUDA is not available.

As in PyTorch without a GPU, ``autocast`` and ``GradScaler`` are accepted and disabled
(with a warning when they were asked to be enabled): the block runs in the dtypes it was
written in, ``scale(loss)`` returns the loss itself and ``step(optimizer)`` simply calls
``optimizer.step()``. Mixed-precision training code therefore runs unchanged on the CPU.
"""

import functools
import warnings

import torch

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


def _disabled(what):
    warnings.warn(
        f"torch.cuda.amp.{what} is enabled, but CUDA is not available: disabling it",
        UserWarning,
        stacklevel=3,
    )


class autocast:
    """Context manager and decorator for float16/bfloat16 regions on the GPU: a no-op here.

    >>> with torch.cuda.amp.autocast(enabled=False):
    ...     (torch.ones(2) * 2).dtype
    torch.float32
    """

    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        if enabled and not torch.cuda.is_available():
            _disabled("autocast")
        self.fast_dtype = dtype
        self._enabled = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Decorator for a custom ``Function.forward`` under autocast: autocast is never on
    here, so `fwd` runs as written."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd):
    """Decorator for a custom ``Function.backward`` under autocast: `bwd` runs as written."""
    return bwd


class GradScaler:
    """Loss scaling for float16 training, disabled without CUDA: ``scale(x)`` is ``x``,
    ``unscale_`` and ``update`` do nothing, ``step(optimizer)`` calls ``optimizer.step()``.

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
        if enabled and not torch.cuda.is_available():
            _disabled("GradScaler")
        self._enabled = False
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer):
        return None

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        return None

    def get_scale(self):
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        return None
