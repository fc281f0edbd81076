"""Op fuzzer: torch functions and Tensor methods called with bad and edge arguments.

    python fuzz_ops.py --calls 100000 --seed 0 [--ref /path/to/pytorch-venv/bin/python]
    python fuzz_ops.py --seed 0 --show 1234      # call 1234 of seed 0, as Python source

How it works:
  * A call is data: ``Call(op, via, args, kwargs, then)``. Arguments are plain Python values
    (ints of any size, floats, slices, Ellipsis, tuples, lists, strings) plus ``Tn`` (a
    tensor: dtype, shape, memory layout, values), ``Dt`` (a dtype) and ``St`` (a tensor's
    storage). Call i of seed s depends on ``random.Random(f"{s}:{i}")`` alone.
  * ``source(call)`` renders a call as Python; workers exec exactly that source, so a
    printed reproduction is what ran, under this project or under PyTorch.
  * Workers (``--worker``) are subprocesses under RLIMIT_AS (a huge allocation fails
    instead of swapping). Each runs a batch and answers one JSON line per call. When a worker
    dies on a signal or one call takes more than 5 s, the batch up to that call is rerun one
    call per forked process (``--isolate``), which names the call that crashes or hangs.
  * With ``--ref`` every call also runs under PyTorch. Outcomes agree when both succeed with
    the same result types, shapes, dtypes and (within a tolerance) values, or when both raise
    the same exception family (RuntimeError, IndexError, ValueError, TypeError,
    NotImplementedError; other exception types are their own family).

Only the standard library and ``torch`` are imported in workers; the generator also reads
the names of elementwise ops from ``torch.testing._op_registry``.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import math
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import cycle, islice
from typing import NamedTuple

HERE = os.path.abspath(__file__)
HANG_S = 5.0
nan, inf = math.nan, math.inf

# --- call recipes ---------------------------------------------------------------------


class Tn(NamedTuple):
    """A tensor: dtype name, logical shape, layout, values.

    Layouts: "c" contiguous, "t" dims reversed in memory, "s" every other element of the
    last dim, "e" expanded (stride 0 in dim 0), "o" storage offset 3. Values: ("r", a, b, m),
    the ramp (i*a+b) % m mapped into the dtype, or a tuple repeated to fill the tensor.
    """

    dtype: str
    shape: tuple
    layout: str = "c"
    vals: tuple = ("r", 1, 0, 7)


class Dt(NamedTuple):
    name: str


class St(NamedTuple):
    """The untyped storage of a tensor."""

    tensor: Tn


class Call(NamedTuple):
    op: str  # torch.<op> (may be dotted: linalg.det), F.<op>, a method name, or a builtin
    via: str  # "f" function, "m" method of args[0], "get"/"set" subscript, "py" builtin
    args: tuple
    kwargs: dict
    then: tuple = ()  # methods without arguments applied to the result (they read the memory)


def _numel(shape):
    return math.prod(shape)


def _layout(t):
    """(number of base elements, source suffix) that builds tensor t from a 1-d base."""
    shape, n, nd = tuple(t.shape), _numel(t.shape), len(t.shape)
    if t.layout == "t" and nd >= 2:
        return n, f".reshape({tuple(reversed(shape))}).permute({tuple(range(nd - 1, -1, -1))})"
    if t.layout == "s" and nd >= 1:
        return 2 * n, f".reshape({shape[:-1] + (2 * shape[-1],)})[..., ::2]"
    if t.layout == "e" and nd >= 1 and shape[0] != 1:
        return _numel(shape[1:]), f".reshape({(1,) + shape[1:]}).expand({shape})"
    if t.layout == "o":
        return n + 3, f"[3:].reshape({shape})"
    return n, f".reshape({shape})"


def _values(t, count):
    if t.vals[0] != "r":
        return repr(list(islice(cycle(t.vals), count)))
    _, a, b, m = t.vals
    ramp = f"(i*{a}+{b})%{m}"
    expr = {"bool": f"{ramp}%2==1", "uint8": ramp}.get(t.dtype)
    if expr is None:
        expr = f"{ramp}-{m // 2}" if t.dtype.startswith("int") else f"({ramp}-{m // 2})/4"
    return f"[{expr} for i in range({count})]"


def render(v, subscript=False):
    """Python source for an argument value."""
    if isinstance(v, Tn):
        count, suffix = _layout(v)
        return f"torch.tensor({_values(v, count)}, dtype=torch.{v.dtype}){suffix}"
    if isinstance(v, Dt):
        return "torch." + v.name
    if isinstance(v, St):
        return render(v.tensor) + ".untyped_storage()"
    if isinstance(v, tuple):
        inner = ", ".join(render(x, subscript) for x in v)
        if subscript and v:
            return inner + ("," if len(v) == 1 else "")
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(render(x) for x in v) + "]"
    if isinstance(v, slice):
        if not subscript:
            return f"slice({render(v.start)}, {render(v.stop)}, {render(v.step)})"
        text = ":".join("" if p is None else render(p) for p in (v.start, v.stop))
        return text if v.step is None else f"{text}:{render(v.step)}"
    if v is Ellipsis:
        return "..."
    return repr(v)


def source(c):
    """The call as Python source that leaves its result in ``out``."""
    args = [render(a) for a in c.args]
    kwargs = [f"{k}={render(v)}" for k, v in c.kwargs.items()]
    then = "".join(f".{m}()" for m in c.then)
    if c.via == "set":
        return f"x = {args[0]}; x[{render(c.args[1], True)}] = {args[2]}; out = x{then}"
    if c.via == "get":
        return f"out = {args[0]}[{render(c.args[1], True)}]{then}"
    if c.via == "m":
        return f"out = {args[0]}.{c.op}({', '.join(args[1:] + kwargs)}){then}"
    name = c.op if c.via == "py" or c.op.startswith("F.") else "torch." + c.op
    return f"out = {name}({', '.join(args + kwargs)}){then}"


PRELUDE = "import torch, torch.nn.functional as F; from math import inf, nan; "


def one_liner(c):
    return PRELUDE + source(c)


# --- argument generators ----------------------------------------------------------------

DTYPES = ("float32", "float64", "float16", "bfloat16",
          "int8", "uint8", "int16", "int32", "int64", "bool")  # fmt: skip
FLOATS = DTYPES[:4]
INTS = DTYPES[4:9]
NUMERIC = DTYPES[:9]
MATMUL = ("float32", "float64", "float32", "float64", "int64", "int32")
RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-(2**15), 2**15 - 1), "bool": (0, 1),
         "int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}  # fmt: skip
SHAPES = ((), (0,), (1,), (5,), (3, 4), (4, 1), (1, 3), (0, 3), (2, 3, 4), (3, 0, 2), (2, 1, 3),
          (2, 2, 2, 2))  # fmt: skip
LARGE = ((33, 17), (1000,), (2, 65, 9), (300, 4))
HUGE = (2**31 - 1, 2**31, -(2**31) - 1, 2**32, 2**62, 2**63 - 1, -(2**63), 2**64, -(2**64) - 1,
        10**30)  # fmt: skip
BAD_SIZES = (-1, -2, 2**31, 2**32 + 1, 2**62, 2**63 - 1, -(2**63), 2**64, 10**20)
SCALARS = (nan, inf, -inf, -0.0, 0.5, 1e39, 65504.0, 1e-45, 2**40, -(2**40), 300, -129, 65536,
           2**63, 2**64, -(2**63) - 1, 10**30, True, False)  # fmt: skip
FLOAT_SPECIAL = {"float16": (nan, inf, -inf, -0.0, 65504.0, 6e-8, 0.5, -2.5),
                 "bfloat16": (nan, inf, -inf, -0.0, 3e38, 1e-40, 0.5, -2.5)}  # fmt: skip
FLOAT_SPECIAL["float32"] = FLOAT_SPECIAL["float64"] = FLOAT_SPECIAL["bfloat16"] + (1e-45, 7.0)


class Gen:
    """Draws arguments; ``self.p`` is how often one argument is an edge value."""

    def __init__(self, rng):
        self.r = rng
        self.p = rng.choice((0.0, 0.05, 0.15, 0.35))

    def edge(self):
        return self.r.random() < self.p

    def coin(self, p=0.5):
        return self.r.random() < p

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def int(self, lo, hi):
        return self.r.randint(lo, hi)

    # dtypes, shapes, tensors

    def dtype(self, among=DTYPES):
        return self.pick(DTYPES if self.edge() else among)

    def dt(self, among=DTYPES):
        return Dt(self.dtype(among))

    def shape(self, ndim=None, hi=4):
        if ndim is not None:
            return tuple(self.int(0, 5) if self.edge() else self.int(1, hi) for _ in range(ndim))
        return self.pick(LARGE) if self.coin(0.04) else self.pick(SHAPES)

    def tensor(self, among=DTYPES, shape=None, dtype=None, layout=None):
        dtype = dtype or self.dtype(among)
        shape = self.shape() if shape is None else tuple(shape)
        if not all(isinstance(n, int) and 0 <= n <= 4096 for n in shape) or _numel(shape) > 2**16:
            shape = self.shape()  # a shape derived from an edge value: the inputs stay small
        layout = layout or self.pick("ccccteso")
        if _numel(shape) <= 24 and self.coin(0.2):
            if dtype in RANGE:
                lo, hi = RANGE[dtype]
                pool = (lo, hi, 0, 1, hi - 1) if dtype != "bool" else (True, False, True)
            else:
                pool = FLOAT_SPECIAL[dtype] + (0.0, 1.0, -1.0)
            vals = tuple(self.pick(pool) for _ in range(self.int(1, 5)))
        else:
            vals = ("r", self.int(1, 7), self.int(0, 9), self.pick((5, 7, 11, 13)))
        return Tn(dtype, shape, layout, vals)

    def peer(self, t, among=None):
        """A tensor for a binary op with t: same shape, broadcastable, or (edge) any shape."""
        s = t.shape
        if self.edge():
            shape = self.shape()
        elif s and self.coin(0.3):
            shape = tuple(1 if self.coin(0.4) else d for d in s)[self.int(0, len(s)) :]
        else:
            shape = s
        dtype = t.dtype if among is None and self.coin(0.6) else self.dtype(among or DTYPES)
        return self.tensor(shape=shape, dtype=dtype)

    def itensor(self, n, shape=None, dtype="int64"):
        """An index tensor into a dim of length n."""
        shape = self.pick(((3,), (0,), (2, 2), (), (5,))) if shape is None else shape
        if self.edge():
            dtype = self.pick(("int32", "int16", "uint8", "float32", "bool", "int64"))
        lo, hi = RANGE.get(dtype, (-(2**24), 2**24))
        pool = [i for i in range(-n, n)] or [0]
        vals = []
        for _ in range(_numel(shape)):
            v = (
                self.pick((n, -n - 1, 2**40, -(2**63), 2**63 - 1))
                if self.edge()
                else self.pick(pool)
            )
            vals.append(min(max(v, lo), hi) if dtype != "bool" else bool(v % 2))
        if dtype.startswith("float"):
            vals = [float(v) for v in vals]
        return Tn(dtype, tuple(shape), "c", tuple(vals) or (0,))

    def mask(self, shape):
        if self.edge():
            shape = self.shape()
        elif shape and self.coin(0.2):
            shape = shape[self.int(0, len(shape)) :]
        dtype = self.pick(("uint8", "int64", "bool")) if self.edge() else "bool"
        return Tn(dtype, tuple(shape), "c", ("r", self.int(1, 5), self.int(0, 3), 3))

    # integers: dims, indices, sizes

    def dim(self, nd):
        if self.edge():
            return self.pick((nd, -nd - 1, nd + 3, 64, -65, 2**31, 2**63 - 1, -(2**63), 2**64))
        return self.int(-nd, nd - 1) if nd else self.pick((0, -1))

    def dims(self, nd, k=None):
        """k distinct dims, or a permutation when k is None."""
        if self.edge():
            return self.pick(((0, 0), tuple(range(nd + 1)), (nd,), (-nd - 1,), (2**63 - 1,), ()))
        order = self.r.sample(range(nd), nd)
        chosen = order if k is None else order[: min(k, nd)]
        return tuple(d - nd if self.coin(0.3) else d for d in chosen)

    def index(self, n):
        if self.edge():
            return self.pick((n, -n - 1, n + 5, 2**31, 2**63 - 1, -(2**63), 2**64, -(2**64)))
        return self.int(-n, n - 1) if n else 0

    def size(self, hi=4):
        return self.pick(BAD_SIZES) if self.edge() else self.int(0, hi)

    def sizes(self, k=None):
        return [self.size() for _ in range(self.int(0, 3) if k is None else k)]

    def reshape_to(self, n):
        """A target shape for n elements (with -1 sometimes), or (edge) a bad one."""
        if self.edge():
            return self.pick(((n + 1,), (-1, -1), (2**62, 4, 0), (2**31, 2**31, 0), (-1, 0),
                              (2**63 - 1, 2), (-2, n), (2**32, 2**32), (n, 2**64),
                              (-(2**63),)))  # fmt: skip
        if n == 0:
            return self.pick(((0,), (3, 0), (0, -1, 2), (2, 0, 5)))
        d = self.pick([d for d in range(1, n + 1) if n % d == 0])
        shape = [d, n // d] if self.coin() else [n // d, 1, d]
        if self.coin(0.3):
            shape[self.int(0, len(shape) - 1)] = -1
        return tuple(shape)

    def scalar(self, dtype="float32"):
        if self.edge():
            return self.pick(SCALARS)
        if dtype == "bool":
            return self.coin()
        if dtype in RANGE:
            return self.int(0, 5) if dtype == "uint8" else self.int(-3, 3)
        return self.pick((0.5, -1.5, 2.0, 0.0, 3.25, 1.0))

    def maybe(self, kwargs, name, value, p=0.4):
        if self.coin(p):
            kwargs[name] = value


# --- the ops --------------------------------------------------------------------------
#
# A generator takes (g, name) and returns (args, kwargs). ``ops`` registers it under one or
# more names with the ways it may be called: "f" torch.<name>, "m" method, both "fm".

OPS: dict = {}
# Results compared by shape and dtype only: random, uninitialised (set_ and resize_ may grow
# a storage), not unique (decompositions), or undefined (duplicate indices without accumulate).
INEXACT = {"empty", "empty_like", "new_empty", "rand", "randn", "randint", "randperm", "rand_like",
           "F.dropout", "F.dropout1d", "F.dropout2d", "F.alpha_dropout", "linalg.qr", "linalg.svd",
           "linalg.eigh", "linalg.lstsq", "resize_", "set_", "index_put", "index_put_", "scatter",
           "scatter_", "index_copy", "index_copy_", "put_"}  # fmt: skip
# Ops returning (values, indices): with ties the indices may differ, so only values are compared.
TIES = {"sort", "topk", "kthvalue", "median", "nanmedian", "mode", "max", "min", "cummax", "cummin"}
THEN = ("sum", "clone", "contiguous", "flatten")


def ops(*names, via="fm", then=False):
    def register(gen):
        for name in names:
            OPS[name] = (gen, via, then)
        return gen

    return register


# creation


@ops("zeros", "ones", "empty", "rand", "randn", via="f", then=True)
def _sized(g, name):
    sizes = g.sizes()
    kw = {}
    g.maybe(kw, "dtype", g.dt(FLOATS if name.startswith("rand") else DTYPES))
    return (tuple(sizes),) if g.coin() else tuple(sizes), kw


@ops("full", via="f", then=True)
def _full(g, name):
    kw = {}
    g.maybe(kw, "dtype", g.dt(), 0.7)
    return (tuple(g.sizes()), g.scalar(kw.get("dtype", Dt("float32")).name)), kw


@ops("arange", via="f", then=True)
def _arange(g, name):
    pool = HUGE + (nan, inf, 0.1, 1e-300, 0, -1) if g.edge() else (0, 1, 2, 5, -3, 0.5, 2.5)
    args = tuple(g.pick(pool) for _ in range(g.int(1, 3)))
    if len(args) == 3 and not g.edge():
        args = args[:2] + (g.pick((1, 2, -1, 0.5)),)
    kw = {}
    g.maybe(kw, "dtype", g.dt())
    return args, kw


@ops("linspace", "logspace", via="f", then=True)
def _linspace(g, name):
    kw = {}
    g.maybe(kw, "dtype", g.dt(FLOATS + ("int64",)))
    if name == "logspace":
        g.maybe(kw, "base", g.scalar())
    return (g.scalar(), g.scalar(), g.size(6)), kw


@ops("eye", via="f", then=True)
def _eye(g, name):
    kw = {}
    g.maybe(kw, "dtype", g.dt())
    return tuple(g.size() for _ in range(g.int(1, 2))), kw


@ops("tril_indices", "triu_indices", via="f", then=True)
def _tri_indices(g, name):
    kw = {}
    g.maybe(kw, "dtype", g.dt(("int64", "int32")))
    return (g.size(5), g.size(5), g.index(3)), kw


@ops("zeros_like", "ones_like", "empty_like", "rand_like", "full_like", via="f")
def _like(g, name):
    t = g.tensor(FLOATS if name == "rand_like" else DTYPES)
    kw = {}
    g.maybe(kw, "dtype", g.dt())
    return ((t, g.scalar(t.dtype)) if name == "full_like" else (t,)), kw


@ops("tensor", via="f")
def _tensor(g, name):
    kw = {}
    g.maybe(kw, "dtype", g.dt(), 0.8)
    data = g.pick((g.scalar(), [g.scalar(), g.scalar()], [[1, 2], [3]], [[g.scalar()]], [], [[]]))
    return (data,), kw


@ops("randint", via="f")
def _randint(g, name):
    lo = g.pick((0, -3, 2**63 - 1, -(2**63), 5)) if g.edge() else 0
    return (lo, g.size(9) if g.coin(0.8) else g.pick(HUGE), tuple(g.sizes())), {}


@ops("randperm", via="f")
def _randperm(g, name):
    return (g.size(9),), {}


@ops("new_zeros", "new_ones", "new_empty", "new_full", via="m", then=True)
def _new(g, name):
    t = g.tensor()
    args = (t, tuple(g.sizes())) + ((g.scalar(t.dtype),) if name == "new_full" else ())
    kw = {}
    g.maybe(kw, "dtype", g.dt(), 0.3)
    return args, kw


# views and shapes


@ops("view", via="m", then=True)
def _view(g, name):
    t = g.tensor()
    if g.coin(0.2):
        return (t, g.dt()), {}
    shape = g.reshape_to(_numel(t.shape))
    return ((t, shape) if g.coin() else (t, *shape)), {}


@ops("reshape", via="fm", then=True)
def _reshape(g, name):
    t = g.tensor()
    return (t, g.reshape_to(_numel(t.shape))), {}


@ops("expand", "broadcast_to", via="m", then=True)
def _expand(g, name):
    t = g.tensor()
    shape = [g.pick((-1, d)) if d != 1 else g.pick((1, 3, -1, 0)) for d in t.shape]
    shape = [g.int(0, 3) for _ in range(g.int(0, 2))] + shape
    if g.edge() or g.edge():
        shape[g.int(0, len(shape) - 1) if shape else 0 : 1] = [g.pick(BAD_SIZES)]
    return ((t, *shape) if name == "expand" and g.coin() else (t, tuple(shape))), {}


@ops("expand_as", via="m", then=True)
def _expand_as(g, name):
    t = g.tensor()
    return (t, g.tensor(shape=g.shape())), {}


@ops("as_strided", via="fm", then=True)
def _as_strided(g, name):
    t = g.tensor()
    nd = g.int(0, 3)
    size = tuple(g.size(3) for _ in range(nd))
    big = (2**61, 2**62, 2**62 - 1000, -1, 2**63 - 1, -(2**63), 2**31)
    stride = tuple(g.pick(big) if g.edge() else g.int(0, 3) for _ in range(nd))
    if g.edge():
        stride = stride[:-1]
    args = (t, size, stride)
    if g.coin():
        args += (g.pick(big) if g.edge() else g.int(0, 4),)
    return args, {}


@ops("narrow", via="fm", then=True)
def _narrow(g, name):
    t = g.tensor()
    nd = len(t.shape)
    d = g.dim(nd)
    n = t.shape[d] if isinstance(d, int) and -nd <= d < nd else 3
    return (t, d, g.index(n), g.size(n)), {}


@ops("select", via="fm", then=True)
def _select(g, name):
    t = g.tensor()
    nd = len(t.shape)
    d = g.dim(nd)
    n = t.shape[d] if -nd <= d < nd else 3
    return (t, d, g.index(n)), {}


@ops("unfold", via="m", then=True)
def _unfold(g, name):
    t = g.tensor()
    nd = len(t.shape)
    d = g.dim(nd)
    n = t.shape[d] if -nd <= d < nd else 3
    return (t, d, g.size(n), g.pick((1, 2, 3)) if not g.edge() else g.pick((0, -1) + HUGE)), {}


@ops("permute", via="fm", then=True)
def _permute(g, name):
    t = g.tensor()
    dims = g.dims(len(t.shape))
    return ((t, *dims) if g.coin() else (t, dims)), {}


@ops("transpose", "swapaxes", via="fm", then=True)
def _transpose(g, name):
    t = g.tensor()
    nd = len(t.shape)
    return (t, g.dim(nd), g.dim(nd)), {}


@ops("t", "contiguous", "clone", "flatten", "ravel", "squeeze", via="m", then=True)
def _plain(g, name):
    t = g.tensor()
    if name == "squeeze" and g.coin():
        return (t, g.dim(len(t.shape))), {}
    if name == "flatten" and g.coin():
        return (t, g.dim(len(t.shape)), g.dim(len(t.shape))), {}
    return (t,), {}


@ops("unsqueeze", via="fm", then=True)
def _unsqueeze(g, name):
    t = g.tensor()
    return (t, g.dim(len(t.shape) + 1)), {}


@ops("unflatten", via="fm", then=True)
def _unflatten(g, name):
    t = g.tensor()
    nd = len(t.shape)
    d = g.dim(nd)
    n = t.shape[d] if -nd <= d < nd else 3
    return (t, d, g.reshape_to(n)), {}


@ops("movedim", via="fm", then=True)
def _movedim(g, name):
    t = g.tensor()
    nd = len(t.shape)
    if g.coin():
        return (t, g.dim(nd), g.dim(nd)), {}
    k = g.int(0, nd)
    return (t, g.dims(nd, k), g.dims(nd, k)), {}


@ops("diagonal", "diag_embed", via="fm", then=True)
def _diagonal(g, name):
    t = g.tensor()
    nd = len(t.shape) + (name == "diag_embed")
    return (t, g.index(3), g.dim(nd), g.dim(nd)), {}


@ops("diag", "tril", "triu", via="fm", then=True)
def _diag(g, name):
    t = g.tensor(shape=g.shape(g.int(1, 2)) if g.coin(0.8) else None)
    return ((t, g.index(4)) if g.coin() else (t,)), {}


@ops("chunk", "split", "tensor_split", "unbind", via="fm")
def _split(g, name):
    t = g.tensor()
    nd = len(t.shape)
    d = g.dim(nd)
    if name == "unbind":
        return (t, d), {}
    n = t.shape[d] if -nd <= d < nd else 3
    if name != "chunk" and g.coin(0.4):
        parts = [g.size(n) for _ in range(g.int(0, 3))]
        if name == "split" and not g.edge() and n:
            parts = [n - 1, 1] if n > 1 else [n]
        return (t, parts, d), {}
    return (t, g.pick((0, -1) + HUGE) if g.edge() else g.int(1, 4), d), {}


@ops("flip", "roll", via="fm", then=True)
def _flip(g, name):
    t = g.tensor()
    nd = len(t.shape)
    dims = g.dims(nd, g.int(0, nd))
    if name == "flip":
        return (t, dims), {}
    shifts = tuple(g.index(5) for _ in dims) if g.coin(0.7) else g.index(5)
    return ((t, shifts, dims) if dims or g.coin() else (t, shifts)), {}


@ops("repeat", "tile", via="m", then=True)
def _repeat(g, name):
    t = g.tensor()
    reps = tuple(g.size(3) for _ in range(len(t.shape) + g.int(-1, 1)))
    return (t, reps), {}


@ops("repeat_interleave", via="fm", then=True)
def _repeat_interleave(g, name):
    t = g.tensor()
    nd = len(t.shape)
    d = g.dim(nd)
    n = t.shape[d] if -nd <= d < nd else 3
    reps = g.size(3) if g.coin() else Tn("int64", (n,), "c", ("r", 1, 0, 3))
    if g.edge() and isinstance(reps, Tn):
        reps = Tn("int64", (n,), "c", (g.pick((-1, 2**40, 2**62)),))
    return ((t, reps, d) if g.coin(0.8) else (t, reps)), {}


@ops("set_", via="m", then=True)
def _set(g, name):
    t = g.tensor()
    src = g.tensor(dtype=t.dtype if not g.edge() else None)
    if g.coin(0.25):
        return (t, src), {}
    size = tuple(g.size(3) for _ in range(g.int(0, 3)))
    big = (2**61, 2**62 - 1000, -1, 2**63 - 1, 2**31)
    stride = tuple(g.pick(big) if g.edge() else g.int(0, 3) for _ in size)
    source_ = St(src) if g.coin() else src
    return (t, source_, g.pick(big) if g.edge() else g.int(0, 3), size, stride), {}


@ops("resize_", via="m", then=True)
def _resize(g, name):
    return (g.tensor(), g.reshape_to(g.int(0, 12))), {}


# indexing


def _subscript(g, t):
    nd = len(t.shape)
    items, used_ellipsis = [], False
    for j in range(g.int(1, max(1, nd) + (1 if g.edge() else 0))):
        n = t.shape[j] if j < nd else 1
        kind = g.pick("iiisssnbelTm")
        if kind == "i":
            items.append(g.index(n))
        elif kind == "s":
            step = g.pick((None, 1, 2, 3)) if not g.edge() else g.pick((0, -1, 2**63 - 1, -(2**63)))
            items.append(slice(g.pick((None, g.index(n))), g.pick((None, g.index(n + 1))), step))
        elif kind == "n":
            items.append(None)
        elif kind == "b":
            items.append(g.coin())
        elif kind == "e" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
        elif kind == "l":
            items.append([g.index(n) for _ in range(g.int(0, 3))])
        elif kind == "T":
            items.append(g.itensor(n))
        else:
            items.append(g.mask(t.shape[j:] if j < nd else ()))
    return items[0] if len(items) == 1 and g.coin() else tuple(items)


@ops("getitem", via="g")
def _getitem(g, name):
    t = g.tensor()
    return (t, _subscript(g, t)), {}


@ops("setitem", via="s")
def _setitem(g, name):
    t = g.tensor()
    if g.coin():
        value = g.scalar(t.dtype)
    else:
        value = g.tensor(shape=g.pick(((), (1,), t.shape[-1:], g.shape())), dtype=g.dtype())
    return (t, _subscript(g, t), value), {}


def _dim_len(g, t):
    nd = len(t.shape)
    d = g.dim(nd)
    return d, (t.shape[d] if -nd <= d < nd else 3) if nd else 1


@ops("index_select", via="fm")
def _index_select(g, name):
    t = g.tensor()
    d, n = _dim_len(g, t)
    return (t, d, g.itensor(n, g.pick(((3,), (0,), ())) if not g.edge() else None)), {}


def _like_index(g, t, d):
    """An index tensor for gather/scatter: the same ndim as t, no larger than t."""
    nd = len(t.shape)
    shape = tuple(g.int(0, s) for s in t.shape) if not g.edge() else g.shape()
    n = t.shape[d] if -nd <= d < nd and nd else 1
    return g.itensor(n, shape)


@ops("gather", "take_along_dim", via="fm")
def _gather(g, name):
    t = g.tensor()
    d, _ = _dim_len(g, t)
    return (t, _like_index(g, t, d), d) if name == "take_along_dim" else (
        t,
        d,
        _like_index(g, t, d),
    ), {}


@ops("scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_")
def _scatter(g, name):
    t = g.tensor()
    d, _ = _dim_len(g, t)
    index = _like_index(g, t, d)
    src = g.tensor(
        shape=index.shape if not g.edge() else g.shape(), dtype=t.dtype if g.coin(0.8) else None
    )
    kw = {}
    if name.startswith("scatter_reduce"):
        kw["reduce"] = g.pick(
            ("sum", "prod", "mean", "amax", "amin") + (("max", "bad") if g.edge() else ())
        )
        g.maybe(kw, "include_self", g.coin())
    elif name.startswith("scatter") and "add" not in name:
        if g.coin(0.3):
            src = g.scalar(t.dtype)
        g.maybe(
            kw,
            "reduce",
            g.pick(("add", "multiply", "bad") if g.edge() else ("add", "multiply")),
            0.2,
        )
    return (t, d, index, src), kw


OPS["scatter_"] = OPS["scatter_add_"] = OPS["scatter_reduce_"] = (_scatter, "m", False)


@ops("index_add", "index_copy", "index_fill", "index_add_", "index_copy_", "index_fill_")
def _index_update(g, name):
    t = g.tensor()
    d, n = _dim_len(g, t)
    index = g.itensor(n, g.pick(((2,), (0,), (1,))) if not g.edge() else None)
    if name.startswith("index_fill"):
        return (t, d, index, g.scalar(t.dtype)), {}
    shape = list(t.shape)
    if shape and -len(shape) <= d < len(shape):
        shape[d] = index.shape[0] if index.shape else 1
    src = g.tensor(
        shape=shape if not g.edge() else g.shape(), dtype=t.dtype if g.coin(0.8) else None
    )
    kw = {}
    if name.startswith("index_add"):
        g.maybe(kw, "alpha", g.scalar(t.dtype), 0.3)
    return (t, d, index, src), kw


for _n in ("index_add_", "index_copy_", "index_fill_"):
    OPS[_n] = (_index_update, "m", False)


@ops("masked_fill", "masked_fill_", "masked_select", "masked_scatter", "masked_scatter_")
def _masked(g, name):
    t = g.tensor()
    mask = g.mask(t.shape)
    if name.startswith("masked_fill"):
        value = g.scalar(t.dtype) if g.coin(0.8) else g.tensor(shape=g.pick(((), (1,), (2,))))
        return (t, mask, value), {}
    if name.startswith("masked_scatter"):
        return (
            t,
            mask,
            g.tensor(shape=g.pick((t.shape, (30,), (0,))), dtype=t.dtype if g.coin(0.8) else None),
        ), {}
    return (t, mask), {}


for _n in ("masked_fill_", "masked_scatter_"):
    OPS[_n] = (_masked, "m", False)


@ops("index_put", "index_put_")
def _index_put(g, name):
    t = g.tensor()
    nd = len(t.shape)
    k = g.int(1, max(1, nd)) + (1 if g.edge() else 0)
    shape = g.pick(((2,), (0,), (), (2, 2)))
    indices = tuple(g.itensor(t.shape[j] if j < nd else 1, shape) for j in range(k))
    if g.coin(0.2):
        indices = (g.mask(t.shape),)
    values = g.tensor(
        shape=g.pick(((), (1,), shape, t.shape[k:])), dtype=t.dtype if g.coin(0.8) else None
    )
    kw = {}
    g.maybe(kw, "accumulate", g.coin())
    return (t, indices, values), kw


OPS["index_put_"] = (_index_put, "m", False)


@ops("take", "put_", "put")
def _take(g, name):
    t = g.tensor()
    n = _numel(t.shape)
    index = g.itensor(n)
    if name == "take":
        return (t, index), {}
    kw = {}
    g.maybe(kw, "accumulate", g.coin())
    source_ = g.tensor(
        shape=index.shape if not g.edge() else g.shape(), dtype=t.dtype if g.coin(0.8) else None
    )
    return (t, index, source_), kw


OPS["put_"] = (_take, "m", False)


@ops("nonzero", "argwhere")
def _nonzero(g, name):
    t = g.tensor()
    kw = {}
    if name == "nonzero":
        g.maybe(kw, "as_tuple", g.coin(), 0.3)
    return (t,), kw


@ops("where", via="f")
def _where(g, name):
    t = g.tensor()
    cond = g.mask(t.shape)
    if g.coin(0.2):
        return (cond,), {}
    other = g.peer(t) if g.coin(0.7) else g.scalar(t.dtype)
    first = t if g.coin(0.8) else g.scalar(t.dtype)
    return (cond, first, other), {}


@ops("searchsorted", "bucketize", via="f")
def _search(g, name):
    seq = g.tensor(shape=g.pick(((5,), (0,), (2, 4), ())), among=NUMERIC, layout="c")
    seq = seq._replace(vals=("r", 1, 0, 97))  # ascending
    values = g.tensor(dtype=seq.dtype if g.coin(0.7) else None, shape=g.pick(((3,), (2, 3), ())))
    if name == "bucketize":
        values, seq = values, seq._replace(shape=seq.shape[-1:] if not g.edge() else seq.shape)
        return (values, seq), {"right": g.coin()} if g.coin() else {}
    kw = {}
    g.maybe(kw, "right", g.coin())
    g.maybe(kw, "side", g.pick(("left", "right", "bad")), 0.2)
    return (seq, values if g.coin(0.9) else g.scalar()), kw


@ops("bincount", via="fm")
def _bincount(g, name):
    n = g.pick((0, 5, 9))
    x = g.itensor(6, (n,) if not g.edge() else g.shape())
    x = x._replace(vals=tuple(abs(v) if not g.edge() else v for v in x.vals))
    kw = {}
    g.maybe(kw, "minlength", g.size(9))
    g.maybe(kw, "weights", g.tensor(FLOATS, shape=(n,) if not g.edge() else g.shape()), 0.3)
    return (x,), kw


@ops("histc", via="fm")
def _histc(g, name):
    t = g.tensor(FLOATS)
    kw = {}
    g.maybe(kw, "bins", g.size(10) if not g.edge() else g.pick(HUGE + (0, -1)))
    g.maybe(kw, "min", g.scalar())
    g.maybe(kw, "max", g.scalar())
    return (t,), kw


# reductions and scans


def _reduce_dims(g, t, args, kw, multi=True):
    nd = len(t.shape)
    form = g.pick("ndt" if multi else "nd")
    if form == "d":
        args.append(g.dim(nd))
    elif form == "t":
        kw["dim"] = g.dims(nd, g.int(0, nd))
    if form != "n":
        g.maybe(kw, "keepdim", g.coin())


@ops("sum", "prod", "mean", "nansum", "nanmean")
def _reduce_dtype(g, name):
    t = g.tensor()
    args, kw = [t], {}
    _reduce_dims(g, t, args, kw, name != "prod")
    g.maybe(kw, "dtype", g.dt(), 0.5)
    return tuple(args), kw


@ops("amax", "amin", "all", "any", "count_nonzero", "logsumexp", "norm")
def _reduce(g, name):
    t = g.tensor()
    args, kw = [t], {}
    _reduce_dims(g, t, args, kw)
    if name == "count_nonzero":
        kw.pop("keepdim", None)
    if name == "norm":
        kw["p"] = g.pick(
            (2, 1, inf, -inf, 0, 0.5, "fro", "nuc", 3)
            + (("bad", -1, nan, 2**64) if g.edge() else ())
        )
        g.maybe(kw, "dtype", g.dt(FLOATS), 0.2)
    if name == "logsumexp" and not args[1:] and "dim" not in kw:
        kw["dim"] = g.dim(len(t.shape))
    return tuple(args), kw


@ops("max", "min", "argmax", "argmin", "median", "nanmedian", "mode", "aminmax")
def _reduce_index(g, name):
    t = g.tensor()
    args, kw = [t], {}
    if name in ("max", "min") and g.coin(0.2):
        return (t, g.peer(t)), {}
    if g.coin(0.7) or name == "mode":
        kw["dim"] = g.dim(len(t.shape))
        g.maybe(kw, "keepdim", g.coin())
    return tuple(args), kw


@ops("std", "var", "std_mean", "var_mean")
def _std(g, name):
    t = g.tensor(FLOATS)
    args, kw = [t], {}
    _reduce_dims(g, t, args, kw)
    if g.coin(0.4):
        kw["correction"] = g.pick((0, 1, 2, 5, -1, 2**63 - 1, 0.5) if g.edge() else (0, 1, 2))
    elif g.coin(0.2) and not args[1:]:
        kw["unbiased"] = g.coin()
    return tuple(args), kw


@ops("quantile", "nanquantile")
def _quantile(g, name):
    t = g.tensor(FLOATS)
    q = g.pick((0.0, 0.5, 1.0, 0.25)) if not g.edge() else g.pick((-0.1, 1.5, nan, 2**64))
    if g.coin(0.3):
        q = Tn(
            "float32" if not g.edge() else g.dtype(), g.pick(((3,), (), (0,))), "c", (0.0, 0.5, 1.0)
        )
    kw = {}
    g.maybe(kw, "dim", g.dim(len(t.shape)))
    g.maybe(
        kw,
        "interpolation",
        g.pick(("linear", "lower", "higher", "midpoint", "nearest", "bad")),
        0.3,
    )
    return (t, q), kw


@ops("cumsum", "cumprod", "logcumsumexp", "cummax", "cummin")
def _scan(g, name):
    t = g.tensor()
    kw = {}
    if name in ("cumsum", "cumprod"):
        g.maybe(kw, "dtype", g.dt())
    return (t, g.dim(len(t.shape))), kw


@ops("sort", "argsort", "msort")
def _sort(g, name):
    t = g.tensor()
    kw = {}
    if name != "msort":
        g.maybe(kw, "dim", g.dim(len(t.shape)))
        g.maybe(kw, "descending", g.coin())
        if name == "sort":
            g.maybe(kw, "stable", g.coin(), 0.2)
    return (t,), kw


@ops("topk", "kthvalue")
def _topk(g, name):
    t = g.tensor()
    d, n = _dim_len(g, t)
    k = (
        g.int(0, n)
        if name == "topk" and not g.edge()
        else g.int(1, max(1, n))
        if not g.edge()
        else g.size(n + 2)
    )
    kw = {}
    if name == "topk":
        g.maybe(kw, "largest", g.coin())
        g.maybe(kw, "sorted", g.coin())
    else:
        g.maybe(kw, "keepdim", g.coin())
    return (t, k, d), kw


@ops("unique", "unique_consecutive", via="f")
def _unique(g, name):
    t = g.tensor()
    kw = {}
    g.maybe(kw, "return_inverse", g.coin())
    g.maybe(kw, "return_counts", g.coin())
    g.maybe(kw, "dim", g.dim(len(t.shape)), 0.3)
    return (t,), kw


# joining


def _tensor_list(g):
    first = g.tensor()
    out = [first]
    for _ in range(g.int(0, 3)):
        shape = list(first.shape)
        if shape and g.coin(0.4):
            j = g.int(0, len(shape) - 1)
            shape[j] = g.int(0, 3)
        if g.edge():
            shape = g.shape()
        out.append(g.tensor(shape=shape, dtype=first.dtype if g.coin(0.8) else None))
    return out if not g.edge() else g.pick((out, [], out[:1]))


@ops("cat", "concat", "stack", via="f")
def _cat(g, name):
    ts = _tensor_list(g)
    nd = len(ts[0].shape) + (name == "stack") if ts else 1
    args = (ts if g.coin(0.8) else tuple(ts),)
    return (args + (g.dim(nd),)) if g.coin(0.8) else args, {}


@ops("hstack", "vstack", "dstack", "column_stack", via="f")
def _hstack(g, name):
    return (_tensor_list(g),), {}


@ops("broadcast_tensors", "meshgrid", "cartesian_prod", "block_diag", "atleast_2d", via="f")
def _many(g, name):
    ts = _tensor_list(g)
    kw = {"indexing": g.pick(("ij", "xy", "bad"))} if name == "meshgrid" and g.coin() else {}
    return tuple(ts), kw


# matmul family


def _mat(g, shape, among=MATMUL, like=None):
    dtype = like.dtype if like is not None and g.coin(0.85) else g.dtype(among)
    return g.tensor(shape=shape, dtype=dtype)


def _mnk(g):
    m, k, n = g.int(0, 4), g.int(0, 4), g.int(0, 4)
    return m, k, n, (k if not g.edge() else g.int(0, 5))


@ops("mm", "matmul", "bmm", "mv", "dot", "vdot", "inner", "outer", "kron", via="fm")
def _mm(g, name):
    m, k, n, k2 = _mnk(g)
    b = g.pick((2, 1, 0))
    shapes = {"mm": ((m, k), (k2, n)), "bmm": ((b, m, k), (b, k2, n)), "mv": ((m, k), (k2,)),
              "dot": ((k,), (k2,)), "vdot": ((k,), (k2,)), "inner": ((m, k), (n, k2)),
              "outer": ((m,), (n,)), "kron": ((m, k), (n, k2))}  # fmt: skip
    if name == "matmul":
        batch = g.pick(((), (2,), (1,), (3, 1)))
        left = g.pick(((k,), batch + (m, k)))
        right = g.pick(((k2,), g.pick(((), (2,), (1,))) + (k2, n)))
        shapes[name] = (left, right)
    a = _mat(g, shapes[name][0])
    return (a, _mat(g, shapes[name][1], like=a)), {}


@ops("addmm", "addmv", "addbmm", "baddbmm", "addr", via="fm")
def _addmm(g, name):
    m, k, n, k2 = _mnk(g)
    b = g.pick((2, 1))
    shapes = {"addmm": ((m, n), (m, k), (k2, n)), "addmv": ((m,), (m, k), (k2,)),
              "addbmm": ((m, n), (b, m, k), (b, k2, n)), "addr": ((m, n), (m,), (n,)),
              "baddbmm": ((b, m, n), (b, m, k), (b, k2, n))}  # fmt: skip
    c, x, y = shapes[name]
    if g.coin(0.2):
        c = c[-1:]
    first = _mat(g, c)
    kw = {}
    g.maybe(kw, "beta", g.scalar(first.dtype), 0.3)
    g.maybe(kw, "alpha", g.scalar(first.dtype), 0.3)
    return (first, _mat(g, x, like=first), _mat(g, y, like=first)), kw


@ops("tensordot", via="f")
def _tensordot(g, name):
    a = _mat(g, g.shape(g.int(0, 3)))
    b = _mat(g, (a.shape[-1:] if a.shape else ()) + g.shape(g.int(0, 2)), like=a)
    dims = g.pick((0, 1, 2, -1, 2**63 - 1)) if g.coin(0.6) else ([g.int(-1, 1)], [g.int(0, 1)])
    return (a, b), {"dims": dims}


@ops("cross", "linalg.cross", via="f")
def _cross(g, name):
    shape = g.pick(((3,), (2, 3), (3, 2), (4, 3)))
    a = _mat(g, shape, FLOATS + INTS)
    b = _mat(g, shape if not g.edge() else g.shape(), like=a)
    kw = {}
    g.maybe(kw, "dim", g.dim(len(shape)))
    return (a, b), kw


@ops("einsum", via="f")
def _einsum(g, name):
    eq = g.pick(("ij,jk->ik", "ii->i", "ij->", "bij,bjk->bik", "i,i->", "...ij->...ji",
                 "ij,ij->ij", "ij->ji", "i,j->ij", "ijk", "ij,jk", "a->aa", "ij,->ij", "->",
                 "i->j", "iij->j"))  # fmt: skip
    if g.edge():
        eq = g.pick(("ij,jk->ikk", "ij->i->j", "Ij->j", "ij,,jk->ik", "...i...->i", "1j->j", ""))
    k = eq.split("->")[0].count(",") + 1
    ranks = [sum(c.isalpha() for c in part) for part in eq.split("->")[0].split(",")][:k]
    ts = [_mat(g, g.shape(r if not g.edge() else g.int(0, 3)), FLOATS) for r in ranks]
    return (eq, *ts), {}


@ops("trace", via="fm")
def _trace(g, name):
    return (g.tensor(shape=g.shape(g.pick((2, 2, 2, 1, 3))), among=MATMUL),), {}


# linalg


def _square(g, among=("float32", "float64")):
    n = g.int(0, 4)
    shape = g.pick(((), (2,), (0,), (1, 2))) + (n, n)
    if g.edge():
        shape = g.pick(((n, n + 1), (n,), (), (2, 0, 3)))
    return g.tensor(shape=shape, dtype=g.dtype(among))


@ops("linalg.det", "linalg.inv", "linalg.slogdet", "linalg.cholesky", "linalg.qr", "linalg.svd",
     "linalg.svdvals", "linalg.eigh", "linalg.eigvalsh", "linalg.pinv", "linalg.matrix_rank",
     "det", "inverse", "logdet", "linalg.eigvals", via="f")  # fmt: skip
def _linalg1(g, name):
    a = _square(g)
    kw = {}
    if name in ("linalg.eigh", "linalg.eigvalsh"):
        g.maybe(kw, "UPLO", g.pick(("L", "U", "X")), 0.3)
    if name in ("linalg.cholesky", "linalg.svd", "linalg.qr") and g.coin(0.3):
        key = {"linalg.cholesky": "upper", "linalg.svd": "full_matrices", "linalg.qr": "mode"}[name]
        kw[key] = g.pick(("reduced", "complete", "r", "bad")) if key == "mode" else g.coin()
    return (a,), kw


@ops("linalg.solve", "linalg.solve_triangular", "linalg.lstsq", via="f")
def _solve(g, name):
    a = _square(g)
    n = a.shape[-1] if a.shape else 1
    b = g.tensor(
        shape=a.shape[:-2] + (n, g.int(0, 3)) if not g.edge() else g.shape(),
        dtype=a.dtype if g.coin(0.8) else None,
    )
    kw = {"upper": g.coin()} if name == "linalg.solve_triangular" else {}
    if name == "linalg.solve" and g.coin(0.2):
        kw["left"] = g.coin()
    return (a, b), kw


@ops("linalg.matrix_norm", "linalg.vector_norm", "linalg.norm", via="f")
def _lnorm(g, name):
    t = g.tensor(FLOATS) if name != "linalg.matrix_norm" else _square(g)
    kw = {}
    orders = (2, 1, inf, -inf, 0, 0.5, -1, -2, 3, "fro", "nuc")
    g.maybe(kw, "ord", g.pick(orders + (("bad", nan, 2**64) if g.edge() else ())))
    nd = len(t.shape)
    g.maybe(
        kw,
        "dim",
        g.dims(nd, 2 if name == "linalg.matrix_norm" else g.int(1, 2)) if g.coin() else g.dim(nd),
        0.3,
    )
    g.maybe(kw, "keepdim", g.coin(), 0.2)
    g.maybe(kw, "dtype", g.dt(FLOATS), 0.15)
    return (t,), kw


@ops("linalg.matrix_power", "matrix_power", via="f")
def _matrix_power(g, name):
    return (_square(g), g.pick((0, 1, 2, 3, -1, -2)) if not g.edge() else g.pick(HUGE)), {}


@ops("linalg.multi_dot", via="f")
def _multi_dot(g, name):
    dims = [g.int(0, 3) for _ in range(g.int(1, 4) + 1)]
    ts = [
        _mat(g, (dims[i], dims[i + 1]) if not g.edge() else g.shape(), FLOATS)
        for i in range(len(dims) - 1)
    ]
    return (ts,), {}


# elementwise


def _registry_names():
    """Elementwise op names from the op registry (those called as torch.<name>)."""
    from torch.testing._op_registry import OPS as REGISTRY

    found = {"unary": set(), "binary": set()}
    for info in REGISTRY:
        if info.kind in found and info.fn is None and "." not in info.target:
            found[info.kind].add((info.target, info.inplace and info.method))
    return {kind: sorted(names) for kind, names in found.items()}


def _unary(g, name):
    t = g.tensor()
    kw = {}
    if name.rstrip("_") == "round":
        g.maybe(kw, "decimals", g.index(3), 0.3)
    return (t,), kw


def _binary(g, name):
    t = g.tensor()
    other = g.peer(t) if g.coin(0.7) else g.scalar(t.dtype)
    if g.coin(0.15) and not name.endswith("_"):
        t, other = g.scalar(other.dtype if isinstance(other, Tn) else "float32"), other
        if not isinstance(other, Tn):
            other = g.peer(g.tensor())
    kw = {}
    base = name.rstrip("_")
    if base in ("add", "sub"):
        g.maybe(kw, "alpha", g.scalar(t.dtype if isinstance(t, Tn) else "float32"), 0.2)
    if base == "div":
        g.maybe(
            kw,
            "rounding_mode",
            g.pick(("trunc", "floor", None) + (("bad",) if g.edge() else ())),
            0.4,
        )
    if not name.endswith("_") and isinstance(t, Tn) and g.coin(0.08):
        kw["out"] = g.tensor(shape=g.pick((t.shape, (), (7,))), dtype=g.dtype())
    return (t, other), kw


EXTRA_BINARY = ("floor_divide", "fmax", "fmin", "hypot", "copysign", "nextafter", "logaddexp",
                "xlogy", "bitwise_left_shift", "bitwise_right_shift", "true_divide", "rsub",
                "isclose", "equal", "allclose")  # fmt: skip
EXTRA_UNARY = ("square", "sgn", "erfc", "lgamma", "digamma", "exp2", "positive", "signbit")


def _register_elementwise():
    names = _registry_names()
    for name, inplace in names["unary"] + [(n, False) for n in EXTRA_UNARY]:
        OPS.setdefault(name, (_unary, "fm", False))
        if inplace:
            OPS.setdefault(name + "_", (_unary, "m", False))
    for name, inplace in names["binary"] + [(n, False) for n in EXTRA_BINARY]:
        OPS.setdefault(name, (_binary, "fm", False))
        if inplace:
            OPS.setdefault(name + "_", (_binary, "m", False))


@ops("clamp", "clamp_", "clip", via="fm")
def _clamp(g, name):
    t = g.tensor(NUMERIC)
    bound = lambda: g.scalar(t.dtype) if g.coin(0.7) else g.peer(t)  # noqa: E731
    kw = {}
    g.maybe(kw, "min", bound(), 0.7)
    g.maybe(kw, "max", bound(), 0.7)
    return (t,), kw


OPS["clamp_"] = (_clamp, "m", False)


@ops("lerp", "addcmul", "addcdiv", via="fm")
def _ternary(g, name):
    t = g.tensor(FLOATS if name != "addcmul" else NUMERIC)
    a, b = g.peer(t), g.peer(t)
    kw = {}
    if name == "lerp":
        return (t, a, b if g.coin() else g.scalar()), {}
    g.maybe(kw, "value", g.scalar(t.dtype), 0.4)
    return (t, a, b), kw


@ops("fill_", "zero_", "nan_to_num", "logit", "polygamma", via="m")
def _fill(g, name):
    t = g.tensor()
    if name == "fill_":
        return (
            t,
            g.scalar(t.dtype) if g.coin(0.8) else g.tensor(shape=g.pick(((), (1,), (2,)))),
        ), {}
    if name == "polygamma":
        return (t, g.pick((0, 1, 2)) if not g.edge() else g.pick((-1, 2**31, 2**63 - 1))), {}
    kw = {}
    if name == "nan_to_num":
        for key in ("nan", "posinf", "neginf"):
            g.maybe(kw, key, g.scalar(t.dtype), 0.3)
    if name == "logit":
        g.maybe(kw, "eps", g.scalar(), 0.5)
    return (t,), kw


# casts


@ops("to", "type", via="m")
def _to(g, name):
    t = g.tensor()
    if name == "type":
        return (
            t,
            g.dt() if g.coin(0.7) else g.pick(("torch.FloatTensor", "torch.LongTensor", "bad")),
        ), {}
    form = g.int(0, 3)
    if form == 0:
        return (t, g.dt()), {}
    if form == 1:
        return (t, g.tensor(shape=())), {}
    if form == 2:
        return (t, "cpu", g.dt()), {}
    return (t,), {"dtype": g.dt(), "copy": g.coin()}


@ops("float", "half", "bfloat16", "bool", "int", "long", "byte", "char", "short", "double",
     "item", "tolist", "numel", "dim", "element_size", "is_contiguous", "stride",
     via="m")  # fmt: skip
def _cast(g, name):
    return (g.tensor(),), {}


@ops("int()", "float()", "bool()", "len()", "complex()", via="p")
def _py(g, name):
    return (g.tensor(shape=g.pick(((), (1,), (1, 1), (2,), (0,)))),), {}


@ops("copy_", via="m")
def _copy(g, name):
    t = g.tensor()
    return (t, g.peer(t, DTYPES)), {}


# torch.nn.functional


@ops("F.relu", "F.relu6", "F.silu", "F.gelu", "F.mish", "F.hardswish", "F.hardsigmoid", "F.sigmoid",
     "F.tanh", "F.softsign", "F.tanhshrink", "F.logsigmoid", "F.selu", via="f")  # fmt: skip
def _act(g, name):
    t = g.tensor(FLOATS)
    kw = {}
    if name == "F.gelu":
        g.maybe(kw, "approximate", g.pick(("none", "tanh", "bad")), 0.3)
    if name in ("F.relu", "F.relu6", "F.silu", "F.hardswish", "F.selu"):
        g.maybe(kw, "inplace", g.coin(), 0.2)
    return (t,), kw


@ops("F.elu", "F.celu", "F.leaky_relu", "F.hardtanh", "F.threshold", "F.softplus", "F.hardshrink",
     "F.softshrink", via="f")  # fmt: skip
def _act2(g, name):
    t = g.tensor(FLOATS)
    k = 2 if name in ("F.hardtanh", "F.threshold", "F.softplus") else 1
    return (t, *(g.scalar() for _ in range(k))), {}


@ops("F.softmax", "F.log_softmax", "F.softmin", "F.glu", via="f")
def _softmax(g, name):
    t = g.tensor(FLOATS)
    kw = {"dim": g.dim(len(t.shape))}
    if name != "F.glu":
        g.maybe(kw, "dtype", g.dt(FLOATS), 0.3)
    return (t,), kw


@ops("F.normalize", via="f")
def _normalize(g, name):
    t = g.tensor(FLOATS)
    kw = {}
    g.maybe(kw, "p", g.pick((1, 2, inf, 0, -1, 0.5)))
    g.maybe(kw, "dim", g.dim(len(t.shape)))
    g.maybe(kw, "eps", g.scalar(), 0.2)
    return (t,), kw


@ops("F.linear", via="f")
def _linear(g, name):
    i, o = g.int(0, 4), g.int(0, 4)
    x = g.tensor(FLOATS, shape=g.pick(((2,), (3, 2), ())) + (i,))
    w = g.tensor(shape=(o, i if not g.edge() else i + 1), dtype=x.dtype if g.coin(0.9) else None)
    args = (x, w) + ((g.tensor(shape=(o,), dtype=x.dtype),) if g.coin() else ())
    return args, {}


def _nc(g, spatial):
    """An (N, C, *spatial) float input."""
    n, c = g.pick((1, 2, 0)), g.pick((1, 2, 3, 4))
    shape = (n, c) + tuple(g.int(1, 6) for _ in range(spatial))
    if g.edge():
        shape = g.pick((shape[1:], shape + (2,), (n, c) + (0,) * spatial))
    return g.tensor(("float32", "float32", "float64") + FLOATS, shape=shape)


def _tuple_arg(g, k, valid, bad=(0, -1, -3, 2**31, 2**63 - 1)):
    if g.edge():
        return g.pick(bad) if g.coin() else tuple(g.pick(bad) for _ in range(k + g.int(-1, 1)))
    v = g.pick(valid)
    return v if g.coin() else (v,) * k


@ops("F.conv1d", "F.conv2d", "F.conv_transpose1d", "F.conv_transpose2d", via="f")
def _conv(g, name):
    k = 1 if name.endswith("1d") else 2
    x = _nc(g, k)
    c = x.shape[1] if len(x.shape) > 1 else 1
    groups = g.pick((1, 1, 1, c)) if not g.edge() else g.pick((0, -1, 3, 2**31))
    o = g.pick((1, 2, 4))
    ksz = tuple(g.int(1, 3) for _ in range(k))
    transpose = "transpose" in name
    wshape = (
        (c, o)
        if transpose
        else (
            o * (groups if isinstance(groups, int) and groups > 0 else 1),
            c // max(1, groups) if isinstance(groups, int) and groups > 0 else c,
        )
    ) + ksz
    w = g.tensor(
        shape=wshape if not g.edge() else g.shape(), dtype=x.dtype if g.coin(0.9) else None
    )
    kw = {}
    g.maybe(kw, "stride", _tuple_arg(g, k, (1, 2)))
    padding = _tuple_arg(g, k, (0, 1))
    if not transpose and g.coin(0.2):
        padding = g.pick(("same", "valid", "bad"))
    g.maybe(kw, "padding", padding)
    g.maybe(kw, "dilation", _tuple_arg(g, k, (1, 2)), 0.3)
    if transpose:
        g.maybe(kw, "output_padding", _tuple_arg(g, k, (0, 1)), 0.3)
    g.maybe(kw, "groups", groups, 0.5)
    g.maybe(
        kw,
        "bias",
        g.tensor(shape=(w.shape[int(transpose)] if len(w.shape) > 1 else 1,), dtype=x.dtype),
        0.3,
    )
    return (x, w), kw


@ops("F.max_pool1d", "F.max_pool2d", "F.avg_pool1d", "F.avg_pool2d", via="f")
def _pool(g, name):
    k = 1 if name.endswith("1d") else 2
    x = _nc(g, k)
    kw = {}
    g.maybe(kw, "stride", _tuple_arg(g, k, (1, 2, 3)))
    g.maybe(kw, "padding", _tuple_arg(g, k, (0, 1)))
    g.maybe(kw, "ceil_mode", g.coin(), 0.3)
    if "max" in name:
        g.maybe(kw, "dilation", _tuple_arg(g, k, (1, 2)), 0.3)
        g.maybe(kw, "return_indices", g.coin(), 0.2)
    else:
        g.maybe(kw, "count_include_pad", g.coin(), 0.3)
        if k == 2:
            g.maybe(
                kw,
                "divisor_override",
                g.pick((1, 3)) if not g.edge() else g.pick((0, -1, 2**63 - 1)),
                0.2,
            )
    return (x, _tuple_arg(g, k, (1, 2, 3))), kw


@ops(
    "F.adaptive_avg_pool1d",
    "F.adaptive_avg_pool2d",
    "F.adaptive_max_pool1d",
    "F.adaptive_max_pool2d",
    via="f",
)
def _adaptive(g, name):
    k = 1 if name.endswith("1d") else 2
    return (_nc(g, k), _tuple_arg(g, k, (1, 2, 3, 5), (0, -1, 2**31, 2**63 - 1, None))), {}


@ops("F.interpolate", via="f")
def _interpolate(g, name):
    k = g.int(1, 2)
    x = _nc(g, k)
    kw = {}
    if g.coin():
        kw["size"] = _tuple_arg(g, k, (1, 3, 7), (0, -1, 2**31, 2**63 - 1))
    else:
        kw["scale_factor"] = (
            g.pick((0.5, 2, 1.5, 3)) if not g.edge() else g.pick((0, -1, nan, inf, 1e30, 2**63))
        )
    modes = ("nearest", "linear", "bilinear", "bicubic", "area", "nearest-exact")
    g.maybe(kw, "mode", g.pick(modes + (("bad", "trilinear") if g.edge() else ())))
    if kw.get("mode") in ("linear", "bilinear", "bicubic"):
        g.maybe(kw, "align_corners", g.coin())
    return (x,), kw


@ops("F.pad", via="f")
def _pad(g, name):
    x = g.tensor(FLOATS, shape=g.pick(((2, 3), (1, 2, 4), (1, 1, 3, 3), (4,))))
    n = 2 * g.int(1, 2) if not g.edge() else g.int(0, 7)
    pad = [
        g.int(-1, 2) if not g.edge() else g.pick((2**31, -(2**31), 2**63 - 1, 100, -100))
        for _ in range(n)
    ]
    kw = {}
    g.maybe(
        kw,
        "mode",
        g.pick(("constant", "reflect", "replicate", "circular") + (("bad",) if g.edge() else ())),
    )
    if kw.get("mode", "constant") == "constant":
        g.maybe(kw, "value", g.scalar(), 0.3)
    return (x, pad if g.coin(0.8) else tuple(pad)), kw


@ops("F.embedding", via="f")
def _embedding(g, name):
    n, d = g.int(0, 5), g.int(1, 3)
    w = g.tensor(FLOATS, shape=(n, d) if not g.edge() else g.shape())
    kw = {}
    g.maybe(kw, "padding_idx", g.index(n), 0.3)
    g.maybe(kw, "max_norm", g.pick((1.0, 0.5)), 0.15)
    return (g.itensor(n, g.pick(((3,), (2, 2), (), (0,)))), w), kw


@ops("F.one_hot", via="f")
def _one_hot(g, name):
    n = g.int(1, 5)
    idx = g.itensor(n)
    idx = idx._replace(vals=tuple(abs(v) for v in idx.vals) if not g.edge() else idx.vals)
    return ((idx, g.pick((n, -1, n + 2))) if not g.edge() else (idx, g.pick((0, -2) + HUGE))), {}


@ops("F.layer_norm", "F.group_norm", "F.batch_norm", "F.instance_norm", via="f")
def _norm(g, name):
    x = _nc(g, g.int(0, 2))
    c = x.shape[1] if len(x.shape) > 1 else 1
    if name == "F.layer_norm":
        shape = x.shape[-g.int(1, len(x.shape)) :] if x.shape and not g.edge() else g.shape()
        args = (x, list(shape))
        w = g.tensor(shape=shape, dtype=x.dtype)
    elif name == "F.group_norm":
        args = (x, g.pick((1, c)) if not g.edge() else g.pick((0, -1, 3, 2**31)))
        w = g.tensor(shape=(c,), dtype=x.dtype)
    elif name == "F.batch_norm":
        mean = g.tensor(shape=(c,) if not g.edge() else (c + 1,), dtype=x.dtype)
        var = g.tensor(shape=(c,), dtype=x.dtype, layout="c")._replace(vals=("r", 1, 1, 5))
        stats = (mean, var)
        args = (x, *stats)
        w = g.tensor(shape=(c,), dtype=x.dtype)
    else:
        args, w = (x,), g.tensor(shape=(c,), dtype=x.dtype)
    kw = {}
    g.maybe(kw, "weight", w, 0.3)
    g.maybe(kw, "eps", g.pick((1e-5, 0.0, -1.0, nan)), 0.2)
    return args, kw


@ops("F.dropout", "F.dropout1d", "F.dropout2d", "F.alpha_dropout", via="f")
def _dropout(g, name):
    kw = {"p": g.pick((0.0, 0.5, 1.0)) if not g.edge() else g.pick((-0.1, 1.5, nan, 2**64))}
    g.maybe(kw, "training", g.coin())
    return (g.tensor(FLOATS),), kw


@ops("F.cross_entropy", "F.nll_loss", via="f")
def _class_loss(g, name):
    n, c = g.int(0, 3), g.int(1, 4)
    x = g.tensor(FLOATS, shape=g.pick(((n, c), (c,), (n, c, 2))))
    tshape = (n,) if len(x.shape) == 2 else () if len(x.shape) == 1 else (n, 2)
    target = g.itensor(c, tshape if not g.edge() else g.shape())
    target = target._replace(
        vals=tuple(abs(v) for v in target.vals) if not g.edge() else target.vals
    )
    if name == "F.cross_entropy" and g.coin(0.15):
        target = g.tensor(shape=x.shape, dtype=x.dtype)
    kw = {}
    g.maybe(kw, "ignore_index", g.pick((-100, 0, 1)) if not g.edge() else g.pick(HUGE), 0.3)
    g.maybe(kw, "reduction", g.pick(("mean", "sum", "none") + (("bad",) if g.edge() else ())), 0.3)
    g.maybe(kw, "weight", g.tensor(shape=(c,) if not g.edge() else (c + 1,), dtype=x.dtype), 0.2)
    if name == "F.cross_entropy":
        g.maybe(
            kw,
            "label_smoothing",
            g.pick((0.0, 0.1)) if not g.edge() else g.pick((-0.5, 1.5, nan)),
            0.2,
        )
    return (x, target), kw


@ops("F.mse_loss", "F.l1_loss", "F.smooth_l1_loss", "F.huber_loss", "F.binary_cross_entropy",
     "F.binary_cross_entropy_with_logits", "F.kl_div", "F.soft_margin_loss", via="f")  # fmt: skip
def _loss(g, name):
    x = g.tensor(FLOATS)
    y = g.peer(x, FLOATS)
    if name == "F.binary_cross_entropy" and not g.edge():
        x, y = x._replace(vals=("r", 1, 0, 3)), y._replace(vals=("r", 1, 1, 3))
        x = x._replace(vals=(0.25, 0.5, 0.75)) if x.dtype in FLOATS else x
    kw = {}
    g.maybe(kw, "reduction", g.pick(("mean", "sum", "none") + (("bad",) if g.edge() else ())), 0.3)
    if name in ("F.smooth_l1_loss", "F.huber_loss"):
        g.maybe(kw, "beta" if "smooth" in name else "delta", g.scalar(), 0.3)
    return (x, y), kw


@ops("F.pixel_shuffle", "F.pixel_unshuffle", via="f")
def _pixel(g, name):
    r = g.pick((1, 2)) if not g.edge() else g.pick((0, -1, 3, 2**31, 2**63 - 1))
    shape = g.pick(((1, 4, 2, 2), (2, 8, 1, 3), (1, 1, 4, 4), (4, 2, 2), (0, 4, 2, 2)))
    return (g.tensor(shape=shape), r), {}


@ops("F.unfold", "F.fold", via="f")
def _im2col(g, name):
    kw = {}
    g.maybe(kw, "dilation", _tuple_arg(g, 2, (1, 2)), 0.3)
    g.maybe(kw, "padding", _tuple_arg(g, 2, (0, 1)), 0.3)
    g.maybe(kw, "stride", _tuple_arg(g, 2, (1, 2)), 0.3)
    kernel = _tuple_arg(g, 2, (1, 2))
    if name == "F.unfold":
        return (_nc(g, 2), kernel), kw
    x = g.tensor(FLOATS, shape=g.pick(((1, 4, 4), (4, 4), (1, 3, 5), (2, 4, 9))))
    return (x,), dict(kw, output_size=_tuple_arg(g, 2, (2, 3, 4)), kernel_size=kernel)


@ops("F.cosine_similarity", "F.pairwise_distance", "cdist", via="f")
def _distance(g, name):
    a = g.tensor(FLOATS, shape=g.pick(((1, 4), (3, 4), (2, 3, 4), (4,))))
    b = g.peer(a, FLOATS)
    kw = {}
    if name == "F.cosine_similarity":
        g.maybe(kw, "dim", g.dim(len(a.shape)))
    else:
        g.maybe(kw, "p", g.pick((2, 1, 0, inf)) if not g.edge() else g.pick((-1, nan, 2**64)))
    g.maybe(kw, "eps", g.scalar(), 0.2) if name != "cdist" else None
    return (a, b), kw


@ops("F.affine_grid", "F.grid_sample", via="f")
def _grid(g, name):
    n = g.pick((1, 2))
    if name == "F.affine_grid":
        theta = g.tensor(FLOATS, shape=(n, 2, 3) if not g.edge() else g.shape())
        size = [n, 1, g.int(1, 4), g.int(1, 4)] if not g.edge() else [n, 1, g.pick(BAD_SIZES), 2]
        return (theta, size), {"align_corners": g.coin()}
    x = _nc(g, 2)
    grid = g.tensor(
        FLOATS,
        shape=(x.shape[0] if x.shape else 1, 2, 3, 2) if not g.edge() else g.shape(),
        dtype=x.dtype,
    )
    kw = {}
    g.maybe(kw, "mode", g.pick(("bilinear", "nearest", "bicubic", "bad")))
    g.maybe(kw, "padding_mode", g.pick(("zeros", "border", "reflection", "bad")))
    g.maybe(kw, "align_corners", g.coin())
    return (x, grid), kw


@ops("F.scaled_dot_product_attention", via="f")
def _sdpa(g, name):
    b, L, S, E = g.pick((1, 2)), g.int(0, 3), g.int(0, 3), g.int(1, 4)
    q = g.tensor(FLOATS, shape=(b, L, E))
    k = g.tensor(shape=(b, S, E if not g.edge() else E + 1), dtype=q.dtype)
    v = g.tensor(shape=(b, S, g.int(1, 3)), dtype=q.dtype)
    kw = {}
    g.maybe(kw, "is_causal", g.coin(), 0.3)
    g.maybe(kw, "attn_mask", g.mask((L, S)), 0.2)
    g.maybe(kw, "scale", g.scalar(), 0.2)
    return (q, k, v), kw


# --- drawing calls --------------------------------------------------------------------

_NAMES: list = []


def op_names():
    if not _NAMES:
        _register_elementwise()
        _NAMES.extend(sorted(OPS))
    return _NAMES


def make_call(seed, i, names=None):
    """Call i of seed `seed` (from its own random generator, so each call is reproducible)."""
    rng = random.Random(f"{seed}:{i}")
    g = Gen(rng)
    key = g.pick(names or op_names())
    gen, vias, then_ok = OPS[key]
    args, kwargs = gen(g, key)
    via = g.pick(vias)
    if via == "m" and not isinstance(args[0], Tn):
        via = "f"
    op = key.rstrip("()")
    if via in "gs":
        via = {"g": "get", "s": "set"}[via]
    elif via == "p":
        via = "py"
    then = (g.pick(THEN),) if then_ok and g.coin(0.3) else ()
    return Call(op, via, tuple(args), kwargs, then)


# --- worker side (standard library and torch only) -------------------------------------

FAMILIES = (NotImplementedError, IndexError, ValueError, TypeError, RuntimeError)


def family(exc):
    """The exception family that outcomes are compared by (NotImplementedError before its
    base RuntimeError; PyTorch's OutOfMemoryError and LinAlgError are RuntimeErrors)."""
    for cls in FAMILIES:
        if isinstance(exc, cls):
            return cls.__name__
    return type(exc).__name__


def _encode(x, torch, depth=0):
    """A JSON-able summary of a result: tensors as shape, dtype and values (all of them up to
    4096 elements, else the first and last)."""
    if isinstance(x, torch.Tensor):
        vals = None
        if not x.is_complex():
            if x.numel() <= 4096:
                flat = x.detach().reshape(-1)
                vals = (flat.double() if x.is_floating_point() else flat).tolist()
            else:
                corners = (x[(0,) * x.dim()], x[(-1,) * x.dim()])
                vals = ["corners"] + [
                    float(c) if x.is_floating_point() else c.item() for c in corners
                ]
        return {"t": list(x.shape), "d": str(x.dtype).replace("torch.", ""), "v": vals}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, torch.dtype):
        return {"dtype": str(x)}
    if isinstance(x, torch.Size):
        return {"size": list(x)}
    if isinstance(x, (tuple, list)) and depth < 3:
        return {"seq": [_encode(v, torch, depth + 1) for v in x[:64]], "n": len(x)}
    return {"type": type(x).__name__}


