"""torch.einsum and torch.tensordot: contractions as batched matrix products.

einsum works in three steps. Each operand first loses its repeated subscripts (a diagonal)
and the subscripts no one else needs (a sum). Then the operands are contracted left to
right, two at a time: each pair is permuted and reshaped to (batch, rows, inner) and
(batch, inner, cols) and multiplied with one matmul. Last, leftover subscripts are summed
and the result is permuted to the output order.

Subscripts are kept as small ints: letters by position in A-Za-z (so implicit outputs sort
as PyTorch's do), and the dims an ellipsis covers as 100, 101, ... aligned to the right
across operands, so they broadcast.
"""

import functools
import math
import string

import torch
from torch import _C
from torch._checks import write_out

Tensor = _C.Tensor
_LETTERS = string.ascii_uppercase + string.ascii_lowercase
_ELLIPSIS = 100


def _perm(t, order):
    return t.permute(*order) if t.dim() else t


def _gemm_ready(t):
    """t, or a fresh contiguous copy when BLAS cannot read its matrices in place (the core's
    GEMM mishandles such views when size-1 dims make them look contiguous; see the report)."""
    rows, cols = t.shape[-2], t.shape[-1]
    rs, cs = t.stride(-2), t.stride(-1)
    if (cs == 1 and rs >= max(cols, 1)) or (rs == 1 and cs >= max(rows, 1)) or not rows * cols:
        return t
    return t.clone()


def _error(msg):
    return RuntimeError(f"einsum(): {msg}")


def _parse_operand(term, i):
    """Letters of one operand's subscripts: a list of ints with None where '...' is."""
    labels, k = [], 0
    while k < len(term):
        if term.startswith("...", k):
            if None in labels:
                raise _error(f"found more than one ellipsis ('...') for operand {i}")
            labels.append(None)
            k += 3
            continue
        if term[k] not in _LETTERS:
            raise _error(
                f"invalid subscript {term[k]!r} for operand {i}: subscripts must be letters "
                "in [a-zA-Z] or an ellipsis"
            )
        labels.append(_LETTERS.index(term[k]))
        k += 1
    return labels


def _expand_ellipsis(labels, ndim, n_ell, i):
    """Replace the ellipsis by the ids of the dims it covers (right-aligned to n_ell)."""
    if None not in labels:
        if len(labels) != ndim:
            raise _error(
                f"the number of subscripts in the equation ({len(labels)}) does not match the "
                f"number of dimensions ({ndim}) for operand {i} and no ellipsis was given"
            )
        return labels
    covered = ndim - (len(labels) - 1)
    if covered < 0:
        raise _error(
            f"the number of subscripts in the equation ({len(labels) - 1}) is more than the "
            f"number of dimensions ({ndim}) for operand {i}"
        )
    at = labels.index(None)
    ell = [_ELLIPSIS + n_ell - covered + j for j in range(covered)]
    return labels[:at] + ell + labels[at + 1 :]


def _drop_repeats(t, labels):
    """Take diagonals until every subscript of t appears once."""
    labels = list(labels)
    while len(set(labels)) != len(labels):
        label = next(x for x in labels if labels.count(x) > 1)
        i = labels.index(label)
        j = labels.index(label, i + 1)
        if t.shape[i] != t.shape[j]:
            raise _error(
                f"subscript {_name(label)} is repeated for an operand but the sizes don't "
                f"match, {t.shape[i]} != {t.shape[j]}"
            )
        t = t.diagonal(0, i, j)
        labels = [x for k, x in enumerate(labels) if k not in (i, j)] + [label]
    return t, labels


def _sum_out(t, labels, keep):
    dims = [k for k, x in enumerate(labels) if x not in keep]
    if not dims:
        return t, labels
    return t.sum(dim=tuple(dims)), [x for x in labels if x in keep]


def _name(label):
    return "'...'" if label >= _ELLIPSIS else repr(_LETTERS[label])


def _contract(x, lx, y, ly, keep):
    """x and y (subscripts lx, ly) into one tensor keeping the subscripts in `keep`."""
    sizes = {}
    for t, labels in ((x, lx), (y, ly)):
        for d, label in enumerate(labels):
            s, known = t.shape[d], sizes.get(label, 1)
            if known != 1 and s not in (1, known):
                raise _error(
                    f"operands do not broadcast: subscript {_name(label)} has sizes {known} and {s}"
                )
            sizes[label] = s if known == 1 else known
    if x.dim():
        x = x.expand(*[sizes[label] if label in ly else -1 for label in lx])
    if y.dim():
        y = y.expand(*[sizes[label] if label in lx else -1 for label in ly])
    batch = [label for label in lx if label in ly and label in keep]
    inner = [label for label in lx if label in ly and label not in keep]
    left = [label for label in lx if label not in ly]
    right = [label for label in ly if label not in lx]

    def size(labels):
        return math.prod(sizes[label] for label in labels)

    xp = _perm(x, [lx.index(label) for label in batch + left + inner])
    yp = _perm(y, [ly.index(label) for label in batch + inner + right])
    b, m, k, n = size(batch), size(left), size(inner), size(right)
    if b == 1:
        r = torch.mm(_gemm_ready(xp.reshape(m, k)), _gemm_ready(yp.reshape(k, n)))
    else:
        r = torch.matmul(_gemm_ready(xp.reshape(b, m, k)), _gemm_ready(yp.reshape(b, k, n)))
    labels = batch + left + right
    return r.reshape(tuple(sizes[label] for label in labels)), labels


