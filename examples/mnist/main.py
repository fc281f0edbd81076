"""Train the classic MNIST convolutional network: the README's main job.

Runs unchanged under this project and under PyTorch. Without arguments it trains on
scikit-learn's handwritten digits (1,797 real 8x8 scans shipped inside the scikit-learn
wheel, upscaled to 28x28), so no download is needed; ``--data DIR`` trains on the real MNIST
IDX files (train-images-idx3-ubyte, ... optionally gzipped) in DIR.

    python examples/mnist/main.py [--epochs 8] [--data DIR] [--save-model mnist_cnn.pt]
"""

import argparse
import gzip
import importlib.util
import os
import time

import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    """Two convolutions, max pooling, dropout, two linear layers, log_softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def resize(images, size):
    """Bilinear resize of a (n, h, w) float array to (n, size, size), in NumPy."""
    n, h, w = images.shape
    ys = np.linspace(0, h - 1, size)
    xs = np.linspace(0, w - 1, size)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    wy, wx = (ys - y0)[None, :, None], (xs - x0)[None, None, :]
    top = images[:, y0][:, :, x0] * (1 - wx) + images[:, y0][:, :, x1] * wx
    bottom = images[:, y1][:, :, x0] * (1 - wx) + images[:, y1][:, :, x1] * wx
    return top * (1 - wy) + bottom * wy


def load_digits():
    """scikit-learn's handwritten digits: (1797, 8, 8) images with values 0..16, and labels.

    Read straight from the CSV file that scikit-learn ships: importing scikit-learn itself
    (and SciPy with it) would cost more memory than training the network."""
    spec = importlib.util.find_spec("sklearn")
    path = os.path.join(os.path.dirname(spec.origin), "datasets", "data", "digits.csv.gz")
    if not os.path.exists(path):  # a scikit-learn that keeps the file elsewhere
        from sklearn.datasets import load_digits as sklearn_digits

        data = sklearn_digits()
        return data.images, data.target
    table = np.loadtxt(path, delimiter=",")
    return table[:, :-1].reshape(-1, 8, 8), table[:, -1].astype(np.int64)


def digits(seed):
    """scikit-learn's digits, upscaled to 28x28 and split 80/20 (train, test)."""
    raw_images, raw_labels = load_digits()
    images = resize(raw_images.astype(np.float64) / 16.0, 28)
    order = np.random.default_rng(seed).permutation(len(images))
    images, labels = images[order], raw_labels[order]
    cut = int(0.8 * len(images))
    return (images[:cut], labels[:cut]), (images[cut:], labels[cut:])


def _idx(path):
    """An IDX array (the MNIST file format), gzipped or not."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def mnist(folder):
    def find(stem):
        for name in (stem, stem + ".gz"):
            if os.path.exists(os.path.join(folder, name)):
                return os.path.join(folder, name)
        raise FileNotFoundError(f"{stem}(.gz) not found in {folder}")

    split = {}
    for part, prefix in (("train", "train"), ("test", "t10k")):
        images = _idx(find(f"{prefix}-images-idx3-ubyte")).astype(np.float64) / 255.0
        labels = _idx(find(f"{prefix}-labels-idx1-ubyte")).astype(np.int64)
        split[part] = (images, labels)
    return split["train"], split["test"]


def to_tensors(images, labels):
    x = (images - 0.1307) / 0.3081  # MNIST's mean and std, as in the classic example
    return torch.tensor(x[:, None].astype(np.float32)), torch.tensor(labels.astype(np.int64))


def train_epoch(model, optimizer, x, y, batch_size):
    model.train()
    order = torch.randperm(len(x))
    total = 0.0
    for start in range(0, len(x), batch_size):
        idx = order[start : start + batch_size]
        optimizer.zero_grad()
        loss = F.nll_loss(model(x[idx]), y[idx])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(idx)
    return total / len(x)


def evaluate(model, x, y, batch_size=1000):
    model.eval()
    loss, correct = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(x), batch_size):
            out = model(x[start : start + batch_size])
            target = y[start : start + batch_size]
            loss += F.nll_loss(out, target, reduction="sum").item()
            correct += int((out.argmax(dim=1) == target).sum())
    return loss / len(x), correct


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with the MNIST IDX files (default: sklearn digits)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1.0, help="Adadelta learning rate")
    parser.add_argument("--gamma", type=float, default=0.7, help="StepLR decay per epoch")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save-model", default="mnist_cnn.pt", help="'' to skip saving")
    parser.add_argument(
        "--min-accuracy",
        type=float,
        default=0.0,
        help="fail (exit status 1) when the final test accuracy, 0 to 1, is below this",
    )
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    train, test = mnist(args.data) if args.data else digits(args.seed)
    x_train, y_train = to_tensors(*train)
    x_test, y_test = to_tensors(*test)
    source = args.data or "scikit-learn digits, 28x28"
    print(f"data: {source}: {len(x_train)} train, {len(x_test)} test images")

    model = Net()
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        t0 = time.perf_counter()
        train_loss = train_epoch(model, optimizer, x_train, y_train, args.batch_size)
        test_loss, correct = evaluate(model, x_test, y_test)
        scheduler.step()
        print(
            f"epoch {epoch:2d}: train loss {train_loss:.4f}, test loss {test_loss:.4f}, "
            f"test accuracy {100.0 * correct / len(x_test):.1f}% ({correct}/{len(x_test)}), "
            f"{time.perf_counter() - t0:.1f} s"
        )
    print(f"trained in {time.perf_counter() - start:.1f} s")
    if args.save_model:
        torch.save(model.state_dict(), args.save_model)
        print(f"saved {args.save_model}")
    accuracy = correct / len(x_test)
    if accuracy < args.min_accuracy:
        raise SystemExit(f"test accuracy {accuracy:.3f} is below {args.min_accuracy}")
    return accuracy


if __name__ == "__main__":
    main()
