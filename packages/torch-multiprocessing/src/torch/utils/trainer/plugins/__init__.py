"""Trainer plugins: progress, loss, accuracy, time, logging and checkpoints."""

from torch.utils.trainer.plugins.checkpoint import Checkpoint
from torch.utils.trainer.plugins.logger import Logger
from torch.utils.trainer.plugins.monitor import AccuracyMonitor, LossMonitor, Monitor, TimeMonitor
from torch.utils.trainer.plugins.plugin import Plugin
from torch.utils.trainer.plugins.progress import ProgressMonitor

__all__ = [
    "AccuracyMonitor",
    "Checkpoint",
    "Logger",
    "LossMonitor",
    "Monitor",
    "Plugin",
    "ProgressMonitor",
    "TimeMonitor",
]
