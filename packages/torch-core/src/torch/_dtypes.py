"""dtype information (finfo, iinfo) and the legacy typed tensor classes (FloatTensor, ...)."""

import builtins

from torch import _C

__all__ = [
    "finfo",
    "iinfo",
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
    "is_floating_point_dtype",
    "typename",
    "layout",
    "strided",
    "sparse_coo",
    "sparse_csr",
    "sparse_csc",
    "sparse_bsr",
    "sparse_bsc",
    "jagged",
    "_mkldnn",
]


class layout:  # noqa: N801  (PyTorch's name)
    """How a tensor's elements are laid out in memory. Every tensor here is ``torch.strided``
    (dense, with strides); the sparse layouts exist as names only."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):  # pickled by name: torch.strided loads as torch.strided itself
        return self._name

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


layout.__module__ = "torch"
strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")
_mkldnn = layout("_mkldnn")

# dtype -> (bits, eps, max, tiny (smallest normal), resolution)
_FLOAT_INFO = {
    _C.float16: (16, 2.0**-10, 65504.0, 2.0**-14, 0.001),
    _C.bfloat16: (16, 2.0**-7, (2 - 2.0**-7) * 2.0**127, 2.0**-126, 0.01),
    _C.float32: (32, 2.0**-23, (2 - 2.0**-23) * 2.0**127, 2.0**-126, 1e-06),
    _C.float64: (64, 2.0**-52, (2 - 2.0**-52) * 2.0**1023, 2.0**-1022, 1e-15),
}


class finfo:  # noqa: N801  (PyTorch's name)
    """Machine limits of a floating-point dtype: bits, eps, max, min, tiny, resolution."""

    def __init__(self, type=None):  # noqa: A002
        type = type or _C.get_default_dtype()  # noqa: A001
        if type not in _FLOAT_INFO:
            raise TypeError(f"finfo(): expected a floating-point dtype, got {type}")
        self.dtype = str(type).split(".")[1]
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FLOAT_INFO[type]
        self.min = -self.max
        self.smallest_normal = self.tiny

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution}, min={self.min:.6g}, max={self.max:.6g}, "
            f"eps={self.eps:.6g}, smallest_normal={self.tiny:.6g}, tiny={self.tiny:.6g}, "
            f"dtype={self.dtype})"
        )


_INT_BITS = {
    _C.uint8: (8, False),
    _C.int8: (8, True),
    _C.int16: (16, True),
    _C.int32: (32, True),
    _C.int64: (64, True),
    _C.bool: (8, False),
}


class iinfo:  # noqa: N801
    """Limits of an integer dtype: bits, min, max."""

    def __init__(self, type):  # noqa: A002
        if type not in _INT_BITS or type == _C.bool:
            raise TypeError(f"iinfo(): expected an integer dtype, got {type}")
        self.bits, signed = _INT_BITS[type]
        self.dtype = str(type).split(".")[1]
        self.min = -(2 ** (self.bits - 1)) if signed else 0
        self.max = 2 ** (self.bits - 1) - 1 if signed else 2**self.bits - 1

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def is_floating_point_dtype(dtype):
    """True if ``dtype`` is a floating-point dtype (float16, bfloat16, float32, float64)."""
    return dtype.is_floating_point


# ---------------------------------------------------------------- legacy typed classes
class _LegacyTensorMeta(type):
    """``torch.FloatTensor`` is a constructor and an isinstance check for float32 tensors."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype

    def __call__(cls, *args):
        from torch._creation import tensor

        if len(args) == 1 and isinstance(args[0], _C.Tensor):
            return args[0]._to_dtype(cls.dtype, False)
        if len(args) == 1 and not isinstance(args[0], builtins.int):
            if type(args[0]).__name__ == "Size":
                return _C.empty(tuple(args[0]), cls.dtype)
            return tensor(args[0], dtype=cls.dtype)
        return _C.empty(args if args else (0,), cls.dtype)

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _legacy(name, dtype):
    doc = (
        f"The legacy tensor type of {dtype}: ``{name}(*sizes)`` an uninitialised tensor, "
        f"``{name}(data)`` a tensor of ``data``, ``{name}(tensor)`` a cast; "
        f"``isinstance(t, torch.{name})`` is True for {dtype} tensors."
    )
    return _LegacyTensorMeta(name, (), {"dtype": dtype, "__module__": "torch", "__doc__": doc})


FloatTensor = _legacy("FloatTensor", _C.float32)
DoubleTensor = _legacy("DoubleTensor", _C.float64)
HalfTensor = _legacy("HalfTensor", _C.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", _C.bfloat16)
ByteTensor = _legacy("ByteTensor", _C.uint8)
CharTensor = _legacy("CharTensor", _C.int8)
ShortTensor = _legacy("ShortTensor", _C.int16)
IntTensor = _legacy("IntTensor", _C.int32)
LongTensor = _legacy("LongTensor", _C.int64)
BoolTensor = _legacy("BoolTensor", _C.bool)
_LEGACY = {
    cls.dtype: cls
    for cls in (
        FloatTensor,
        DoubleTensor,
        HalfTensor,
        BFloat16Tensor,
        ByteTensor,
        CharTensor,
        ShortTensor,
        IntTensor,
        LongTensor,
        BoolTensor,
    )
}


def legacy_type_name(dtype):
    return f"torch.{_LEGACY[dtype].__name__}"


def typename(obj, /):
    """The type of ``obj`` as a string: the legacy name of a tensor's type
    ('torch.FloatTensor'), else the qualified class name ('torch.nn.modules.linear.Linear';
    builtins unqualified)."""
    if isinstance(obj, _C.Tensor):
        return legacy_type_name(obj.dtype)
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__ or ""
    name = cls.__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def parse_type(t):
    """A dtype from a dtype, a legacy class, or a legacy name ('torch.DoubleTensor')."""
    if isinstance(t, _C.dtype):
        return t
    if isinstance(t, _LegacyTensorMeta):
        return t.dtype
    if isinstance(t, str):
        for dtype, cls in _LEGACY.items():
            if t in (f"torch.{cls.__name__}", cls.__name__):
                return dtype
    raise ValueError(f"invalid type: {t!r}")
