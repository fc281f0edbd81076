"""Backward formulas make their tensors on the gradient's device.

No GPU is needed to catch a formula that builds a helper tensor on the CPU
(``torch.zeros(shape)`` without ``device=``), which on CUDA fails with "expected all
tensors to be on the same device". Two stand-ins for a GPU, per op:

- ``meta``: leaves on the meta device (shapes and dtypes, no data); every ``.grad`` must
  come back on meta with its leaf's shape and dtype. The core lacks meta kernels for many
  ops (indexing, sorting, linalg, ...): those cases are skipped with the reason listed in
  ``NO_META_KERNEL``, and only while the core still raises for them.
- ``trap``: leaves on the CPU with real values; the forward runs as usual, then the
  backward runs with ``torch.set_default_device("meta")``, so any tensor a formula makes
  without naming a device lands on meta and the backward fails (or a grad ends up off the
  CPU). The gradients must equal those of an ordinary backward. This covers every op,
  including the data-dependent paths meta cannot take.

The last part checks on the CPU that the seed and some formulas still give the right
numbers.
"""

import contextlib
import math

import pytest

import torch
from torch.autograd import Function

META = torch.device("meta")
CPU = torch.device("cpu")
F32, F64, C64 = torch.float32, torch.float64, torch.complex64


# ---------------------------------------------------------------- inputs
def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def make_leaves(shapes, dtype, device):
    """Random leaves, drawn on the CPU and moved (meta keeps only shape and dtype)."""
    gen = _gen()
    return [torch.randn(s, dtype=dtype, generator=gen).to(device).requires_grad_() for s in shapes]


def ints(like, *shape, high):
    """Valid random indices in [0, high) on ``like``'s device."""
    return torch.randint(0, high, shape, generator=_gen(1)).to(like.device)


def mask(like, *shape):
    return (torch.rand(shape, generator=_gen(2)) > 0.5).to(like.device)


@contextlib.contextmanager
def default_device(device):
    torch.set_default_device(device)
    try:
        yield
    finally:
        torch.set_default_device(None)


