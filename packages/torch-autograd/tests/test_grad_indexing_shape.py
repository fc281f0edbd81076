"""Gradients of indexing and shape ops, and of the composites built on them: gradcheck and
gradgradcheck (finite differences) in float64 on small shapes."""

import numpy as np
import pytest

import torch
import torch.autograd
from torch.autograd import gradcheck, gradgradcheck

D = torch.float64


def rand(*shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.rand(shape, dtype=D, generator=gen) * 2 - 1


def leaf(*shape, seed=0):
    return rand(*shape, seed=seed).requires_grad_()


def noncontig(*shape, seed=0):
    """A leaf whose strides are those of a transpose."""
    return rand(*reversed(shape), seed=seed).t().requires_grad_()


def check(fn, *inputs):
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


IDX = torch.tensor([2, 0, 2])  # repeated on purpose
MASK = torch.tensor([[True, False, True, True], [False, False, True, False], [True] * 4])

GETITEM = {
    "int": lambda x: x[1],
    "negative int": lambda x: x[-1, 2],
    "int tensor 0-d": lambda x: x[torch.tensor(1)],
    "slices with steps": lambda x: x[::2, 1::2],
    "None and Ellipsis": lambda x: x[None, ..., 1:3],
    "int tensor with repeats": lambda x: x[IDX],
    "list": lambda x: x[[1, 1, 0]],
    "tensor then slice": lambda x: x[IDX, 1:],
    "slice then tensor": lambda x: x[:, IDX],
    "two tensors": lambda x: x[IDX, torch.tensor([0, 3, 0])],
    "2-d index tensor": lambda x: x[torch.tensor([[0, 2], [2, 2]])],
    "bool mask": lambda x: x[MASK],
    "row mask": lambda x: x[torch.tensor([True, False, True])],
    "mask then int": lambda x: x[torch.tensor([False, True, True]), 0],
    "True": lambda x: x[True],
    "transposed": lambda x: x.t()[IDX],
    "strided then mask": lambda x: x[:, ::2][MASK[:, :2]],
    "narrow via slice": lambda x: x[1:3],
    "select via int": lambda x: x[:, 2],
    "getitem of getitem": lambda x: x[IDX][:, [3, 3]][1],
}


@pytest.mark.parametrize("name", list(GETITEM))
def test_getitem(name):
    check(GETITEM[name], leaf(3, 4))


def test_getitem_of_a_noncontiguous_leaf():
    check(lambda x: x[IDX, 1:], noncontig(3, 4))
    check(lambda x: x[MASK], noncontig(3, 4))


GETITEM_0D = {
    "()": lambda x: x[()],
    "None": lambda x: x[None],
    "Ellipsis": lambda x: x[...],
    "True": lambda x: x[True],
    "False": lambda x: x[False] * 1 + x,
    "None then list": lambda x: x[None][[0, 0]],
}


@pytest.mark.parametrize("name", list(GETITEM_0D))
def test_getitem_of_0d(name):
    check(GETITEM_0D[name], leaf())


def test_getitem_repeated_indices_accumulate():
    x = leaf(4, 3)
    rows = np.array([3, 1, 3, 3, 0])
    cols = np.array([2, 2, 2, 0, 2])
    g = rand(5, seed=1)
    x[torch.tensor(rows), torch.tensor(cols)].backward(g)
    expected = np.zeros((4, 3))
    np.add.at(expected, (rows, cols), g.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_getitem_of_a_view_is_a_view_and_advanced_is_a_copy():
    x = leaf(3, 4) * 1
    assert x[1:]._base is x
    assert x[IDX]._base is None
    assert type(x[IDX].grad_fn).__name__ == "IndexBackward0"


# ---------------------------------------------------------------- setitem
def test_setitem_on_a_leaf_that_requires_grad_raises():
    x = leaf(3, 4)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x[IDX] = 1.0


def setitem_basic_then_advanced(x, v, w):
    y = x * 1
    y[0] = v
    y[torch.tensor([2, 1])] = w
    return y


def setitem_number(x):
    y = x * 1
    y[1:, ::2] = 2.0
    return y


def setitem_broadcast_value(x, v):
    y = x * 1
    y[1:] = v.reshape(1, 4)
    y[torch.tensor([0, 2])] = v.reshape(1, 1, 4)  # leading ones are dropped
    return y


def setitem_mask_scalar(x, s):
    y = x * 1
    y[MASK] = s
    return y


def setitem_mask_values(x, v):
    y = x * 1
    y[MASK] = v
    return y


def setitem_into_constant(v, w):
    z = torch.zeros(3, 4, dtype=D)
    z[1] = v
    z[torch.tensor([0, 2]), 1:] = w
    return z


def setitem_on_a_view(x, v):
    y = x * 1
    y[1:][0] = v
    return y * y


def setitem_augmented(x, v):
    y = x * 1
    y[0] += v
    y[torch.tensor([2, 1])] -= v
    y[1:] = y[:-1] * 2  # the value is a view of the tensor written
    return y


def setitem_0d(x, s):
    y = x * 1
    y[()] = s
    return y


@pytest.mark.parametrize(
    "fn, inputs",
    [
        (setitem_basic_then_advanced, (leaf(3, 4), leaf(4, seed=1), leaf(2, 4, seed=2))),
        (setitem_basic_then_advanced, (noncontig(3, 4), leaf(4, seed=1), leaf(4, seed=2))),
        (setitem_number, (leaf(3, 4),)),
        (setitem_broadcast_value, (noncontig(3, 4), leaf(4, seed=1))),
        (setitem_mask_scalar, (leaf(3, 4), leaf(seed=1))),
        (setitem_mask_values, (leaf(3, 4), leaf(8, seed=1))),
        (setitem_into_constant, (leaf(4), leaf(3, seed=1))),
        (setitem_on_a_view, (leaf(3, 4), leaf(4, seed=1))),
        (setitem_augmented, (leaf(3, 4), leaf(4, seed=1))),
        (setitem_0d, (leaf(), leaf(seed=1))),
    ],
    ids=lambda p: p.__name__ if callable(p) else "",
)
def test_setitem(fn, inputs):
    check(fn, *inputs)


def test_setitem_on_a_view_of_a_non_leaf_reaches_the_base():
    x, v = leaf(3, 4), leaf(4, seed=1)
    y = x * 1
    y[1:][0] = v
    y.backward(torch.ones(3, 4, dtype=D))
    expected = np.ones((3, 4))
    expected[1] = 0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    np.testing.assert_array_equal(v.grad.numpy(), np.ones(4))


def test_setitem_repeated_indices_give_every_write_the_gradient():
    # as PyTorch 2.13: each write of a repeated index reads the gradient, whichever was kept
    x, v = leaf(3, 4), leaf(3, 4, seed=1)
    y = x * 1
    y[torch.tensor([2, 0, 2])] = v
    y.backward(torch.ones(3, 4, dtype=D))
    np.testing.assert_array_equal(v.grad.numpy(), [[1] * 4, [1] * 4, [1] * 4])
    np.testing.assert_array_equal(x.grad.numpy(), [[0] * 4, [1] * 4, [0] * 4])


def test_index_tensor_changed_in_place_is_detected():
    x, i = leaf(3), torch.tensor([0, 1])
    y = x[i]
    i[0] = 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_advanced_setitem_on_a_view_of_a_non_leaf():
    def fn(x, v):
        y = x * 1
        y[1:][torch.tensor([1, 0]), 1:] = v
        y.t()[torch.tensor([0])] = v[0, 0]
        return y

    check(fn, leaf(3, 4), leaf(2, 3, seed=1))


# ---------------------------------------------------------------- index ops (reads)
INDEX2 = torch.tensor([[0, 0, 3], [1, 2, 1], [3, 3, 3]])
# Plain writes (no reduction) to a repeated position keep one write, but every write gets
# the gradient, as in PyTorch: the Jacobian of the kept value only where positions are unique.
UNIQUE2 = torch.tensor([[0, 2, 3], [1, 2, 0], [3, 0, 1]])
UNIQUE = torch.tensor([2, 0, 1])
READS = {
    "index_select": lambda x: x.index_select(1, IDX),
    "index_select dim 0": lambda x: torch.index_select(x, 0, IDX),
    "gather": lambda x: x.gather(1, INDEX2),
    "gather dim 0": lambda x: torch.gather(x, 0, INDEX2[:, :2] % 3),
    "take": lambda x: x.take(torch.tensor([[0, 11], [5, 5]])),
    "take_along_dim": lambda x: torch.take_along_dim(x, INDEX2[:, :1], 1),
    "take_along_dim broadcast": lambda x: torch.take_along_dim(x, torch.tensor([[2, 0, 2, 2]]), 0),
    "take_along_dim flat": lambda x: torch.take_along_dim(x, torch.tensor([7, 7, 0])),
    "masked_select": lambda x: x.masked_select(MASK),
    "masked_select broadcast": lambda x: x.masked_select(torch.tensor([True, False, True, True])),
    "masked_fill": lambda x: x.masked_fill(MASK, 0.5),
}


@pytest.mark.parametrize("name", list(READS))
@pytest.mark.parametrize("make", [leaf, noncontig], ids=["contiguous", "transposed"])
def test_index_reads(name, make):
    check(READS[name], make(3, 4))


def test_masked_fill_with_a_tensor_value():
    check(lambda x, s: x.masked_fill(MASK, s), leaf(3, 4), leaf(seed=1))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.index_select(0, torch.tensor([0, 0])),
        lambda x: x.gather(0, torch.tensor(0)),
        lambda x: x.take(torch.tensor([0, 0])),
        lambda x: x.masked_select(torch.tensor(True)),
        lambda x: x.masked_fill(torch.tensor(True), 1.0),
    ],
)
def test_index_reads_of_0d(fn):
    check(fn, leaf())


