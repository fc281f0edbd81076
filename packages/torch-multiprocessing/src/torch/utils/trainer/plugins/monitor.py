"""Monitors: a value per iteration, kept in ``trainer.stats[stat_name]`` as ``last``,
``running_avg`` (exponential smoothing) and ``epoch_mean`` (set at the end of each epoch)."""

import time

from torch.utils.trainer.plugins.plugin import Plugin


class Monitor(Plugin):
    """Base class: subclasses set ``stat_name`` and ``unit`` and define
    ``value(iteration, input, target, output, loss)``."""

    stat_name = None
    unit = ""

    def __init__(self, running_average=True, epoch_average=True, smoothing=0.7):
        super().__init__([(1, "iteration"), (1, "epoch")])
        if not 0 <= smoothing < 1:
            raise ValueError(
                f"{type(self).__name__}: smoothing should be in [0, 1), got {smoothing}"
            )
        self.running_average = running_average
        self.epoch_average = epoch_average
        self.smoothing = smoothing

    def register(self, trainer):
        super().register(trainer)
        self.stats = trainer.stats.setdefault(self.stat_name, {})
        self.stats["unit"] = self.unit
        self._sum, self._count = 0.0, 0

    def iteration(self, *args):
        value = self.value(*args)
        self.stats["last"] = value
        if self.running_average:
            previous = self.stats.get("running_avg", value)
            self.stats["running_avg"] = self.smoothing * previous + (1 - self.smoothing) * value
        if self.epoch_average:
            self._sum += value
            self._count += 1

    def epoch(self, index):
        if self.epoch_average and self._count:
            self.stats["epoch_mean"] = self._sum / self._count
        self._sum, self._count = 0.0, 0

    def value(self, iteration, input, target, output, loss):
        raise NotImplementedError(f"{type(self).__name__} must define value()")


class LossMonitor(Monitor):
    """The loss of each batch (``stats["loss"]``)."""

    stat_name = "loss"

    def value(self, iteration, input, target, output, loss):
        return float(loss.item())


class AccuracyMonitor(Monitor):
    """Percentage of the batch whose arg-max output equals the target (``stats["accuracy"]``)."""

    stat_name = "accuracy"
    unit = "%"

    def value(self, iteration, input, target, output, loss):
        predicted = output.argmax(1)
        correct = (predicted == target.reshape(predicted.shape)).sum().item()
        return 100.0 * correct / target.shape[0]


class TimeMonitor(Monitor):
    """Milliseconds per iteration (``stats["time"]``); the first one counts from registration."""

    stat_name = "time"
    unit = "ms"

    def register(self, trainer):
        super().register(trainer)
        self._last = time.perf_counter()

    def value(self, *args):
        now = time.perf_counter()
        elapsed, self._last = (now - self._last) * 1e3, now
        return elapsed
