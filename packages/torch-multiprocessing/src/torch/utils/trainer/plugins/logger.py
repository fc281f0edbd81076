"""Logger: prints chosen ``trainer.stats`` entries."""

import sys

from torch.utils.trainer.plugins.plugin import Plugin


class Logger(Plugin):
    """Prints the ``fields`` (names in ``trainer.stats``, e.g. ["progress", "loss"]) as one
    line per trigger. ``interval`` defaults to every epoch; add ``(n, "iteration")`` for a line
    every n iterations. Iteration lines show each monitor's last value and running average,
    epoch lines its epoch mean."""

    def __init__(self, fields, interval=None, stream=None):
        super().__init__(interval or [(1, "epoch")])
        self.fields = list(fields)
        self.stream = stream

    def _write(self, line):
        (self.stream if self.stream is not None else sys.stdout).write(line + "\n")

    def _describe(self, name, keys):
        stats = self.trainer.stats.get(name)
        if not stats:
            return None
        if name == "progress":
            return f"progress {stats['samples_used']}/{stats['epoch_size']}"
        unit = stats.get("unit", "")
        values = [f"{stats[k]:.4g}{unit}" for k in keys if k in stats]
        if not values:
            return None
        if len(values) == 1:
            return f"{name} {values[0]}"
        return f"{name} {values[0]} ({', '.join(values[1:])})"

    def _line(self, prefix, keys):
        parts = [self._describe(name, keys) for name in self.fields]
        self._write(prefix + " | ".join(p for p in parts if p is not None))

    def iteration(self, index, *args):
        self._line(f"iteration {index}: ", ("last", "running_avg"))

    def epoch(self, index):
        self._line(f"epoch {index}: ", ("epoch_mean",))
