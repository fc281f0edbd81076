"""The Trainer: epochs of (forward, loss, backward, optimizer step) with plugins called at
chosen intervals."""

import heapq

__all__ = ["Trainer"]

# What a plugin can be called on, and with which arguments after the time (iteration or epoch):
#   batch(i, input, target)                    before the forward pass
#   iteration(i, input, target, output, loss)  after the optimizer step
#   update(i, model)                           after the optimizer step, for the parameters
#   epoch(e)                                   after each epoch
_EVENTS = ("batch", "iteration", "update", "epoch")


class Trainer:
    """Trains ``model`` on ``dataset`` (an iterable of ``(input, target)`` batches, such as a
    ``DataLoader``): for each batch, ``optimizer.step(closure)`` where the closure computes
    ``criterion(model(input), target)`` and its gradients.

    ``stats`` is a dict shared by the plugins (e.g. ``stats["loss"]["last"]``); ``iterations``
    counts the batches trained on so far, over all epochs.
    """

    def __init__(self, model=None, criterion=None, optimizer=None, dataset=None):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.dataset = dataset
        self.iterations = 0
        self.epochs = 0
        self.stats = {}
        # per event, a heap of [next time, registration order, interval, plugin]
        self.plugin_queues = {event: [] for event in _EVENTS}

    def register_plugin(self, plugin):
        """Adds ``plugin``: ``plugin.register(self)`` is called now, then the plugin's method
        named after each unit in ``plugin.trigger_interval`` (a list of ``(every, unit)``, unit
        one of batch/iteration/update/epoch) every ``every`` iterations or epochs."""
        plugin.register(self)
        for every, unit in plugin.trigger_interval:
            if unit not in self.plugin_queues:
                raise ValueError(
                    f"Trainer.register_plugin: unknown trigger unit {unit!r} in "
                    f"{type(plugin).__name__}.trigger_interval; use one of {list(_EVENTS)}"
                )
            queue = self.plugin_queues[unit]
            heapq.heappush(queue, [every, len(queue), every, plugin])

    def call_plugins(self, event, time, *args):
        """Calls ``plugin.<event>(time, *args)`` on every plugin due at ``time``."""
        queue = self.plugin_queues[event]
        while queue and queue[0][0] <= time:
            entry = queue[0]
            getattr(entry[3], event)(time, *args)
            entry[0] = time + entry[2]
            heapq.heapreplace(queue, entry)

    def run(self, epochs=1):
        """Trains for ``epochs`` more epochs, calling the epoch plugins after each."""
        for _ in range(epochs):
            self.train()
            self.epochs += 1
            self.call_plugins("epoch", self.epochs)

    def train(self):
        """One pass over the dataset."""
        for input, target in self.dataset:
            self.iterations += 1
            i = self.iterations
            self.call_plugins("batch", i, input, target)
            first = []  # the output and loss of the closure's first call, for the plugins

            def closure(input=input, target=target, first=first):
                output = self.model(input)
                loss = self.criterion(output, target)
                loss.backward()
                if not first:
                    first.extend((output.detach(), loss.detach()))
                return loss

            self.optimizer.zero_grad()
            self.optimizer.step(closure)
            self.call_plugins("iteration", i, input, target, *first)
            self.call_plugins("update", i, self.model)
