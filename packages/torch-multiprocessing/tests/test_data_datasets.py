"""torch.utils.data datasets and random_split; oracle: NumPy arrays and plain Python lists."""

import numpy as np
import pytest

import torch
from torch.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)


class Range(Dataset):
    def __init__(self, lo, hi):
        self.items = list(range(lo, hi))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


def test_tensor_dataset_rows_match_numpy():
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    y = np.arange(6) * 10
    ds = TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
    assert len(ds) == 6
    for i in range(6):
        a, b = ds[i]
        np.testing.assert_array_equal(a.numpy(), x[i])
        assert b.item() == y[i]


def test_tensor_dataset_size_mismatch_names_sizes():
    with pytest.raises(ValueError, match=r"\[3, 4\]"):
        TensorDataset(torch.zeros(3), torch.zeros(4))
    with pytest.raises(ValueError, match="at least one"):
        TensorDataset()


def test_base_dataset_requires_getitem():
    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]


def test_concat_dataset_indices_and_add():
    ds = ConcatDataset([Range(0, 3), Range(10, 12), Range(20, 24)])
    expected = [0, 1, 2, 10, 11, 20, 21, 22, 23]
    assert len(ds) == 9 and ds.cumulative_sizes == [3, 5, 9]
    assert [ds[i] for i in range(9)] == expected
    assert [ds[-i] for i in range(1, 10)] == expected[::-1]
    with pytest.raises(IndexError):
        ds[9]
    with pytest.raises(IndexError):
        ds[-10]
    added = Range(0, 2) + Range(5, 6)
    assert isinstance(added, ConcatDataset) and [added[i] for i in range(3)] == [0, 1, 5]


def test_concat_dataset_rejects_empty_and_streams():
    with pytest.raises(ValueError, match="empty"):
        ConcatDataset([])
    with pytest.raises(TypeError, match="ChainDataset"):
        ConcatDataset([Stream([1])])


def test_chain_dataset_and_iterable_add():
    chained = ChainDataset([Stream([1, 2]), Stream([3])])
    assert list(chained) == [1, 2, 3] and len(chained) == 3
    assert list(Stream([1]) + Stream([2, 3])) == [1, 2, 3]
    with pytest.raises(TypeError, match="IterableDataset"):
        list(ChainDataset([Range(0, 2)]))


def test_subset_single_and_batched_indexing():
    sub = Subset(Range(100, 110), [9, 0, 4])
    assert len(sub) == 3
    assert [sub[i] for i in range(3)] == [109, 100, 104]
    assert sub.__getitems__([2, 0]) == [104, 109]
    assert sub[[1, 2]] == [100, 104]


def test_random_split_lengths_partition_the_dataset():
    ds = Range(0, 10)
    parts = random_split(ds, [3, 7], generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    got = sorted(p[i] for p in parts for i in range(len(p)))
    assert got == list(range(10))
    # the generator fixes the split; the permutation is torch.randperm's
    again = random_split(ds, [3, 7], generator=torch.Generator().manual_seed(0))
    assert [list(p.indices) for p in parts] == [list(p.indices) for p in again]
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(0)).tolist()
    assert list(parts[0].indices) == perm[:3] and list(parts[1].indices) == perm[3:]


def test_random_split_fractions_deal_out_the_remainder():
    parts = random_split(Range(0, 10), [0.25, 0.25, 0.5], generator=torch.Generator())
    # floor(2.5)=2, floor(2.5)=2, floor(5)=5: one left over goes to the first split
    assert [len(p) for p in parts] == [3, 2, 5]


def test_random_split_bad_lengths():
    with pytest.raises(ValueError, match="sum to 11"):
        random_split(Range(0, 10), [5, 6])
    with pytest.raises(ValueError, match="non-negative"):
        random_split(Range(0, 4), [5, -1])
    with pytest.raises(ValueError, match=r"fraction at index 0 is not in \[0, 1\]"):
        random_split(Range(0, 4), [2, -1])  # sums to 1: read as fractions
