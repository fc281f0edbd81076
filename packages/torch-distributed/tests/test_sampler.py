"""DistributedSampler (torch.utils.data.distributed): PyTorch's partitions."""

import math

import pytest

import torch
from torch.utils.data import DistributedSampler
from torch.utils.data.distributed import DistributedSampler as FromModule


def reference(n, replicas, rank, shuffle, seed, epoch, drop_last):
    """PyTorch's documented algorithm, written out."""
    if shuffle:
        g = torch.Generator()
        g.manual_seed(seed + epoch)
        indices = torch.randperm(n, generator=g).tolist()
    else:
        indices = list(range(n))
    if drop_last and n % replicas:
        per = math.ceil((n - replicas) / replicas)
    else:
        per = math.ceil(n / replicas)
    total = per * replicas
    if not drop_last:
        pad = total - len(indices)
        if pad <= len(indices):
            indices += indices[:pad]
        else:
            indices += (indices * math.ceil(pad / len(indices)))[:pad]
    else:
        indices = indices[:total]
    return indices[rank:total:replicas]


def test_exported_from_torch_utils_data():
    assert DistributedSampler is FromModule


@pytest.mark.parametrize("n", [1, 7, 10, 12])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
def test_partitions(n, replicas, shuffle, drop_last):
    data = list(range(n))
    for epoch in (0, 3):
        parts = []
        for rank in range(replicas):
            s = DistributedSampler(data, replicas, rank, shuffle, seed=5, drop_last=drop_last)
            s.set_epoch(epoch)
            got = list(s)
            assert got == reference(n, replicas, rank, shuffle, 5, epoch, drop_last)
            assert len(got) == len(s)
            parts.append(got)
        covered = sorted(i for p in parts for i in p)
        if not drop_last:
            assert set(covered) == set(data)


def test_epochs_reshuffle():
    s = DistributedSampler(list(range(100)), 2, 0)
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first


def test_bad_rank_and_missing_group():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="init_process_group"):
        DistributedSampler(range(4))