@functools.lru_cache(maxsize=256)
def _plan(equation, ndims):
    """(subscripts of each operand, output subscripts) for operands of these ndims."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise _error(
            f"the equation has {len(terms)} operand(s) ({lhs!r}) but {len(ndims)} "
            "tensor(s) were given"
        )
    if not ndims:
        raise _error("must provide at least one operand")
    parsed = [_parse_operand(term, i) for i, term in enumerate(terms)]
    n_ell = max((t - (len(p) - 1) for p, t in zip(parsed, ndims) if None in p), default=0)
    n_ell = max(n_ell, 0)
    labels = [_expand_ellipsis(p, t, n_ell, i) for i, (p, t) in enumerate(zip(parsed, ndims))]
    ell_ids = list(range(_ELLIPSIS, _ELLIPSIS + n_ell))
    if arrow:
        out = _parse_operand(rhs, "output")
        if None in out:
            at = out.index(None)
            out = out[:at] + ell_ids + out[at + 1 :]
        seen = {x for ls in labels for x in ls}
        for x in out:
            if x < _ELLIPSIS and x not in seen:
                raise _error(
                    f"output subscript {_name(x)} does not appear in the equation for any "
                    "input operand"
                )
            if out.count(x) > 1:
                raise _error(f"output subscript {_name(x)} appears more than once in the output")
    else:
        counts = {}
        for ls in labels:
            for x in ls:
                counts[x] = counts.get(x, 0) + 1
        out = ell_ids + sorted(x for x, c in counts.items() if c == 1 and x < _ELLIPSIS)

    return tuple(tuple(ls) for ls in labels), tuple(out)


def einsum(*args):
    """``einsum(equation, *operands)`` or einsum(equation, [operands]): sums of products over
    the subscripts of the equation ("ij,jk->ik", "...ij,...jk", "ii->i", "bij->"...)."""
    if not args or not isinstance(args[0], str):
        raise TypeError("einsum(): the first argument must be the equation string")
    equation, operands = args[0], list(args[1:])
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, got {type(t).__name__}")
    labels, out = _plan(equation, tuple(t.dim() for t in operands))
    labels, out = [list(ls) for ls in labels], list(out)
    dtype = operands[0].dtype
    for t in operands[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    tensors = [t if t.dtype == dtype else t.to(dtype) for t in operands]
    # Each operand alone: diagonals, then the subscripts no other operand or the output has.
    for i in range(len(tensors)):
        tensors[i], labels[i] = _drop_repeats(tensors[i], labels[i])
        others = {x for j, ls in enumerate(labels) if j != i for x in ls}
        tensors[i], labels[i] = _sum_out(tensors[i], labels[i], others | set(out))
    # Left to right, two at a time.
    r, lr = tensors[0], labels[0]
    for i in range(1, len(tensors)):
        later = {x for ls in labels[i + 1 :] for x in ls}
        r, lr = _contract(r, lr, tensors[i], labels[i], later | set(out))
    r, lr = _sum_out(r, lr, set(out))
    # Output dims that were broadcast away (size-1 ellipsis dims of no operand) come back.
    for x in out:
        if x not in lr:
            r, lr = r.unsqueeze(-1), lr + [x]
    return r.permute(*[lr.index(x) for x in out]) if lr != out else r


def _wrap(dims, t):
    for d in dims:
        if not -t.dim() <= d < t.dim():
            raise IndexError(
                f"tensordot: Dimension out of range (expected to be in range of "
                f"[{-t.dim()}, {t.dim() - 1}], but got {d})"
            )
    return [d % t.dim() for d in dims]


def tensordot(a, b, dims=2, out=None):
    """Sum of products over dims of a and b: dims=n (a's last n with b's first n) or a pair
    of lists ([a dims], [b dims])."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be an int or a pair of lists of dims")
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError(
            f"both dimension lists should have same length, got {len(da)} and {len(db)}"
        )
    da, db = _wrap(da, a), _wrap(db, b)
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[i]} in dim "
                f"{i} and second has size {b.shape[j]} in dim {j}"
            )
    free_a = [d for d in range(a.dim()) if d not in da]
    free_b = [d for d in range(b.dim()) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    m = math.prod(a.shape[d] for d in free_a)
    n = math.prod(b.shape[d] for d in free_b)
    x = _gemm_ready(_perm(a, free_a + da).reshape(m, k))
    y = _gemm_ready(_perm(b, db + free_b).reshape(k, n))
    r = torch.mm(x, y).reshape(
        tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    )
    return write_out(r, out)
