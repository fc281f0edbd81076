"""DistributedSampler: the share of a dataset that one process of a distributed job reads."""

import torch.utils.data.sampler as _sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(_sampler.DistributedSampler):
    """The indices that replica ``rank`` of ``num_replicas`` reads, so that the replicas of
    a ``DistributedDataParallel`` job together read the dataset once per epoch.

    ``num_replicas`` and ``rank`` default to the world size and rank of the default
    ``torch.distributed`` process group (call ``init_process_group`` first, or give both).
    The order is ``range(len(dataset))``, or with ``shuffle`` a permutation drawn from a
    generator seeded with ``seed + epoch`` (the same on every replica: call
    ``set_epoch(epoch)`` before each epoch). Without ``drop_last`` the order is padded by
    repeating its beginning to a multiple of ``num_replicas`` (every replica gets
    ``ceil(len / num_replicas)`` indices); with it the tail is dropped (``floor``). Replica
    ``rank`` takes every ``num_replicas``-th index starting at ``rank``.
    """

    def __init__(
        self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False
    ):
        if num_replicas is None or rank is None:
            try:
                import torch.distributed as dist
            except ImportError:
                dist = None
            if dist is None or not dist.is_initialized():
                raise ValueError(
                    "DistributedSampler: give num_replicas and rank, or call "
                    "torch.distributed.init_process_group first (its default process group "
                    "provides them; torch.distributed is the torch-distributed package)"
                )
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if not 0 <= rank < num_replicas:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        super().__init__(dataset, num_replicas, rank, shuffle, seed, drop_last)
