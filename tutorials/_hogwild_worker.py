"""The parts of the Hogwild tutorial (09_hogwild.py) that its worker processes run.

A process started with the ``spawn`` method unpickles its target function by importing the
module that defines it, so the function must live in an importable module like this one.
"""

from sklearn.datasets import load_digits

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    """A two-layer perceptron for the flattened 8x8 digits."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def load_data():
    """The digits as flat (n, 64) inputs in [0, 1]; the last 360 for testing."""
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target)
    return (x[:-360], y[:-360]), (x[-360:], y[-360:])


def train(rank, model, x, y, epochs, losses):
    """One Hogwild worker: SGD steps straight onto the shared parameters of ``model``.

    Reports ``(rank, epoch, mean loss)`` on the ``losses`` queue after each epoch.
    """
    torch.manual_seed(100 + rank)
    torch.set_num_threads(1)  # the processes share the cores already
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for epoch in range(epochs):
        order = torch.randperm(len(x))
        total = 0.0
        for start in range(0, len(x), 32):
            batch = order[start : start + 32]
            optimizer.zero_grad()
            loss = F.nll_loss(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        losses.put((rank, epoch, total / len(x)))
