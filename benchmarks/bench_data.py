"""DataLoader throughput; runs unchanged under this project's ``torch`` and under PyTorch.

python benchmarks/bench_data.py        # prints batches per second
"""

import time

N_SAMPLES = 60000
BATCH = 64
WORKERS = 2
BATCHES = 600  # timed batches (about 40 % of an epoch), after a warm-up epoch start


def bench_dataloader():
    """Batches per second: DataLoader over an in-memory TensorDataset of 60000x1x28x28 float32,
    batch 64, num_workers=2, shuffled (a new iterator each round, worker start-up included)."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    images = torch.rand(N_SAMPLES, 1, 28, 28)
    labels = torch.randint(0, 10, (N_SAMPLES,))
    loader = DataLoader(
        TensorDataset(images, labels), batch_size=BATCH, shuffle=True, num_workers=WORKERS
    )
    rates = []
    for _ in range(3):
        it = iter(loader)
        next(it)  # workers started and the pipeline primed
        t0 = time.perf_counter()
        for _ in range(BATCHES):
            next(it)
        rates.append(BATCHES / (time.perf_counter() - t0))
        del it
    return sorted(rates)[1]


if __name__ == "__main__":
    print(f"{bench_dataloader():.0f} batches/s")
