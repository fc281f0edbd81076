"""The argument checks of the Python front end, with PyTorch's errors: tensor arguments,
dims, and the one writer of ``out=`` results (the C++ ops check their own arguments)."""

import warnings

from torch import _C

Tensor = _C.Tensor

# PyTorch's names of the dtypes in messages ("Float", "Long", "ComplexDouble", ...).
dtype_name = _C._dtype_legacy_name


def type_name(x):
    return type(x).__name__


def check_tensor(x, op, name="input", pos=1, optional=False):
    """x itself, or TypeError unless it is a Tensor (or None with ``optional``). ``pos`` is
    the argument's position, None for keyword-only arguments (PyTorch then names none)."""
    if isinstance(x, Tensor) or (optional and x is None):
        return x
    where = f"argument '{name}'" if pos is None else f"argument '{name}' (position {pos})"
    kind = "Tensor or None" if optional else "Tensor"
    raise TypeError(f"{op}(): {where} must be {kind}, not {type_name(x)}")


def wrap_dim(dim, ndim, op, wrap_scalar=True):
    """A dim in [-ndim, ndim) as a non-negative index (0-d tensors accept 0 and -1, unless
    not ``wrap_scalar``: ops such as the FFTs need a real dim)."""
    if ndim == 0 and not wrap_scalar:
        raise IndexError(f"{op}: Dimension specified as {dim} but tensor has no dimensions")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
            f"but got {dim})"
        )
    return dim % n


def numpy_args(op, dim, keepdim, axis, keepdims, dim_default=None):
    """``dim`` and ``keepdim`` with NumPy's spellings ``axis=`` and ``keepdims=`` taken in
    their place, as PyTorch's functions take them; giving both spellings is a TypeError.
    (Called only when one of axis/keepdims was given.)"""
    if axis is not None:
        if dim is not dim_default and dim != dim_default:
            raise TypeError(f"{op}() got an unexpected keyword argument 'axis'")
        dim = axis
    if keepdims is not None:
        if keepdim is not False:
            raise TypeError(f"{op}() got an unexpected keyword argument 'keepdims'")
        keepdim = keepdims
    return dim, keepdim


def numpy_dim(op, dim, axis, default=None, required=False):
    """``dim`` with NumPy's spelling ``axis=`` taken in its place, for the ops that take no
    ``keepdim``: giving both is a TypeError, as in PyTorch (``default`` is the dim's own default,
    which does not count as given); a ``required`` dim that is given neither way is a
    TypeError too. Called only when ``axis`` was given or ``dim`` is None, so that calls
    without ``axis=`` pay nothing more than that test."""
    if axis is not None:
        if dim is not None and dim is not default and dim != default:
            raise TypeError(f"{op}() got an unexpected keyword argument 'axis'")
        dim = axis
    if required and dim is None:
        raise TypeError(f"{op}() missing required argument 'dim'")
    return dim


def check_given(op, **args):
    """TypeError for the first of ``args`` that is None: the required arguments of an op whose
    ``dim`` became optional so that ``axis=`` may stand in for it (``gather(x, axis=1,
    index=i)``)."""
    for name, value in args.items():
        if value is None:
            raise TypeError(f"{op}() missing required argument '{name}'")


def check_castable(result_dtype, out_dtype):
    """RuntimeError unless a result of ``result_dtype`` may be written into ``out_dtype``
    (torch.can_cast: no float into an integer, no complex into a real, ...)."""
    if not _C.can_cast(result_dtype, out_dtype):
        raise RuntimeError(
            f"result type {dtype_name(result_dtype)} can't be cast to the desired output type "
            f"{dtype_name(out_dtype)}"
        )


def out_dtype(dtype, out):
    """The dtype a sum, product or scan accumulates in: ``dtype`` when given, else that of
    the ``out=`` tensor (PyTorch casts the input to it first), else None (the op's own)."""
    return out.dtype if dtype is None and isinstance(out, Tensor) else dtype


def write_out(result, out, exact_dtype=False):
    """``result`` written into the user's ``out=`` tensor, which is returned (``result``
    itself when out is None), by PyTorch's rules: the result must be castable to out's dtype
    (its very dtype with ``exact_dtype``, as torch.linalg requires), and out takes the
    result's shape, with a warning when it had other elements to lose."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type_name(out)}")
    if out.dtype != result.dtype:  # (the common case, equal dtypes, skips can_cast)
        if exact_dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {result.dtype}, but got {out.dtype} instead"
            )
        check_castable(result.dtype, out.dtype)
    shape = result.shape
    if out.shape != shape:
        if out.numel():
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(shape)}. This behavior is deprecated, and in a future PyTorch "
                f"release outputs will not be resized unless they have zero elements. You can "
                f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                f"with t.resize_(0).",
                UserWarning,
                stacklevel=3,
            )
        out.resize_(shape)
    return out.copy_(result)


def write_outs(results, outs, exact_dtype=False):
    """:func:`write_out` for ops with several results (a named tuple): each into its tensor
    of the ``out=`` tuple; the same kind of tuple comes back, holding those tensors."""
    if outs is None:
        return results
    if len(outs) != len(results):
        raise RuntimeError(f"expected out= to hold {len(results)} tensors, got {len(outs)}")
    return type(results)(*(write_out(r, o, exact_dtype) for r, o in zip(results, outs)))