def _run_one(src, scope, torch):
    ns = dict(scope)
    try:
        code = compile(src, "<call>", "exec")
    except SyntaxError as e:
        return {"s": "exc", "f": "FuzzerError", "m": f"SyntaxError: {e}"}
    try:
        exec(code, ns)
        out = ns["out"]
    except Exception as e:  # every ordinary exception is an outcome
        return {"s": "exc", "f": family(e), "m": f"{type(e).__name__}: {e}"[:240]}
    try:
        return {"s": "ok", "v": _encode(out, torch)}
    except Exception as e:
        return {
            "s": "exc",
            "f": family(e),
            "m": f"reading the result: {type(e).__name__}: {e}"[:240],
        }


def _emit(fd, obj):
    data = (json.dumps(obj) + "\n").encode()
    while data:
        data = data[os.write(fd, data) :]


def worker(isolate, mem_gib, hang_s):
    import resource
    import warnings

    limit = int(mem_gib * 2**30)
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):  # ASan caps allocations itself
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    warnings.simplefilter("ignore")
    import torch

    scope = {"torch": torch, "nan": nan, "inf": inf}
    try:
        import torch.nn.functional as F

        scope["F"] = F
    except ImportError:
        pass
    srcs = [json.loads(line) for line in sys.stdin.read().splitlines()]
    # answers go to the original stdout; anything a library prints goes to stderr instead
    # (LAPACK's xerbla, for one, prints to stdout)
    answers = os.dup(1)
    os.dup2(2, 1)
    _emit(answers, {"ready": 1})
    for src in srcs:
        _emit(
            answers,
            _isolated(src, scope, torch, hang_s) if isolate else _run_one(src, scope, torch),
        )


