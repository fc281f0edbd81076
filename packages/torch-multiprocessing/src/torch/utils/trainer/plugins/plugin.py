"""The plugin base class."""


class Plugin:
    """Something the Trainer calls: ``trigger_interval`` is a list of ``(every, unit)`` pairs
    (unit: "batch", "iteration", "update" or "epoch"); for each, the method of that name is
    called every ``every`` iterations or epochs. ``register(trainer)`` is called once, when the
    plugin is added."""

    def __init__(self, interval=None):
        self.trigger_interval = list(interval or [])

    def register(self, trainer):
        self.trainer = trainer
