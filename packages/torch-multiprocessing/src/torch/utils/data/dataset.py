"""Datasets: map-style (``__getitem__`` + ``__len__``) and iterable-style (``__iter__``)."""

import bisect
import math
import warnings
from itertools import accumulate

import torch

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]


class Dataset:
    """A map-style dataset: ``dataset[i]`` returns sample ``i``; ``len(dataset)`` is optional
    but the default samplers need it. ``a + b`` concatenates two datasets.

    A subclass may also define ``__getitems__(indices)`` returning the list of samples for a
    batch of indices at once; ``DataLoader`` then calls it instead of ``__getitem__`` per index.
    """

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """An iterable-style dataset: ``iter(dataset)`` yields the samples (a stream).

    With ``num_workers > 0`` every worker gets a copy of the dataset; use
    ``torch.utils.data.get_worker_info()`` inside ``__iter__`` to give each worker its own
    part, otherwise every sample is produced once per worker.
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is the tuple ``(t[i] for t in tensors)``; all tensors share dimension 0."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [t.size(0) for t in tensors]
        if any(n != sizes[0] for n in sizes):
            raise ValueError(
                f"TensorDataset: all tensors must have the same size in dimension 0, got {sizes}"
            )
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)

    def _collated_batch(self, indices):
        # What default_collate([self[i] for i in indices]) returns, in one indexing per tensor
        # (DataLoader's fast path: no per-sample views, no stack).
        index = torch.tensor(indices, dtype=torch.int64)
        return [t[index] for t in self.tensors]


class ConcatDataset(Dataset):
    """The datasets one after the other: index ``len(a)`` is ``b[0]``."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError(
                    "ConcatDataset does not support IterableDataset (use ChainDataset for streams)"
                )
        self.cumulative_sizes = list(accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise IndexError(
                    f"ConcatDataset: index {index} out of range for length {len(self)}"
                )
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        if which == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {index} out of range for length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class ChainDataset(IterableDataset):
    """Iterable datasets chained: all of the first, then all of the second, ..."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError(
                    f"ChainDataset only chains IterableDatasets, got {type(d).__name__}"
                )
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.__getitems__(index)
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices):
        mapped = [self.indices[i] for i in indices]
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems(mapped)
        return [self.dataset[i] for i in mapped]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Splits ``dataset`` into non-overlapping random ``Subset``\\ s of the given lengths.

    ``lengths`` are sample counts summing to ``len(dataset)``, or fractions summing to 1 (each
    gets ``floor(len * fraction)`` samples and the remainder is dealt out one by one from the
    first). ``generator`` fixes the permutation (default: the global generator).
    """
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"random_split: fraction at index {i} is not in [0, 1]: {frac}")
        counts = [math.floor(n * frac) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(
                    f"random_split: length of split at index {i} is 0", UserWarning, stacklevel=2
                )
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(
            f"random_split: the lengths {list(lengths)} sum to {sum(lengths)}, but the dataset "
            f"has {n} samples (give counts summing to {n} or fractions summing to 1)"
        )
    if any(length < 0 for length in lengths):
        raise ValueError(f"random_split: lengths must be non-negative, got {list(lengths)}")
    perm = torch.randperm(n, generator=generator).tolist()
    return [
        Subset(dataset, perm[end - length : end])
        for end, length in zip(accumulate(lengths), lengths)
    ]