# ---------------------------------------------------------------- index ops (writes)
WRITES = {
    "scatter": lambda x, s: x.scatter(1, UNIQUE2, s),
    "scatter value": lambda x, s: torch.scatter(x, 0, torch.tensor([[0, 2, 1, 0]]), 1.5),
    "scatter_add": lambda x, s: x.scatter_add(1, INDEX2, s),
    "scatter_reduce sum": lambda x, s: x.scatter_reduce(1, INDEX2, s, "sum"),
    "scatter_reduce sum without self": lambda x, s: x.scatter_reduce(
        1, INDEX2, s, "sum", include_self=False
    ),
    "scatter_reduce mean": lambda x, s: x.scatter_reduce(0, INDEX2 % 3, s, "mean"),
    "scatter_reduce prod": lambda x, s: x.scatter_reduce(1, INDEX2, s, "prod"),
    "scatter_reduce prod without self": lambda x, s: x.scatter_reduce(
        0, INDEX2 % 3, s, "prod", include_self=False
    ),
    "scatter_reduce amax": lambda x, s: x.scatter_reduce(1, INDEX2, s, "amax"),
    "scatter_reduce amin without self": lambda x, s: x.scatter_reduce(
        1, INDEX2, s, "amin", include_self=False
    ),
    "scatter multiply": lambda x, s: x.scatter(1, INDEX2, s, reduce="multiply"),
    "scatter_ multiply value": lambda x, s: (x * s[0, 0]).scatter_(
        1, INDEX2, 1.5, reduce="multiply"
    ),
    "index_add": lambda x, s: x.index_add(1, IDX, s, alpha=2),
    "index_copy": lambda x, s: x.index_copy(1, torch.tensor([3, 0, 1]), s),
    "index_fill": lambda x, s: x.index_fill(1, UNIQUE, s[0, 0]),
    "index_put": lambda x, s: x.index_put((UNIQUE,), s[:, :1] * s[:1, :1]),
    "index_put accumulate": lambda x, s: x.index_put((IDX, IDX), s[0], accumulate=True),
    "masked_scatter": lambda x, s: x.masked_scatter(MASK, s),
    "into zeros": lambda x, s: torch.zeros(3, 5, dtype=D).index_add(1, IDX, s) * x.sum(),
}


