"""Shape ops: joining (cat, stack), splitting (split, chunk, unbind), repeating, flipping,
rolling, triangles and diagonals, and broadcasting helpers.

cat, flip, roll, tril/triu and repeat_interleave run compiled kernels (csrc/shape.cpp); the
rest compose views (narrow, expand, permute, diagonal) with at most one copy, as PyTorch's
results are views exactly where these are.
"""

import builtins
import math
import warnings

from torch import _C
from torch._checks import check_given, numpy_dim, write_out
from torch._checks import wrap_dim as _wrap
from torch._functional import broadcast_shapes
from torch._tensor import tensor_method

Tensor = _C.Tensor

__all__ = [
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "row_stack",
    "column_stack", "atleast_1d", "atleast_2d", "atleast_3d", "split", "chunk",
    "tensor_split", "hsplit", "vsplit", "dsplit", "unbind", "unflatten", "repeat_interleave",
    "tile", "flip", "fliplr", "flipud", "roll", "rot90", "tril", "triu", "tril_indices",
    "triu_indices", "diag", "diag_embed", "outer", "ger", "kron", "movedim", "moveaxis",
    "meshgrid", "broadcast_to", "broadcast_tensors", "cartesian_prod", "diagflat",
    "slice_scatter", "select_scatter", "diagonal_scatter", "unravel_index",
]  # fmt: skip


def _ints(value):
    return (value,) if isinstance(value, builtins.int) else tuple(value)


def _varargs(args, op):
    """f(a, b, c) or f((a, b, c)): the arguments as one tuple."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return args


def _check_list(tensors, op):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(
            f"{op}(): argument 'tensors' must be a tuple or list of Tensors, "
            f"not {type(tensors).__name__}"
        )


# ---------------------------------------------------------------- joining
def cat(tensors, dim=0, *, out=None, axis=None):
    """Concatenates tensors along an existing dim: their dtypes promote, their other sizes
    must match, and 1-D tensors with no elements are skipped."""
    if axis is not None:  # NumPy's axis= for dim=, as in PyTorch
        dim = numpy_dim("cat", dim, axis, 0)
    return _C.cat(tensors, dim, out=out)


def concatenate(tensors, axis=0, out=None, *, dim=None):
    """Alias of :func:`cat` with NumPy's ``axis`` name."""
    return cat(tensors, axis if dim is None else dim, out=out)


concat = concatenate


def stack(tensors, dim=0, *, out=None, axis=None):
    """Joins tensors of one shape along a new dim ``dim`` (in [-ndim - 1, ndim])."""
    _check_list(tensors, "stack")
    if axis is not None:  # NumPy's axis= for dim=, as in PyTorch
        dim = numpy_dim("stack", dim, axis, 0)
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(t.shape)} at entry {i}"
            )
    dim = _wrap(dim, len(shape) + 1, "stack")
    unsqueezed = _Stacked([t.unsqueeze(dim) for t in tensors])
    unsqueezed.inputs = tensors
    return cat(unsqueezed, dim, out=out)


class _Stacked(list):
    """stack's inputs, each unsqueezed, as the list handed to cat; ``inputs`` holds the
    tensors given, so that torch-autograd records the node PyTorch records for a stack
    (``StackBackward0``, linked to those tensors rather than to their unsqueezed views)."""

    __slots__ = ("inputs",)


def atleast_1d(*tensors):
    """Each tensor with at least one dim: 0-dim tensors become shape (1,). One tensor in, one out;
    several (or a list) in, a tuple out."""
    ts = tuple(t.reshape(1) if t.dim() == 0 else t for t in _varargs(tensors, "atleast_1d"))
    return ts[0] if len(tensors) == 1 and isinstance(tensors[0], Tensor) else ts


def atleast_2d(*tensors):
    """Each tensor with at least two dims: 0-dim become (1, 1), 1-dim (n,) become (1, n). One tensor
    in, one out; several (or a list) in, a tuple out."""
    ts = tuple(t.reshape(1, -1) if t.dim() < 2 else t for t in _varargs(tensors, "atleast_2d"))
    return ts[0] if len(tensors) == 1 and isinstance(tensors[0], Tensor) else ts


