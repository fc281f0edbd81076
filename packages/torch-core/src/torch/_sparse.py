"""Sparse tensors: the COO and CSR layouts, written in Python over the dense core.

Memory layout (Note [sparse tensor]): a sparse tensor is an instance of a Python subclass of
``torch.Tensor`` whose C++ part is a *sparse base* of the full dense shape and dtype
(``_C._sparse_base``: no memory, on a device of its own that has no kernels), so ``shape``,
``size()``, ``dim()``, ``dtype`` and ``numel()`` are right for free, while a core op that
knows nothing of sparsity raises instead of reading or writing numbers through it (no kernel
is registered for that device; mixing it with a CPU tensor raises a device error). The
numbers live in dense attributes:

* COO (``torch.sparse_coo``): ``_i``, an int64 ``(sparse_dim, nnz)`` tensor of indices, and
  ``_v``, a ``(nnz, *dense_shape)`` tensor of values (hybrid tensors keep trailing dense
  dims). Uncoalesced tensors may repeat an index; the entries add up.
* CSR (``torch.sparse_csr``): ``_crow`` (``rows + 1``), ``_col`` (``nnz``), ``_v`` (``nnz``).

Note [sparse autograd]: gradients flow through the values. A sparse leaf that requires grad
holds a values tensor that is itself a leaf requiring grad; its ``.grad`` is that leaf's
gradient with the tensor's own indices (so ``torch.sparse.mm`` and ``to_dense`` give sparse
gradients, as in PyTorch). Every op here is written with differentiable dense ops on values,
so gradients of any order come from the dense formulas.

Usage::

    s = torch.sparse_coo_tensor([[0, 1], [2, 0]], [3.0, 4.0], (2, 3))
    s.to_dense() + 1
    s @ torch.ones(3, 5)
"""

import builtins
import math

import torch
from torch import _C
from torch._dtypes import sparse_coo, sparse_csr

Tensor = _C.Tensor

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "is_sparse_tensor"]


def _coo(indices, values, size, coalesced=False):
    """A COO tensor over these (already checked) parts, without copying them."""
    return SparseCOOTensor(indices, values, size, coalesced)


def _size_of(size, op):
    try:
        size = tuple(builtins.int(n) for n in size)
    except TypeError:
        raise TypeError(f"{op}(): size must be a sequence of ints, got {size!r}") from None
    for n in size:
        if n < 0:
            raise RuntimeError(f"{op}(): size must be non-negative, got {list(size)}")
    return size


def _as_tensor(x, dtype=None):
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype == dtype else x.to(dtype)
    return torch.tensor(x, dtype=dtype)