def _loss(out, weights=None):
    """A real scalar from an op's output(s): each differentiable output times fixed weights
    (so that every gradient element differs), summed. The weights name their device, so
    this may run inside the trap; with ``weights`` (a list) they require grad and are
    appended to it."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = None
    for o in outs:
        if not (isinstance(o, torch.Tensor) and o.requires_grad):
            continue
        o = torch.view_as_real(o) if o.is_complex() else o
        w = torch.linspace(0.5, 1.5, o.numel(), dtype=o.dtype, device=CPU).to(o.device)
        w = w.reshape(o.shape)
        if weights is not None:
            weights.append(w.requires_grad_())
        s = (o * w).sum()
        total = s if total is None else total + s
    return total


def run_backward(fn, leaves, create_graph=False, trap=False):
    """The leaves' grads of the loss of fn(*leaves). With create_graph, a second backward
    through the first one's graph: the grads (of the leaves and the loss's weights) of the
    loss of the first grads, which then depend on the weights even for a linear op. With
    trap, the backwards run with meta as the default device."""
    weights = [] if create_graph else None
    loss = _loss(fn(*leaves), weights)
    with default_device(META) if trap else contextlib.nullcontext():
        grads = torch.autograd.grad(loss, leaves, create_graph=create_graph)
        if not create_graph:
            return grads
        return torch.autograd.grad(
            _loss(grads), leaves + weights, allow_unused=True, materialize_grads=True
        )


# ---------------------------------------------------------------- the ops
def _activations(x):
    F = pytest.importorskip("torch.nn.functional")
    return (
        F.silu(x)
        + F.leaky_relu(x, 0.1)
        + F.elu(x)
        + F.selu(x)
        + F.softplus(x)
        + F.hardtanh(x)
        + F.gelu(x)
        + F.gelu(x, approximate="tanh")
    )


def _setitem(x, v):
    y = x * 1
    y[1] = v
    y[ints(x, 2, high=4)] = v
    return y


def _spd(a):
    return a @ a.mT + 3 * torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def _fft(x):
    spectrum = torch.fft.rfft(x)
    back = torch.fft.irfft(torch.fft.fft(x.to(C64)), n=8)
    return torch.view_as_real(spectrum).sum() + back.sum()


# (name, function of the leaves, leaf shapes, dtype)
CASES = [
    # pointwise
    ("sin", lambda x: (x * 2).sin(), [(3, 4)], F32),
    ("unary_chain", lambda x: x.cos().exp().log1p().sqrt().tanh().sigmoid(), [(3, 4)], F32),
    ("unary_more", lambda x: x.abs().rsqrt() + x.atan() + x.erf() + x.reciprocal(), [(5,)], F32),
    ("trig", lambda x: x.tan() + x.asinh() + x.sinh() + x.cosh() + (x / 4).asin(), [(5,)], F32),
    ("log_exp", lambda x: x.abs().log() + x.abs().log2() + x.exp2() + x.expm1(), [(5,)], F32),
    ("piecewise", lambda x: x.floor() + x.ceil() + x.round() + x.trunc() + x.sign(), [(5,)], F32),
    ("activations", _activations, [(3, 4)], F32),
    ("relu", lambda x: x.relu() * 3, [(3, 4)], F32),
    ("binary_broadcast", lambda a, b: a + b - a * b / (b + 3), [(3, 4), (4,)], F32),
    ("pow", lambda a, b: a**2 + a**3.5 + a.abs() ** b + 2**a, [(3, 4), (3, 4)], F32),
    ("atan2_fmod_remainder", lambda a, b: a.atan2(b) + a.fmod(b) + a.remainder(b), [(4,)] * 2, F32),
    ("maximum_minimum", lambda a, b: a.maximum(b) + a.minimum(b), [(3, 4), (4,)], F32),
    ("where", lambda a, b: torch.where(mask(a, 3, 4), a, b), [(3, 4), (1, 4)], F32),
    ("lerp", lambda a, b, w: torch.lerp(a, b, w) + torch.lerp(a, b, 0.3), [(4,)] * 3, F32),
    ("addcmul_addcdiv", lambda x, a, b: x.addcmul(a, b) + x.addcdiv(a, b + 3), [(4,)] * 3, F32),
    ("clamp", lambda x: x.clamp(-0.5, 0.5) + x.clamp(min=0.1), [(6,)], F32),
    ("to_dtype", lambda x: x.double().sin().float(), [(6,)], F32),
    ("float64", lambda x: (x * x).exp(), [(6,)], F64),
    ("cpu_scalar_tensor", lambda x: x * torch.tensor(2.0) + torch.tensor(1.0), [(3,)], F32),
    # reductions
    ("sum", lambda x: x.sum() + x.sum(0).sum() + x.sum((0, 1), keepdim=True), [(3, 4)], F32),
    ("sum_alone", lambda x: x.sum(), [(3, 4)], F32),
    ("mean", lambda x: x.mean() + x.mean(1).sum(), [(3, 4)], F32),
    ("mean_alone", lambda x: x.mean(), [(3, 4)], F32),
    ("var_std", lambda x: x.var() + x.std(1).sum() + x.var(0, correction=0).sum(), [(3, 4)], F32),
    ("norm", lambda x: x.norm() + x.norm(dim=1).sum(), [(3, 4)], F32),
    ("logsumexp", lambda x: x.logsumexp(1).sum() + x.logsumexp((0, 1)), [(3, 4)], F32),
    ("prod", lambda x: x.prod() + x.prod(1).sum(), [(3, 4)], F32),
    ("prod_with_zero", lambda x: (x * mask(x, 3, 4)).prod(1), [(3, 4)], F32),
    ("amax_amin", lambda x: x.amax(1).sum() + x.amin() + x.max() + x.min(), [(3, 4)], F32),
    ("max_min_dim", lambda x: x.max(1).values.sum() + x.min(0, True).values.sum(), [(3, 4)], F32),
    ("median", lambda x: x.median() + x.median(1).values.sum(), [(3, 5)], F32),
    (
        "kthvalue_mode",
        lambda x: x.kthvalue(2, 1).values.sum() + x.mode(1).values.sum(),
        [(3, 5)],
        F32,
    ),
    (
        "quantile",
        lambda x: x.quantile(0.3) + x.quantile(x.new_tensor([0.2, 0.9]), 1).sum(),
        [(3, 5)],
        F32,
    ),
    # views and shape ops
    ("reshape_view", lambda x: x.reshape(4, 3).t().reshape(-1).view(2, 6).flatten(), [(3, 4)], F32),
    (
        "transpose_permute",
        lambda x: x.transpose(0, 2).permute(2, 0, 1).movedim(0, 1),
        [(2, 3, 4)],
        F32,
    ),
    ("expand", lambda x: x.expand(5, 3, 4) + x.unsqueeze(0).squeeze(0), [(3, 1)], F32),
    (
        "narrow_select_diagonal",
        lambda x: x.narrow(1, 1, 2).sum() + x[1].sum() + x.diagonal().sum(),
        [(4, 4)],
        F32,
    ),
    ("select_method", lambda x: x.select(0, 1) * x.select(1, 2), [(4, 4)], F32),
    ("as_strided", lambda x: x.as_strided((2, 2), (1, 2), 1), [(3, 3)], F32),
    ("unfold", lambda x: x.unfold(1, 3, 2), [(2, 7)], F32),
    ("getitem_basic", lambda x: x[1:, None, ::2][..., 0], [(4, 5)], F32),
    (
        "getitem_advanced",
        lambda x: x[ints(x, 3, high=4)].sum() + x[mask(x, 4, 5)].sum(),
        [(4, 5)],
        F32,
    ),
    ("setitem", _setitem, [(4, 5), (5,)], F32),
    ("flip_roll_tri", lambda x: x.flip(0).roll(1, 1).tril().triu(-1), [(4, 4)], F32),
    ("repeat", lambda x: x.repeat(2, 3).sum() + x.repeat_interleave(2, 0).sum(), [(2, 3)], F32),
    (
        "repeat_interleave_tensor",
        lambda x: x.repeat_interleave(ints(x, 3, high=3), 0),
        [(3, 2)],
        F32,
    ),
    (
        "cat_stack",
        lambda a, b: torch.cat([a, b], 1).sum() + torch.stack([a, b]).sum(),
        [(2, 3)] * 2,
        F32,
    ),
    ("cat_with_empty", lambda a, b: torch.cat([a, b]), [(0,), (4,)], F32),
    (
        "split_chunk_unbind",
        lambda x: sum(p.sum() for p in [*x.split(2), *x.chunk(3, 1), *x.unbind(1)]),
        [(5, 3)],
        F32,
    ),
    # indexing
    ("gather", lambda x: x.gather(1, ints(x, 3, 2, high=4)), [(3, 4)], F32),
    ("scatter", lambda x, s: x.scatter(1, ints(x, 3, 2, high=4), s), [(3, 4), (3, 2)], F32),
    ("scatter_add", lambda x, s: x.scatter_add(1, ints(x, 3, 2, high=4), s), [(3, 4), (3, 2)], F32),
    (
        "scatter_reduce_prod",
        lambda x, s: x.scatter_reduce(1, ints(x, 3, 2, high=4), s, "prod"),
        [(3, 4), (3, 2)],
        F32,
    ),
    (
        "scatter_reduce_prod_zero",
        lambda x, s: (x * mask(x, 3, 4)).scatter_reduce(1, ints(x, 3, 2, high=4), s, "prod"),
        [(3, 4), (3, 2)],
        F32,
    ),
    (
        "scatter_reduce_amax",
        lambda x, s: x.scatter_reduce(1, ints(x, 3, 2, high=4), s, "amax"),
        [(3, 4), (3, 2)],
        F32,
    ),
    ("index_select", lambda x: x.index_select(0, ints(x, 5, high=3)), [(3, 4)], F32),
    (
        "index_add_copy",
        lambda x, s: (
            x.index_add(0, ints(x, 2, high=3), s)
            + x.index_copy(0, x.new_tensor([2, 0], dtype=torch.int64), s)
        ),
        [(3, 4), (2, 4)],
        F32,
    ),
    (
        "masked",
        lambda x, v: x.masked_fill(mask(x, 3, 4), 0.0) + x.masked_scatter(mask(x, 3, 4), v),
        [(3, 4), (12,)],
        F32,
    ),
    ("masked_select", lambda x: x.masked_select(mask(x, 3, 4)), [(3, 4)], F32),
    (
        "take_put",
        lambda x, v: x.take(ints(x, 5, high=12)).sum() + x.put(ints(x, 2, high=12), v).sum(),
        [(3, 4), (2,)],
        F32,
    ),
    ("index_put", lambda x, v: x.index_put((ints(x, 2, high=3),), v), [(3, 4), (2, 4)], F32),
    # order statistics and scans
    ("sort", lambda x: x.sort(1).values + x.sort(0, descending=True).values, [(3, 4)], F32),
    ("sort_values_only", lambda x: torch.sort(x).values, [(5,)], F32),
    ("topk", lambda x: x.topk(2, 1).values, [(3, 4)], F32),
    ("cumsum_cumprod", lambda x: x.cumsum(1) + x.cumprod(0), [(3, 4)], F32),
    ("cumprod_with_zero", lambda x: (x * mask(x, 3, 4)).cumprod(1), [(3, 4)], F32),
    ("cummax_logcumsumexp", lambda x: x.cummax(1).values + x.logcumsumexp(0), [(3, 4)], F32),
    # matrix products
    ("matmul", lambda a, b: a @ b, [(3, 4), (4, 5)], F32),
    ("matmul_broadcast", lambda a, b: torch.matmul(a, b), [(2, 3, 4), (4,)], F32),
    (
        "bmm_baddbmm",
        lambda c, a, b: torch.bmm(a, b) + torch.baddbmm(c, a, b),
        [(2, 3, 5), (2, 3, 4), (2, 4, 5)],
        F32,
    ),
    (
        "mm_mv_dot_outer",
        lambda a, v: (a.mm(a.t()) @ v).dot(v) + torch.outer(v, v).sum(),
        [(3, 3), (3,)],
        F32,
    ),
    ("addmm", lambda c, a, b: torch.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)], F32),
    # linear algebra
    ("linalg_solve", lambda a, b: torch.linalg.solve(_spd(a), b), [(3, 3), (3, 2)], F64),
    (
        "linalg_inv_det",
        lambda a: torch.linalg.inv(_spd(a)).sum() + torch.linalg.det(_spd(a)),
        [(3, 3)],
        F64,
    ),
    ("linalg_cholesky", lambda a: torch.linalg.cholesky(_spd(a)), [(3, 3)], F64),
    ("linalg_qr", lambda a: torch.linalg.qr(a), [(4, 3)], F64),
    ("linalg_svd", lambda a: torch.linalg.svd(a, full_matrices=False), [(4, 3)], F64),
    ("linalg_eigh", lambda a: torch.linalg.eigh(a + a.mT), [(3, 3)], F64),
    ("linalg_lu_factor", lambda a: torch.linalg.lu_factor(a).LU, [(3, 3)], F64),
    (
        "linalg_solve_triangular",
        lambda a, b: torch.linalg.solve_triangular(_spd(a), b, upper=True),
        [(3, 3), (3, 2)],
        F64,
    ),
    ("linalg_lstsq", lambda a, b: torch.linalg.lstsq(a, b).solution, [(4, 3), (4, 2)], F64),
    # softmax
    ("softmax", lambda x: x.softmax(1) * x.log_softmax(0), [(3, 4)], F32),
    # complex and FFT
    ("complex_abs_angle", lambda z: z.abs() + z.angle(), [(4,)], C64),
    ("view_as_complex", lambda x: torch.view_as_complex(x).exp(), [(4, 2)], F32),
    ("fft", _fft, [(8,)], F32),
]

# The cases the core cannot run on meta: no meta kernel (NotImplementedError "...not
# implemented for dtype ... on meta"), or a core op that reads values a meta tensor does not
# have ("(no data)": "Cannot copy out of meta tensor"). Each is skipped on meta only while
# it raises NotImplementedError, and never for a copy between the CPU and meta inside a
# backward (a tensor a formula made on the CPU); the trap test runs them all.
_NO_KERNEL = "the core has no meta kernel for {}"
NO_META_KERNEL = {
    "median": _NO_KERNEL.format("kthvalue (median)"),
    "kthvalue_mode": _NO_KERNEL.format("kthvalue"),
    "quantile": _NO_KERNEL.format("sort (quantile)"),
    "getitem_advanced": _NO_KERNEL.format("index_offsets (advanced indexing)"),
    "setitem": _NO_KERNEL.format("index_offsets (advanced indexing)"),
    "flip_roll_tri": _NO_KERNEL.format("flip"),
    "repeat": _NO_KERNEL.format("repeat_interleave"),
    "repeat_interleave_tensor": "repeat_interleave reads the repeats (no data)",
    "cat_stack": _NO_KERNEL.format("cat"),
    "cat_with_empty": _NO_KERNEL.format("cat"),
    "prod": _NO_KERNEL.format("cat (prod's backward where an element may be zero)"),
    "prod_with_zero": _NO_KERNEL.format("cat (prod's backward where an element may be zero)"),
    "max_min_dim": "scatter_add (max(dim)'s backward) checks its indices' values (no data)",
    "as_strided": "index_add (as_strided's backward) checks its indices' values (no data)",
    "unfold": "index_add (unfold's backward) checks its indices' values (no data)",
    "gather": _NO_KERNEL.format("gather"),
    "scatter": "scatter checks its indices' values (no data)",
    "scatter_add": "scatter_add checks its indices' values (no data)",
    "scatter_reduce_prod": "scatter_reduce checks its indices' values (no data)",
    "scatter_reduce_prod_zero": "scatter_reduce checks its indices' values (no data)",
    "scatter_reduce_amax": "scatter_reduce checks its indices' values (no data)",
    "index_select": _NO_KERNEL.format("index_select"),
    "index_add_copy": "index_add checks its indices' values (no data)",
    "masked": "masked_scatter counts the mask's true elements (no data)",
    "masked_select": _NO_KERNEL.format("masked_select"),
    "take_put": _NO_KERNEL.format("index_offsets (take / put)"),
    "index_put": _NO_KERNEL.format("index_offsets (index_put)"),
    "sort": _NO_KERNEL.format("sort"),
    "sort_values_only": _NO_KERNEL.format("sort"),
    "topk": _NO_KERNEL.format("topk"),
    "cumsum_cumprod": _NO_KERNEL.format("cumsum"),
    "cumprod_with_zero": _NO_KERNEL.format("cumprod"),
    "cummax_logcumsumexp": _NO_KERNEL.format("cummax"),
    "linalg_solve": _NO_KERNEL.format("lu_solve"),
    "linalg_inv_det": _NO_KERNEL.format("lu_solve"),
    "linalg_cholesky": _NO_KERNEL.format("cholesky"),
    "linalg_qr": _NO_KERNEL.format("qr"),
    "linalg_svd": _NO_KERNEL.format("svd"),
    "linalg_eigh": _NO_KERNEL.format("eigh"),
    "linalg_lu_factor": _NO_KERNEL.format("lu_factor"),
    "linalg_solve_triangular": _NO_KERNEL.format("triangular_solve"),
    "linalg_lstsq": "lstsq copies its inputs to the CPU for LAPACK (no data)",
    "softmax": _NO_KERNEL.format("softmax"),
    "complex_abs_angle": _NO_KERNEL.format("complex_abs"),
    "fft": _NO_KERNEL.format("fft_r2c"),
}

# Cases also run through a create_graph backward (double backward).
DOUBLE_BACKWARD = [
    "sin",
    "activations",
    "pow",
    "mean_alone",
    "sum_alone",
    "var_std",
    "norm",
    "logsumexp",
    "prod",
    "prod_with_zero",
    "amax_amin",
    "softmax",
    "gather",
    "index_select",
    "cumsum_cumprod",
    "cumprod_with_zero",
    "matmul",
    "narrow_select_diagonal",
    "as_strided",
    "unfold",
    "sort",
    "linalg_solve",
    "linalg_cholesky",
    "median",
    "quantile",
]


def _on_meta(name, fn, shapes, dtype, create_graph=False):
    leaves = make_leaves(shapes, dtype, META)
    try:
        grads = run_backward(fn, leaves, create_graph)
    except NotImplementedError as e:
        # a copy between the CPU and meta inside a backward is a tensor made on the CPU
        made_on_cpu = "cpu" in str(e) and _in_backward(e)
        if name not in NO_META_KERNEL or made_on_cpu:
            raise
        pytest.skip(f"{NO_META_KERNEL[name]} ({str(e).splitlines()[0]})")
    for g, t in zip(grads, leaves):
        assert g.device == META, f"a gradient on {g.device}"
        assert g.shape == t.shape and g.dtype == t.dtype
    assert all(g.device == META for g in grads)  # (the weights' too, after a double backward)


def _in_backward(e):
    """Whether exception e was raised during a backward (the engine adds this note)."""
    return any("in the backward of" in note for note in getattr(e, "__notes__", ()))


def _in_trap(fn, shapes, dtype, create_graph=False):
    torch.manual_seed(0)  # (the same dropout mask in both runs)
    expected = run_backward(fn, make_leaves(shapes, dtype, CPU), create_graph)
    torch.manual_seed(0)
    grads = run_backward(fn, make_leaves(shapes, dtype, CPU), create_graph, trap=True)
    for g, e in zip(grads, expected):
        assert g.device == CPU, f"a gradient on {g.device}"
        torch.testing.assert_close(g, e, rtol=0, atol=0, equal_nan=True)


_IDS = [c[0] for c in CASES]
_DOUBLE = [c for c in CASES if c[0] in DOUBLE_BACKWARD]


@pytest.mark.parametrize("name, fn, shapes, dtype", CASES, ids=_IDS)
def test_backward_on_meta(name, fn, shapes, dtype):
    _on_meta(name, fn, shapes, dtype)


@pytest.mark.parametrize("name, fn, shapes, dtype", CASES, ids=_IDS)
def test_backward_makes_no_default_device_tensor(name, fn, shapes, dtype):
    _in_trap(fn, shapes, dtype)


@pytest.mark.parametrize("name, fn, shapes, dtype", _DOUBLE, ids=[c[0] for c in _DOUBLE])
def test_double_backward_on_meta(name, fn, shapes, dtype):
    _on_meta(name, fn, shapes, dtype, create_graph=True)


@pytest.mark.parametrize("name, fn, shapes, dtype", _DOUBLE, ids=[c[0] for c in _DOUBLE])
def test_double_backward_makes_no_default_device_tensor(name, fn, shapes, dtype):
    _in_trap(fn, shapes, dtype, create_graph=True)


# ---------------------------------------------------------------- torch.nn.functional
def _F():
    return torch.nn.functional


def _targets(x, classes):
    return ints(x, x.shape[0], high=classes)


def _probs(t):
    return t.sigmoid() * 0.9 + 0.05


NN_CASES = [
    ("cross_entropy", lambda x: _F().cross_entropy(x, _targets(x, 5)), [(4, 5)], F32),
    (
        "cross_entropy_weight_smoothing",
        lambda x, w: _F().cross_entropy(x, _targets(x, 5), weight=w.abs(), label_smoothing=0.1),
        [(4, 5), (5,)],
        F32,
    ),
    (
        "cross_entropy_probs",
        lambda x, y: _F().cross_entropy(x, y.softmax(1)),
        [(4, 5), (4, 5)],
        F32,
    ),
    (
        "nll_loss",
        lambda x: _F().nll_loss(x.log_softmax(1), _targets(x, 5), reduction="sum"),
        [(4, 5)],
        F32,
    ),
    ("nll_loss_ignore", lambda x: _F().nll_loss(x, _targets(x, 5), ignore_index=2), [(4, 5)], F32),
    (
        "mse_l1_smooth_huber",
        lambda x, y: (
            _F().mse_loss(x, y)
            + _F().l1_loss(x, y)
            + _F().smooth_l1_loss(x, y)
            + _F().huber_loss(x, y, reduction="sum")
        ),
        [(3, 4)] * 2,
        F32,
    ),
    ("bce", lambda x, y: _F().binary_cross_entropy(_probs(x), _probs(y)), [(3, 4)] * 2, F32),
    (
        "bce_with_logits",
        lambda x, y: _F().binary_cross_entropy_with_logits(
            x, _probs(y), pos_weight=_probs(y[0]).detach()
        ),
        [(3, 4), (3, 4)],
        F32,
    ),
    (
        "kl_div",
        lambda x, y: _F().kl_div(x.log_softmax(1), y.softmax(1), reduction="batchmean"),
        [(3, 4)] * 2,
        F32,
    ),
    ("layer_norm", lambda x, w, b: _F().layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)], F32),
    (
        "batch_norm_training",
        lambda x, w, b: _F().batch_norm(x, None, None, w, b, training=True),
        [(4, 3, 5), (3,), (3,)],
        F32,
    ),
    (
        "batch_norm_running",
        lambda x: _F().batch_norm(
            x, torch.zeros(3, device=x.device), torch.ones(3, device=x.device), training=True
        ),
        [(4, 3, 5)],
        F32,
    ),
    ("group_norm", lambda x, w, b: _F().group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)], F32),
    ("dropout", lambda x: _F().dropout(x, 0.5, training=True), [(3, 4)], F32),
    ("embedding", lambda w: _F().embedding(ints(w, 3, 2, high=5), w), [(5, 3)], F32),
    (
        "embedding_padding_freq",
        lambda w: _F().embedding(ints(w, 6, high=5), w, padding_idx=1, scale_grad_by_freq=True),
        [(5, 3)],
        F32,
    ),
    ("linear", lambda x, w, b: _F().linear(x, w, b), [(2, 4), (3, 4), (3,)], F32),
    ("conv1d", lambda x, w, b: _F().conv1d(x, w, b, padding=1), [(2, 3, 8), (4, 3, 3), (4,)], F32),
    (
        "conv2d",
        lambda x, w: _F().conv2d(x, w, stride=2, padding=1),
        [(2, 3, 6, 6), (4, 3, 3, 3)],
        F32,
    ),
    (
        "conv_transpose2d",
        lambda x, w: _F().conv_transpose2d(x, w, stride=2),
        [(1, 3, 4, 4), (3, 2, 3, 3)],
        F32,
    ),
    (
        "pooling",
        lambda x: (
            _F().max_pool2d(x, 2).sum()
            + _F().avg_pool2d(x, 2).sum()
            + _F().adaptive_avg_pool2d(x, 3).sum()
        ),
        [(1, 2, 6, 6)],
        F32,
    ),
    (
        "interpolate",
        lambda x: (
            _F().interpolate(x, scale_factor=2, mode="bilinear").sum()
            + _F().interpolate(x, size=(5, 5)).sum()
        ),
        [(1, 2, 4, 4)],
        F32,
    ),
    (
        "pad",
        lambda x: _F().pad(x, (1, 2, 2, 1), mode="reflect").sum() + _F().pad(x, (1, 1, 2, 0)).sum(),
        [(1, 2, 4, 4)],
        F32,
    ),
    ("unfold_fold", lambda x: _F().fold(_F().unfold(x, 2), (4, 4), 2), [(1, 2, 4, 4)], F32),
    ("softmax_functional", lambda x: _F().softmax(x, 1) + _F().log_softmax(x, 0), [(3, 4)], F32),
    (
        "attention",
        lambda q, k, v: _F().scaled_dot_product_attention(q, k, v),
        [(1, 3, 4), (1, 5, 4), (1, 5, 4)],
        F32,
    ),
    (
        "attention_causal",
        lambda q, k, v: _F().scaled_dot_product_attention(q, k, v, is_causal=True),
        [(1, 3, 4)] * 3,
        F32,
    ),
]

_NN_IDS = [c[0] for c in NN_CASES]
NO_META_KERNEL.update(
    {
        "cross_entropy": _NO_KERNEL.format("log_softmax (cross_entropy)"),
        "cross_entropy_weight_smoothing": _NO_KERNEL.format("log_softmax (cross_entropy)"),
        "cross_entropy_probs": _NO_KERNEL.format("log_softmax (cross_entropy)"),
        "nll_loss": _NO_KERNEL.format("log_softmax"),
        "layer_norm": _NO_KERNEL.format("layer_norm"),
        "batch_norm_training": _NO_KERNEL.format("batch_norm"),
        "batch_norm_running": _NO_KERNEL.format("batch_norm"),
        "group_norm": _NO_KERNEL.format("batch_norm (group_norm)"),
        "dropout": _NO_KERNEL.format("dropout_mask"),
        "embedding": _NO_KERNEL.format("embedding"),
        "embedding_padding_freq": _NO_KERNEL.format("embedding"),
        "conv1d": _NO_KERNEL.format("conv"),
        "conv2d": _NO_KERNEL.format("conv"),
        "conv_transpose2d": _NO_KERNEL.format("conv"),
        "pooling": _NO_KERNEL.format("max_pool"),
        "interpolate": _NO_KERNEL.format("interpolate"),
        "pad": _NO_KERNEL.format("pad"),
        "unfold_fold": _NO_KERNEL.format("im2col"),
        "nll_loss_ignore": _NO_KERNEL.format("nll_loss"),
        "kl_div": _NO_KERNEL.format("log_softmax"),
        "softmax_functional": _NO_KERNEL.format("softmax"),
        "attention": _NO_KERNEL.format("softmax (attention)"),
        "attention_causal": _NO_KERNEL.format("tril and softmax (attention's causal mask)"),
    }
)


# Failures outside torch-autograd, each in the forward (strict: the test fails once fixed).
KNOWN_FORWARD_BUGS = {}


def test_case_lists_are_consistent():
    ids = _IDS + _NN_IDS
    assert len(set(ids)) == len(ids)
    assert set(NO_META_KERNEL) | set(KNOWN_FORWARD_BUGS) <= set(ids)
    assert len(_DOUBLE) == len(DOUBLE_BACKWARD)


@pytest.mark.parametrize("name, fn, shapes, dtype", NN_CASES, ids=_NN_IDS)
def test_nn_backward_on_meta(name, fn, shapes, dtype):
    pytest.importorskip("torch.nn")
    if name in KNOWN_FORWARD_BUGS:
        with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
            fn(*make_leaves(shapes, dtype, META))
        pytest.xfail(KNOWN_FORWARD_BUGS[name])
    _on_meta(name, fn, shapes, dtype)


@pytest.mark.parametrize("name, fn, shapes, dtype", NN_CASES, ids=_NN_IDS)
def test_nn_backward_makes_no_default_device_tensor(name, fn, shapes, dtype):
    pytest.importorskip("torch.nn")
    _in_trap(fn, shapes, dtype)


def test_nn_linear_module_on_meta():
    nn = pytest.importorskip("torch.nn")
    layer = nn.Linear(4, 3, device=META)
    layer(torch.randn(2, 4, device=META)).sum().backward()
    for p in layer.parameters():
        assert p.grad.device == META and p.grad.shape == p.shape


_OPTIMIZERS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.01}),
    ("AdamW", {"lr": 0.1}),
    ("Adamax", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.1, "momentum": 0.5, "centered": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adadelta", {}),
    ("ASGD", {"lr": 0.1}),
    ("Rprop", {"lr": 0.1}),
]


@pytest.mark.parametrize(
    "name, kwargs", _OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_OPTIMIZERS)]
)
def test_optimizer_steps_on_meta(name, kwargs):
    """Parameters and their state stay on meta; the ``step`` count stays a CPU tensor (as in
    PyTorch without capturable/fused), and so do the scalar states read back each step."""
    pytest.importorskip("torch.nn")
    optim = pytest.importorskip("torch.optim")
    params = [
        torch.nn.Parameter(torch.randn(3, 4, device=META)),
        torch.nn.Parameter(torch.randn(4, device=META)),
    ]
    opt = getattr(optim, name)(params, **kwargs)
    for _ in range(2):
        for p in params:
            p.grad = torch.randn(p.shape, device=META)
        try:
            opt.step()
        except NotImplementedError as e:  # (Adam's one-pass update is a core kernel)
            if name not in ("Adam", "AdamW"):
                raise
            pytest.skip(f"the core has no meta kernel for adam_update ({e})")
    for p in params:
        assert p.device == META
        for key, value in opt.state[p].items():
            if isinstance(value, torch.Tensor) and value.dim() > 0:
                assert value.device == META, key


# ---------------------------------------------------------------- on a real GPU
# Skipped without one (the CPU stand-ins above cover those machines). The cases whose
# formulas make tensors of their own, each checked against the same backward on the CPU.
_GPU_CASES = [
    "sin",
    "sum_alone",
    "mean_alone",
    "cpu_scalar_tensor",
    "prod_with_zero",
    "max_min_dim",
    "median",
    "quantile",
    "as_strided",
    "unfold",
    "getitem_advanced",
    "setitem",
    "cat_with_empty",
    "gather",
    "scatter_reduce_prod_zero",
    "index_select",
    "masked",
    "take_put",
    "index_put",
    "sort",
    "cumprod_with_zero",
    "linalg_lu_factor",
    "fft",
    "embedding_padding_freq",
    "cross_entropy_weight_smoothing",
    "layer_norm",
]
_GPU_TOL = {F32: dict(rtol=1e-4, atol=1e-5), F64: dict(rtol=1e-10, atol=1e-12)}
_needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="no usable CUDA GPU")


@_needs_gpu
def test_implicit_seed_on_cuda():
    """The failure that started this file: the seed was made on the CPU."""
    w = torch.randn(3, 4, requires_grad=True)
    (w.cuda() * 2).sin().sum().backward()
    torch.testing.assert_close(w.grad, 2 * (2 * w.detach()).cos(), **_GPU_TOL[F32])


@_needs_gpu
@pytest.mark.parametrize("name", _GPU_CASES)
def test_backward_on_cuda_matches_cpu(name):
    name, fn, shapes, dtype = next(c for c in CASES + NN_CASES if c[0] == name)
    if fn in [c[1] for c in NN_CASES]:
        pytest.importorskip("torch.nn")
    expected = run_backward(fn, make_leaves(shapes, dtype, CPU))
    cuda = torch.device("cuda", torch.cuda.current_device())
    try:
        grads = run_backward(fn, make_leaves(shapes, dtype, cuda))
    except NotImplementedError as e:  # a forward the CUDA backend lacks (never a backward's)
        if _in_backward(e):
            raise
        pytest.skip(f"no CUDA kernel: {str(e).splitlines()[0]}")
    for g, e in zip(grads, expected):
        assert g.device == cuda, f"a gradient on {g.device}"
        torch.testing.assert_close(g.cpu(), e, equal_nan=True, **_GPU_TOL[dtype])


# ---------------------------------------------------------------- engine and Function
# (jacobian and hessian stack their rows: the core has no meta kernel for cat, so the trap)
def test_jacobian_and_hessian_make_no_default_device_tensor():
    x = torch.tensor([0.5, 1.0, 2.0], dtype=F64)
    with default_device(META):
        jac = torch.autograd.functional.jacobian(lambda t: t.sin() * 2, x)
        hess = torch.autograd.functional.hessian(lambda t: (t.sin() * t).sum(), x)
        jac_unused = torch.autograd.functional.jacobian(lambda a, b: a * 2, (x, x[:2]))
    torch.testing.assert_close(jac, torch.diag(2 * x.cos()))
    torch.testing.assert_close(hess, torch.diag(2 * x.cos() - x * x.sin()))
    assert jac_unused[1].device == CPU and torch.equal(jac_unused[1], torch.zeros(3, 2, dtype=F64))


def test_unused_output_of_a_function_is_materialized_on_its_device():
    class TwoOut(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            assert g2.device == g1.device  # the unused output's zeros
            return g1 * 2 + g2 * 3

    x = torch.randn(4, device=META).requires_grad_()
    TwoOut.apply(x)[0].sum().backward()
    assert x.grad.device == META


class _WrongDevice(Function):
    """Returns its input's gradient on the CPU, whatever the input's device."""

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return torch.ones(g.shape)


def test_a_gradient_on_the_wrong_device_is_an_error():
    x = torch.randn(3, device=META).requires_grad_()
    with pytest.raises(RuntimeError, match="expected device meta but got cpu"):
        _WrongDevice.apply(x).sum().backward()


def test_a_0d_gradient_on_another_device_moves_to_its_input():
    """As in PyTorch: a 0-d gradient (of a CPU scalar mixed into another device's op) is
    moved to the input's device."""
    x = torch.randn((), device=META).requires_grad_()
    _WrongDevice.apply(x).backward()
    assert x.grad.device == META


# ---------------------------------------------------------------- numbers on the CPU
def test_implicit_seed_is_one():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=F64, requires_grad=True)
    (x * x).sum().backward()
    assert torch.equal(x.grad, 2 * x.detach())
    (g,) = torch.autograd.grad((x * 3).sum(), x)
    assert torch.equal(g, torch.full((3,), 3.0, dtype=F64))
    y = torch.tensor([[2.0]], requires_grad=True)  # one element, not 0-d
    (y * 5).backward()
    assert y.grad.shape == (1, 1) and y.grad.item() == 5.0