def atleast_3d(*tensors):
    """Each tensor with at least three dims: 0-dim become (1, 1, 1), (n,) becomes (1, n, 1), (m, n)
    becomes (m, n, 1). One tensor in, one out; several (or a list) in, a tuple out."""

    def lift(t):
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.reshape(1, -1, 1)
        return t.unsqueeze(-1) if t.dim() == 2 else t

    ts = tuple(lift(t) for t in _varargs(tensors, "atleast_3d"))
    return ts[0] if len(tensors) == 1 and isinstance(tensors[0], Tensor) else ts


def hstack(tensors, *, out=None):
    """Columns side by side: cat along dim 1 (dim 0 for 1-D tensors)."""
    _check_list(tensors, "hstack")
    ts = atleast_1d(tuple(tensors))
    return cat(ts, 0 if ts and ts[0].dim() == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """Rows on top of each other: cat along dim 0 of the tensors made at least 2-D."""
    _check_list(tensors, "vstack")
    return cat(atleast_2d(tuple(tensors)), 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    """Depth-wise: cat along dim 2 of the tensors made at least 3-D."""
    _check_list(tensors, "dstack")
    return cat(atleast_3d(tuple(tensors)), 2, out=out)


def column_stack(tensors, *, out=None):
    """Stacks ``tensors`` as columns: 0-dim and 1-dim tensors become ``(n, 1)`` columns, the rest
    are concatenated along dim 1."""
    _check_list(tensors, "column_stack")
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors]
    return cat(ts, 1, out=out)


# ---------------------------------------------------------------- splitting (views)
def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or pieces of the
    listed sizes, which must add up to the dim's size. The pieces are views."""
    d = _wrap(dim, tensor.dim(), "split")
    if tensor.dim() == 0:
        raise RuntimeError("split: expected a tensor with at least one dimension, got a 0-d one")
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, (builtins.int, Tensor)) and not isinstance(
        split_size_or_sections, builtins.bool
    ):
        size = builtins.int(split_size_or_sections)
        if size < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={size}"
            )
        if size == 0:
            if n != 0:
                raise RuntimeError(
                    "split_size can only be 0 if dimension size is 0, but got dimension size "
                    f"of {n}"
                )
            return (tensor.narrow(d, 0, 0),)
        _check_pieces(n // size, "split")
        sizes = [size] * (n // size) + ([n % size] if n % size or n == 0 else [])
    else:
        sizes = [builtins.int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes) or builtins.sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
    pieces, start = [], 0
    for s in sizes:
        pieces.append(tensor.narrow(d, start, s))
        start += s
    return tuple(pieces)


_MAX_PIECES = 2**24  # views one split may return: more is a forged count, not a real program


def _check_pieces(count, op):
    if count > _MAX_PIECES:
        raise RuntimeError(
            f"{op}: cannot return {count} views (at most {_MAX_PIECES}; out of memory)"
        )


def chunk(input, chunks, dim=0, *, axis=None):
    """At most ``chunks`` views of equal size (the last may be smaller) along ``dim``."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("chunk", dim, axis, 0)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap(dim, input.dim(), "chunk")
    n = input.shape[d] if input.dim() else 1
    if n == 0:
        _check_pieces(chunks, "chunk")
        return tuple(input.narrow(d, 0, 0) for _ in range(chunks))
    return split(input, -(-n // chunks), d)


def tensor_split(input, indices_or_sections, dim=0, *, axis=None):
    """``sections`` views of sizes differing by at most one, or views between the given
    indices (clamped to the dim, so pieces may be empty)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("tensor_split", dim, axis, 0)
    d = _wrap(dim, input.dim(), "tensor_split")
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a 0-d")
    n = input.shape[d]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        if spec.dtype != _C.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                f"got {spec.dtype}"
            )
        if spec.dim() > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {spec.dim()} dims"
            )
        spec = spec.item() if spec.dim() == 0 else spec.tolist()
    if isinstance(spec, builtins.int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        _check_pieces(spec, "tensor_split")
        small, extra = divmod(n, spec)
        bounds = [0]
        for i in range(spec):
            bounds.append(bounds[-1] + small + (1 if i < extra else 0))
    else:
        # indices count from the end when negative, as in slicing, and are clamped to the dim
        inner = [builtins.int(i) + n if builtins.int(i) < 0 else builtins.int(i) for i in spec]
        bounds = [0] + [builtins.min(builtins.max(i, 0), n) for i in inner] + [n]
    return tuple(
        input.narrow(d, a, builtins.max(b - a, 0)) for a, b in zip(bounds[:-1], bounds[1:])
    )


def _split_fn(name, dim, min_dim):
    def fn(input, indices_or_sections):
        if input.dim() < min_dim:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {min_dim} dimension(s), but got "
                f"a tensor with {input.dim()} dimensions"
            )
        d = 0 if name == "hsplit" and input.dim() == 1 else dim
        if isinstance(indices_or_sections, builtins.int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {d}, but the size of the "
                f"dimension {input.shape[d]} is not divisible by the split_size "
                f"{indices_or_sections}!"
            )
        return tensor_split(input, indices_or_sections, d)

    fn.__name__ = name
    where = "dim 1 (dim 0 of a 1-dim tensor)" if name == "hsplit" else f"dim {dim}"
    fn.__doc__ = (
        f"Splits a tensor with at least {min_dim} dim(s) along {where} into a tuple of views: "
        "``indices_or_sections`` equal parts (an int that divides the size) or the parts "
        "between the given indices."
    )
    return fn


