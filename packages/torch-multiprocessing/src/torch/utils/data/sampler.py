"""Samplers: iterables of dataset indices (``BatchSampler``: of lists of indices)."""

import math

import torch

__all__ = [
    "BatchSampler",
    "DistributedSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]


def _positive_int(value, what, owner):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{owner}: {what} should be a positive integer, got {value!r}")


def _bool(value, what, owner):
    if not isinstance(value, bool):
        raise ValueError(f"{owner}: {what} should be a boolean, got {value!r}")


def _fresh_generator():
    # A generator seeded from the global one: each iteration draws a new permutation, and
    # torch.manual_seed makes the sequence of permutations reproducible.
    seed = int(torch.randint(0, 2**62, (), dtype=torch.int64).item())
    return torch.Generator().manual_seed(seed)


class Sampler:
    """Base class: ``__iter__`` yields indices; ``__len__`` is optional."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or ``num_samples`` draws with ``replacement``.

    Without replacement and ``num_samples > len(data_source)``, whole permutations are
    concatenated. A new order is drawn at each ``iter()``. Draws with replacement are made
    ``CHUNK`` at a time as iteration proceeds, so the "endless" sampler
    ``RandomSampler(ds, replacement=True, num_samples=int(1e10))`` costs no memory up front.
    """

    CHUNK = 1024  # indices drawn per call when sampling with replacement

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        _bool(replacement, "replacement", "RandomSampler")
        _positive_int(self.num_samples, "num_samples", "RandomSampler")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            for start in range(0, self.num_samples, self.CHUNK):
                size = min(self.CHUNK, self.num_samples - start)
                yield from torch.randint(0, n, (size,), generator=g).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from torch.randperm(n, generator=g).tolist()
        yield from torch.randperm(n, generator=g)[: self.num_samples % n].tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a new one at each ``iter()``)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in torch.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in ``[0, len(weights))`` drawn with probability ∝ ``weights``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _positive_int(num_samples, "num_samples", "WeightedRandomSampler")
        _bool(replacement, "replacement", "WeightedRandomSampler")
        weights = torch.as_tensor(weights, dtype=torch.float64)
        if weights.dim() != 1:
            raise ValueError(
                "WeightedRandomSampler: weights should be a 1-D sequence, got shape "
                f"{tuple(weights.shape)}"
            )
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = torch.multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        _positive_int(batch_size, "batch_size", "BatchSampler")
        _bool(drop_last, "drop_last", "BatchSampler")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class DistributedSampler(Sampler):
    """The part of the dataset that replica ``rank`` of ``num_replicas`` processes reads.

    Every replica sees ``ceil(len / num_replicas)`` indices (the order padded by repeating its
    start), or ``floor`` with ``drop_last``. With ``shuffle`` the order is a permutation seeded
    by ``seed + epoch``: call ``set_epoch(epoch)`` before each epoch so that it changes, and use
    the same ``seed`` in all replicas. ``num_replicas`` and ``rank`` are required (there is no
    ``torch.distributed`` to ask).
    """

    def __init__(
        self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False
    ):
        if num_replicas is None or rank is None:
            raise ValueError(
                "DistributedSampler: give num_replicas and rank (torch.distributed is not "
                "available to provide them)"
            )
        _positive_int(num_replicas, "num_replicas", "DistributedSampler")
        if not 0 <= rank < num_replicas:
            raise ValueError(
                f"DistributedSampler: rank {rank} is not in [0, {num_replicas - 1}] "
                f"(num_replicas={num_replicas})"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.shuffle = shuffle
        self.seed = seed
        self.drop_last = drop_last
        self.epoch = 0
        n = len(dataset)
        if drop_last:
            self.num_samples = n // num_replicas
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = torch.Generator().manual_seed(self.seed + self.epoch)
            indices = torch.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.total_size > n:  # pad by repeating (several times if the dataset is tiny)
            indices += (indices * math.ceil(self.total_size / max(n, 1)))[: self.total_size - n]
        indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch that seeds the shuffle; call it before each epoch's ``iter()``."""
        self.epoch = epoch