def _isolated(src, scope, torch, hang_s):
    """Run one call in a forked child; then churn the heap a little so that a write outside
    a buffer surfaces as a crash of this child."""
    rd, wr = os.pipe()
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # the child never returns into the worker's loop
        try:
            os.close(rd)
            os.dup2(err.fileno(), 1)
            os.dup2(err.fileno(), 2)
            start = time.monotonic()
            _emit(wr, _run_one(src, scope, torch))
            if time.monotonic() - start < 0.01:  # cheap calls run again: corruption adds up
                for _ in range(20):
                    _run_one(src, scope, torch)
            gc.collect()
            junk = [torch.ones(n) for n in range(1, 200)]
            del junk
        finally:
            os._exit(0)
    os.close(wr)
    data, deadline, hung = b"", time.monotonic() + hang_s, False
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([rd], [], [], left)[0]:
            hung = True
            os.kill(pid, signal.SIGKILL)
            break
        chunk = os.read(rd, 65536)
        if not chunk:
            break
        data += chunk
    os.close(rd)
    while not hung and time.monotonic() < deadline + 2:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.002)
    else:
        if not hung:
            os.kill(pid, signal.SIGKILL)
            hung = True
        _, status = os.waitpid(pid, 0)
    err.seek(0)
    tail = err.read()[-400:].decode(errors="replace")
    err.close()
    result = json.loads(data.decode().splitlines()[0]) if data.strip() else None
    if hung:
        return {"s": "hang", "r": result}
    if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0 or result is None:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        return {
            "s": "crash",
            "sig": sig,
            "exit": os.WEXITSTATUS(status) if not sig else None,
            "err": tail,
            "r": result,
        }
    return result


