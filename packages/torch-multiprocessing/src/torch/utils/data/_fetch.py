"""Turning one sampler item (an index, or a list of indices) into one batch; used in the main
process (num_workers=0) and in each worker alike."""

from torch.utils.data._collate import default_collate
from torch.utils.data.dataset import TensorDataset


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        # A dataset that can build default_collate's batch directly (TensorDataset) skips the
        # per-sample list; any other collate_fn sees the samples as usual.
        self.collated_batch = None
        plain_tensor_dataset = (
            isinstance(dataset, TensorDataset)
            and type(dataset).__getitem__ is TensorDataset.__getitem__
        )
        if auto_collation and collate_fn is default_collate and plain_tensor_dataset:
            self.collated_batch = dataset._collated_batch

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self.collated_batch is not None:
            return self.collated_batch(index)
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            data = getitems(index)
        else:
            data = [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    """``index`` only says how many samples (a list of batch_size Nones, or one None)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        data = []
        for _ in index:
            try:
                data.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def make_fetcher(dataset, iterable, auto_collation, collate_fn, drop_last):
    kind = _IterableFetcher if iterable else _MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)