hsplit = _split_fn("hsplit", 1, 1)
vsplit = _split_fn("vsplit", 0, 2)
dsplit = _split_fn("dsplit", 2, 3)


def unbind(input, dim=0, *, axis=None):
    """The slices along ``dim``, as a tuple of views."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("unbind", dim, axis, 0)
    d = _wrap(dim, input.dim(), "unbind")
    if input.dim() == 0:
        raise IndexError("unbind: a 0-d tensor has no dimension to unbind")
    return tuple(input.select(d, i) for i in range(input.shape[d]))


def unflatten(input, dim=None, sizes=None, *, axis=None):
    """Splits dim ``dim`` into ``sizes`` (one of them may be -1)."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None:
        dim = numpy_dim("unflatten", dim, axis, required=True)
        check_given("unflatten", sizes=sizes)
    d = _wrap(dim, input.dim(), "unflatten")
    sizes = list(_ints(sizes))
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d] if input.dim() else 1
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred (-1)")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(
                f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {d} "
                f"({n}) in the input tensor"
            )
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise RuntimeError(
            f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {d} ({n}) "
            "in the input tensor"
        )
    shape = list(input.shape)
    return input.reshape(shape[:d] + sizes + shape[d + 1 :])


# ---------------------------------------------------------------- repeating
def _repeat(self, *sizes, repeats=None):
    """Tiles the tensor ``sizes[i]`` times along each dim (leading new dims allowed)."""
    reps = _ints(_varargs(sizes, "repeat") if repeats is None else repeats)
    if len(reps) < self.dim():
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            f"of tensor (repeat dims {list(reps)}, tensor shape {list(self.shape)})"
        )
    if any(r < 0 for r in reps):
        raise RuntimeError(f"repeat: repeats must be non-negative, got {list(reps)}")
    shape = (1,) * (len(reps) - self.dim()) + tuple(self.shape)
    x = self.reshape(shape)
    for i in range(len(shape) - 1, -1, -1):  # [s0, s1] -> [1, s0, 1, s1]
        x = x.unsqueeze(i)
    expanded = [v for r, s in zip(reps, shape) for v in (r, s)]
    result = _C.empty([r * s for r, s in zip(reps, shape)], self.dtype, self.device)
    result.view(expanded).copy_(x.expand(*expanded))  # always a copy, as in PyTorch
    return result


tensor_method(_repeat, "repeat")


