"""Learning-rate schedulers: each sets ``group["lr"]`` of an optimizer's parameter groups.

Call ``scheduler.step()`` once per epoch (or per batch), after ``optimizer.step()``. A
scheduler counts its steps in ``last_epoch`` (0 after construction) and computes each new lr
from the group's current one ("chainable"), so several schedulers can act on one optimizer;
``_get_closed_form_lr`` gives the lr of ``last_epoch`` directly.
"""

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "PolynomialLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "ChainedScheduler",
]

_EPOCH_ARGUMENT_DEPRECATED = (
    "Passing an epoch to scheduler.step() is deprecated: call scheduler.step() without "
    "arguments, once per epoch. With an epoch, the closed-form lr is used where the scheduler "
    "has one."
)
_STEP_ORDER = (
    "lr_scheduler.step() was called before optimizer.step(). Call optimizer.step() first, "
    "then lr_scheduler.step(): otherwise the first value of the schedule is skipped."
)


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _per_group(optimizer, value, name):
    """One value per parameter group: ``value`` itself if it is a list or tuple (of the
    right length), else ``value`` repeated."""
    count = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != count:
            raise ValueError(f"Expected {count} values for {name}, but got {len(value)}")
        return list(value)
    return [value] * count


class LRScheduler:
    """Base class: subclasses define ``get_lr()`` (the chainable form) and may define
    ``_get_closed_form_lr()``.

    Args:
        optimizer: the optimizer whose groups' ``lr`` is scheduled.
        last_epoch: the index of the last epoch when resuming; -1 (the default) starts from
            each group's current lr, saved as ``group["initial_lr"]``.
    """

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming a scheduler (last_epoch >= 0): load the optimizer's state first"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        """The step that sets the lr of epoch ``last_epoch + 1`` at construction."""
        self._step_count = 0
        self.step()

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lrs the last ``step()`` set, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        """The lrs for epoch ``last_epoch``, computed from the groups' current ones."""
        raise NotImplementedError

    def step(self, epoch=None):
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", True):
            warnings.warn(_STEP_ORDER, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_ARGUMENT_DEPRECATED, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            lrs = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            lrs = closed_form() if closed_form is not None else self.get_lr()
        self._set_lrs(lrs)

    def _set_lrs(self, lrs):
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _group_lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``; ``lr_lambda`` may be a list, one per group.

    ``state_dict`` keeps the ``__dict__`` of lambdas that are callable objects, not of
    functions (which cannot be saved)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer(optimizer)
        self.lr_lambdas = _per_group(optimizer, lr_lambda, "lr_lambda")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(f, types.FunctionType) else dict(f.__dict__) for f in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for f, saved in zip(self.lr_lambdas, saved_lambdas):
            if saved is not None:
                f.__dict__.update(saved)


class MultiplicativeLR(LambdaLR):
    """``lr *= lr_lambda(epoch)`` at each step after the first."""

    def get_lr(self):
        if self.last_epoch > 0:
            return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._group_lrs())]
        return self._group_lrs()