# --- parent side: batches, isolation, comparison -----------------------------------------

_LIVE = set()
_LIVE_LOCK = threading.Lock()


def _worker_env():
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    env["PYTHONWARNINGS"] = "ignore"
    return env


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class WorkerStartError(RuntimeError):
    pass


def _run_worker(python, srcs, isolate, mem_gib, hang_s, attempts=8):
    """Run srcs in one worker. Returns (results, how, detail): how is "done", "died" or "hang".
    A worker that cannot start is retried for a while (the core may be relinking)."""
    for attempt in range(attempts):
        try:
            return _run_worker_once(python, srcs, isolate, mem_gib, hang_s)
        except WorkerStartError:
            if attempt == attempts - 1:
                raise
            time.sleep(15)


def _run_worker_once(python, srcs, isolate, mem_gib, hang_s):
    stdin = tempfile.TemporaryFile()
    stdin.write("".join(json.dumps(s) + "\n" for s in srcs).encode())
    stdin.seek(0)
    err = tempfile.TemporaryFile()
    cmd = [python, HERE, "--worker", "--mem-gib", str(mem_gib), "--hang-s", str(hang_s)] + (
        ["--isolate"] if isolate else []
    )
    proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=err,
                            env=_worker_env(), start_new_session=True)  # fmt: skip
    with _LIVE_LOCK:
        _LIVE.add(proc)
    fd = proc.stdout.fileno()
    results, buf, ready = [], b"", False
    how = "done"
    try:
        deadline = time.monotonic() + 120
        while len(results) < len(srcs):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                how = "hang"
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                how = "died"
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if not ready:
                    ready = True
                else:
                    results.append(json.loads(line))
            deadline = time.monotonic() + (hang_s if not isolate else 2 * hang_s + 10)
    finally:
        if how != "done" or proc.poll() is None:
            _kill(proc)
        proc.wait()
        proc.stdout.close()
        with _LIVE_LOCK:
            _LIVE.discard(proc)
        stdin.close()
        err.seek(0)
        tail = err.read()[-400:].decode(errors="replace")
        err.close()
    if how == "died" and not ready:
        raise WorkerStartError(f"worker {python} failed to start:\n{tail}")
    return results, how, {"code": proc.returncode, "err": tail}