def _not_supported(name, layout_name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(
            f"Tensor.{name}(): not supported for tensors of layout {layout_name} "
            f"(size {tuple(self.shape)}, dtype {self.dtype}); convert with .to_dense() first"
        )

    method.__name__ = name
    method.__doc__ = f"Not supported on {layout_name} tensors (raises NotImplementedError)."
    return method


# Tensor methods every sparse tensor keeps from the dense class (they read only the shape and
# dtype of the sparse base) or defines itself.
_KEEP = frozenset(
    "size dim ndimension numel nelement is_floating_point is_complex is_signed element_size "
    "get_device type register_hook retain_grad backward".split()
)
# Dunders that would compute on the sparse base: each raises unless the class defines it.
_DUNDERS = (
    "__add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__ "
    "__truediv__ __rtruediv__ __itruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ "
    "__pow__ __rpow__ __matmul__ __rmatmul__ __imatmul__ __and__ __or__ __xor__ __rand__ "
    "__ror__ __rxor__ __lshift__ __rshift__ __neg__ __pos__ __abs__ __invert__ __lt__ __le__ "
    "__gt__ __ge__ __eq__ __ne__ __getitem__ __setitem__ __iter__ __bool__ __float__ __int__ "
    "__index__ __complex__ __array__ __contains__ __reversed__ __dlpack__"
).split()
_RAISING_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag", "nbytes")


def _seal(cls):
    """Makes every dense Tensor method that ``cls`` does not define raise on it. Runs when the
    class is made and again once ``import torch`` has added every Python method."""
    own = set()
    for klass in cls.__mro__:
        if klass is Tensor:
            break
        own.update(vars(klass))
    for name in dir(Tensor):
        if name in own or name in _KEEP or name.startswith("_"):
            continue
        attr = getattr(Tensor, name, None)
        if callable(attr) and not isinstance(attr, type):
            setattr(cls, name, _not_supported(name, cls._layout_name))
    for name in _DUNDERS:
        if name not in own:
            setattr(cls, name, _not_supported(name, cls._layout_name))
    for name in _RAISING_PROPERTIES:
        if name not in own:
            setattr(cls, name, property(_not_supported(name, cls._layout_name)))


def seal():
    """Runs :func:`_seal` on the sparse classes (``torch/__init__.py`` calls it last)."""
    for cls in (SparseCOOTensor, SparseCSRTensor):
        _seal(cls)


class _SparseTensor(Tensor):
    """The shared part of the sparse layouts (see Note [sparse tensor] in torch._sparse)."""

    _layout_name = None
    is_sparse = False
    is_sparse_csr = False
    is_meta = False
    __hash__ = Tensor.__hash__  # identity, as for every tensor (defining __eq__ would unset it)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _seal(cls)

    def _init_base(self, size, values):
        super().__init__(_C._sparse_base(tuple(size), values.dtype))
        self._own_grad = False

    @classmethod
    def _gate_override(cls, func, args, kwargs):
        """torch.add(s, t) and the other core functions given a sparse argument: the core
        calls this first (Note [Subclass override] in bind_grad.cpp); NotImplemented lets
        the dense op run (and raise its error for the sparse layout)."""
        impl = _FUNCTIONS.get(getattr(func, "__name__", None))
        if impl is None:
            return NotImplemented
        kwargs = kwargs or {}
        if kwargs.get("out") is not None:
            raise RuntimeError(f"{func.__name__}(): out= is not supported with sparse tensors")
        kwargs.pop("out", None)
        return impl(*args, **kwargs)

    # ------------------------------------------------ device, autograd (through the values)
    @property
    def device(self):
        """The device of the values (the indices live on the same one)."""
        return self._v.device

    @property
    def is_cpu(self):
        return self._v.is_cpu

    @property
    def is_cuda(self):
        return self._v.is_cuda

    @property
    def requires_grad(self):
        """Whether gradients flow to this tensor's values."""
        return self._v.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Makes this tensor a leaf that requires grad (its values become the leaf)."""
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients, "
                f"got {self.dtype}"
            )
        if self._v.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and not self._v.requires_grad:
            self._v = self._v.detach().requires_grad_()
        elif not requires_grad and self._v.requires_grad:
            self._v = self._v.detach()
        self._own_grad = builtins.bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        """The node that made the values (None for a leaf)."""
        return self._v.grad_fn

    @property
    def is_leaf(self):
        return self._v.grad_fn is None

    @property
    def grad(self):
        """The gradient of a leaf that requires grad: a sparse tensor with this one's indices."""
        assigned = self.__dict__.get("grad")
        if assigned is not None or not self._own_grad:
            return assigned
        g = self._v.grad
        return None if g is None else self._with_values(g)

    @grad.setter
    def grad(self, value):
        if value is None:
            if self._own_grad:
                self._v.grad = None
            self.__dict__.pop("grad", None)
            return
        if tuple(value.shape) != tuple(self.shape) or value.dtype != self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient of size {list(value.shape)} and dtype "
                f"{value.dtype} to a tensor of size {list(self.shape)} and dtype {self.dtype}"
            )
        self.__dict__["grad"] = value

    @property
    def data(self):
        """This tensor without history (its parts are shared)."""
        return self.detach()

    def detach(self):
        """The same indices and values, without autograd history (shares memory)."""
        return self._with_values(self._v.detach())

    def clone(self, *, memory_format=None):
        """A copy of the indices and values (differentiable through the values)."""
        return self._map_parts(lambda t: t.clone(), self._v.clone())

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with torch.no_grad():
            out = self.clone()
        if self.requires_grad and self.is_leaf:
            out.requires_grad_()
        memo[id(self)] = out
        return out

    def to(self, *args, **kwargs):
        """A copy (or self) with another dtype or device: ``to(dtype)``, ``to(device)``."""
        dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
        for a in args:
            if isinstance(a, _C.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            else:
                device = a
        v = self._v
        if dtype is not None and dtype != v.dtype:
            v = v.to(dtype)
        if device is not None:
            v = v.to(device)
        if v is self._v:
            return self
        return self._map_parts(lambda t: t if device is None else t.to(device), v)

    def double(self):
        return self.to(_C.float64)

    def float(self):
        return self.to(_C.float32)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    def long(self):
        return self.to(_C.int64)

    def int(self):
        return self.to(_C.int32)

    def bool(self):
        return self.to(_C.bool)

    def cpu(self):
        return self.to("cpu")

    def is_contiguous(self, memory_format=None):
        return False

    def is_pinned(self, device=None):
        return False

    def is_shared(self):
        return False

    @property
    def layout(self):
        return self._layout

    def numpy(self, *, force=False):
        raise TypeError(
            f"can't convert {self._layout_name} layout tensor to numpy. Use Tensor.to_dense() "
            "first."
        )

    def tolist(self):
        raise RuntimeError(
            f"tolist(): not supported for {self._layout_name} tensors (they have no strided "
            "storage); use Tensor.to_dense().tolist()"
        )

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self.to_dense().item()

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __array__(self, dtype=None, copy=None):
        self.numpy()

    def __reduce_ex__(self, protocol):
        from torch._utils import _rebuild_sparse_tensor

        return (_rebuild_sparse_tensor, (self._layout, self._pickle_parts()))

    def _suffixes(self):
        out = [f"size={tuple(self.shape)}", f"nnz={self._nnz()}"]
        if self.dtype != _C.get_default_dtype():
            out.append(f"dtype={self.dtype}")
        if self.device.type != "cpu":
            out.insert(0, f"device='{self.device}'")
        out.append(f"layout={self._layout}")
        if self.requires_grad and self.grad_fn is None:
            out.append("requires_grad=True")
        elif self.grad_fn is not None:
            out.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
        return out

    def _repr_parts(self, parts, newline_before_suffix):
        lines = []
        for k, (name, t) in enumerate(parts):
            head = ("tensor(" if k == 0 else "       ") + name + "="
            text = Tensor.__repr__(t.detach())
            if text.endswith(f", dtype={t.dtype})"):  # the dtype is said once, at the end
                text = text[: -len(f", dtype={t.dtype})")] + ")"
            if t.numel() == 0 and "size=" not in text:  # empty parts always say their size
                text = text[:-1] + f", size={tuple(t.shape)})"
            text = "\n".join(
                (" " * len(head) + line) if line else line for line in text.split("\n")
            ).lstrip()
            lines.append(head + text)
        body = ",\n".join(lines)
        suffixes = self._suffixes()
        if newline_before_suffix:
            body += ",\n       " + suffixes[0]
        else:
            body += ", " + suffixes[0]
        for s in suffixes[1:]:
            last = body.rsplit("\n", 1)[-1]
            if len(last) + len(s) + 3 > 78:
                body += ",\n       " + s
            else:
                body += ", " + s
        return body + ")"

    def __format__(self, spec):
        return repr(self) if not spec else format(repr(self), spec)


# ---------------------------------------------------------------- COO
class SparseCOOTensor(_SparseTensor):
    """A tensor of layout ``torch.sparse_coo``: indices ``(sparse_dim, nnz)`` and values
    ``(nnz, *dense_shape)``. Make one with :func:`torch.sparse_coo_tensor` or
    :meth:`Tensor.to_sparse`."""

    _layout_name = "Sparse"
    _layout = sparse_coo
    is_sparse = True

    def __init__(self, indices, values, size, coalesced=False):
        self._init_base(size, values)
        self._i, self._v, self._coalesced = indices, values, coalesced

    def _with_values(self, v):
        return _coo(self._i, v, self.shape, self._coalesced)

    def _map_parts(self, fn, v):
        return _coo(fn(self._i), v, self.shape, self._coalesced)

    def _pickle_parts(self):
        return (self._i, self._v.detach(), torch.Size(self.shape), self._coalesced)

    def __repr__(self):
        return self._repr_parts((("indices", self._i), ("values", self._v)), True)

    __str__ = __repr__

    # ------------------------------------------------ structure
    def sparse_dim(self):
        """How many leading dims are sparse (the rows of the indices)."""
        return self._i.shape[0]

    def dense_dim(self):
        """How many trailing dims each value has."""
        return self._v.dim() - 1

    def _nnz(self):
        """How many entries are stored (repeats included when uncoalesced)."""
        return self._i.shape[1]

    def _indices(self):
        """The indices as stored (no coalescing)."""
        return self._i

    def _values(self):
        """The values as stored (no coalescing); gradients flow through them."""
        return self._v

    def indices(self):
        """The indices of a coalesced tensor (call :meth:`coalesce` first)."""
        if not self._coalesced:
            raise RuntimeError(
                "Cannot get indices on an uncoalesced tensor, please call .coalesce() first"
            )
        return self._i

    def values(self):
        """The values of a coalesced tensor (call :meth:`coalesce` first)."""
        if not self._coalesced:
            raise RuntimeError(
                "Cannot get values on an uncoalesced tensor, please call .coalesce() first"
            )
        return self._v

    def is_coalesced(self):
        """Whether the indices are sorted and unique."""
        return self._coalesced

    def _coalesced_(self, flag):
        self._coalesced = builtins.bool(flag)
        return self

    def _linear(self, dims=None):
        """Each entry's row-major position over the sparse dims (or over ``dims``)."""
        dims = builtins.range(self.sparse_dim()) if dims is None else dims
        lin = torch.zeros(self._nnz(), dtype=_C.int64)
        for d in dims:
            lin = lin * self.shape[d] + self._i[d]
        return lin

    def coalesce(self):
        """The same tensor with sorted, unique indices (repeated entries summed)."""
        if self._coalesced:
            return self
        sizes = self.shape[: self.sparse_dim()]
        v = self._v
        if v.is_cpu and self._i.is_cpu:
            # C++: a stable sort of the entries by index, grouping the repeats
            idx, perm, offsets = _C._sparse_coalesce_index(self._i, builtins.list(sizes))
            if v.dtype in _SEGMENT_SUM_DTYPES and not (v.requires_grad and torch.is_grad_enabled()):
                values = _C._sparse_segment_sum(v, perm, offsets)
            else:  # differentiable (and any dtype): the sorted values added up by group
                group = torch.repeat_interleave(torch.arange(idx.shape[1]), offsets.diff())
                values = torch.zeros((idx.shape[1],) + tuple(v.shape[1:]), dtype=self.dtype)
                values = values.index_put((group,), v.index_select(0, perm), accumulate=True)
            return _coo(idx, values, self.shape, True)
        lin = self._linear()
        uniq, inv = torch.unique(lin, sorted=True, return_inverse=True)
        values = torch.zeros((uniq.shape[0],) + tuple(self._v.shape[1:]), dtype=self.dtype)
        values = values.index_put((inv,), self._v, accumulate=True)
        return _coo(_unravel(uniq, sizes), values, self.shape, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor (entries at repeated indices add up)."""
        nsp = self.sparse_dim()
        rows = math.prod(self.shape[:nsp])
        flat = torch.zeros((rows,) + tuple(self.shape[nsp:]), dtype=self.dtype)
        out = flat.index_put((self._linear(),), self._v, accumulate=True).reshape(tuple(self.shape))
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """Self (already COO), or its CSR form with ``layout=torch.sparse_csr``."""
        if layout is sparse_csr:
            return self.to_sparse_csr()
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError(
                f"to_sparse: conversion from Sparse to Sparse with sparse_dim={sparse_dim} is "
                f"not supported (this tensor has sparse_dim={self.sparse_dim()})"
            )
        return self

    def to_sparse_coo(self):
        return self

    def to_sparse_csr(self, dense_dim=None):
        """This 2-D tensor in the CSR layout."""
        if self.dim() != 2 or self.dense_dim() != 0:
            raise RuntimeError(
                "to_sparse_csr: only 2-D COO tensors without dense dims convert to CSR, got "
                f"size {tuple(self.shape)} with dense_dim={self.dense_dim()}"
            )
        c = self.coalesce()
        rows = self.shape[0]
        counts = torch.bincount(c._i[0], minlength=rows)
        crow = torch.cat([torch.zeros(1, dtype=_C.int64), counts.cumsum(0)])
        return SparseCSRTensor(crow, c._i[1].clone(), c._v, self.shape)

    # ------------------------------------------------ arithmetic
    def _check_same(self, other, op):
        if tuple(other.shape) != tuple(self.shape):
            raise RuntimeError(
                f"{op}: sizes do not match: {tuple(self.shape)} and {tuple(other.shape)}"
            )

    def add(self, other, *, alpha=1):
        """sparse + sparse is sparse (the entries are concatenated); sparse + dense is dense."""
        if isinstance(other, SparseCSRTensor):
            other = other.to_sparse_coo()
        if isinstance(other, SparseCOOTensor):
            self._check_same(other, "add")
            if other.sparse_dim() != self.sparse_dim():
                raise RuntimeError(
                    f"add: sparse_dim mismatch: {self.sparse_dim()} and {other.sparse_dim()}"
                )
            ov = other._v if alpha == 1 else other._v * alpha
            dtype = torch.promote_types(self.dtype, ov.dtype)
            return _coo(
                torch.cat([self._i, other._i], 1),
                torch.cat([self._v.to(dtype), ov.to(dtype)]),
                self.shape,
            )
        if isinstance(other, Tensor):
            return _add_dense_sparse(other, self, 1, alpha_dense=alpha)
        raise TypeError(
            f"add(): a sparse tensor adds only tensors, got {type(other).__name__} (adding a "
            "number would make every element nonzero; use .to_dense() + x)"
        )

    def sub(self, other, *, alpha=1):
        return self.add(other, alpha=-alpha)

    def __add__(self, other):
        return self.add(other)

    def __radd__(self, other):
        if isinstance(other, Tensor):
            return _add_dense_sparse(other, self, 1)
        return self.add(other)

    def __sub__(self, other):
        return self.add(other, alpha=-1)

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            return _add_dense_sparse(other, self, -1)
        return NotImplemented

    def add_(self, other, *, alpha=1):
        """In place: this tensor's parts become those of ``self + alpha * other`` (``other``
        sparse)."""
        if not isinstance(other, _SparseTensor):
            raise RuntimeError("add_: a sparse tensor can only add a sparse tensor in place")
        out = self.add(other, alpha=alpha)
        self._i, self._v, self._coalesced = out._i, out._v, False
        return self

    def __iadd__(self, other):
        return self.add_(other)

    def coalesce_(self):
        """Coalesces in place (this tensor's parts become the coalesced ones)."""
        out = self.coalesce()
        self._i, self._v, self._coalesced = out._i, out._v, True
        return self

    def mul(self, other):
        """By a number, a dense tensor of the same shape, or a sparse one: sparse."""
        if isinstance(other, SparseCOOTensor):
            return _mul_sparse_sparse(self, other)
        if isinstance(other, Tensor) and other.dim() > 0:
            self._check_same(other, "mul")
            nsp = self.sparse_dim()
            gathered = other[tuple(self._i[d] for d in builtins.range(nsp))]
            return self._with_values(self._v * gathered)
        return self._with_values(self._v * other)

    __mul__ = __rmul__ = mul

    def __imul__(self, other):
        out = self.mul(other)
        self._i, self._v, self._coalesced = out._i, out._v, out._coalesced
        return self

    mul_ = __imul__

    def div(self, other, *, rounding_mode=None):
        if isinstance(other, Tensor) and other.dim() > 0:
            raise RuntimeError("div: a sparse tensor divides only by a number or 0-d tensor")
        return self._with_values(_C.div(self._v, other, rounding_mode=rounding_mode))

    __truediv__ = div

    def __matmul__(self, other):
        return _mm(self, other, "matmul")

    def __rmatmul__(self, other):
        return _dense_mm_sparse(other, self, "matmul")

    def mm(self, mat2):
        """This 2-D sparse tensor times a dense (or sparse) matrix: dense."""
        return _mm(self, mat2, "mm")

    matmul = __matmul__

    def sum(self, dim=None, keepdim=False, dtype=None):
        """Without ``dim``: the dense 0-d sum; over dims: as :func:`torch.sparse.sum`."""
        if dim is None:
            out = self._v.sum()
            return out if dtype is None else out.to(dtype)
        return _sparse_sum(self, dim, dtype)

    def transpose(self, dim0, dim1):
        """Swaps two sparse dims (the indices' rows) or two dense dims (of the values)."""
        n = self.dim()
        d0, d1 = dim0 % n if n else 0, dim1 % n if n else 0
        nsp = self.sparse_dim()
        if d0 < nsp and d1 < nsp:
            order = builtins.list(builtins.range(nsp))
            order[d0], order[d1] = d1, d0
            shape = builtins.list(self.shape)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            return _coo(self._i[order], self._v, shape)
        if d0 >= nsp and d1 >= nsp:
            shape = builtins.list(self.shape)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            return _coo(
                self._i, self._v.transpose(d0 - nsp + 1, d1 - nsp + 1), shape, self._coalesced
            )
        raise RuntimeError(
            f"transpose(): a sparse dim and a dense dim cannot be swapped (dims {dim0} and "
            f"{dim1}, sparse_dim={nsp})"
        )

    def t(self):
        """The transpose of a matrix (at most 2 dims)."""
        if self.dim() > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D"
            )
        return self if self.dim() < 2 else self.transpose(0, 1)

    def narrow_copy(self, dim, start, length):
        """The entries with ``start <= index < start + length`` along ``dim``, reindexed."""
        d = dim % self.dim()
        size = self.shape[d]
        if start < 0:
            start += size
        if not (0 <= start <= size and 0 <= length <= size - start):
            raise IndexError(
                f"narrow_copy(): start ({start}) + length ({length}) exceeds dimension size "
                f"({size})"
            )
        shape = builtins.list(self.shape)
        shape[d] = length
        nsp = self.sparse_dim()
        if d >= nsp:
            return _coo(self._i, self._v.narrow(d - nsp + 1, start, length).clone(), shape)
        row = self._i[d]
        keep = ((row >= start) & (row < start + length)).nonzero().reshape(-1)
        idx = self._i.index_select(1, keep)
        idx[d] -= start
        return _coo(idx, self._v.index_select(0, keep), shape, self._coalesced)

    def index_select(self, dim, index):
        """The slices at ``index`` along ``dim`` (repeats allowed), as a sparse tensor."""
        d = dim % self.dim()
        index = _as_tensor(index, _C.int64).reshape(-1)
        size = self.shape[d]
        if index.numel() and builtins.bool(((index < -size) | (index >= size)).any()):
            raise IndexError(f"index_select(): index out of range for dim {d} of size {size}")
        index = torch.where(index < 0, index + size, index)
        shape = builtins.list(self.shape)
        shape[d] = index.shape[0]
        nsp = self.sparse_dim()
        if d >= nsp:
            return _coo(self._i, self._v.index_select(d - nsp + 1, index), shape, self._coalesced)
        order = torch.argsort(self._i[d], stable=True)
        keys = self._i[d][order]
        lo = torch.searchsorted(keys, index)
        counts = torch.searchsorted(keys, index, right=True) - lo
        which = torch.repeat_interleave(torch.arange(index.shape[0]), counts)
        starts = torch.cumsum(counts, 0) - counts
        pos = lo[which] + torch.arange(which.shape[0]) - starts[which]
        entry = order[pos]
        idx = self._i.index_select(1, entry)
        idx[d] = which
        return _coo(idx, self._v.index_select(0, entry), shape)

    def zero_(self):
        """Drops every entry, in place (the size stays)."""
        self._i = self._i[:, :0]
        self._v = self._v[:0].detach()
        self._coalesced = True
        return self

    def detach_(self):
        """Drops the history of the values, in place."""
        self._v = self._v.detach()
        return self


# Elementwise functions with f(0) == 0: on a sparse tensor they act on the values.
_ZERO_PRESERVING = (
    "abs neg negative sqrt sin tan tanh asin atan sinh asinh atanh expm1 log1p sign sgn floor "
    "ceil round trunc frac relu square erf erfinv deg2rad rad2deg nan_to_num signbit isnan "
    "isinf conj"
).split()


def _unary(name):
    def method(self, *args, **kwargs):
        return self._with_values(getattr(self._v, name)(*args, **kwargs))

    method.__name__ = name
    method.__doc__ = f"{name} of the values (the op maps zero to zero)."
    return method


for _name in _ZERO_PRESERVING:
    setattr(SparseCOOTensor, _name, _unary(_name))
SparseCOOTensor.__neg__ = SparseCOOTensor.neg
SparseCOOTensor.__abs__ = SparseCOOTensor.abs


def _unravel(lin, sizes):
    """(len(sizes), n) indices of row-major positions ``lin`` in a tensor of ``sizes``."""
    rows = []
    for n in builtins.reversed(tuple(sizes)):
        rows.append(lin % n if n else lin)
        lin = _C.div(lin, n, rounding_mode="floor") if n else lin
    rows.reverse()
    if not rows:
        return torch.zeros(0, lin.shape[0], dtype=_C.int64)
    return torch.stack(rows)


def add_sparse_(dense, sparse, alpha=1):
    """``dense += alpha * sparse`` in place (the optimizers' update); returns ``dense``."""
    if isinstance(sparse, SparseCSRTensor):
        sparse = sparse.to_sparse_coo()
    v = sparse._v
    if (
        dense.dtype in _FAST_DTYPES
        and v.dtype == dense.dtype
        and isinstance(alpha, (builtins.int, builtins.float))
        and dense.is_contiguous()
        and dense.is_cpu
        and v.is_cpu
        and tuple(dense.shape) == tuple(sparse.shape)
        and not (torch.is_grad_enabled() and (dense.requires_grad or v.requires_grad))
    ):
        # C++: each entry's row of ``dense`` (over the sparse dims) gets alpha * its value
        nsp = sparse.sparse_dim()
        rows = sparse._i[0] if nsp == 1 else sparse._linear()
        flat = dense.view((-1,) + tuple(dense.shape[nsp:])) if nsp != 1 else dense
        _C._index_add_rows_(flat, rows, v, builtins.float(alpha))
        return dense
    v = sparse._v if alpha == 1 else sparse._v * alpha
    index = tuple(sparse._i[d] for d in builtins.range(sparse.sparse_dim()))
    return dense.index_put_(index, v.to(dense.dtype), accumulate=True)


def sparse_index(sparse):
    """The index tuple (one tensor per sparse dim) that selects a COO tensor's entries from a
    dense tensor of its shape: ``dense[sparse_index(s)]`` has the shape of ``s._values()``."""
    return tuple(sparse._i[d] for d in builtins.range(sparse.sparse_dim()))


def _add_dense_sparse(dense, sparse, sign, alpha_dense=None):
    """dense + sign * sparse (or sparse + alpha * dense): a dense tensor."""
    if isinstance(sparse, SparseCSRTensor):
        sparse = sparse.to_sparse_coo()
    if tuple(dense.shape) != tuple(sparse.shape):
        raise RuntimeError(
            f"add: expected a dense tensor of size {tuple(sparse.shape)} to add the sparse "
            f"tensor to, got size {tuple(dense.shape)}"
        )
    dtype = torch.promote_types(dense.dtype, sparse.dtype)
    if alpha_dense is not None:  # sparse + alpha * dense
        dense = dense * alpha_dense if alpha_dense != 1 else dense
        sign = 1
    v = sparse._v if sign == 1 else sparse._v * sign
    nsp = sparse.sparse_dim()
    index = tuple(sparse._i[d] for d in builtins.range(nsp))
    return dense.to(dtype).index_put(index, v.to(dtype), accumulate=True)


def _mul_sparse_sparse(a, b):
    """The product at the indices both hold (coalescing both first)."""
    a._check_same(b, "mul")
    a, b = a.coalesce(), b.coalesce()
    la, lb = a._linear(), b._linear()
    if lb.numel() == 0 or la.numel() == 0:
        keep = torch.zeros(0, dtype=_C.int64)
        return _coo(a._i[:, keep], a._v[keep] * 0, a.shape, True)
    pos = torch.searchsorted(lb, la).clamp(max=lb.shape[0] - 1)
    hit = (lb[pos] == la).nonzero().reshape(-1)
    return _coo(a._i.index_select(1, hit), a._v[hit] * b._v[pos[hit]], a.shape, True)


_CHUNK = 1 << 20  # entries x columns per block of the sparse x dense product (4 MB of f32)
# dtypes of the C++ kernels (torch._C._sparse_*): products, and the sums of coalesce
_FAST_DTYPES = frozenset((_C.float32, _C.float64))
_SEGMENT_SUM_DTYPES = frozenset(
    (_C.float32, _C.float64, _C.int64, _C.int32, _C.int16, _C.int8, _C.uint8)
)


class _Pattern:
    """Where the entries of a sparse matrix are, for the C++ products (Note [sparse mm]):
    row and column indices (int64, one per entry), CSR row pointers when known, and the
    size. ``t()`` is the pattern of the transpose (entries in any order)."""

    __slots__ = ("_rows", "cols", "crow", "nrows", "ncols")

    def __init__(self, rows, cols, nrows, ncols, crow=None):
        self._rows, self.cols, self.crow, self.nrows, self.ncols = rows, cols, crow, nrows, ncols

    def rows(self):
        if self._rows is None:  # from the CSR row pointers, made once
            counts = self.crow[1:] - self.crow[:-1]
            self._rows = torch.repeat_interleave(torch.arange(self.nrows), counts)
        return self._rows

    def t(self):
        return _Pattern(self.cols, self.rows(), self.ncols, self.nrows)


# Note [sparse mm]: sparse (2-D, float32/float64, CPU) @ dense runs in C++: CSR and row-sorted
# COO through row pointers (threads over output rows), other COO by scatter (each thread owns
# a range of output rows). Gradients: d(values)[k] = dot(G[row k], D[col k]) (the sampled
# product, _C._sparse_sddmm) and d(D) = S^T @ G; both are again these two differentiable
# products, so gradients of any order exist.
def _spmm(pat, vals, mat):
    """The dense product of the matrix (pat, vals) with ``mat``, recorded for autograd."""
    if torch.is_grad_enabled() and (vals.requires_grad or mat.requires_grad):
        return _grad_functions()[0].apply(vals, mat, pat)
    return _spmm_raw(pat, vals, mat)


def _spmm_raw(pat, vals, mat):
    if pat.crow is not None:
        return _C._sparse_csr_mm(pat.crow, pat.cols, vals, mat, pat.ncols)
    return _C._sparse_coo_mm(pat.rows(), pat.cols, vals, mat, pat.nrows, pat.ncols)


def _sddmm(pat, a, b):
    """out[k] = dot(a[row k], b[col k]) for the entries of ``pat``, recorded for autograd."""
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
        return _grad_functions()[1].apply(a, b, pat)
    return _C._sparse_sddmm(pat.rows(), pat.cols, a, b)


_GRAD_FUNCTIONS = []


def _grad_functions():
    """(SparseDenseMM, SampledDenseDenseMM): autograd Functions over the C++ products, made
    on first use (only a tensor that requires grad needs them, and so torch-autograd)."""
    if _GRAD_FUNCTIONS:
        return _GRAD_FUNCTIONS
    from torch.autograd.function import Function

    class SparseDenseMM(Function):
        @staticmethod
        def forward(ctx, vals, mat, pat):
            ctx.save_for_backward(vals, mat)
            ctx.pat = pat
            return _spmm_raw(pat, vals, mat)

        @staticmethod
        def backward(ctx, g):
            vals, mat = ctx.saved_tensors
            need_v, need_m = ctx.needs_input_grad[:2]
            gv = _sddmm(ctx.pat, g, mat) if need_v else None
            gm = _spmm(ctx.pat.t(), vals, g) if need_m else None
            return gv, gm, None

    class SampledDenseDenseMM(Function):
        @staticmethod
        def forward(ctx, a, b, pat):
            ctx.save_for_backward(a, b)
            ctx.pat = pat
            return _C._sparse_sddmm(pat.rows(), pat.cols, a, b)

        @staticmethod
        def backward(ctx, gv):
            a, b = ctx.saved_tensors
            need_a, need_b = ctx.needs_input_grad[:2]
            ga = _spmm(ctx.pat, gv, b) if need_a else None
            gb = _spmm(ctx.pat.t(), gv, a) if need_b else None
            return ga, gb, None

    _GRAD_FUNCTIONS.extend((SparseDenseMM, SampledDenseDenseMM))
    return _GRAD_FUNCTIONS


def _check_mm(s, d, op):
    if not isinstance(d, Tensor):
        raise TypeError(f"{op}(): expected a tensor as the second argument, got {type(d).__name__}")
    if s.dim() != 2:
        raise RuntimeError(f"{op}(): the sparse argument must be 2-D, got size {tuple(s.shape)}")
    if s.dtype != d.dtype:
        raise RuntimeError(
            f"{op}(): expected scalar type {s.dtype} but found {d.dtype} (the sparse and dense "
            "arguments must have one dtype)"
        )


def _mm(s, d, op):
    """sparse (2-D) @ dense (1-D or 2-D) -> dense; sparse @ sparse -> sparse."""
    csr = s if isinstance(s, SparseCSRTensor) else None
    if isinstance(d, _SparseTensor):
        dense = _mm(s, d.to_dense(), op)
        return dense.to_sparse() if isinstance(d, SparseCOOTensor) else dense.to_sparse_csr()
    _check_mm(s, d, op)
    if (
        s.dtype in _FAST_DTYPES
        and s.dim() == 2
        and s.dense_dim() == 0
        and d.dim() in (1, 2)
        and s._v.is_cpu
        and d.is_cpu
    ):
        mat = d.reshape(-1, 1) if d.dim() == 1 else d
        if mat.shape[0] != s.shape[1]:
            raise RuntimeError(
                f"{op}(): mat1 and mat2 shapes cannot be multiplied ({s.shape[0]}x{s.shape[1]} "
                f"and {'x'.join(str(n) for n in d.shape)})"
            )
        rows, cols = s.shape
        if csr is not None:
            pat = _Pattern(None, csr._col, rows, cols, csr._crow)
        else:
            pat = _Pattern(s._i[0], s._i[1], rows, cols)
        out = _spmm(pat, s._v, mat)
        return out.reshape(-1) if d.dim() == 1 else out
    return _mm_generic(s if csr is None else csr.to_sparse_coo(), d, op)


def _mm_generic(s, d, op):
    """sparse @ dense over the dense ops, in blocks of entries (dtypes without a C++ kernel)."""
    vector = d.dim() == 1
    mat = d.reshape(-1, 1) if vector else d
    if mat.dim() != 2 or mat.shape[0] != s.shape[1]:
        raise RuntimeError(
            f"{op}(): mat1 and mat2 shapes cannot be multiplied ({s.shape[0]}x{s.shape[1]} and "
            f"{'x'.join(str(n) for n in d.shape)})"
        )
    if s.dense_dim():
        raise RuntimeError(f"{op}(): hybrid sparse tensors (dense_dim > 0) are not supported")
    rows, cols, vals = s._i[0], s._i[1], s._v
    n = mat.shape[1]
    out = torch.zeros(s.shape[0], n, dtype=s.dtype)
    nnz = vals.shape[0]
    step = builtins.max(1, _CHUNK // builtins.max(n, 1))
    track = torch.is_grad_enabled() and (vals.requires_grad or mat.requires_grad)
    for start in builtins.range(0, nnz, step):
        r, c, v = rows[start : start + step], cols[start : start + step], vals[start : start + step]
        part = mat.index_select(0, c) * v.reshape(-1, 1)
        # index_put accumulates rows several times faster than the core's index_add
        if track:
            out = out.index_put((r,), part, accumulate=True)
        else:
            out.index_put_((r,), part, accumulate=True)
    return out.reshape(-1) if vector else out


def _dense_mm_sparse(d, s, op):
    """dense @ sparse = (sparse^T @ dense^T)^T."""
    if isinstance(s, SparseCSRTensor):
        s = s.to_sparse_coo()
    if d.dim() == 1:
        return _mm(s.t(), d, op)
    return _mm(s.t(), d.t(), op).t()


def _sparse_sum(s, dim, dtype=None):
    """torch.sparse.sum over ``dim``: dense when every sparse dim is summed, else sparse."""
    dims = (dim,) if isinstance(dim, builtins.int) else tuple(dim)
    n = s.dim()
    dims = sorted({d % n for d in dims})
    nsp = s.sparse_dim()
    sparse_dims = [d for d in dims if d < nsp]
    dense_dims = [d - nsp + 1 for d in dims if d >= nsp]
    v = s._v.sum(dense_dims) if dense_dims else s._v
    if dtype is not None:
        v = v.to(dtype)
    if len(sparse_dims) == nsp:
        return v.sum(0)
    keep = [d for d in builtins.range(nsp) if d not in sparse_dims]
    shape = [s.shape[d] for d in keep] + [
        s.shape[d] for d in builtins.range(nsp, n) if d not in dims
    ]
    return _coo(s._i[keep], v, shape).coalesce()


# ---------------------------------------------------------------- CSR
class SparseCSRTensor(_SparseTensor):
    """A 2-D tensor of layout ``torch.sparse_csr``: ``crow_indices`` (rows + 1),
    ``col_indices`` and ``values`` (nnz each). Make one with :func:`torch.sparse_csr_tensor`
    or :meth:`Tensor.to_sparse_csr`."""

    _layout_name = "SparseCsr"
    _layout = sparse_csr
    is_sparse_csr = True

    def __init__(self, crow_indices, col_indices, values, size):
        self._init_base(size, values)
        self._crow, self._col, self._v = crow_indices, col_indices, values

    def _with_values(self, v):
        return SparseCSRTensor(self._crow, self._col, v, self.shape)

    def _map_parts(self, fn, v):
        return SparseCSRTensor(fn(self._crow), fn(self._col), v, self.shape)

    def _pickle_parts(self):
        return (self._crow, self._col, self._v.detach(), torch.Size(self.shape))

    def __repr__(self):
        parts = (("crow_indices", self._crow), ("col_indices", self._col), ("values", self._v))
        return self._repr_parts(parts, False)

    __str__ = __repr__

    def crow_indices(self):
        """Where each row's entries start in ``col_indices``/``values`` (rows + 1 of them)."""
        return self._crow

    def col_indices(self):
        """The column of each entry."""
        return self._col

    def values(self):
        """The value of each entry; gradients flow through them."""
        return self._v

    def _nnz(self):
        return self._col.shape[0]

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return 0

    def _rows(self):
        counts = self._crow[1:] - self._crow[:-1]
        return torch.repeat_interleave(torch.arange(self.shape[0]), counts)

    def to_sparse_coo(self, sparse_dim=None):
        """The same entries in the COO layout (coalesced; the indices are made once)."""
        indices = self.__dict__.get("_coo_indices")
        if indices is None:
            indices = self._coo_indices = torch.stack([self._rows(), self._col])
        return _coo(indices, self._v, self.shape, True)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        return self if layout is sparse_csr else self.to_sparse_coo()

    def to_sparse_csr(self, dense_dim=None):
        return self

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense matrix."""
        return self.to_sparse_coo().to_dense(dtype)

    def __matmul__(self, other):
        return _mm(self, other, "matmul")

    def __rmatmul__(self, other):
        return _dense_mm_sparse(other, self, "matmul")

    def mm(self, mat2):
        return _mm(self, mat2, "mm")

    matmul = __matmul__

    def __radd__(self, other):
        if isinstance(other, Tensor):
            return _add_dense_sparse(other, self, 1)
        return NotImplemented

    def add(self, other, *, alpha=1):
        if isinstance(other, _SparseTensor):
            return self.to_sparse_coo().add(other, alpha=alpha).to_sparse_csr()
        return _add_dense_sparse(other, self, 1, alpha_dense=alpha)

    __add__ = add

    def mul(self, other):
        if isinstance(other, Tensor):
            raise RuntimeError("mul: a CSR tensor multiplies only by a number here")
        return self._with_values(self._v * other)

    __mul__ = __rmul__ = mul

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is None:
            out = self._v.sum()
            return out if dtype is None else out.to(dtype)
        raise NotImplementedError("sum(dim): not supported for SparseCsr tensors")

    def t(self):
        return self.to_sparse_coo().t().to_sparse_csr()


for _name in _ZERO_PRESERVING:
    setattr(SparseCSRTensor, _name, _unary(_name))
SparseCSRTensor.__neg__ = SparseCSRTensor.neg


def is_sparse_tensor(x):
    """Whether ``x`` is a tensor of a sparse layout."""
    return isinstance(x, _SparseTensor)


# ---------------------------------------------------------------- constructors
def _from_values(values):
    """The values a new sparse tensor holds: a leaf that requires grad is seen through a view,
    so that the tensor is not itself that leaf (its gradient flows to ``values.grad``)."""
    if values.requires_grad and values.grad_fn is None and torch.is_grad_enabled():
        return values.view(values.shape)
    return values


def _check_coo(indices, values, size, op):
    if indices.dim() != 2:
        raise RuntimeError(
            f"{op}(): indices must be sparse_dim x nnz, but got: {tuple(indices.shape)}"
        )
    if values.dim() < 1:
        raise RuntimeError(f"{op}(): values must be at least 1-D (nnz, ...), got a 0-d tensor")
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError(
            f"{op}(): indices and values must have same nnz, but got nnz from indices: "
            f"{indices.shape[1]}, nnz from values: {values.shape[0]}"
        )
    nsp = indices.shape[0]
    if len(size) != nsp + values.dim() - 1:
        raise RuntimeError(
            f"{op}(): number of dimensions must be sparse_dim ({nsp}) + dense_dim "
            f"({values.dim() - 1}), but got {len(size)}"
        )
    if tuple(size[nsp:]) != tuple(values.shape[1:]):
        raise RuntimeError(
            f"{op}(): values has incorrect size, expected {[values.shape[0]] + list(size[nsp:])}"
            f", got {list(values.shape)}"
        )
    if indices.shape[1]:
        lo = indices.amin(1)
        hi = indices.amax(1)
        for d in builtins.range(nsp):
            if builtins.int(lo[d]) < 0:
                raise RuntimeError(
                    f"{op}(): found negative index {builtins.int(lo[d])} for dim {d}"
                )
            if builtins.int(hi[d]) >= size[d]:
                raise RuntimeError(
                    f"{op}(): size is inconsistent with indices: for dim {d}, size is {size[d]} "
                    f"but found index {builtins.int(hi[d])}"
                )


def sparse_coo_tensor(
    indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
    is_coalesced=None,
):
    """A sparse COO tensor with ``values[k]`` at ``indices[:, k]``.

    ``indices`` is an integer ``(sparse_dim, nnz)`` tensor (or nested list), ``values`` an
    ``(nnz, *dense_shape)`` tensor; ``size`` defaults to the smallest that holds every index.
    Indices are always checked to lie in ``size`` (``check_invariants`` is accepted for
    compatibility), so no later op can read out of bounds. The values are not copied, and
    gradients flow back to them.

    >>> torch.sparse_coo_tensor([[0, 1], [2, 0]], [3.0, 4.0], (2, 3)).to_dense()
    tensor([[0., 0., 3.],
            [4., 0., 0.]])
    """
    op = "sparse_coo_tensor"
    indices = _as_tensor(indices)
    values = _as_tensor(values, dtype)
    if indices.is_floating_point() or indices.dtype.is_complex or indices.dtype == _C.bool:
        raise RuntimeError(f"{op}(): indices must be an int64 tensor, got {indices.dtype}")
    indices = indices.to(_C.int64)
    if values.dim() == 0 and indices.dim() == 2 and indices.shape[1] == 1:
        values = values.reshape(1)
    if size is None:
        if indices.dim() != 2:
            raise RuntimeError(
                f"{op}(): indices must be sparse_dim x nnz, got {tuple(indices.shape)}"
            )
        nsp = indices.shape[0]
        if indices.shape[1]:
            top = [builtins.int(n) + 1 for n in indices.amax(1).tolist()]
        else:
            top = [0] * nsp
        size = tuple(top) + tuple(values.shape[1:])
    size = _size_of(size, op)
    _check_coo(indices, values, size, op)
    if device is not None:
        indices, values = indices.to(device), values.to(device)
    out = _coo(
        indices, _from_values(values), size, builtins.bool(is_coalesced) if is_coalesced else False
    )
    if requires_grad:
        out.requires_grad_()
    return out


def _check_csr(crow, col, values, size, op):
    if crow.dim() != 1 or col.dim() != 1 or values.dim() != 1:
        raise RuntimeError(
            f"{op}(): crow_indices, col_indices and values must be 1-D, got shapes "
            f"{tuple(crow.shape)}, {tuple(col.shape)} and {tuple(values.shape)}"
        )
    if len(size) != 2:
        raise RuntimeError(f"{op}(): only 2-D CSR tensors are supported, got size {list(size)}")
    rows, cols = size
    if crow.shape[0] != rows + 1:
        raise RuntimeError(
            f"{op}(): crow_indices.numel() must be size(0) + 1 ({rows + 1}), but got "
            f"{crow.shape[0]}"
        )
    if col.shape[0] != values.shape[0]:
        raise RuntimeError(
            f"{op}(): col_indices and values must have the same number of elements, but got "
            f"{col.shape[0]} and {values.shape[0]}"
        )
    if builtins.int(crow[0]) != 0:
        raise RuntimeError(
            f"{op}(): 0th value of crow_indices must be 0, got {builtins.int(crow[0])}"
        )
    if builtins.int(crow[-1]) != col.shape[0]:
        raise RuntimeError(
            f"{op}(): last value of crow_indices should be equal to the length of col_indices "
            f"({col.shape[0]}), got {builtins.int(crow[-1])}"
        )
    if rows and builtins.bool((crow[1:] < crow[:-1]).any()):
        raise RuntimeError(f"{op}(): crow_indices must be non-decreasing")
    if col.shape[0] and (builtins.int(col.min()) < 0 or builtins.int(col.max()) >= cols):
        raise RuntimeError(
            f"{op}(): col_indices must be in [0, {cols}), got values from "
            f"{builtins.int(col.min())} to {builtins.int(col.max())}"
        )


def sparse_csr_tensor(
    crow_indices,
    col_indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
):
    """A 2-D sparse CSR tensor: row ``r`` holds ``values[crow[r]:crow[r+1]]`` at the columns
    ``col_indices[crow[r]:crow[r+1]]``. Every invariant is checked (so no later op reads out
    of bounds); ``size`` defaults to ``(len(crow) - 1, max(col) + 1)``."""
    op = "sparse_csr_tensor"
    crow = _as_tensor(crow_indices).to(_C.int64)
    col = _as_tensor(col_indices).to(_C.int64)
    values = _as_tensor(values, dtype)
    if size is None:
        ncols = builtins.int(col.max()) + 1 if col.numel() else 0
        size = (crow.shape[0] - 1, ncols)
    size = _size_of(size, op)
    _check_csr(crow, col, values, size, op)
    if device is not None:
        crow, col, values = crow.to(device), col.to(device), values.to(device)
    out = SparseCSRTensor(crow, col, _from_values(values), size)
    if requires_grad:
        out.requires_grad_()
    return out


def _rebuild(layout, data):
    """``torch._utils._rebuild_sparse_tensor``: a sparse tensor from a file's parts, every
    invariant checked (nothing from a file may index out of bounds)."""
    if layout is sparse_coo:
        if not (isinstance(data, tuple) and len(data) in (3, 4)):
            raise RuntimeError("_rebuild_sparse_tensor: malformed COO data")
        indices, values, size = data[:3]
        coalesced = builtins.bool(data[3]) if len(data) == 4 else False
        if not (isinstance(indices, Tensor) and isinstance(values, Tensor)):
            raise RuntimeError("_rebuild_sparse_tensor: COO indices and values must be tensors")
        out = sparse_coo_tensor(indices, values, size)
        if coalesced:
            # trust the flag only if the indices really are sorted and unique
            lin = out._linear()
            if lin.numel() > 1 and not builtins.bool((lin[1:] > lin[:-1]).all()):
                raise RuntimeError("_rebuild_sparse_tensor: indices marked coalesced are not")
            out._coalesced = True
        return out
    if layout is sparse_csr:
        if not (isinstance(data, tuple) and len(data) == 4):
            raise RuntimeError("_rebuild_sparse_tensor: malformed CSR data")
        crow, col, values, size = data
        if not all(isinstance(t, Tensor) for t in (crow, col, values)):
            raise RuntimeError("_rebuild_sparse_tensor: CSR parts must be tensors")
        return sparse_csr_tensor(crow, col, values, size)
    raise RuntimeError(f"_rebuild_sparse_tensor: layout {layout} is not supported")


# ---------------------------------------------------------------- dense -> sparse
def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """This dense tensor as sparse COO (the nonzero entries of its first ``sparse_dim`` dims,
    by default all of them), or as CSR with ``layout=torch.sparse_csr``."""
    if layout is sparse_csr:
        return _to_sparse_csr(self)
    if layout not in (None, sparse_coo):
        raise RuntimeError(f"to_sparse: layout {layout} is not supported")
    nsp = self.dim() if sparse_dim is None else builtins.int(sparse_dim)
    if not 0 <= nsp <= self.dim():
        raise RuntimeError(f"to_sparse: sparse_dim must be in [0, {self.dim()}], got {sparse_dim}")
    mask = self != 0
    if nsp < self.dim():
        mask = mask.reshape(tuple(self.shape[:nsp]) + (-1,)).any(-1)
    idx = mask.nonzero().t().contiguous() if nsp else torch.zeros(0, 1, dtype=_C.int64)
    if nsp:
        values = self[tuple(idx[d] for d in builtins.range(nsp))]
    else:
        values = self.unsqueeze(0)
    return _coo(idx, values, self.shape, True)


def _to_sparse_csr(self, dense_dim=None):
    """This dense matrix as sparse CSR."""
    if self.dim() != 2:
        raise RuntimeError(f"to_sparse_csr: expected a 2-D tensor, got size {tuple(self.shape)}")
    return _to_sparse(self).to_sparse_csr()


def _dense_to_dense(self, dtype=None, *, masked_grad=None):
    """A dense tensor is its own dense form."""
    return self if dtype is None else self.to(dtype)


def _install_dense_methods():
    from torch._tensor import tensor_method

    tensor_method(_to_sparse, "to_sparse")
    tensor_method(_to_sparse_csr, "to_sparse_csr")
    tensor_method(_to_sparse, "to_sparse_coo")
    tensor_method(_dense_to_dense, "to_dense")


_install_dense_methods()


# ---------------------------------------------------------------- torch.* entry points
# The products wrap their core function: one class lookup per argument on the dense path, the
# sparse implementation otherwise. The elementwise ops (add, mul, ...) stay the core's own
# gates (the hottest calls pay nothing); their operators reach the sparse class through its
# reflected methods (``dense + sparse`` calls ``sparse.__radd__`` first, as a subclass).
_SPARSE_TYPES = frozenset((SparseCOOTensor, SparseCSRTensor))


# (out= never reaches these: _SparseTensor._gate_override refuses it first)
def _sparse_mm(input, mat2):
    if isinstance(input, _SparseTensor):
        return _mm(input, mat2, "mm")
    return _dense_mm_sparse(input, mat2, "mm")


def _sparse_addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if isinstance(input, _SparseTensor):
        input = input.to_dense()
    prod = _sparse_mm(mat1, mat2)
    prod = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return prod
    return prod + (input if beta == 1 else input * beta)


def _fn_add(input, other, *, alpha=1):
    if isinstance(input, _SparseTensor):
        return input.add(other, alpha=alpha)
    if not isinstance(input, Tensor):
        raise TypeError(f"add(): expected a tensor as input, got {type(input).__name__}")
    return _add_dense_sparse(input, other.mul(alpha) if alpha != 1 else other, 1)


def _fn_sub(input, other, *, alpha=1):
    return _fn_add(input, other, alpha=-alpha)


def _fn_mul(input, other):
    return input.mul(other) if isinstance(input, _SparseTensor) else other.mul(input)


def _fn_div(input, other, *, rounding_mode=None):
    if not isinstance(input, _SparseTensor):
        raise RuntimeError("div: dividing by a sparse tensor is not supported (its zeros)")
    return input.div(other, rounding_mode=rounding_mode)


# torch functions given a sparse argument (_SparseTensor._gate_override), by name
_FUNCTIONS = {
    "add": _fn_add,
    "sub": _fn_sub,
    "subtract": _fn_sub,
    "mul": _fn_mul,
    "multiply": _fn_mul,
    "div": _fn_div,
    "divide": _fn_div,
    "true_divide": _fn_div,
    "mm": _sparse_mm,
    "matmul": _sparse_mm,
    "addmm": _sparse_addmm,
}


def spmm(input, mat2):
    """``input @ mat2`` for a sparse ``input`` and dense ``mat2`` (a dense result)."""
    return _sparse_mm(input, mat2)


def torch_functions():
    """{name: function} for the torch namespace: the sparse-aware core functions."""
    return {
        "spmm": spmm,
        "sparse_coo_tensor": sparse_coo_tensor,
        "sparse_csr_tensor": sparse_csr_tensor,
    }
