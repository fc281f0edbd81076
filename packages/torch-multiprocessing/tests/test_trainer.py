"""torch.utils.trainer: a tiny classifier trains (loss falls, accuracy rises) and the plugins
report what happened; oracle: the loss recomputed by hand, counts of lines and files."""

import io

import pytest

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.trainer import Trainer
from torch.utils.trainer.plugins import (
    AccuracyMonitor,
    Checkpoint,
    Logger,
    LossMonitor,
    Plugin,
    ProgressMonitor,
    TimeMonitor,
)

nn = pytest.importorskip("torch.nn")
optim = pytest.importorskip("torch.optim")


class Terminal(io.StringIO):
    def isatty(self):
        return True


def make_trainer(batches=8):
    torch.manual_seed(0)
    x = torch.randn(batches * 16, 2)
    y = (x[:, 0] + x[:, 1] > 0).long()  # linearly separable
    model = nn.Linear(2, 2)
    criterion = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(x, y), batch_size=16)
    trainer = Trainer(model, criterion, optim.SGD(model.parameters(), lr=0.5), loader)
    return trainer, x, y


def full_loss(trainer, x, y):
    with torch.no_grad():
        return trainer.criterion(trainer.model(x), y).item()


def test_loss_decreases_and_monitors_agree():
    trainer, x, y = make_trainer()
    for plugin in (LossMonitor(), AccuracyMonitor(), TimeMonitor()):
        trainer.register_plugin(plugin)
    before = full_loss(trainer, x, y)
    trainer.run(epochs=3)
    after = full_loss(trainer, x, y)
    assert after < 0.5 * before
    assert trainer.iterations == 24 and trainer.epochs == 3
    stats = trainer.stats
    assert stats["accuracy"]["epoch_mean"] > 85 and stats["accuracy"]["unit"] == "%"
    assert 0 <= stats["loss"]["last"] < before and stats["time"]["last"] > 0
    assert stats["loss"]["epoch_mean"] < before


def test_monitor_averages():
    class Constant(LossMonitor):
        def value(self, i, *args):
            return float(i)  # 1, 2, 3, ...

    trainer, _, _ = make_trainer(batches=4)
    monitor = Constant(smoothing=0.5)
    trainer.register_plugin(monitor)
    trainer.run(1)
    stats = trainer.stats["loss"]
    assert stats["last"] == 4 and stats["epoch_mean"] == 2.5
    assert stats["running_avg"] == pytest.approx(((1 * 0.5 + 0.5 * 2) * 0.5 + 0.5 * 3) * 0.5 + 2)


def test_progress_lines_without_a_terminal():
    trainer, _, _ = make_trainer(batches=4)
    out = io.StringIO()
    trainer.register_plugin(ProgressMonitor(stream=out, line_every=50))
    trainer.run(2)
    assert out.getvalue().splitlines() == [
        "epoch 1: 2/4 batches (50%)",
        "epoch 1: 4/4 batches (100%)",
        "epoch 2: 2/4 batches (50%)",
        "epoch 2: 4/4 batches (100%)",
    ]


def test_progress_bar_on_a_terminal():
    trainer, _, _ = make_trainer(batches=4)
    out = Terminal()
    trainer.register_plugin(ProgressMonitor(stream=out))
    trainer.run(1)
    text = out.getvalue()
    assert text.count("\r") == 4 and text.endswith("(4/4)\n")
    assert "[" + "#" * 30 + "] 100.0%" in text


def test_logger_prints_chosen_fields():
    trainer, _, _ = make_trainer(batches=4)
    out = io.StringIO()
    trainer.register_plugin(ProgressMonitor(stream=io.StringIO()))
    trainer.register_plugin(LossMonitor())
    trainer.register_plugin(Logger(["progress", "loss"], [(2, "iteration"), (1, "epoch")], out))
    trainer.run(1)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("iteration 2: progress 2/4 | loss ")
    assert lines[2].startswith("epoch 1: progress 0/4 | loss ")
    mean = float(lines[2].rsplit(" ", 1)[1])
    assert mean == pytest.approx(trainer.stats["loss"]["epoch_mean"], rel=1e-3)


def test_checkpoint_saves_loadable_state(tmp_path):
    trainer, _, _ = make_trainer(batches=2)
    checkpoint = Checkpoint(str(tmp_path / "ckpt_{epoch}.pt"))
    trainer.register_plugin(checkpoint)
    trainer.run(2)
    assert checkpoint.saved == [str(tmp_path / "ckpt_1.pt"), str(tmp_path / "ckpt_2.pt")]
    state = torch.load(checkpoint.saved[-1])
    assert state["epoch"] == 2 and state["iteration"] == 4
    for name, value in trainer.model.state_dict().items():
        assert torch.equal(state["model"][name], value)
    assert "param_groups" in state["optimizer"]


def test_plugin_triggers_and_bad_unit():
    calls = []

    class Recorder(Plugin):
        def batch(self, i, input, target):
            calls.append(("batch", i))

        def update(self, i, model):
            calls.append(("update", i))

    trainer, _, _ = make_trainer(batches=4)
    trainer.register_plugin(Recorder([(2, "batch"), (3, "update")]))
    trainer.run(1)
    assert calls == [("batch", 2), ("update", 3), ("batch", 4)]
    with pytest.raises(ValueError, match="unknown trigger unit 'minute'"):
        trainer.register_plugin(Plugin([(1, "minute")]))
