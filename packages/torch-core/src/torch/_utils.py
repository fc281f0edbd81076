"""Functions that checkpoints name in their pickles (``torch._utils._rebuild_tensor_v2``):
they rebuild tensors from storages when a checkpoint is loaded.

Their arguments come from a file, so they are checked here, with Python ints, before any
tensor exists: a storage that is a real storage, an offset, sizes and strides that are
non-negative ints whose element count fits int64 and whose furthest element lies inside
the storage, a bool ``requires_grad``, and hooks/metadata/state of the types PyTorch writes.
A failed check is a RuntimeError that names the problem."""

import collections

from torch import _C

_INT64_MAX = (1 << 63) - 1


def _check_layout(storage, storage_offset, size, stride):
    """Checks that a tensor of this layout stays inside ``storage`` (a TypedStorage)."""
    from torch.storage import TypedStorage, UntypedStorage

    if not isinstance(storage, TypedStorage) or not isinstance(
        getattr(storage, "_untyped_storage", None), UntypedStorage
    ):
        raise RuntimeError(f"_rebuild_tensor: expected a storage, got {type(storage).__name__}")
    if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)):
        raise RuntimeError(
            "_rebuild_tensor: size and stride must be tuples, got "
            f"{type(size).__name__} and {type(stride).__name__}"
        )
    if not all(isinstance(n, int) for n in (storage_offset, *size, *stride)):
        raise RuntimeError("_rebuild_tensor: storage offset, sizes and strides must be ints")
    if len(size) != len(stride):
        raise RuntimeError(f"_rebuild_tensor: {len(size)} sizes but {len(stride)} strides")
    shape = f"sizes {_ints(size)}, strides {_ints(stride)} and storage offset {storage_offset}"
    if storage_offset < 0 or any(n < 0 for n in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"_rebuild_tensor: negative values in {shape}")
    numel = 1
    for n in size:  # in order, as an int64 count would overflow
        numel *= n
        if numel > _INT64_MAX:
            raise RuntimeError(f"_rebuild_tensor: {shape}: numel: integer multiplication overflow")
    itemsize = storage.dtype.itemsize
    nbytes = storage._untyped_storage.nbytes()
    if storage_offset * itemsize > _INT64_MAX:
        raise RuntimeError(f"_rebuild_tensor: {shape}: storage offset overflows int64 in bytes")
    if numel == 0:  # no element is ever read (like PyTorch, the offset is not bounded)
        return
    end = (storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * itemsize
    if end > _INT64_MAX:
        raise RuntimeError(f"_rebuild_tensor: {shape}: storage size calculation overflowed")
    if end > nbytes:
        raise RuntimeError(
            f"_rebuild_tensor: {shape} reach byte {end} of a storage of {nbytes} bytes "
            f"({storage.dtype}): out of bounds"
        )


def _ints(values):
    text = ", ".join(str(v) for v in values[:8])
    return f"[{text}{', ...' if len(values) > 8 else ''}]"


def _check_requires_grad(requires_grad):
    if type(requires_grad) is not bool:
        raise RuntimeError(
            f"_rebuild_tensor: requires_grad must be a bool, got {type(requires_grad).__name__}"
        )


def _check_optional_dict(value, what):
    if value is not None and not isinstance(value, dict):
        raise RuntimeError(
            f"_rebuild_tensor: {what} must be a dict or None, got {type(value).__name__}"
        )


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor viewing a TypedStorage with the given layout (checked first)."""
    _check_layout(storage, storage_offset, size, stride)
    return _C._tensor_from_storage(
        storage._untyped_storage, storage.dtype, storage_offset, tuple(size), tuple(stride)
    )


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    # Hooks are never restored (PyTorch writes an empty OrderedDict); metadata is ignored.
    _check_requires_grad(requires_grad)
    _check_optional_dict(backward_hooks, "backward_hooks")
    _check_optional_dict(metadata, "metadata")
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_sparse_tensor(layout, data):
    """A sparse tensor (COO or CSR) from its layout and parts, as PyTorch pickles it; every
    invariant is checked, so nothing from a file may index out of bounds."""
    from torch._sparse import _rebuild

    return _rebuild(layout, data)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """nn.Parameter when torch-nn is installed, else the tensor itself."""
    if not isinstance(data, _C.Tensor):
        raise RuntimeError(f"_rebuild_parameter: expected a tensor, got {type(data).__name__}")
    _check_requires_grad(requires_grad)
    _check_optional_dict(backward_hooks, "backward_hooks")
    try:
        from torch.nn import Parameter
    except ImportError:
        if requires_grad:
            data.requires_grad = True
        return data
    return Parameter(data, requires_grad)


_TENSOR_STATE = {"data", "grad", "requires_grad", "grad_fn", "is_leaf", "shape", "dtype", "device"}


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """A Parameter with extra attributes: ``state`` is their dict, or PyTorch's
    ``(dict, slots)`` pair; only plain attribute names are set."""
    parts = state if type(state) is tuple and len(state) == 2 else (state, None)
    for part in parts:
        if part is not None and not (
            isinstance(part, dict) and all(type(k) is str and not k.startswith("__") for k in part)
        ):
            raise RuntimeError(
                "_rebuild_parameter_with_state: state must be a dict of attribute names"
            )
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    if parts[0]:
        p.__dict__.update(parts[0])
    for name, value in (parts[1] or {}).items():
        # a property (data, grad, ...) is not a file's to set, whichever packages are installed
        if hasattr(type(p), name) or name in _TENSOR_STATE:
            raise RuntimeError(f"_rebuild_parameter_with_state: may not set '{name}'")
        setattr(p, name, value)
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
