"""torch.utils.trainer: a training loop driven by plugins (shipped by torch-multiprocessing).

    trainer = Trainer(model, criterion, optimizer, loader)
    trainer.register_plugin(ProgressMonitor())
    trainer.register_plugin(LossMonitor())
    trainer.register_plugin(Logger(["progress", "loss"]))
    trainer.run(epochs=5)

It needs ``torch.nn`` and ``torch.optim`` only through the objects it is given.
"""

from torch.utils.trainer.trainer import Trainer

__all__ = ["Trainer"]
