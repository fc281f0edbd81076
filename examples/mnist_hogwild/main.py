"""Hogwild training: several processes train one model whose parameters live in shared memory.

Each process runs its own optimiser over its own shuffles of the data and updates the shared
parameters without locks (Hogwild!, Niu et al. 2011). Runs unchanged under this project and
under PyTorch, on scikit-learn's handwritten digits (1,797 8x8 scans, no download).

    python examples/mnist_hogwild/main.py [--num-processes 2] [--epochs 10]
"""

import argparse
import os
import time

import numpy as np

import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    """A small convolutional network for 8x8 digits."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 16, 3, padding=1)
        self.fc1 = nn.Linear(16 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return F.log_softmax(self.fc2(x), dim=1)


def digits(seed):
    """scikit-learn's digits as (n, 1, 8, 8) float32 tensors, split 80/20 (train, test)."""
    from sklearn.datasets import load_digits

    data = load_digits()
    order = np.random.default_rng(seed).permutation(len(data.images))
    x = (data.images[order].astype(np.float32) / 16.0 - 0.3) / 0.4
    y = data.target[order].astype(np.int64)
    cut = int(0.8 * len(x))
    tensors = torch.tensor(x[:, None]), torch.tensor(y)
    return [t[:cut] for t in tensors], [t[cut:] for t in tensors]


def train(rank, model, x, y, args):
    """One Hogwild worker: plain SGD steps straight onto the shared parameters."""
    torch.manual_seed(args.seed + rank)
    torch.set_num_threads(1)  # the processes already use the cores
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    model.train()
    for epoch in range(1, args.epochs + 1):
        order = torch.randperm(len(x))
        total = 0.0
        for start in range(0, len(x), args.batch_size):
            idx = order[start : start + args.batch_size]
            optimizer.zero_grad()
            loss = F.nll_loss(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
        print(f"process {rank} (pid {os.getpid()}) epoch {epoch}: loss {total / len(x):.4f}")


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        out = model(x)
        loss = F.nll_loss(out, y).item()
        correct = int((out.argmax(dim=1) == y).sum())
    return loss, correct


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-processes", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    (x_train, y_train), (x_test, y_test) = digits(args.seed)
    model = Net()
    model.share_memory()  # the workers update these very parameters
    start = time.perf_counter()
    processes = []
    for rank in range(args.num_processes):
        # Each worker trains on its own part of the data.
        part = slice(rank, None, args.num_processes)
        p = mp.Process(target=train, args=(rank, model, x_train[part], y_train[part], args))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    failed = [p.exitcode for p in processes if p.exitcode != 0]
    if failed:
        raise SystemExit(f"a training process failed (exit codes {failed})")
    loss, correct = evaluate(model, x_test, y_test)
    print(
        f"test loss {loss:.4f}, test accuracy {100.0 * correct / len(x_test):.1f}% "
        f"({correct}/{len(x_test)}), trained in {time.perf_counter() - start:.1f} s"
    )
    return correct / len(x_test)


if __name__ == "__main__":
    main()
