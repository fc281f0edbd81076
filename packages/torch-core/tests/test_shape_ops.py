"""Shape ops against NumPy: the registry's "shape" and "shape_multi" ops over layouts, 0-d
and empty tensors and mixed dtypes; methods against functions; which results are views;
out= and in-place forms; errors for bad input."""

import numpy as np
import pytest

import torch
from torch.testing._op_registry import assert_array_matches, cases, to_numpy

F32 = torch.float32


@pytest.mark.parametrize("case", cases("shape"), ids=repr)
def test_shape_ops_match_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


@pytest.mark.parametrize("case", cases("shape_multi"), ids=repr)
def test_multi_output_ops_match_numpy(case):
    x = case.make()
    got, expected = case.call(x), case.expected(x)
    assert isinstance(got, tuple), type(got)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        case.check_one(g, e, case.result_dtypes[0])


@pytest.mark.parametrize(
    "case",
    cases("shape", "shape_multi", where=lambda c: c.op.method and c.dtype == F32),
    ids=repr,
)
def test_methods_match_functions(case):
    x = case.make()
    by_function = getattr(torch, case.op.target)(*x.args, **x.kwargs)
    by_method = getattr(x.args[0], case.op.target)(*x.args[1:], **x.kwargs)
    if isinstance(by_function, torch.Tensor):
        by_function, by_method = (by_function,), (by_method,)
    assert len(by_function) == len(by_method)
    for a, b in zip(by_function, by_method):
        assert torch.equal(a, b)


# ---------------------------------------------------------------- views and copies
@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.split(2, 1),
        lambda t: t.split([1, 3], 1),
        lambda t: t.chunk(2, 0),
        lambda t: t.tensor_split(3, 1),
        lambda t: t.unbind(1),
        lambda t: (torch.movedim(t, 0, 1),),
        lambda t: (torch.broadcast_to(t, (2, 3, 4)),),
        lambda t: torch.broadcast_tensors(t, torch.zeros(4))[:1],
        lambda t: torch.meshgrid(t[0], t[1], indexing="ij"),
    ],
)
def test_results_are_views(fn):
    t = torch.zeros(3, 4)
    for piece in fn(t):
        assert piece.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: torch.flip(t, (0,)),
        lambda t: torch.roll(t, 1, 0),
        lambda t: torch.tril(t),
        lambda t: t.repeat(1, 1),
        lambda t: torch.repeat_interleave(t, 1, 0),
        lambda t: torch.cat([t]),
        lambda t: torch.rot90(t, 4),
        lambda t: torch.diag(t),
    ],
)
def test_results_are_copies(fn):
    t = torch.arange(12.0).reshape(3, 4)
    before = fn(t).clone()
    result = fn(t)
    t.fill_(-1)
    assert torch.equal(result, before)


# ---------------------------------------------------------------- cat
def test_cat_out_is_written_and_returned():
    a, b = torch.arange(6.0).reshape(2, 3), torch.ones(1, 3)
    out = torch.empty(3, 3)
    r = torch.cat([a, b], out=out)
    assert r is out
    assert_array_matches(out, np.concatenate([to_numpy(a), to_numpy(b)]))
    out64 = torch.empty(0, dtype=torch.float64)
    torch.cat((a, b), 0, out=out64)
    assert out64.shape == (3, 3) and out64.dtype == torch.float64


def test_cat_large_inputs_parallel_paths():
    a = torch.arange(3 * 200_000, dtype=torch.float32).reshape(3, 200_000)
    b = torch.arange(3 * 100_000, dtype=torch.float32).reshape(3, 100_000)
    expected = np.concatenate([a.numpy(), b.numpy()], 1)
    assert_array_matches(torch.cat([a, b], 1), expected)
    assert_array_matches(torch.cat([a.t(), b.t()], 0), expected.T)
    assert_array_matches(
        torch.cat([a.reshape(-1), b.reshape(-1)]),
        np.concatenate([a.numpy().reshape(-1), b.numpy().reshape(-1)]),
    )
    c = torch.arange(1000 * 64, dtype=torch.int16).reshape(1000, 64)
    assert_array_matches(torch.cat([c, c, c], 1), np.concatenate([c.numpy()] * 3, 1))


