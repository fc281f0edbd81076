"""DistributedDataParallel: needs torch.distributed, which this build does not have."""

from torch.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Data parallelism across processes, synchronising gradients through
    ``torch.distributed``'s default process group. This build has no ``torch.distributed``,
    so no process group can exist: constructing one raises ``ValueError`` (PyTorch's error
    when the default process group is not initialised), saying so. The class can be
    imported and named (``isinstance`` checks, ``from torch.nn.parallel import ...``)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, **kwargs):  # fmt: skip
        raise ValueError(
            "DistributedDataParallel needs torch.distributed's default process group "
            "(torch.distributed.init_process_group), and this build of torch has no "
            "torch.distributed: use the module itself (or nn.DataParallel, which calls it) "
            "in a single process"
        )

    def forward(self, *inputs, **kwargs):  # never reached: construction raises
        return self.module(*inputs, **kwargs)
