"""RandomSampler with replacement draws as iteration proceeds, so the "endless sampler"
idiom ``RandomSampler(ds, replacement=True, num_samples=int(1e10))`` starts at once (PyTorch
draws such indices in small chunks; drawing all 10**10 up front needs 80 GB)."""

import itertools
import time

import numpy as np
import pytest

import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

ENDLESS = int(1e10)


def test_endless_sampler_starts_at_once_and_stays_in_range():
    dataset = TensorDataset(torch.arange(1000.0))
    start = time.perf_counter()
    sampler = RandomSampler(dataset, replacement=True, num_samples=ENDLESS)
    drawn = list(itertools.islice(sampler, 5000))  # crosses several chunk boundaries
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    batches = list(itertools.islice(loader, 10))
    elapsed = time.perf_counter() - start
    assert elapsed < 5.0  # drawing 10**10 indices up front takes minutes (or fails)
    assert len(sampler) == ENDLESS and len(loader) == -(-ENDLESS // 64)
    assert len(drawn) == 5000 and all(isinstance(i, int) for i in drawn)
    assert 0 <= min(drawn) and max(drawn) < 1000
    assert len(batches) == 10 and all(b[0].shape == (64,) for b in batches)
    values = torch.cat([b[0] for b in batches])
    assert bool(((values >= 0) & (values < 1000)).all())


def test_draws_are_uniform_across_chunks():
    # chi-square goodness of fit against the uniform law over 50 indices: with 49 degrees
    # of freedom the statistic lies in [23.98, 85.35] with probability 0.998
    # (scipy.stats.chi2.ppf(0.001, 49), .ppf(0.999, 49)); the seed keeps the test fixed
    n, draws = 50, 100_000
    sampler = RandomSampler(
        range(n), replacement=True, num_samples=ENDLESS, generator=torch.Generator().manual_seed(7)
    )
    counts = np.bincount(list(itertools.islice(sampler, draws)), minlength=n)
    expected = draws / n
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert 23.98 < chi2 < 85.35, chi2


@pytest.mark.parametrize("num_samples", [1, 1023, 1024, 1025, 2500])
def test_exactly_num_samples(num_samples):
    sampler = RandomSampler(range(7), replacement=True, num_samples=num_samples)
    drawn = list(sampler)
    assert len(drawn) == num_samples == len(sampler) and set(drawn) <= set(range(7))


def test_same_generator_seed_same_indices_new_ones_each_epoch():
    def make():
        return RandomSampler(
            range(100),
            replacement=True,
            num_samples=ENDLESS,
            generator=torch.Generator().manual_seed(3),
        )

    first = list(itertools.islice(make(), 3000))
    assert list(itertools.islice(make(), 3000)) == first
    sampler = make()
    epoch1 = list(itertools.islice(sampler, 3000))
    epoch2 = list(itertools.islice(sampler, 3000))
    assert epoch1 == first and epoch2 != epoch1


def test_without_generator_the_global_seed_decides():
    torch.manual_seed(11)
    a = list(itertools.islice(RandomSampler(range(9), replacement=True, num_samples=ENDLESS), 2000))
    torch.manual_seed(11)
    b = list(itertools.islice(RandomSampler(range(9), replacement=True, num_samples=ENDLESS), 2000))
    assert a == b