def test_cat_skips_empty_1d_tensors_but_promotes_with_them():
    r = torch.cat([torch.empty(0, dtype=torch.float64), torch.ones(2, 3, dtype=torch.int32)])
    assert r.shape == (2, 3) and r.dtype == torch.float64
    assert torch.cat([torch.empty(0), torch.empty(0)]).shape == (0,)


def test_cat_and_concat_aliases():
    a = torch.ones(2, 2)
    assert torch.equal(torch.concat([a, a], 1), torch.cat([a, a], 1))
    assert torch.equal(torch.concatenate([a, a], axis=1), torch.cat([a, a], 1))


# ---------------------------------------------------------------- in-place and extras
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("diagonal", [-1, 0, 2])
def test_tril_triu_in_place(upper, diagonal):
    base = torch.arange(30.0).reshape(5, 6)
    for t in (base.clone(), base.clone().t()):  # contiguous and transposed
        expected = (np.triu if upper else np.tril)(to_numpy(t), diagonal)
        r = t.triu_(diagonal) if upper else t.tril_(diagonal)
        assert r is t
        assert_array_matches(t, expected)


def test_tril_out():
    t = torch.arange(9).reshape(3, 3)
    out = torch.empty(0, dtype=torch.int64)
    assert torch.tril(t, out=out) is out
    assert_array_matches(out, np.tril(t.numpy()))


def test_repeat_interleave_forms():
    assert torch.repeat_interleave(torch.tensor([1, 2])).tolist() == [0, 1, 1]
    assert torch.repeat_interleave(torch.tensor(5), 3).tolist() == [5, 5, 5]
    x = torch.tensor([[1, 2], [3, 4]])
    r = torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0, output_size=3)
    assert r.tolist() == [[1, 2], [3, 4], [3, 4]]
    assert x.repeat_interleave(2).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]


def test_meshgrid_forms():
    a, b = torch.arange(3), torch.arange(4)
    gx, gy = torch.meshgrid([a, b], indexing="xy")
    assert gx.shape == (4, 3) and gy.shape == (4, 3)
    with pytest.warns(UserWarning, match="indexing"):
        ga, _ = torch.meshgrid(a, b)
    assert ga.shape == (3, 4)


def test_atleast_and_swapaxes():
    assert torch.atleast_1d(torch.tensor(1.0)).shape == (1,)
    assert torch.atleast_2d(torch.ones(3)).shape == (1, 3)
    assert torch.atleast_3d(torch.ones(2, 3)).shape == (2, 3, 1)
    assert [t.shape for t in torch.atleast_2d(torch.ones(3), torch.ones(2, 2))] == [(1, 3), (2, 2)]
    assert torch.swapaxes(torch.ones(2, 3), 0, 1).shape == (3, 2)


def test_keyword_forms():
    a = torch.ones(2, 2)
    assert torch.cat([a, a], axis=1).shape == (2, 4)
    assert torch.stack([a, a], axis=1).shape == (2, 2, 2)
    assert a.flip(dims=(0,)).shape == (2, 2)
    assert len(a.split(split_size=1)) == 2
    assert len(torch.split(a, split_size_or_sections=1)) == 2
    assert a.repeat(repeats=(2, 2)).shape == (4, 4)
    assert a.roll(shifts=1, dims=0).shape == (2, 2)
    assert torch.movedim(a, source=0, destination=1).shape == (2, 2)


def test_reversed_iterates_backwards():
    assert [v.item() for v in reversed(torch.arange(4))] == [3, 2, 1, 0]


# ---------------------------------------------------------------- errors
A = torch.ones(2, 3)