@pytest.mark.parametrize("name", list(WRITES))
@pytest.mark.parametrize("make", [leaf, noncontig], ids=["contiguous", "transposed"])
def test_index_writes(name, make):
    check(WRITES[name], make(3, 4), leaf(3, 3, seed=1))


def test_repeated_plain_writes_give_every_write_the_gradient():
    # PyTorch's rule (its CUDA kernels keep an arbitrary one of the repeated writes): the
    # written values' gradient is g read at each write's position; x's is g where nothing
    # was written (checked against PyTorch 2.13)
    g = torch.arange(12, dtype=D).reshape(3, 4) + 1

    def only(index, value):  # zeros like s, with value at index
        out = torch.zeros(3, 3, dtype=D)
        out[index] = value
        return out

    for fn, want in (
        (lambda x, s: x.scatter(1, INDEX2, s), g.gather(1, INDEX2)),
        (lambda x, s: x.index_put((IDX,), s[:, :1]), only((slice(None), 0), g[IDX].sum(1))),
        # (a fill: each filled element once, however often its index repeats)
        (lambda x, s: x.index_fill(1, IDX, s[0, 0]), only((0, 0), g[:, IDX.unique()].sum())),
        (lambda x, s: x.put(IDX, s[0]), only(0, g.reshape(-1)[IDX])),
    ):
        x, s = leaf(3, 4), leaf(3, 3, seed=1)
        fn(x, s).backward(g)
        np.testing.assert_array_equal(s.grad.numpy(), want.numpy())
        written = fn(torch.zeros(3, 4, dtype=D), torch.ones(3, 3, dtype=D)) != 0
        np.testing.assert_array_equal(x.grad.numpy(), torch.where(written, 0, g).numpy())


