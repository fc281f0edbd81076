"""Checkpoint: ``torch.save`` of the model (and optimizer) state at intervals."""

import torch
from torch.utils.trainer.plugins.plugin import Plugin


class Checkpoint(Plugin):
    """Saves ``{"epoch", "iteration", "model", "optimizer"}`` (the state dicts) with
    ``torch.save`` to ``path.format(epoch=..., iteration=...)``, every epoch by default.
    ``saved`` lists the files written."""

    def __init__(self, path="checkpoint_{epoch}.pt", interval=None, save_optimizer=True):
        super().__init__(interval or [(1, "epoch")])
        self.path = path
        self.save_optimizer = save_optimizer
        self.saved = []

    def _save(self):
        trainer = self.trainer
        state = {
            "epoch": trainer.epochs,
            "iteration": trainer.iterations,
            "model": trainer.model.state_dict(),
        }
        if self.save_optimizer:
            state["optimizer"] = trainer.optimizer.state_dict()
        path = self.path.format(epoch=trainer.epochs, iteration=trainer.iterations)
        torch.save(state, path)
        self.saved.append(path)

    def iteration(self, *args):
        self._save()

    def epoch(self, index):
        self._save()