ERRORS = [
    (lambda: torch.cat([A, torch.ones(2, 4)]), RuntimeError),
    (lambda: torch.cat([A, torch.ones(3)]), RuntimeError),
    (lambda: torch.cat([torch.tensor(1.0)]), RuntimeError),
    (lambda: torch.cat([]), ValueError),
    (lambda: torch.cat([A, A], dim=2), IndexError),
    (lambda: torch.cat([A, 1]), TypeError),
    (lambda: torch.cat(A), TypeError),
    (lambda: torch.cat([A[:1], A[1:]], out=A), RuntimeError),
    (lambda: torch.stack([]), RuntimeError),
    (lambda: torch.stack([A, torch.ones(3, 2)]), RuntimeError),
    (lambda: torch.stack([A, A], 3), IndexError),
    (lambda: A.split([1, 1], 1), RuntimeError),
    (lambda: A.split(0), RuntimeError),
    (lambda: A.split(-1), RuntimeError),
    (lambda: A.split(1, 2), IndexError),
    (lambda: A.chunk(0), RuntimeError),
    (lambda: A.tensor_split(0), RuntimeError),
    (lambda: A.tensor_split(torch.tensor([1.0])), RuntimeError),
    (lambda: A.unbind(2), IndexError),
    (lambda: A.unflatten(1, (2, 2)), RuntimeError),
    (lambda: A.repeat(2), RuntimeError),
    (lambda: torch.repeat_interleave(A, torch.tensor([1, 2]), dim=1), RuntimeError),
    (lambda: torch.repeat_interleave(A, torch.tensor([-1, 2]), dim=0), RuntimeError),
    (lambda: torch.repeat_interleave(A, 2, dim=2), IndexError),
    (lambda: torch.flip(A, (0, 0)), RuntimeError),
    (lambda: torch.flip(A, (2,)), IndexError),
    (lambda: torch.roll(A, (1, 2), (0,)), RuntimeError),
    (lambda: torch.roll(A, 1, 3), IndexError),
    (lambda: torch.rot90(A, 1, (0, 0)), RuntimeError),
    (lambda: torch.rot90(torch.ones(3)), RuntimeError),
    (lambda: torch.tril(torch.ones(3)), RuntimeError),
    (lambda: torch.ones(3).triu_(), RuntimeError),
    (lambda: torch.diag(torch.ones(2, 2, 2)), RuntimeError),
    (lambda: torch.outer(A, torch.ones(2)), RuntimeError),
    (lambda: torch.movedim(A, (0, 1), (0,)), RuntimeError),
    (lambda: torch.movedim(A, (0, 1), (0, 0)), RuntimeError),
    (lambda: torch.movedim(A, 0, 5), IndexError),
    (lambda: torch.broadcast_to(A, (3, 3)), RuntimeError),
    (lambda: torch.broadcast_tensors(A, torch.ones(4)), RuntimeError),
    (lambda: torch.meshgrid(torch.ones(2, 2), indexing="ij"), RuntimeError),
    (lambda: torch.meshgrid(torch.ones(2), indexing="yx"), RuntimeError),
    (lambda: torch.cartesian_prod(torch.ones(2, 2)), RuntimeError),
    (lambda: torch.cartesian_prod(torch.arange(2), torch.ones(2)), RuntimeError),
    (lambda: torch.cat([A], out=torch.empty(0, dtype=torch.int64)), TypeError),
    (lambda: torch.repeat_interleave(A, torch.tensor([1.0, 2.0]), dim=0), NotImplementedError),
    (lambda: torch.tril(A, out=torch.empty(0, dtype=torch.int64)), RuntimeError),
]


@pytest.mark.parametrize("fn, kind", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_bad_input_raises(fn, kind):
    with pytest.raises(kind):
        fn()


@pytest.mark.ours_only
def test_cat_mismatch_message_names_op_tensor_shapes_and_dim():
    with pytest.raises(RuntimeError) as e:
        torch.cat([A, A, torch.ones(2, 4)])
    msg = str(e.value)
    for part in ("cat", "tensor 2", "(2, 3)", "(2, 4)", "dimension 0", "dimension 1"):
        assert part in msg, msg
    with pytest.raises(IndexError, match="cat.*dimension out of range"):
        torch.cat([A], 2)
    with pytest.raises(RuntimeError, match=r"split.*sum exactly to 3"):
        A.split([1, 1], 1)