class StepLR(LRScheduler):
    """``lr = initial_lr * gamma ** (epoch // step_size)``."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``lr = initial_lr * gamma ** (number of milestones <= epoch)``; a milestone listed
    twice counts twice."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        hits = self.milestones.get(self.last_epoch, 0)
        if hits == 0:
            return self._group_lrs()
        return [lr * self.gamma**hits for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """``lr = initial_lr * factor`` for the first ``total_iters`` epochs, then ``initial_lr``."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._group_lrs()]
        if self.last_epoch == self.total_iters:
            return [lr / self.factor for lr in self._group_lrs()]
        return self._group_lrs()

    def _get_closed_form_lr(self):
        factor = 1.0 if self.last_epoch >= self.total_iters else self.factor
        return [base * factor for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The lr factor goes linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs, then stays: ``initial_lr * (start + (end - start) * min(epoch,
    total_iters) / total_iters)``."""

    def __init__(
        self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1
    ):
        if not 0 < start_factor <= 1:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if not 0 <= end_factor <= 1:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = self.last_epoch
        if epoch == 0:
            return [lr * self.start_factor for lr in self._group_lrs()]
        if epoch > self.total_iters:
            return self._group_lrs()
        # the ratio of this epoch's factor to the previous one's
        change = self.end_factor - self.start_factor
        ratio = 1 + change / (self.total_iters * self.start_factor + (epoch - 1) * change)
        return [lr * ratio for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * done
        return [base * factor for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``lr = initial_lr * gamma ** epoch``."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power``."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = self.last_epoch
        if epoch == 0 or epoch > self.total_iters:
            return self._group_lrs()
        ratio = ((self.total_iters - epoch) / (self.total_iters - epoch + 1)) ** self.power
        return [lr * ratio for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        left = 1 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left**self.power for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``: half a
    cosine down to ``eta_min`` over ``T_max`` epochs (and back up over the next ``T_max``)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch, period, low = self.last_epoch, self.T_max, self.eta_min
        lrs = self._group_lrs()
        if epoch == 0:
            return lrs
        if self._step_count == 1:  # resuming at last_epoch > 0: nothing to chain from
            return self._get_closed_form_lr()
        if (epoch - 1 - period) % (2 * period) == 0:  # the bottom: the ratio below is 0/0
            rise = (1 - math.cos(math.pi / period)) / 2
            return [lr + (base - low) * rise for lr, base in zip(lrs, self.base_lrs)]
        ratio = (1 + math.cos(math.pi * epoch / period)) / (
            1 + math.cos(math.pi * (epoch - 1) / period)
        )
        return [low + (lr - low) * ratio for lr in lrs]

    def _get_closed_form_lr(self):
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (base - self.eta_min) * cosine for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter, 2016): ``lr = eta_min + (initial_lr - eta_min) *
    (1 + cos(pi * T_cur / T_i)) / 2``, where ``T_cur`` counts epochs since the last restart
    and the i-th period lasts ``T_i = T_0 * T_mult ** i`` epochs. ``step(epoch)`` accepts
    fractional epochs (e.g. ``epoch + batch / batches``)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        cosine = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * cosine for base in self.base_lrs]

    def step(self, epoch=None):
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", True):
            warnings.warn(_STEP_ORDER, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch < self.T_0:
                self.T_i, self.T_cur = self.T_0, epoch
            elif self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:  # restarts so far: the n with T_0 (T_mult^n - 1) / (T_mult - 1) <= epoch
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self.get_lr())


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin, 2017), stepped once per batch: the lr rises from
    ``max_lr / div_factor`` to ``max_lr`` over the first ``pct_start`` of ``total_steps``, then
    falls to ``initial_lr / final_div_factor`` (``three_phase``: back to the initial lr first,
    then down), by cosine or linear annealing. With ``cycle_momentum`` the momentum (or
    ``betas[0]``) moves the opposite way between ``max_momentum`` and ``base_momentum``."""

    def __init__(
        self,
        optimizer,
        max_lr,
        total_steps=None,
        epochs=None,
        steps_per_epoch=None,
        pct_start=0.3,
        anneal_strategy="cos",
        cycle_momentum=True,
        base_momentum=0.85,
        max_momentum=0.95,
        div_factor=25.0,
        final_div_factor=1e4,
        three_phase=False,
        last_epoch=-1,
    ):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, (float, int)) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy  # "cos" or "linear"

        # Each phase: its last step, and the group keys holding its lr and momentum ends.
        rise_end = float(pct_start * self.total_steps) - 1
        ends = [rise_end, 2 * rise_end, self.total_steps - 1]
        keys = [
            ("initial_lr", "max_lr", "max_momentum", "base_momentum"),
            ("max_lr", "initial_lr", "base_momentum", "max_momentum"),
            ("initial_lr", "min_lr", "max_momentum", "max_momentum"),
        ]
        if not three_phase:
            ends = [rise_end, self.total_steps - 1]
            keys = [keys[0], ("max_lr", "min_lr", "base_momentum", "max_momentum")]
        names = ("start_lr", "end_lr", "start_momentum", "end_momentum")
        self._schedule_phases = [
            {"end_step": end, **dict(zip(names, phase))} for end, phase in zip(ends, keys)
        ]

        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, _per_group(optimizer, max_lr, "max_lr")):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            defaults = optimizer.defaults
            if "momentum" not in defaults and "betas" not in defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in defaults
            if last_epoch == -1:
                tops = _per_group(optimizer, max_momentum, "max_momentum")
                bottoms = _per_group(optimizer, base_momentum, "base_momentum")
                for group, top, bottom in zip(optimizer.param_groups, tops, bottoms):
                    self._set_momentum(group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, momentum):
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)
        return start + (end - start) * pct

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            phase_start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - phase_start) / (end - phase_start)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                        self._set_momentum(group, momentum)
                    break
                phase_start = end
        return lrs


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the lr by ``factor`` once the metric passed to ``step(metric)`` has not
    improved for more than ``patience`` steps; then waits ``cooldown`` steps before counting
    again. "Improved" means beating the best value by ``threshold`` (relative or absolute,
    ``threshold_mode``) in direction ``mode`` ("min" or "max"). Lrs never go below ``min_lr``
    and change only by more than ``eps``."""

    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
    ):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.factor = factor
        if isinstance(min_lr, (list, tuple)):
            self.min_lrs = _per_group(optimizer, min_lr, "min_lr")
            self.default_min_lr = None
        else:
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
            self.default_min_lr = min_lr
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._group_lrs()
        _check_mode(mode, threshold_mode)
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        if self.mode == "min":
            bar = (
                best * (1 - self.threshold)
                if self.threshold_mode == "rel"
                else best - self.threshold
            )
            return a < bar
        bar = best * (1 + self.threshold) if self.threshold_mode == "rel" else best + self.threshold
        return a > bar

    def step(self, metrics, epoch=None):
        current = float(metrics)  # a 0-d tensor works too
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_ARGUMENT_DEPRECATED, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._group_lrs()

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(self.min_lrs) != len(groups):  # a group was added since construction
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The optimizer has {len(groups)} parameter groups but min_lr gave "
                    f"{len(self.min_lrs)} values: update `min_lrs` to one per group"
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                group["lr"] = new

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        _check_mode(self.mode, self.threshold_mode)


def _check_mode(mode, threshold_mode):
    if mode not in ("min", "max"):
        raise ValueError(f"mode {mode} is unknown!")
    if threshold_mode not in ("rel", "abs"):
        raise ValueError(f"threshold mode {threshold_mode} is unknown!")


def _check_schedulers(kind, schedulers, optimizer):
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{kind} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{kind} does not support `ReduceLROnPlateau` (its step needs the metric), "
                f"but got one at index {i}"
            )
        if scheduler.optimizer is not optimizer:
            raise ValueError(
                f"{kind} expects all schedulers to belong to the same optimizer, but "
                f"scheduler {type(scheduler).__name__} at index {i} has another one"
            )


def _undo_initial_step(scheduler):
    """Takes back the step a scheduler (or, recursively, a composite's parts) made when built."""
    if hasattr(scheduler, "_schedulers"):
        for part in scheduler._schedulers:
            _undo_initial_step(part)
    elif hasattr(scheduler, "last_epoch"):
        scheduler.last_epoch -= 1


class _Composite(LRScheduler):
    """state_dict/load_state_dict for schedulers made of others (kept in ``_schedulers``)."""

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        parts = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, parts):
            scheduler.load_state_dict(saved)


class SequentialLR(_Composite):
    """Runs ``schedulers[0]`` until epoch ``milestones[0]``, then ``schedulers[1]`` (restarted
    at its epoch 0), and so on."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got none")
        _check_optimizer(optimizer)
        _check_schedulers("SequentialLR", schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "SequentialLR expects one milestone fewer than schedulers, but got "
                f"{len(schedulers)} schedulers and {len(milestones)} milestones"
            )
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo what building the schedulers did, then start the first one afresh.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in self._schedulers:
            _undo_initial_step(scheduler)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self):
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)  # its epoch 0, from its closed form
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Steps every scheduler of the list at each ``step()``: their (chainable) changes
    compose, e.g. a warm-up ``LinearLR`` with an ``ExponentialLR`` decay."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler, but got none")
        optimizer = optimizer if optimizer is not None else schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", schedulers, optimizer)
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = self._group_lrs()

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._group_lrs()
