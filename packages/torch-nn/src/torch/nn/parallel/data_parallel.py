"""DataParallel and data_parallel without a GPU."""

from torch.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Splits each input batch over GPUs along ``dim``, runs a replica of ``module`` on each
    and gathers the outputs on ``output_device``. Without a GPU (always, in this build) it
    is a plain wrapper: ``forward`` calls ``module`` with the same arguments and
    ``device_ids`` is ``[]``, as in PyTorch on a CPU-only machine. The wrapped module is the
    submodule ``module`` (state_dict keys ``module.weight``, ...)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []  # no GPU to replicate onto: the arguments are unused

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):  # fmt: skip
    """The functional form of :class:`DataParallel`. PyTorch's needs a GPU to determine the
    device type and raises without one; so does this one (this build has only the CPU
    backend). Call ``module(*inputs)`` directly instead."""
    raise RuntimeError(
        "device type could not be determined: data_parallel needs a GPU, and this build of "
        "torch has only the CPU backend; call the module directly"
    )
