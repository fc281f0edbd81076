"""ProgressMonitor: where the current epoch is, shown as a bar on a terminal."""

import sys

from torch.utils.trainer.plugins.plugin import Plugin

_BAR_WIDTH = 30


class ProgressMonitor(Plugin):
    """Tracks ``stats["progress"]`` (``samples_used`` batches of ``epoch_size``, ``percent``)
    and shows it: on a terminal, a bar redrawn in place at each iteration; otherwise (a log
    file, a pipe) a plain line every ``line_every`` percent. ``stream`` defaults to stdout."""

    stat_name = "progress"

    def __init__(self, stream=None, line_every=10):
        super().__init__([(1, "iteration"), (1, "epoch")])
        self.stream = stream
        self.line_every = line_every

    def register(self, trainer):
        super().register(trainer)
        self.stats = trainer.stats.setdefault(self.stat_name, {})
        self.stats["epoch_size"] = (
            len(trainer.dataset) if hasattr(trainer.dataset, "__len__") else 0
        )
        self._start_epoch()

    def _start_epoch(self):
        self.stats["samples_used"] = 0
        self.stats["percent"] = 0.0
        self._next_line = self.line_every

    def _out(self):
        return self.stream if self.stream is not None else sys.stdout

    def iteration(self, *args):
        stats = self.stats
        stats["samples_used"] += 1
        out, epoch = self._out(), self.trainer.epochs + 1
        done, total = stats["samples_used"], stats["epoch_size"]
        if not total:  # a stream of unknown length: counts only
            out.write(f"\repoch {epoch}: {done} batches" if out.isatty() else "")
            return
        stats["percent"] = 100.0 * done / total
        if out.isatty():
            filled = int(_BAR_WIDTH * done / total)
            bar = "#" * filled + "." * (_BAR_WIDTH - filled)
            out.write(f"\repoch {epoch} [{bar}] {stats['percent']:5.1f}% ({done}/{total})")
            out.flush()
        elif stats["percent"] >= self._next_line or done == total:
            out.write(f"epoch {epoch}: {done}/{total} batches ({stats['percent']:.0f}%)\n")
            while self._next_line <= stats["percent"]:
                self._next_line += self.line_every

    def epoch(self, index):
        out = self._out()
        if out.isatty():
            out.write("\n")
        self._start_epoch()
