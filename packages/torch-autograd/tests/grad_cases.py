"""Float64 gradient-check inputs for the op registry (``torch.testing._op_registry``).

A :class:`GradCase` is one (op, sample) of the registry, called in float64.  Every
floating-point tensor argument becomes a contiguous leaf that requires grad, and
``fn(*leaves)`` lays each leaf out as the sample asks (transposed, strided, expanded, offset)
before calling the op.  So the op sees the registry's layouts, while gradcheck perturbs plain
leaves one element at a time (an expanded leaf could not be perturbed that way).

Values are drawn from the op's domain, then kept away from the points where ops bend or
jump: every value lies at least 0.05 from a multiple of 0.5 (abs, sign, floor, round, frac,
clamp's bounds), no two values are within ``MIN_GAP`` of each other, in absolute value too
(max, sort, median, ...), and quotients stay away from integers for fmod/remainder/rounded
division.  A case tries seeds until its inputs pass these checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import torch
from torch.testing._op_registry import (
    OPS,
    S,
    Sample,
    T,
    _base_shape,
    _draw,
    b8,
    f64,
    on,
)

MIN_GAP = 1e-4  # finite differences step by 1e-6: values this far apart never swap
MAX_ELEMENTS = 128  # larger samples exist for the core's blocked kernels, not for gradients
SEEDS = 50

LI = lambda values: torch.tensor(values, dtype=torch.int64)  # noqa: E731
M = lambda *shape: T(shape, dtype=b8)  # noqa: E731

# Samples where the gradient is not defined (PyTorch raises instead of differentiating).
UNDEFINED = {
    # complete QR of a tall matrix: the extra columns of Q are arbitrary
    "linalg.qr_complete": lambda s: s.args[0].shape[-2] > s.args[0].shape[-1],
    # std of equal copies (expanded along the reduced dim) is 0, where sqrt has no derivative
    "std": lambda s: s.args[0].layout == "e",
}

_ROWS = LI([[4, 0], [1, 1], [2, 3]])  # along dim 1 of a (3, 5) tensor
_UNIQUE_ROWS = LI([[0, 2, 1], [3, 1, 0]])  # into a (4, 5) tensor along dim 0, no repeats
_REPEATS = LI([[0, 2, 1], [3, 0, 0]])  # the same, with repeats
_TRUE = torch.tensor(True)  # a 0-d mask

# Samples the registry lacks: a 0-d input where the op takes one, a non-contiguous one
# where it has none (the test_samples_include_* tests say which ops need them).
EXTRA_SAMPLES = {
    "max.dim": [on(T(()), dim=0)],
    "min.dim": [on(T(()), dim=0)],
    "var": [on(T(()), dim=0, correction=0)],
    "norm": [on(T(()))],
    "logsumexp": [on(T(()), dim=0)],
    "transpose": [on(T(()), 0, -1)],
    "unfold": [on(T(()), 0, 1, 1)],
    "as_strided": [on(T(()), (), ())],
    "baddbmm": [on(T(()), T((2, 3, 4)), T((2, 4, 5)))],
    "squeeze": [on(T((1, 3, 1, 4), "s")), on(T((1, 3, 1, 4), "t"), 2)],
    "kron": [on(T(()), T((2, 3)))],
    "moveaxis": [on(T((2, 3, 4), "t"), 0, -1), on(T(()), (), ())],
    "dstack": [on(T((2, 3), "t"), T((2, 3), "s"))],
    "column_stack": [on(T((3,), "s"), T((3, 2), "t"))],
    "hsplit": [on(T((4, 6), "t"), 3)],
    "vsplit": [on(T((6, 4), "s"), 2)],
    "dsplit": [on(T((2, 2, 6), "t"), [1, 4])],
    "gather": [on(T(()), 0, LI(0))],
    "index_select": [on(T(()), 0, LI([0]))],
    "take": [on(T(()), LI([0, 0]))],
    "masked_fill": [on(T(()), _TRUE, 2.0)],
    "masked_select": [on(T((3, 4), "t"), M(3, 4)), on(T(()), _TRUE)],
    "masked_scatter": [on(T((3, 4), "t"), M(3, 4), T((12,), "s")), on(T(()), _TRUE, T((2,)))],
    "getitem_mask": [on(T(()), _TRUE)],
    "index_put": [on(T((4, 3), "t"), (LI([3, 1]), LI([2, 2])), T((2,), "s"))],
    "scatter": [on(T((4, 5), "t"), 0, _UNIQUE_ROWS, T((2, 3), "s")), on(T(()), 0, LI(0), T(()))],
    "scatter_value": [on(T((4, 5), "t"), 0, _REPEATS, 1.5)],
    "scatter_add": [on(T((4, 5), "t"), 0, _REPEATS, T((2, 3), "s")), on(T(()), 0, LI(0), T(()))],
    "scatter_reduce_amax": [on(T((4, 5), "t"), 0, _REPEATS, T((2, 3), "s"), "amax")],
    "scatter_reduce_sum": [on(T(()), 0, LI(0), T(()), "sum")],
    "scatter_reduce_prod_noself": [
        on(T((4, 5), "t"), 0, _REPEATS, T((2, 3), "s"), "prod", include_self=False)
    ],
    "index_add": [
        on(T((5, 3), "t"), 0, LI([0, 4, 0]), T((3, 3), "s")),
        on(T(()), 0, LI([0]), T(())),
    ],
    "index_copy": [on(T(()), 0, LI([0]), T(()))],
    "index_fill": [on(T((5, 3), "t"), 0, LI([4, 0]), 1.5), on(T(()), 0, LI([0]), 1.5)],
    "take_along_dim": [on(T((3, 5), "t"), _ROWS, 1)],
    "msort": [on(T(()))],
    "topk.values": [on(T(()), 1)],
    "median.dim": [on(T(()), 0)],
    "mode": [on(T(()), 0)],
    "nansum": [on(T(()))],
    "nanmean": [on(T(()))],
    "linalg.det_raw": [on(T((4, 4), "t"))],
    "linalg.slogdet": [on(T((3, 3), "t"))],
    "linalg.solve_right": [on(T((4, 4), "t"), T((2, 4), "s"))],
    "linalg.lstsq": [on(T((6, 3), "t"), T((6, 2), "s"))],
    "linalg.vector_norm": [on(T((3, 4), "t"), 2, 1), on(T(()))],
    "linalg.pinv": [on(T((4, 3), "t"))],
    "linalg.matrix_power": [on(T((3, 3), "t"), 3)],
    "linalg.cross": [on(T((4, 3), "t"), T((4, 3), "s"))],
    "linalg.multi_dot": [on(T((3, 4), "t"), T((4, 5)), T((5, 2), "s"))],
    "tensordot": [on(T((3, 4), "t"), T((4, 3), "s"), 1), on(T(()), T(()), 0)],
    "einsum": [on("->", T(()))],
}

# Ops with no 0-d sample: they reject 0-d inputs, as PyTorch's do (matrix ops need two
# dims, joins and splits one), or (std) have no derivative there: std of one value is 0.
NO_ZERO_DIM = frozenset(
    """
    matmul mm bmm mv dot narrow select diagonal cat split chunk tensor_split unbind hsplit
    vsplit dsplit unflatten fliplr flipud rot90 tril triu diag diag_embed outer cartesian_prod
    index_put take_along_dim std trace linalg.inv linalg.det linalg.det_raw linalg.slogdet
    linalg.solve linalg.solve_right linalg.solve_triangular linalg.lstsq linalg.cholesky
    linalg.cholesky_upper linalg.qr_reconstruct linalg.qr_complete linalg.svd_reconstruct
    linalg.svdvals linalg.eigvalsh linalg.eigh_reconstruct linalg.matrix_norm linalg.pinv
    linalg.matrix_power linalg.cross linalg.multi_dot
    """.split()
)
# as_strided addresses the storage, not its input's layout: no non-contiguous sample.
NO_LAYOUT = frozenset({"as_strided"})


def function_of(op):
    """The torch function a registry entry calls: cat.i32, max.dim, div.floor -> cat, max, div."""
    name = op.target
    return name if name.startswith("linalg.") else name.split(".")[0]


def grad_ops():
    """The registry's differentiable ops that take float64 (pow.int, tril_indices and
    triu_indices take no floating-point input: there is nothing to differentiate)."""
    return [op for op in OPS if op.differentiable and f64 in op.dtypes]


def float_specs(sample):
    specs = list(sample.args) + list(sample.kwargs.values())
    return [a for a in specs if isinstance(a, T) and (a.dtype or f64).is_floating_point]


def leaf_elements(sample):
    return sum(math.prod(_base_shape(spec)) for spec in float_specs(sample))


def samples_of(op):
    return list(op.samples(f64)) + EXTRA_SAMPLES.get(op.name, [])


def grad_cases(small=True):
    """Every (op, sample) to check; `small`: only samples of at most MAX_ELEMENTS leaf
    elements (gradcheck costs one backward per output element)."""
    found = []
    for op in grad_ops():
        undefined = UNDEFINED.get(op.name, lambda s: False)
        for sample in samples_of(op):
            if not float_specs(sample) or undefined(sample):
                continue
            if small and leaf_elements(sample) > MAX_ELEMENTS:
                continue
            found.append(GradCase(op, sample))
    return found


# --- building the inputs ------------------------------------------------------------------


@dataclass(frozen=True)
class _Leaf:
    index: int  # position in the leaves
    spec: T  # the layout to give it


def lay_out(t, spec):
    """The registry's layout of `spec` for a contiguous `t` of its base shape, made with
    view ops (permute, as_strided, expand, narrow) rather than with slicing, so that a
    missing slicing formula shows up in the getitem cases only."""
    if spec.layout == "t":
        return t.permute(tuple(reversed(range(t.dim()))))
    if spec.layout == "s" and t.dim():  # every other element of the last dim
        strides = t.stride()[:-1] + (2 * t.stride()[-1],)
        return t.as_strided(spec.shape, strides, t.storage_offset())
    if spec.layout == "e":
        return t.expand(*spec.shape)
    if spec.layout == "o" and t.dim():
        return t.narrow(0, 1, spec.shape[0])
    return t


def away_from_kinks(values):
    """Squeeze each half-unit cell [m, m + 0.5) into [m + 0.05, m + 0.45): no value is left
    within 0.05 of a multiple of 0.5; monotone, so distinct draws stay distinct."""
    cell = np.floor(values / 0.5) * 0.5
    return cell + 0.05 + 0.8 * (values - cell)


def _draw_float(shape, domain, nonzero, rng):
    lo, hi = domain
    values = rng.uniform(lo, hi, size=shape)
    if nonzero:  # |v| >= 0.25, keeping the sign and the order (divisors)
        top = max(abs(lo), abs(hi))
        values = np.sign(values) * (0.25 + np.abs(values) * (1 - 0.25 / top))
    return away_from_kinks(values)


def _gap_ok(leaves):
    values = [leaf.detach().reshape(-1) for leaf in leaves]
    flat = np.sort(np.abs(np.concatenate([v.numpy() for v in values]))) if values else []
    return len(flat) < 2 or float(np.min(np.diff(flat))) >= MIN_GAP


def _quotient_ok(args):
    """fmod, remainder and rounded division jump where a / b is an integer."""
    a, b = (x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x) for x in args[:2])
    q = np.asarray(a / b)
    return q.size == 0 or float(np.min(np.abs(q - np.round(q)))) >= 1e-3


QUOTIENT_OPS = {"fmod", "remainder", "div.trunc", "div.floor"}


@dataclass(frozen=True)
class GradCase:
    op: object  # OpInfo
    sample: Sample

    def __repr__(self):
        return f"{self.op.name}-{self.sample!r}".replace("\n", "")

    def build(self, check=True):
        """(fn, leaves): fn(*leaves) calls the op on the laid-out leaves.  With `check`,
        tries seeds until the values keep away from the op's kinks and ties."""
        for seed in range(SEEDS if check else 1):
            fn, leaves = self._build(seed)
            if not check or self._well_placed(fn, leaves):
                return fn, leaves
        raise AssertionError(f"{self}: no seed in {SEEDS} gave inputs away from kinks and ties")

    def _build(self, seed):
        rng = np.random.default_rng(seed)
        leaves = []

        def value(spec, position):
            if isinstance(spec, S):
                v = rng.uniform(*self.op.domain_of(position))
                return round(v * 4) / 4 or 0.5
            if not isinstance(spec, T):
                return spec
            dtype = spec.dtype or f64
            nonzero = position in self.op.nonzero
            if not dtype.is_floating_point:
                base = _draw(_base_shape(spec), dtype, self.op.domain_of(position), nonzero, rng)
                return lay_out(torch.tensor(base, dtype=dtype), spec)
            base = _draw_float(_base_shape(spec), self.op.domain_of(position), nonzero, rng)
            leaves.append(torch.tensor(base, dtype=dtype).requires_grad_())
            return _Leaf(len(leaves) - 1, spec)

        args = [value(a, i) for i, a in enumerate(self.sample.args)]
        kwargs = {k: value(v, 0) for k, v in self.sample.kwargs.items()}
        op = self.op

        def fn(*xs):
            def put(v):
                return lay_out(xs[v.index], v.spec) if isinstance(v, _Leaf) else v

            out = op(*[put(a) for a in args], **{k: put(v) for k, v in kwargs.items()})
            return tuple(out) if isinstance(out, (list, tuple)) else out

        fn.laid_out = lambda: [  # the op's arguments, without history (for the checks)
            lay_out(leaves[a.index].detach(), a.spec) if isinstance(a, _Leaf) else a for a in args
        ]
        return fn, leaves

    def _well_placed(self, fn, leaves):
        if not _gap_ok(leaves):
            return False
        return self.op.name not in QUOTIENT_OPS or _quotient_ok(fn.laid_out())