def _grad(fn, *values, dtype=F64):
    leaves = [torch.tensor(v, dtype=dtype, requires_grad=True) for v in values]
    return torch.autograd.grad(fn(*leaves), leaves)


def test_sin_mean_and_sum_closed_forms():
    v = [[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]]
    x = torch.tensor(v, dtype=F64)
    (g,) = _grad(lambda t: (t * 2).sin().sum(), v)
    torch.testing.assert_close(g, 2 * (2 * x).cos())
    (g,) = _grad(lambda t: t.mean(), v)
    assert torch.equal(g, torch.full((2, 3), 1 / 6, dtype=F64))
    (g,) = _grad(lambda t: t.mean(), v, dtype=torch.float32)
    assert g.dtype == torch.float32 and torch.allclose(g, torch.full((2, 3), 1 / 6))


def test_prod_and_cumprod_with_zeros():
    (g,) = _grad(lambda t: t.prod(), [2.0, 0.0, 3.0, 4.0])
    assert g.tolist() == [0.0, 24.0, 0.0, 0.0]
    (g,) = _grad(lambda t: t.prod(), [2.0, 5.0, 3.0])
    assert g.tolist() == [15.0, 6.0, 10.0]
    (g,) = _grad(lambda t: t.cumprod(0).sum(), [2.0, 0.0, 3.0])
    # y = (2, 0, 0): dy/dx0 = (1, 0, 0), dy/dx1 = (0, 2, 6), dy/dx2 = (0, 0, 0)
    assert g.tolist() == [1.0, 8.0, 0.0]


