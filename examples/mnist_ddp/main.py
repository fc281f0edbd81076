"""Train the MNIST convolutional network with DistributedDataParallel on several processes.

The network, the data (scikit-learn's digits upscaled to 28x28 by default, or ``--data DIR``
with the MNIST IDX files) and the optimiser are those of ``examples/mnist/main.py``. Each
process trains on its share of every epoch (``DistributedSampler``), in batches of
``--batch-size / N`` (so the global batch is the single-process example's), and DDP averages
the gradients, so all replicas stay equal. Start it with the launcher or with MPI directly:

    torchrun --nproc-per-node 2 examples/mnist_ddp/main.py [--epochs 8]
    mpiexec -n 2 python examples/mnist_ddp/main.py [--epochs 8]

(``python -m torch.distributed.run`` is the same as ``torchrun``.) Rank 0 prints the
progress and saves the model. Runs unchanged under PyTorch's own torchrun.
"""

import argparse
import importlib.util
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DistributedSampler


def _single_process_example():
    """examples/mnist/main.py as a module: its Net, data loading and evaluation."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mnist", "main.py")
    spec = importlib.util.spec_from_file_location("mnist_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mnist_example = _single_process_example()


def train_epoch(model, optimizer, sampler, x, y, batch_size):
    """One epoch over this rank's share; returns the mean loss over all ranks."""
    model.train()
    mine = torch.tensor(list(sampler))
    total = torch.zeros(2, dtype=torch.float64)
    for start in range(0, len(mine), batch_size):
        idx = mine[start : start + batch_size]
        optimizer.zero_grad()
        loss = F.nll_loss(model(x[idx]), y[idx])
        loss.backward()
        optimizer.step()
        total += torch.tensor([loss.item() * len(idx), len(idx)], dtype=torch.float64)
    dist.all_reduce(total)
    return (total[0] / total[1]).item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with the MNIST IDX files (default: sklearn digits)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument(
        "--batch-size", type=int, default=64, help="global batch, split over the processes"
    )
    parser.add_argument("--lr", type=float, default=1.0, help="Adadelta learning rate")
    parser.add_argument("--gamma", type=float, default=0.7, help="StepLR decay per epoch")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", default="gloo")
    parser.add_argument("--save-model", default="mnist_ddp_cnn.pt", help="'' to skip saving")
    parser.add_argument(
        "--min-accuracy",
        type=float,
        default=0.0,
        help="fail (exit status 1) when the final test accuracy, 0 to 1, is below this",
    )
    args = parser.parse_args(argv)

    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)
    train, test = mnist_example.mnist(args.data) if args.data else mnist_example.digits(args.seed)
    x_train, y_train = mnist_example.to_tensors(*train)
    x_test, y_test = mnist_example.to_tensors(*test)
    if rank == 0:
        source = args.data or "scikit-learn digits, 28x28"
        print(f"data: {source}: {len(x_train)} train, {len(x_test)} test images; {world} ranks")

    model = DDP(mnist_example.Net())
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    sampler = DistributedSampler(range(len(x_train)), shuffle=True, seed=args.seed)
    # each rank takes its part of a global batch of --batch-size, so that the optimiser sees
    # the same batches (and the same number of steps) as the single-process example
    per_rank = max(1, args.batch_size // world)
    torch.manual_seed(args.seed + rank)  # dropout differs between ranks, as in PyTorch
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        t0 = time.perf_counter()
        sampler.set_epoch(epoch)
        train_loss = train_epoch(model, optimizer, sampler, x_train, y_train, per_rank)
        test_loss, correct = mnist_example.evaluate(model.module, x_test, y_test)
        scheduler.step()
        if rank == 0:
            print(
                f"epoch {epoch:2d}: train loss {train_loss:.4f}, test loss {test_loss:.4f}, "
                f"test accuracy {100.0 * correct / len(x_test):.1f}% ({correct}/{len(x_test)}), "
                f"{time.perf_counter() - t0:.1f} s",
                flush=True,
            )
    if rank == 0:
        print(f"trained in {time.perf_counter() - start:.1f} s")
        if args.save_model:
            torch.save(model.module.state_dict(), args.save_model)
            print(f"saved {args.save_model}")
    dist.destroy_process_group()
    accuracy = correct / len(x_test)
    if accuracy < args.min_accuracy:
        raise SystemExit(f"test accuracy {accuracy:.3f} is below {args.min_accuracy}")
    return accuracy


if __name__ == "__main__":
    main()
