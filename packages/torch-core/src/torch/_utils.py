"""Functions that checkpoints name in their pickles (``torch._utils._rebuild_tensor_v2``):
they rebuild tensors from storages when a checkpoint is loaded."""

import collections

from torch import _C


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor viewing a TypedStorage with the given layout."""
    return _C._tensor_from_storage(
        storage._untyped_storage, storage.dtype, storage_offset, size, stride
    )


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """nn.Parameter when torch-nn is installed, else the tensor itself."""
    try:
        from torch.nn import Parameter
    except ImportError:
        if requires_grad:
            data.requires_grad = True
        return data
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state:
        p.__dict__.update(state)
    return p


def _reduce_tensor(t):
    """``Tensor.__reduce_ex__``: the rebuild call, with the tensor's storage as a TypedStorage
    (torch.save turns it into a record of the archive; plain pickle embeds its bytes)."""
    from torch.storage import LEGACY_CLASSES

    storage = LEGACY_CLASSES[t.dtype](wrap_storage=t.untyped_storage())
    args = (
        storage,
        t.storage_offset(),
        tuple(t.shape),
        t.stride(),
        t.requires_grad,
        collections.OrderedDict(),
    )
    return (_rebuild_tensor_v2, args)
