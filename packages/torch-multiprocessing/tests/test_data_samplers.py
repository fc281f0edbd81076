"""Samplers: each yields what its definition says (checked with counters and plain Python)."""

from collections import Counter

import numpy as np
import pytest

import torch
from torch.utils.data import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

DATA = list(range(10))


def test_sequential():
    assert list(SequentialSampler(DATA)) == DATA and len(SequentialSampler(DATA)) == 10


def test_random_is_a_permutation_new_each_epoch_and_seeded_by_generator():
    sampler = RandomSampler(DATA, generator=torch.Generator().manual_seed(1))
    first, second = list(sampler), list(sampler)
    assert sorted(first) == DATA and sorted(second) == DATA and first != second
    same = RandomSampler(DATA, generator=torch.Generator().manual_seed(1))
    assert list(same) == first
    torch.manual_seed(5)
    a = list(RandomSampler(DATA))
    torch.manual_seed(5)
    assert list(RandomSampler(DATA)) == a  # without a generator: the global seed decides


def test_random_num_samples_without_replacement_concatenates_permutations():
    drawn = list(RandomSampler(DATA, num_samples=25, generator=torch.Generator()))
    assert len(drawn) == 25
    assert sorted(drawn[:10]) == DATA and sorted(drawn[10:20]) == DATA
    assert len(set(drawn[20:])) == 5


def test_random_with_replacement_draws_uniformly():
    sampler = RandomSampler(
        DATA, replacement=True, num_samples=20000, generator=torch.Generator().manual_seed(0)
    )
    counts = Counter(sampler)
    assert len(sampler) == 20000 and set(counts) <= set(DATA)
    assert all(abs(c / 20000 - 0.1) < 0.015 for c in counts.values())


@pytest.mark.parametrize(
    "kwargs, match",
    [({"num_samples": 0}, "num_samples"), ({"replacement": 1}, "replacement")],
)
def test_random_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RandomSampler(DATA, **kwargs)


def test_subset_random_permutes_the_given_indices():
    indices = [3, 7, 11, 20]
    sampler = SubsetRandomSampler(indices, generator=torch.Generator().manual_seed(0))
    drawn = list(sampler)
    assert sorted(drawn) == indices and len(sampler) == 4


def test_weighted_random_follows_the_weights():
    weights = [0.0, 1.0, 3.0]
    sampler = WeightedRandomSampler(weights, 40000, generator=torch.Generator().manual_seed(0))
    counts = Counter(sampler)
    assert counts[0] == 0
    np.testing.assert_allclose(counts[2] / 40000, 0.75, atol=0.015)
    no_repeat = list(WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False))
    assert sorted(no_repeat) == [0, 1, 2, 3]


def test_weighted_random_bad_arguments():
    with pytest.raises(ValueError, match="num_samples"):
        WeightedRandomSampler([1.0], -1)
    with pytest.raises(ValueError, match="1-D"):
        WeightedRandomSampler([[1.0, 2.0]], 2)


@pytest.mark.parametrize("drop_last, expected", [(False, 4), (True, 3)])
def test_batch_sampler_groups(drop_last, expected):
    sampler = BatchSampler(SequentialSampler(DATA), 3, drop_last)
    batches = list(sampler)
    assert len(sampler) == expected == len(batches)
    assert batches[:3] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    if not drop_last:
        assert batches[3] == [9]


@pytest.mark.parametrize("batch_size", [0, -2, 2.5, True])
def test_batch_sampler_bad_batch_size(batch_size):
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(DATA, batch_size, False)


def test_distributed_partitions_and_pads():
    data = list(range(10))
    parts = [list(DistributedSampler(data, 3, r, shuffle=False)) for r in range(3)]
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded from the start
    dropped = [list(DistributedSampler(data, 3, r, shuffle=False, drop_last=True)) for r in (0, 1)]
    assert dropped == [[0, 3, 6], [1, 4, 7]]


def test_distributed_shuffle_uses_seed_plus_epoch():
    data = list(range(8))
    samplers = [DistributedSampler(data, 2, r, seed=3) for r in range(2)]
    epoch0 = [list(s) for s in samplers]
    assert sorted(epoch0[0] + epoch0[1]) == data
    perm = torch.randperm(8, generator=torch.Generator().manual_seed(3)).tolist()
    assert epoch0[0] == perm[0::2]
    for s in samplers:
        s.set_epoch(1)
    perm1 = torch.randperm(8, generator=torch.Generator().manual_seed(4)).tolist()
    assert list(samplers[1]) == perm1[1::2]


def test_distributed_bad_arguments():
    with pytest.raises(ValueError, match="num_replicas and rank"):
        DistributedSampler(DATA)
    with pytest.raises(ValueError, match="rank 2"):
        DistributedSampler(DATA, num_replicas=2, rank=2)