def run_batch(python, srcs, mem_gib=2.0, hang_s=HANG_S):
    """Outcomes of srcs; a crash or hang reruns the batch up to that call one call per process."""
    out = [None] * len(srcs)
    pos = 0
    while pos < len(srcs):
        results, how, detail = _run_worker(python, srcs[pos:], False, mem_gib, hang_s)
        out[pos : pos + len(results)] = results
        if how == "done":
            break
        bad = pos + len(results)
        isolated = _isolate(python, srcs[pos : bad + 1], mem_gib, hang_s)
        out[pos : bad + 1] = isolated
        if out[bad]["s"] not in ("crash", "hang"):
            # crashed only after earlier calls in the same process
            out[bad] = dict(out[bad], batch={"how": how, "first": pos, **detail})
        pos = bad + 1
    return out


def _isolate(python, srcs, mem_gib, hang_s):
    out, pos = [], 0
    while pos < len(srcs):
        results, how, detail = _run_worker(python, srcs[pos:], True, mem_gib, hang_s)
        out += results
        pos += len(results)
        if how != "done":  # the isolating worker itself failed: blame the call it was on
            out.append(
                {
                    "s": "crash" if how == "died" else "hang",
                    "sig": -(detail["code"] or 0),
                    "err": detail["err"],
                }
            )
            pos += 1
    return out


