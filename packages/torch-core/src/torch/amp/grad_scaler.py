"""GradScaler: loss scaling for mixed-precision training, with PyTorch's algorithm.

Each iteration: ``scaler.scale(loss).backward()`` makes gradients ``scale`` times too
large (so that small float16 gradients do not flush to zero); ``scaler.step(optimizer)``
divides them by ``scale`` (``unscale_``, unless the program already did, to clip them) and
calls ``optimizer.step()`` only if they are all finite; ``scaler.update()`` then multiplies
``scale`` by ``backoff_factor`` if any gradient was inf or NaN, and by ``growth_factor``
after ``growth_interval`` iterations in a row without one.
"""

import collections
import collections.abc
import enum
import warnings

import torch

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scales the loss, unscales the gradients, skips the steps whose gradients are not
    finite and adapts the scale.

    ``device`` is 'cpu' or 'cuda'; on 'cuda' it disables itself with a warning where CUDA
    is not available.  The scale lives on the device of the first outputs scaled; the
    gradients' finiteness is checked on their devices, with one synchronisation per step.
    Disabled (``enabled=False``), ``scale(x)`` is ``x``, ``step(opt)`` is ``opt.step()``
    and ``unscale_`` and ``update`` do nothing, so one program runs either way.

    >>> scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    >>> scaler.scale(torch.tensor(2.0))
    tensor(2048.)
    """

    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        if isinstance(device, torch.device):
            device = device.type
        if device not in ("cpu", "cuda"):
            raise ValueError(f"GradScaler: device must be 'cpu' or 'cuda', got {device!r}")
        self._device = device
        self._enabled = bool(enabled)
        if self._enabled and device == "cuda" and not torch.cuda.is_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None  # a 0-dim float32 tensor from the first scale()
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None  # a 0-dim int32 tensor: clean steps in a row
        self._per_optimizer_states = collections.defaultdict(_refresh_per_optimizer_state)

    def _lazy_init_scale_growth_tracker(self, device=None):
        self._scale = torch.full((), float(self._init_scale), dtype=torch.float32, device=device)
        self._growth_tracker = torch.full(
            (), self._init_growth_tracker, dtype=torch.int32, device=device
        )

    def _check_scale_growth_tracker(self, funcname):
        fix = (
            "This may indicate your script did not use scaler.scale(loss or outputs) "
            "earlier in the iteration."
        )
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  {fix}")
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  {fix}")
        return self._scale, self._growth_tracker

    def scale(self, outputs):
        """``outputs`` (a tensor, or a list/tuple or other iterable of them) times the
        scale; returned as they are when disabled."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            first = outputs
            while isinstance(first, (list, tuple)) and first:
                first = first[0]
            device = first.device if isinstance(first, torch.Tensor) else None
            self._lazy_init_scale_growth_tracker(device)
        if isinstance(outputs, torch.Tensor):
            return outputs * self._scale

        def apply(value):
            if isinstance(value, torch.Tensor):
                return value * self._scale
            if isinstance(value, (list, tuple)):
                scaled = [apply(v) for v in value]
                if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
                    return type(value)(*scaled)
                return type(value)(scaled)
            if isinstance(value, collections.abc.Iterable) and not isinstance(value, (str, bytes)):
                return map(apply, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Multiplies every gradient of ``optimizer`` by ``inv_scale``; the result maps each
        gradients' device to a 0-dim float32 tensor there, 1 where one of them has an inf or
        a NaN (computed on the device: nothing waits for the GPU here)."""
        per_device = {}
        finite = {}  # device -> whether each gradient there is finite (0-d bool tensors)
        with torch.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype == torch.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    device = grad.device
                    if device not in per_device:
                        per_device[device] = found_inf.to(device, copy=True)
                        finite[device] = []
                    finite[device].append(torch.isfinite(grad).all())
                    grad.mul_(inv_scale.to(device))
            for device, flag in per_device.items():  # a few ops per device, not per gradient
                all_finite = torch.stack(finite[device]).all()
                flag.copy_(torch.maximum(flag, torch.logical_not(all_finite).float()))
        return per_device or {found_inf.device: found_inf}

    def unscale_(self, optimizer):
        """Divides ``optimizer``'s gradients by the scale, in place (to clip or inspect
        them before ``step``); at most once per optimizer and iteration."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = torch.zeros((), dtype=torch.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, state, *args, **kwargs):
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscales ``optimizer``'s gradients (unless ``unscale_`` did) and calls
        ``optimizer.step(*args, **kwargs)`` if they are all finite; returns what it
        returned, or None when the step was skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Ends the iteration: the scale is backed off if a step found inf/NaN gradients,
        grown after ``growth_interval`` clean iterations in a row, or set to
        ``new_scale`` (a float or a one-element tensor) when given."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, torch.Tensor):
                if new_scale.numel() != 1:
                    raise AssertionError("new_scale should be a single-element tensor.")
                if new_scale.requires_grad:
                    raise AssertionError("new_scale should not require grad.")
                scale.copy_(new_scale.reshape(()).to(torch.float32))
            else:
                scale.fill_(float(new_scale))
        else:
            found_infs = [
                found_inf
                for state in self._per_optimizer_states.values()
                for found_inf in state["found_inf_per_device"].values()
            ]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale_(scale, growth_tracker, found_infs)
        self._per_optimizer_states = collections.defaultdict(_refresh_per_optimizer_state)

    def _update_scale_(self, scale, growth_tracker, found_infs):
        """The new scale and growth tracker, computed where they live (nothing waits for
        the GPU): after an inf/NaN, the scale times ``backoff_factor`` and the tracker 0;
        else the tracker counts the clean step, and at ``growth_interval`` the scale grows
        by ``growth_factor`` (if that stays finite) and the tracker restarts at 0."""
        with torch.no_grad():
            found = found_infs[0]
            for more in found_infs[1:]:
                found = found + more.to(found.device)
            found = found.to(scale.device) != 0
            successful = growth_tracker + 1
            at_interval = successful == self._growth_interval
            grown = scale * self._growth_factor
            grow = torch.logical_and(at_interval, torch.isfinite(grown))
            kept = torch.where(grow, grown, scale)
            scale.copy_(torch.where(found, scale * self._backoff_factor, kept))
            restart = torch.logical_or(found, at_interval)
            growth_tracker.copy_(torch.where(restart, 0, successful))

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

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

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker`` (an empty dict when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(float(state_dict["scale"]))
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning "
                    "of an iteration, or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