def test_median_splits_among_ties_and_nan():
    (g,) = _grad(lambda t: t.median(), [3.0, 1.0, 2.0, 2.0, 5.0])
    assert g.tolist() == [0.0, 0.0, 0.5, 0.5, 0.0]
    (g,) = _grad(lambda t: t.median(), [1.0, math.nan, 2.0])
    assert g.tolist() == [0.0, 1.0, 0.0]


def test_quantile_interpolates_between_neighbours():
    (g,) = _grad(lambda t: t.quantile(0.25), [4.0, 1.0, 3.0, 2.0, 5.0])  # rank 1: value 2
    assert g.tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    (g,) = _grad(lambda t: t.quantile(0.3), [4.0, 1.0, 3.0, 2.0])  # rank 0.9: 1 and 2
    torch.testing.assert_close(g, torch.tensor([0.0, 0.1, 0.0, 0.9], dtype=F64))


def test_indexing_gradients_add_up_at_repeats():
    idx = torch.tensor([2, 0, 2])
    (g,) = _grad(
        lambda t: (t.index_select(0, idx) * torch.tensor([1.0, 2.0, 3.0], dtype=F64)).sum(),
        [0.0] * 4,
    )
    assert g.tolist() == [2.0, 0.0, 4.0, 0.0]
    (g,) = _grad(lambda t: t[torch.tensor([1, 1, 3])].sum(), [0.0] * 4)
    assert g.tolist() == [0.0, 2.0, 0.0, 1.0]
    (g,) = _grad(lambda t: t.as_strided((2, 2), (1, 1)).sum(), [0.0] * 3)  # overlapping
    assert g.tolist() == [1.0, 2.0, 1.0]
    (g,) = _grad(lambda t: t.max(0).values.sum() + t.amax(1).sum(), [[1.0, 5.0], [3.0, 2.0]])
    assert g.tolist() == [[0.0, 2.0], [2.0, 0.0]]


def test_scatter_reduce_prod_with_zero():
    idx = torch.tensor([0, 0])
    x, s = [2.0, 3.0], [0.0, 5.0]
    gx, gs = _grad(lambda a, b: a.scatter_reduce(0, idx, b, "prod").sum(), x, s)
    # out[0] = 2 * 0 * 5 = 0: only the zero's gradient is nonzero (2 * 5)
    assert gx.tolist() == [0.0, 1.0] and gs.tolist() == [10.0, 0.0]


def test_embedding_scale_grad_by_freq():
    F = pytest.importorskip("torch.nn.functional")
    idx = torch.tensor([0, 2, 2, 1])
    (g,) = _grad(
        lambda w: F.embedding(idx, w, padding_idx=1, scale_grad_by_freq=True).sum(),
        [[1.0, 1.0]] * 3,
    )
    assert g.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
