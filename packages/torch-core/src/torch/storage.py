"""Storages: the byte buffers tensors view. ``UntypedStorage`` is the core's; the typed
classes (``FloatStorage``, ...) exist for checkpoints, whose pickles name them."""

import io

from torch import _C

UntypedStorage = _C.UntypedStorage

__all__ = ["UntypedStorage", "TypedStorage", "is_storage"]


class TypedStorage:
    """An untyped storage seen as elements of one dtype (what checkpoints refer to)."""

    dtype = None  # set by each legacy class; None for a generic TypedStorage

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None):
        if wrap_storage is None:
            size = args[0] if args else 0
            dt = dtype or type(self).dtype or _C.get_default_dtype()
            wrap_storage = UntypedStorage(size * dt.itemsize)
        self._untyped_storage = wrap_storage
        self.dtype = dtype or type(self).dtype or _C.get_default_dtype()

    def untyped(self):
        return self._untyped_storage

    def size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    __len__ = size

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        return self._untyped_storage.device

    def tolist(self):
        return _C._tensor_from_storage(
            self._untyped_storage, self.dtype, 0, (self.size(),), (1,)
        ).tolist()

    def __repr__(self):
        name = f"{type(self).__module__}.{type(self).__name__}"
        return f"{self.tolist()}\n[{name}(dtype={self.dtype}, size={self.size()})]"

    def __reduce__(self):  # plain pickle: the bytes travel inside the pickle
        return (
            _typed_storage_from_bytes,
            (bytes(memoryview(self._untyped_storage)), str(self.dtype)),
        )


def _typed_storage_from_bytes(data, dtype_name):
    import torch

    untyped = UntypedStorage(len(data))
    memoryview(untyped)[:] = data
    return TypedStorage(wrap_storage=untyped, dtype=getattr(torch, dtype_name.split(".")[-1]))


def _legacy_class(name, dtype):
    doc = f"A :class:`TypedStorage` of {dtype} elements, by the name checkpoints use for it."
    return type(name, (TypedStorage,), {"dtype": dtype, "__module__": "torch", "__doc__": doc})


# The legacy storage classes, by the names checkpoints use (torch.FloatStorage, ...).
LEGACY_CLASSES = {
    cls.dtype: cls
    for cls in (
        _legacy_class("FloatStorage", _C.float32),
        _legacy_class("DoubleStorage", _C.float64),
        _legacy_class("HalfStorage", _C.float16),
        _legacy_class("BFloat16Storage", _C.bfloat16),
        _legacy_class("ByteStorage", _C.uint8),
        _legacy_class("CharStorage", _C.int8),
        _legacy_class("ShortStorage", _C.int16),
        _legacy_class("IntStorage", _C.int32),
        _legacy_class("LongStorage", _C.int64),
        _legacy_class("BoolStorage", _C.bool),
        _legacy_class("ComplexFloatStorage", _C.complex64),
        _legacy_class("ComplexDoubleStorage", _C.complex128),
    )
}
for _cls in LEGACY_CLASSES.values():
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)
del io


def is_storage(obj, /):
    """True if ``obj`` is a storage (untyped, typed or a legacy class such as FloatStorage)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))