TOLERANCE = {
    "float16": (1e-2, 1e-3),
    "bfloat16": (5e-2, 1e-2),
    "float32": (1e-4, 1e-5),
    "float64": (1e-7, 1e-9),
}


def _close(a, b, dtype):
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    rtol, atol = TOLERANCE.get(dtype, TOLERANCE["float32"])
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= atol + rtol * abs(b)


def difference(a, b, exact=True):
    """None when results a (ours) and b (PyTorch) agree, else a short reason."""
    if isinstance(a, dict) and "t" in a:
        if not (isinstance(b, dict) and "t" in b):
            return "tensor vs " + type(b).__name__
        if a["t"] != b["t"]:
            return f"shape {a['t']} vs {b['t']}"
        if a["d"] != b["d"]:
            return f"dtype {a['d']} vs {b['d']}"
        if exact and a["v"] is not None and b["v"] is not None:
            if len(a["v"]) != len(b["v"]):
                return "values"
            for x, y in zip(a["v"], b["v"]):
                if not _close(x, y, a["d"]):
                    return f"values ({x} vs {y})"
        return None
    if isinstance(a, dict) and "seq" in a:
        if not (isinstance(b, dict) and "seq" in b) or a["n"] != b["n"]:
            return "sequence structure"
        for x, y in zip(a["seq"], b["seq"]):
            reason = difference(x, y, exact)
            if reason:
                return reason
        return None
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return f"{type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return None if (not exact or _close(a, b, "float32")) else f"value ({a} vs {b})"
    return None if a == b else f"{a!r} vs {b!r}"