def tile(input, dims):
    """Like :meth:`Tensor.repeat`, with ones prepended when ``dims`` is shorter."""
    dims = _ints(dims)
    return _repeat(input, (1,) * (input.dim() - len(dims)) + dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None, axis=None):
    """Repeats each element (each slice along ``dim``) ``repeats`` times; ``repeats`` is an int
    or a tensor with one count per slice. With a single tensor argument, the indices
    0, 1, ... each repeated by its count."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("repeat_interleave", dim, axis, None)
    if repeats is None:
        if input.dim() > 1:
            raise RuntimeError(
                f"repeat_interleave: expected a 1-D repeats tensor, got {input.dim()}-D"
            )
        return repeat_interleave(_C._arange(0, input.numel(), 1, _C.int64), input, 0)
    if dim is None:
        input, dim = input.reshape(-1), 0
    if not isinstance(repeats, Tensor):
        repeats = _C._full((), builtins.int(repeats), _C.int64)
    result = _C._repeat_interleave(input, repeats, dim)
    if (
        output_size is not None
        and result.shape[_wrap(dim, input.dim(), "repeat_interleave")] != output_size
    ):
        raise RuntimeError(
            f"repeat_interleave: output_size {output_size} does not match the total number "
            "of repeats"
        )
    return result


# ---------------------------------------------------------------- flipping, rolling
def flip(input, dims):
    """A copy with the order of elements reversed along each of ``dims``."""
    return _C._flip(input, _ints(dims))


def fliplr(input):
    """Reverses the order of the columns (dim 1) of a tensor with at least 2 dims; returns a new
    tensor."""
    if input.dim() < 2:
        raise RuntimeError(f"fliplr: input must be >= 2-d, got shape {list(input.shape)}")
    return _C._flip(input, (1,))


def flipud(input):
    """Reverses the order of the rows (dim 0) of a tensor with at least 1 dim; returns a
    new tensor."""
    if input.dim() < 1:
        raise RuntimeError("flipud: input must be >= 1-d, got a 0-d tensor")
    return _C._flip(input, (0,))


def roll(input, shifts, dims=None):
    """Shifts elements along ``dims`` cyclically (over the flattened tensor when None)."""
    return _C._roll(input, _ints(shifts), None if dims is None else _ints(dims))


def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees ``k`` times in the plane of ``dims``, from the first dim
    towards the second."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = _wrap(dims[0], input.dim(), "rot90"), _wrap(dims[1], input.dim(), "rot90")
    if d0 == d1:
        raise RuntimeError(
            f"rot90: expected rotation dims to be different, but got dim0 = {dims[0]} and "
            f"dim1 = {dims[1]}"
        )
    k %= 4
    if k == 1:
        return _C._flip(input, (d1,)).transpose(d0, d1)
    if k == 2:
        return _C._flip(input, (d0, d1))
    if k == 3:
        return _C._flip(input, (d0,)).transpose(d0, d1)
    return input.clone()


# ---------------------------------------------------------------- triangles, diagonals
def tril(input, diagonal=0, *, out=None):
    """The lower triangle (elements with column - row <= diagonal) of the last two dims."""
    result = _C._tri(input, diagonal, False, out)
    return result if out is None else out


def triu(input, diagonal=0, *, out=None):
    """The upper triangle (elements with column - row >= diagonal) of the last two dims."""
    result = _C._tri(input, diagonal, True, out)
    return result if out is None else out


def _tri_(upper):
    def fn(self, diagonal=0):
        """In-place :func:`torch.triu` (``triu_``) or :func:`torch.tril` (``tril_``) of the last
        two dims, ``diagonal`` as there; returns ``self``."""
        _C._tri_(self, diagonal, upper)
        return self

    fn.__name__ = "triu_" if upper else "tril_"
    return fn


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a row x col matrix, as a 2 x N
    tensor in row-major order."""
    return _C._tri_indices(row, col, offset, False, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The indices of the upper triangle (from diagonal ``offset`` up) of a ``row`` x ``col``
    matrix: a ``(2, n)`` int64 tensor of row and column indices, row by row."""
    return _C._tri_indices(row, col, offset, True, dtype)


def diag(input, diagonal=0, *, out=None):
    """1-D input: a square matrix with it on the ``diagonal``-th diagonal; 2-D input: a copy
    of that diagonal."""
    if input.dim() == 1:
        n = input.shape[0] + builtins.abs(diagonal)
        result = _C.empty((n, n), input.dtype, input.device)
        result.zero_()
        result.diagonal(diagonal).copy_(input)
    elif input.dim() == 2:
        result = input.diagonal(diagonal).clone()
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    return write_out(result, out)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Puts the last dim of ``input`` on the ``offset``-th diagonal of the planes (dim1, dim2)
    of a new tensor, zeros elsewhere."""
    nd = input.dim() + 1
    d1, d2 = _wrap(dim1, nd, "diag_embed"), _wrap(dim2, nd, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.dim() == 0:
        raise RuntimeError("diag_embed: expected a tensor with at least one dimension")
    n = input.shape[-1] + builtins.abs(offset)
    shape = list(input.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    result = _C.empty(tuple(shape), input.dtype)
    result.zero_()
    result.diagonal(offset, d1, d2).copy_(input)
    return result


def outer(input, vec2, *, out=None):
    """The outer product of two 1-D tensors: ``result[i, j] = input[i] * vec2[j]``."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return _C.mul(input.unsqueeze(1), vec2, out=out)


ger = outer


def kron(input, other, *, out=None):
    """The Kronecker product: blocks ``input[i, j, ...] * other``."""
    nd = builtins.max(input.dim(), other.dim())
    a_shape = (1,) * (nd - input.dim()) + tuple(input.shape)
    b_shape = (1,) * (nd - other.dim()) + tuple(other.shape)
    a = input.reshape([v for s in a_shape for v in (s, 1)])
    b = other.reshape([v for s in b_shape for v in (1, s)])
    result = _C.mul(a, b).reshape([x * y for x, y in zip(a_shape, b_shape)])
    return write_out(result, out)


# ---------------------------------------------------------------- moving dims, broadcasting
def movedim(input, source, destination):
    """Moves dims ``source`` to positions ``destination``; the others keep their order."""
    src, dst = _ints(source), _ints(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    nd = input.dim()
    src = [_wrap(d, nd, "movedim") for d in src]
    dst = [_wrap(d, nd, "movedim") for d in dst]
    for name, dims, given in (("source", src, source), ("destination", dst, destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(_ints(given))})")
    if nd == 0:
        return input.permute(())
    perm = [-1] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    perm = [p if p != -1 else next(rest) for p in perm]
    return input.permute(perm)


moveaxis = movedim


def broadcast_to(input, size):
    """A view of ``input`` expanded to ``size`` (-1 keeps a dim)."""
    return input.expand(*_ints(size))


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape."""
    tensors = _varargs(tensors, "broadcast_tensors")
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """Grids of coordinates from 0-d or 1-d tensors: result i varies along dim i
    (``indexing='ij'``) or, for 'xy', with the first two dims swapped."""
    tensors = _varargs(tensors, "meshgrid")
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if len(tensors) == 0:
        raise RuntimeError("torch.meshgrid: expects a non-empty TensorList")
    for t in tensors:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(
                f"meshgrid expects all tensors to have the same dtype, got {tensors[0].dtype} "
                f"and {t.dtype}"
            )
        if t.dim() > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor "
                f"of shape {list(t.shape)}"
            )
    vecs = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(vecs) >= 2
    if swap:
        vecs[0], vecs[1] = vecs[1], vecs[0]
    shape = [v.shape[0] for v in vecs]
    grids = []
    for i, v in enumerate(vecs):
        view = [1] * len(vecs)
        view[i] = shape[i]
        grids.append(v.reshape(view).expand(*shape))
    if swap:  # the grids of (y, x, ...) in 'ij' order are those of (x, y, ...) in 'xy' order
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, as rows of a 2-D tensor (a
    single tensor comes back as it is)."""
    tensors = _varargs(tensors, "cartesian_prod")
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"cartesian_prod: Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def diagflat(input, offset=0):
    """The flattened ``input`` on the ``offset``-th diagonal of a square matrix, zeros
    elsewhere."""
    return diag(input.reshape(-1), offset)


# ---------------------------------------------------------------- the *_scatter ops
# Each writes ``src`` into a copy of ``input`` where a view (a slice, a select, a diagonal) of
# ``input`` would be: the view is taken of a tensor of flat positions, whose values say where
# ``src`` goes, and one differentiable index_put writes it (gradients reach both tensors).
def _scatter_into_view(input, src, positions):
    if not isinstance(src, Tensor):
        raise TypeError(f"expected src to be a Tensor, not {builtins.type(src).__name__}")
    if tuple(src.shape) != tuple(positions.shape):
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(positions.shape)}"
        )
    flat = input.reshape(-1)
    flat = flat.index_put((positions.reshape(-1),), src.reshape(-1).to(input.dtype))
    return flat.reshape(input.shape)


def _positions(input):
    from torch._creation import arange

    return arange(input.numel(), device=input.device).reshape(input.shape)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, axis=None):
    """A copy of ``input`` with ``src`` written where ``input[..., start:end:step, ...]`` (the
    slice along ``dim``) is."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None:
        dim = numpy_dim("slice_scatter", dim, axis, 0)
    d = _wrap(dim, input.dim(), "slice_scatter")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    index = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_into_view(input, src, _positions(input)[index])


def select_scatter(input, src, dim=None, index=None, *, axis=None):
    """A copy of ``input`` with ``src`` written where ``input.select(dim, index)`` is."""
    # NumPy's axis= for dim=, as in PyTorch
    if axis is not None or dim is None or index is None:
        dim = numpy_dim("select_scatter", dim, axis, required=True)
        check_given("select_scatter", index=index)
    return _scatter_into_view(input, src, _positions(input).select(dim, index))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written where ``input.diagonal(offset, dim1, dim2)``
    is."""
    return _scatter_into_view(input, src, _positions(input).diagonal(offset, dim1, dim2))


def unravel_index(indices, shape):
    """The coordinates, one int64 tensor per dim of ``shape``, of the flat ``indices`` into a
    row-major tensor of that shape (indices are taken modulo the shape, as in PyTorch)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {builtins.type(indices)}")
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, builtins.int) else tuple(shape)
    if not builtins.all(isinstance(n, builtins.int) for n in shape):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {shape}")
    if builtins.any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    indices = indices.to(_C.int64)
    coords, stride = [], 1
    for n in reversed(shape):
        coords.append(_C.remainder(_C.floor_divide(indices, stride), builtins.max(n, 1)))
        stride *= n
    return tuple(reversed(coords))


# ---------------------------------------------------------------- Tensor methods
def _flip_method(self, *dims, **kwargs):
    """Reverses the order of the elements along the given dims (``x.flip(0, 1)`` or
    ``x.flip(dims=(0, 1))``); returns a new tensor."""
    for name in kwargs:
        if name != "dims":
            raise TypeError(f"flip() got an unexpected keyword argument '{name}'")
    return _C._flip(self, _ints(kwargs["dims"] if "dims" in kwargs else _varargs(dims, "flip")))


def _split_method(self, split_size, dim=0):
    """:func:`torch.split` of this tensor: a tuple of views of ``split_size`` along ``dim`` (the
    last may be smaller), or of the sizes a list gives."""
    return split(self, split_size, dim)


tensor_method(_flip_method, "flip")
tensor_method(_split_method, "split")
tensor_method(_tri_(False), "tril_")
tensor_method(_tri_(True), "triu_")
for _name in (
    "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "unbind", "unflatten",
    "repeat_interleave", "tile", "fliplr", "flipud", "roll", "rot90", "tril", "triu", "diag",
    "diag_embed", "outer", "ger", "kron", "movedim", "moveaxis", "broadcast_to", "diagflat",
    "slice_scatter", "select_scatter", "diagonal_scatter",
):  # fmt: skip
    tensor_method(globals()[_name], _name)
