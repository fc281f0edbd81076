"""torch.utils.data: datasets, samplers and ``DataLoader`` (the torch-multiprocessing wheel).

``torch/utils/__init__.py`` belongs to torch-core; this wheel ships only ``torch/utils/data``
(and ``torch/utils/trainer``).
"""

from torch.utils.data._collate import default_collate, default_convert
from torch.utils.data._worker import WorkerInfo, get_worker_info
from torch.utils.data.dataloader import DataLoader
from torch.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from torch.utils.data.distributed import DistributedSampler
from torch.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