def _exact(call):
    """Whether the call's values are defined well enough to compare."""
    unordered = call.op == "topk" and call.kwargs.get("sorted") is False
    return not (call.op in INEXACT or call.op == "argsort" or unordered)


def _outcome_family(r):
    return "ok" if r["s"] == "ok" else r.get("f", r["s"])


class Report:
    def __init__(self):
        self.calls = self.ok = self.raised = 0
        self.crashes, self.hangs, self.batch_only = [], [], []
        self.ref = collections.Counter()
        self.ref_crashes = []
        self.agree = 0
        self.family = collections.defaultdict(list)  # (op, ours, theirs) -> [(i, msgs)]
        self.values = collections.defaultdict(list)  # (op, reason kind) -> [(i, reason)]
        self.missing = collections.Counter()  # ops PyTorch has and this project lacks
        self.fuzzer_errors = []


def _tally(report, calls, index, ours, theirs):
    for k, i in enumerate(index):
        call, r = calls[i], ours[k]
        report.calls += 1
        if r["s"] == "ok":
            report.ok += 1
        elif r["s"] == "exc":
            report.raised += 1
            if r["f"] in ("FuzzerError", "NameError", "SyntaxError"):
                report.fuzzer_errors.append((i, r["m"]))
        elif r["s"] == "crash":
            report.crashes.append((i, r))
        else:
            report.hangs.append((i, r))
        if "batch" in r:
            report.batch_only.append((i, r["batch"]))
        if theirs is None:
            continue
        t = theirs[k]
        report.ref[t["s"]] += 1
        if t["s"] in ("crash", "hang"):
            report.ref_crashes.append((i, t))
        if r["s"] in ("crash", "hang") or t["s"] in ("crash", "hang"):
            continue
        fo, ft = _outcome_family(r), _outcome_family(t)
        if fo == "AttributeError" != ft and f"attribute '{call.op.split('.')[-1]}'" in r["m"]:
            report.missing[call.op] += 1
        elif fo != ft:
            report.family[(call.op, fo, ft)].append((i, r.get("m", ""), t.get("m", "")))
        elif fo == "ok":
            a, b = r["v"], t["v"]
            if (
                call.op in TIES
                and isinstance(a, dict)
                and "seq" in a
                and isinstance(b, dict)
                and "seq" in b
            ):
                a, b = a["seq"][0], b["seq"][0]
            reason = difference(a, b, _exact(call))
            if reason:
                report.values[(call.op, reason.split(" ")[0])].append((i, reason))
            else:
                report.agree += 1
        else:
            report.agree += 1