def test_index_writes_of_0d():
    check(lambda x, s: x.scatter(0, torch.tensor(0), s), leaf(), leaf(seed=1))
    check(lambda x, s: x.index_add(0, torch.tensor([0, 0]), s), leaf(), leaf(2, seed=1))


# scatter_reduce prod/amax/amin against the gradient of each group (an element of self
# and the src values scattered onto it), computed member by member in NumPy
ROWS = np.array([[0, 2, 1, 0], [3, 0, 0, 2], [0, 0, 1, 1]])  # into 4x4 along dim 0


def expected_scatter_reduce_grads(x, src, reduce, include_self, g):
    gx, gs = np.zeros_like(x), np.zeros_like(src)
    for i, j in np.ndindex(*x.shape):
        ks = [k for k in range(ROWS.shape[0]) if ROWS[k, j] == i]
        if not ks:
            gx[i, j] = g[i, j]
            continue
        # the group's members: (value, where its gradient goes)
        members = [(x[i, j], (gx, (i, j)))] if include_self else []
        members += [(src[k, j], (gs, (k, j))) for k in ks]
        values = np.array([v for v, _ in members])
        for m, (_, (grad, at)) in enumerate(members):
            if reduce == "prod":
                grad[at] = g[i, j] * np.prod(np.delete(values, m))
            else:
                result = values.max() if reduce == "amax" else values.min()
                ties = np.count_nonzero(values == result)
                grad[at] = g[i, j] / ties if values[m] == result else 0.0
    return gx, gs


def with_zeros(x, src):
    x[0, 0] = 0  # self is the only zero of its group (src[0, 0], src[2, 0])
    src[1, 1] = src[2, 1] = 0  # two src zeros in the group of x[0, 1]
    src[0, 2] = 0  # the only zero in the group of x[1, 2]
    x[3, 0] = src[1, 0] = 0  # self and src zero (one zero without self)
    x[3, 1] = 0  # nothing is written to it
    return x, src


SCATTER_DATA = {
    "distinct": lambda x, src: (x, src),
    "ties": lambda x, src: (np.round(x * 2) / 2, np.round(src * 2) / 2),
    "zeros": with_zeros,
}


@pytest.mark.parametrize("data", list(SCATTER_DATA))
@pytest.mark.parametrize("include_self", [True, False], ids=["self", "without self"])
@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
def test_scatter_reduce_grad_values(reduce, include_self, data):
    x, src = SCATTER_DATA[data](rand(4, 4).numpy(), rand(3, 4, seed=1).numpy())
    if data == "ties":  # and ties with the self element
        assert np.count_nonzero(x[ROWS[:, 0], 0] == src[:, 0]) > 0
    g = rand(4, 4, seed=2)
    xt = torch.tensor(x, requires_grad=True)
    st = torch.tensor(src, requires_grad=True)
    out = xt.scatter_reduce(0, torch.tensor(ROWS), st, reduce, include_self=include_self)
    out.backward(g)
    gx, gs = expected_scatter_reduce_grads(x, src, reduce, include_self, g.numpy())
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(st.grad.numpy(), gs, rtol=1e-12, atol=1e-15)


def test_scatter_reduce_ties_share_the_gradient_evenly():
    x = torch.tensor([1.0, 5.0], dtype=D, requires_grad=True)
    s = torch.tensor([1.0, 1.0, 0.5], dtype=D, requires_grad=True)
    index = torch.tensor([0, 0, 0])
    x.scatter_reduce(0, index, s, "amax").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1 / 3, 1])
    np.testing.assert_array_equal(s.grad.numpy(), [1 / 3, 1 / 3, 0])
    # without self, x[0] (equal to the result as well) takes no share
    x.grad = s.grad = None
    x.scatter_reduce(0, index, s, "amax", include_self=False).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1])
    np.testing.assert_array_equal(s.grad.numpy(), [0.5, 0.5, 0])


