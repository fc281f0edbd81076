"""How tensors and storages are pickled between processes: ``reduce_X``/``rebuild_X`` pairs.

They are registered with ``multiprocessing.reduction.ForkingPickler``, the pickler behind every
Queue, Pipe, Pool and spawned Process, so any ``multiprocessing`` object carries tensors once
``torch.multiprocessing`` is imported. The pickle holds no data: the storage is moved to shared
memory (once) and the receiver maps the same memory, so writes on either side are seen by both.
The registry matches exact types, hence one registration per class; other Tensor subclasses fall
back to ``Tensor.__reduce_ex__``, whose TypedStorage goes through :func:`reduce_typed_storage`.
"""

import weakref
from multiprocessing.reduction import ForkingPickler

import torch
from torch.storage import LEGACY_CLASSES, TypedStorage

from . import _shared_memory


def rebuild_storage(handle):
    return _shared_memory.attach(handle)[0]


def reduce_storage(storage):
    return (rebuild_storage, (_shared_memory.handle(storage),))


def rebuild_typed_storage(handle, dtype, legacy):
    untyped = rebuild_storage(handle)
    if legacy:
        return LEGACY_CLASSES[dtype](wrap_storage=untyped)
    return TypedStorage(wrap_storage=untyped, dtype=dtype)


def reduce_typed_storage(storage):
    legacy = type(storage) is not TypedStorage
    handle = _shared_memory.handle(storage.untyped())
    return (rebuild_typed_storage, (handle, storage.dtype, legacy))


def rebuild_tensor(cls, handle, dtype, offset, size, stride, requires_grad):
    storage, entry = _shared_memory.attach(handle)
    tensor = torch._C._tensor_from_storage(storage, dtype, offset, size, stride)
    if entry.tensor is None or entry.tensor() is None:
        entry.tensor = weakref.ref(tensor)  # later arrivals reuse this tensor's storage
    if cls is not torch.Tensor:  # nn.Parameter
        return cls(tensor, requires_grad=requires_grad)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "torch.multiprocessing: cannot send a tensor that requires grad and is not a leaf "
            "(its autograd graph cannot cross processes); send tensor.detach() instead, or "
            "make it a leaf with tensor.detach().requires_grad_()"
        )
    handle = _shared_memory.handle(tensor.untyped_storage(), tensor)
    args = (
        type(tensor),
        handle,
        tensor.dtype,
        tensor.storage_offset(),
        tuple(tensor.shape),
        tensor.stride(),
        tensor.requires_grad,
    )
    return (rebuild_tensor, args)


def init_reductions():
    """Register the reductions with ForkingPickler (done when torch.multiprocessing is imported)."""
    ForkingPickler.register(torch.Tensor, reduce_tensor)
    ForkingPickler.register(torch.UntypedStorage, reduce_storage)
    ForkingPickler.register(TypedStorage, reduce_typed_storage)
    for cls in LEGACY_CLASSES.values():
        ForkingPickler.register(cls, reduce_typed_storage)
    try:
        from torch.nn import Parameter
    except ImportError:  # torch-nn is not installed: no Parameters to send
        return
    ForkingPickler.register(Parameter, reduce_tensor)