def run(
    calls,
    seed=0,
    ref=None,
    jobs=None,
    batch=500,
    mem_gib=2.0,
    names=None,
    python=None,
    progress=None,
):
    """Fuzz `calls` calls; returns a Report (and the list of Call objects, by index)."""
    python = python or sys.executable
    drawn = [make_call(seed, i, names) for i in range(calls)]
    srcs = [source(c) for c in drawn]
    batches = [list(range(s, min(s + batch, calls))) for s in range(0, calls, batch)]
    report = Report()
    done, lock = {}, threading.Lock()
    start = time.monotonic()

    def task(b, impl):
        index = batches[b]
        res = run_batch(impl, [srcs[i] for i in index], mem_gib)
        with lock:
            slot = done.setdefault(b, {})
            slot[impl] = res
            if len(slot) == (2 if ref else 1):
                _tally(report, drawn, index, slot[python], slot.get(ref))
                del done[b]
                if progress:
                    took, crashed = time.monotonic() - start, len(report.crashes)
                    progress(f"{report.calls}/{calls} calls, {took:.0f} s, {crashed} crashes, "
                             f"{len(report.hangs)} hangs")  # fmt: skip

    pool = ThreadPoolExecutor(jobs or os.cpu_count() or 2)
    try:
        impls = [python, ref] if ref else [python]
        futures = [pool.submit(task, b, impl) for b in range(len(batches)) for impl in impls]
        for f in futures:
            f.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        with _LIVE_LOCK:
            for proc in list(_LIVE):
                _kill(proc)
    report.seconds = time.monotonic() - start
    return report, drawn


def _group(items, drawn):
    groups = collections.defaultdict(list)
    for i, r in items:
        groups[drawn[i].op].append((i, r))
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


def print_report(report, drawn, seed, ref, top=40, out=sys.stdout):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"seed {seed}: calls {report.calls}  ok {report.ok}  raised {report.raised}  "
      f"crashes {len(report.crashes)}  hangs {len(report.hangs)}  "
      f"crashes only in a batch {len(report.batch_only)}  ({report.seconds:.0f} s)")  # fmt: skip
    if ref:
        nfam = sum(len(v) for v in report.family.values())
        nval = sum(len(v) for v in report.values.values())
        p(f"reference: ok {report.ref['ok']}  raised {report.ref['exc']}  "
          f"crashes {report.ref['crash']}  hangs {report.ref['hang']}")  # fmt: skip
        p(f"agree {report.agree}  family mismatches {nfam}  value mismatches {nval}  "
          f"missing ops {sum(report.missing.values())}")  # fmt: skip
    for title, items in (("CRASHES", report.crashes), ("HANGS", report.hangs)):
        for op, group in _group(items, drawn):
            i, r = group[0]
            why = f"signal {r.get('sig')}" if r["s"] == "crash" else "> 5 s"
            kind = "CRASH" if title == "CRASHES" else "HANG"
            p(f"\n{kind} {op}: {len(group)} calls, {why}  (call {i})")
            p("  " + one_liner(drawn[i]))
            if r.get("err", "").strip():
                p("  stderr: " + r["err"].strip().splitlines()[-1][:200])
    for i, info in report.batch_only:
        kind = "CRASH" if info["how"] == "died" else "HANG"
        p(f"\n{kind} ONLY IN A BATCH (code {info['code']}) at call {i}, after calls "
          f"{info['first']}..{i} in the same process:\n  {one_liner(drawn[i])}")  # fmt: skip
    for i, r in report.ref_crashes[:10]:
        p(f"\nREFERENCE {r['s'].upper()} at call {i}: {one_liner(drawn[i])}")
    for i, m in report.fuzzer_errors[:5]:
        p(f"\nFUZZER ERROR at call {i}: {m}\n  {source(drawn[i])}")
    if report.missing:
        p("\nMISSING OPS (AttributeError here): " + " ".join(sorted(report.missing)))
    if ref and report.family:
        p("\nEXCEPTION FAMILY MISMATCHES (op: ours vs PyTorch, count)")
        for (op, fo, ft), group in sorted(report.family.items(), key=lambda kv: -len(kv[1]))[:top]:
            i, mo, mt = group[0]
            p(f"  {op}: {fo} vs {ft}  x{len(group)}\n    {one_liner(drawn[i])}")
            p(f"    ours: {mo[:160]}\n    torch: {mt[:160]}")
    if ref and report.values:
        p("\nVALUE MISMATCHES (op: kind, count)")
        for (op, kind), group in sorted(report.values.items(), key=lambda kv: -len(kv[1]))[:top]:
            i, reason = group[0]
            p(f"  {op}: {kind}  x{len(group)}: {reason[:120]}\n    {one_liner(drawn[i])}")


def write_json(report, drawn, path):
    """Every crash, hang and mismatch with its reproduction, for tools that group them."""
    entry = lambda i, **kw: dict(call=i, op=drawn[i].op, source=one_liner(drawn[i]), **kw)  # noqa: E731
    data = {
        "counts": {
            "calls": report.calls,
            "ok": report.ok,
            "raised": report.raised,
            "crashes": len(report.crashes),
            "hangs": len(report.hangs),
        },  # fmt: skip
        "crashes": [entry(i, sig=r.get("sig"), err=r.get("err", "")) for i, r in report.crashes],
        "hangs": [entry(i) for i, _ in report.hangs],
        "batch_only": [entry(i, **info) for i, info in report.batch_only],
        "reference_failures": [entry(i, status=r["s"]) for i, r in report.ref_crashes],
        "missing": dict(report.missing),
        "family": [
            entry(i, ours=fo, torch=ft, ours_msg=mo, torch_msg=mt)
            for (op, fo, ft), group in report.family.items()
            for i, mo, mt in group
        ],  # fmt: skip
        "values": [
            entry(i, reason=reason) for group in report.values.values() for i, reason in group
        ],
    }
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ref", help="python of a venv with PyTorch, to compare outcomes with")
    ap.add_argument("--jobs", type=int, default=None, help="parallel workers (default: CPU count)")
    ap.add_argument("--batch", type=int, default=500, help="calls per worker process")
    ap.add_argument("--mem-gib", type=float, default=2.0, help="RLIMIT_AS of each worker")
    ap.add_argument("--ops", help="comma-separated op names to draw from (default: all)")
    ap.add_argument("--top", type=int, default=40, help="mismatch groups to print")
    ap.add_argument("--json", help="also write every finding to this JSON file")
    ap.add_argument("--show", type=int, help="print call SHOW of --seed as Python and exit")
    ap.add_argument("--list-ops", action="store_true")
    ap.add_argument("--hang-s", type=float, default=HANG_S, help="seconds one call may take")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--isolate", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.isolate, args.mem_gib, args.hang_s)
    names = sorted(args.ops.split(",")) if args.ops else None
    if args.list_ops:
        print(" ".join(op_names()))
        return 0
    op_names()
    if args.show is not None:
        print(one_liner(make_call(args.seed, args.show, names)))
        return 0
    report, drawn = run(args.calls, args.seed, args.ref, args.jobs, args.batch, args.mem_gib, names,
                        progress=lambda line: print(line, file=sys.stderr, flush=True))  # fmt: skip
    print_report(report, drawn, args.seed, args.ref, args.top)
    if args.json:
        write_json(report, drawn, args.json)
    return 1 if report.crashes or report.hangs else 0


if __name__ == "__main__":
    sys.exit(main())
