"""Memory formats: the order in which a tensor's elements lie in memory.

A tensor keeps its logical shape (N, C, H, W) whatever its format; the format is only its
strides. ``torch.contiguous_format`` is row-major order (W fastest), ``torch.channels_last``
puts C fastest, then W, H and N (NHWC in memory: strides ``(H*W*C, 1, W*C, C)``), and
``torch.channels_last_3d`` does the same for 5-D (N, C, D, H, W) tensors (NDHWC).
``torch.preserve_format`` asks an op to keep its input's layout. The Tensor methods and the
creation functions that take ``memory_format=`` (torch._tensor, torch._creation) use the stride
arithmetic here.
"""

from torch import _C

__all__ = [
    "memory_format",
    "contiguous_format",
    "channels_last",
    "channels_last_3d",
    "preserve_format",
]


class memory_format:
    """The type of ``torch.contiguous_format``, ``torch.channels_last``,
    ``torch.channels_last_3d`` and ``torch.preserve_format``, its only four values."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.memory_format' instances")

    def __setattr__(self, name, value):
        raise AttributeError("'torch.memory_format' object is read-only")

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):  # pickled by name: torch.<name> is the one instance
        return self._name


memory_format.__module__ = "torch"


def _make(name):
    fmt = object.__new__(memory_format)
    object.__setattr__(fmt, "_name", name)
    return fmt


contiguous_format = _make("contiguous_format")
channels_last = _make("channels_last")
channels_last_3d = _make("channels_last_3d")
preserve_format = _make("preserve_format")

# The dims of the channels-last formats from the fastest to the slowest: C, the spatial dims
# from the last to the first, N.
_ORDER = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}


def check(fmt, op, optional=True):
    """``fmt`` as ``op`` was given it: a memory_format, or None (preserve_format) where the
    argument is optional; anything else raises TypeError as PyTorch does."""
    if fmt is None and optional:
        return preserve_format
    if not isinstance(fmt, memory_format):
        raise TypeError(
            f"{op}(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(fmt).__name__}"
        )
    return fmt


def contiguous_strides(shape):
    """Row-major strides (a size-0 dim counts as 1, as in PyTorch)."""
    strides, step = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def channels_last_strides(shape, fmt=channels_last):
    """NHWC (or NDHWC) strides of an NCHW (NCDHW) shape: ``(H*W*C, 1, W*C, C)`` for 4-D. Raises
    for a tensor of another rank."""
    order = _ORDER[fmt]
    if len(shape) != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {fmt._name} format")
    strides, step = [0] * len(shape), 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_contiguous(t, fmt):
    """``t.is_contiguous(memory_format=fmt)``: for the channels-last formats, whether the dims
    of size other than 1 have exactly the NHWC (NDHWC) strides (False at another rank)."""
    order = _ORDER.get(fmt)
    if order is None:  # contiguous_format, preserve_format: plain contiguity
        return t.is_contiguous()
    if t.dim() != len(order):
        return False
    shape, strides = t.shape, t.stride()
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _strides_like(shape, strides, order):
    """Whether the strides order the dims as ``order`` does (fastest first), PyTorch's test
    for what format a tensor "looks like" (ambiguous cases count as contiguous)."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:  # N111-like: take it for contiguous
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest(t):
    """The format ``t``'s strides look like: channels_last(_3d) or contiguous_format."""
    n = t.dim()
    if n in (4, 5):
        fmt = channels_last if n == 4 else channels_last_3d
        if _strides_like(t.shape, t.stride(), _ORDER[fmt]):
            return fmt
    return contiguous_format


def is_dense(shape, strides):
    """Non-overlapping and dense: some order of the dims gives exactly row-major strides
    (dims of size 0 or 1 do not count)."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    expected = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d]):
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def dense_strides(shape, strides):
    """Dense strides that order the dims as ``strides`` do (PyTorch's stride inference:
    zero strides are ambiguous and keep their place; equal strides put the smaller dim
    first)."""
    n = len(shape)
    perm = list(range(n - 1, -1, -1))  # fastest first

    def after(a, b):  # 1: a goes after b, -1: before, 0: either
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return 1 if strides[a] > strides[b] else -1
        return 1 if shape[a] > shape[b] else 0

    for i in range(1, n):  # insertion sort that moves dims past ambiguous ones
        cur = i
        for j in range(i - 1, -1, -1):
            c = after(perm[j], perm[cur])
            if c > 0:
                perm[j], perm[cur] = perm[cur], perm[j]
                cur = j
            elif c < 0:
                break
    out, step = [0] * n, 1
    for d in perm:
        out[d] = step
        if shape[d] > 1:
            step *= shape[d]
    return tuple(out)


def target_strides(t, fmt):
    """The strides a copy of ``t`` in format ``fmt`` has: preserve_format keeps dense strides
    and makes others dense in the same order."""
    shape = tuple(t.shape)
    if fmt is preserve_format:
        strides = t.stride()
        if (
            t.is_contiguous()  # (True for any strides of no elements)
            or is_contiguous(t, channels_last)
            or is_contiguous(t, channels_last_3d)
            or is_dense(shape, strides)
        ):
            return strides
        return dense_strides(shape, strides)
    if fmt is contiguous_format:
        return contiguous_strides(shape)
    return channels_last_strides(shape, fmt)


def restride_(t, strides):
    """Gives ``t``, a new tensor of ``t.numel()`` elements that fill its storage, the dense
    ``strides`` in place (the same elements, seen in another order). Returns ``t``."""
    if t.stride() != strides:
        _C._set_storage(t, t.untyped_storage(), t.storage_offset(), tuple(t.shape), strides)
    return t


def empty_strided(shape, strides, dtype, device):
    """A new uninitialised tensor with dense ``strides`` (not a view of another one)."""
    return restride_(_C.empty(tuple(shape), dtype, device), tuple(strides))


def copy(t, fmt, dtype=None):
    """A copy of ``t`` (cast to ``dtype``) in format ``fmt``, differentiable (``copy_``)."""
    out = empty_strided(t.shape, target_strides(t, fmt), dtype or t.dtype, t.device)
    return out.copy_(t)


def like(t, input, fmt, op):
    """For the ``*_like`` functions: ``t``, their new contiguous result shaped like ``input``
    (every element drawn alike: uninitialised, one value, or independent samples), laid out
    as ``fmt`` (preserve_format by default) asks for ``input``."""
    if fmt is None or fmt is preserve_format:
        if input.is_contiguous():  # (t is contiguous too)
            return t
        fmt = preserve_format
    elif check(fmt, op) is contiguous_format:
        return t
    return restride_(t, target_strides(input, fmt))


def empty(t, fmt):
    """For ``torch.empty(..., memory_format=fmt)``: ``t``, new and contiguous, in ``fmt``."""
    if fmt is None or fmt is contiguous_format:
        return t
    if check(fmt, "empty") is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return restride_(t, channels_last_strides(tuple(t.shape), fmt))