@pytest.mark.parametrize("include_self", [True, False], ids=["self", "without self"])
@pytest.mark.parametrize("make", [leaf, noncontig], ids=["contiguous", "transposed"])
def test_scatter_reduce_prod_with_zeros_double_backward(make, include_self):
    # the product is a polynomial: finite differences are exact enough at zeros too
    x, src = with_zeros(rand(4, 4).numpy(), rand(3, 4, seed=1).numpy())
    x = make(4, 4).detach().copy_(torch.tensor(x)).requires_grad_()
    src = torch.tensor(src, requires_grad=True)
    index = torch.tensor(ROWS)
    check(lambda x, s: x.scatter_reduce(0, index, s, "prod", include_self=include_self), x, src)
    check(lambda x, s: x.t().scatter_reduce(1, index.t(), s.t(), "prod"), x, src)


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
def test_scatter_reduce_in_place_on_a_view_of_a_non_leaf(reduce):
    def fn(x, s):
        y = x * 1
        y[1:].scatter_reduce_(0, torch.tensor(ROWS[:2] % 3), s[:2], reduce)
        return y

    check(fn, leaf(4, 4), leaf(3, 4, seed=1))


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
def test_scatter_reduce_of_0d(reduce):
    check(lambda x, s: x.scatter_reduce(0, torch.tensor(0), s, reduce), leaf(), leaf(seed=1))


# ---------------------------------------------------------------- shape ops
SHAPE = {
    "cat": lambda x: torch.cat([x, x[:1] * 2, torch.zeros(0, dtype=D)]),
    "cat dim 1": lambda x: torch.cat((x, x.t()[:2].t()), dim=-1),
    "stack": lambda x: torch.stack([x, 2 * x], 1),
    "hstack": lambda x: torch.hstack([x, x[:, :1]]),
    "vstack": lambda x: torch.vstack([x, x[0]]),
    "split": lambda x: x.split([1, 3], 1),
    "chunk": lambda x: torch.chunk(x, 2, 0),
    "unbind": lambda x: x.unbind(1),
    "flip": lambda x: x.flip(0, 1),
    "fliplr": lambda x: torch.fliplr(x),
    "rot90": lambda x: torch.rot90(x),
    "roll": lambda x: x.roll((1, -1), (0, 1)),
    "roll flat": lambda x: torch.roll(x, 5),
    "tril": lambda x: x.tril(),
    "triu": lambda x: torch.triu(x, 1),
    "tril negative": lambda x: x.tril(-1),
    "tril_": lambda x: (x * 1).tril_(1),
    "triu_": lambda x: (x * 1).triu_(-1),
    "repeat_interleave": lambda x: x.repeat_interleave(2, dim=1),
    "repeat_interleave tensor": lambda x: x.repeat_interleave(torch.tensor([1, 0, 3]), dim=0),
    "repeat_interleave flat": lambda x: torch.repeat_interleave(x, 2),
    "movedim": lambda x: x.movedim(0, 1),
    "narrow": lambda x: x.narrow(1, 1, 2),
}


@pytest.mark.parametrize("name", list(SHAPE))
@pytest.mark.parametrize("make", [leaf, noncontig], ids=["contiguous", "transposed"])
def test_shape_ops(name, make):
    check(SHAPE[name], make(3, 4))


@pytest.mark.parametrize(
    "fn",
    [GETITEM["int tensor with repeats"], GETITEM["slices with steps"], READS["take"]]
    + [SHAPE[k] for k in ("cat", "cat dim 1", "stack", "split", "roll", "tril_")],
)
def test_double_backward_of_a_sum(fn):
    """The gradient of a sum is an expanded tensor (stride 0)."""

    def total(x):
        out = fn(x)
        return sum(o.sum() for o in out) if isinstance(out, tuple) else out.sum()

    assert gradgradcheck(total, (leaf(3, 4),))


def test_cat_with_inputs_that_need_no_grad():
    a, b = leaf(2, 3), rand(1, 3)
    check(lambda a: torch.cat([b, a, b], 0), a)
    out = torch.cat([b, a])
    (ga,) = torch.autograd.grad(out, [a], torch.ones(3, 3, dtype=D))
    assert ga.shape == a.shape


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.stack([x, x * 3]),
        lambda x: torch.hstack([x, x]),
        lambda x: x.flip(()),
        lambda x: x.roll(1),
        lambda x: x.repeat_interleave(3),
        lambda x: x.movedim((), ()),
    ],
)
def test_shape_ops_of_0d(fn):
    check(fn, leaf())


@pytest.mark.parametrize("fn", [lambda x: x.repeat(2, 1, 3), lambda x: torch.tile(x, (2,))])
def test_repeat(fn):
    check(fn, leaf(3, 4))


def test_primitives_have_formulas():
    ops = [
        "Tensor.__getitem__", "Tensor.__setitem__", "_take_rows", "_put_rows", "_mask_rows",
        "_index_select", "_gather", "cat", "_flip", "_roll", "_tri", "_tri_",
        "_repeat_interleave",
    ]  # fmt: skip
    assert all(torch._C._grad_gates[n].formula is not None for n in ops)
