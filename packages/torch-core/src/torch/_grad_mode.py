"""Grad mode: whether ops record the tape (a per-thread flag in the core).

In torch-core so that `with torch.no_grad():` works with or without torch-autograd."""

import builtins
import functools
import threading

from torch import _C

is_grad_enabled = _C.is_grad_enabled


class _Mode:
    """Context manager and decorator that sets grad mode, restoring it on exit."""

    enabled = False

    def __enter__(self):
        self._prev = _C._set_grad_enabled(self.enabled)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_Mode):
    """Ops inside record nothing: results have ``requires_grad=False``.

    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.no_grad():
    ...     (x * 2).requires_grad
    False
    """

    def __init__(self, orig_func=None):
        if orig_func is not None:  # @no_grad without parentheses
            self._wrapped = self(orig_func)


class enable_grad(_Mode):
    """Ops inside record the tape even within a no_grad block."""

    enabled = True


class set_grad_enabled(_Mode):
    """``set_grad_enabled(False)`` works as a function call, a context manager or a decorator."""

    def __init__(self, mode):
        self.enabled = bool(mode)
        self._prev = _C._set_grad_enabled(self.enabled)

    def __enter__(self):
        return self

    def clone(self):
        return _Reset(self.enabled)


class _Reset(_Mode):
    def __init__(self, mode):
        self.enabled = mode


class inference_mode(_Mode):
    """Context manager and decorator for code that computes without autograd: inside,
    ops record nothing (as under ``no_grad``) and ``is_inference_mode_enabled()`` is True.
    ``inference_mode(False)`` turns it off (and grad mode on) for its block; a bare
    ``@torch.inference_mode`` decorates like ``@torch.inference_mode()``.

    Tensors allocated inside are "inference tensors" (``t.is_inference()``), as in PyTorch:
    outside inference mode they cannot be updated in place, saved for backward by an op that
    records, or made to require grad (clone one to get a normal tensor).

    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.inference_mode():
    ...     y = x * 2
    ...     torch.is_inference_mode_enabled()
    True
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode=True):
        if isinstance(mode, builtins.bool):
            return super().__new__(cls)
        return cls()(mode)  # @torch.inference_mode without parentheses

    def __init__(self, mode=True):
        self.enabled = not mode
        self.mode = mode

    def __enter__(self):
        self._prev_inference = is_inference_mode_enabled()
        _state.inference = self.mode
        _C._set_inference_mode(self.mode)
        return super().__enter__()

    def __exit__(self, *exc):
        _state.inference = self._prev_inference
        _C._set_inference_mode(self._prev_inference)
        return super().__exit__(*exc)

    def clone(self):
        return inference_mode(self.mode)


_state = threading.local()  # per thread, like grad mode


def is_inference(input):
    """Whether ``input`` is an inference tensor (made inside ``torch.inference_mode()``)."""
    return input.is_inference()


def is_inference_mode_enabled():
    """Whether the calling thread is inside an ``inference_mode()`` block."""
    return getattr(_state, "inference", False)


# Anomaly mode's state lives in torch-autograd (torch.autograd.graph.anomaly); without that
# package no backward runs, so anomaly mode reads as off.
def _anomaly_state():
    try:
        from torch.autograd import graph
    except ImportError:
        return None
    return graph.anomaly


def is_anomaly_enabled():
    """Whether anomaly detection is on (``torch.autograd.detect_anomaly``)."""
    state = _anomaly_state()
    return bool(state and state["enabled"])


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection also checks each backward result for NaN."""
    state = _anomaly_state()
    return bool(state and state["check_nan"])


def set_anomaly_enabled(enabled, check_nan=True):
    """Switches anomaly detection on or off for the rest of the process (what
    ``torch.autograd.set_detect_anomaly`` does); needs torch-autograd."""
    from torch.autograd import graph

    graph.anomaly.update(enabled=bool(enabled), check_nan=bool(check_nan))
