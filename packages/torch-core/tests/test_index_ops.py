"""Index ops against NumPy through the registry ("index" kind), plus what the registry
cannot express: in-place variants, index_put_ accumulation, and bad indices."""

import warnings

import numpy as np
import pytest

import torch
from torch.testing._op_registry import assert_array_matches, cases


@pytest.mark.parametrize("case", cases("index"), ids=repr)
def test_matches_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


def _a(t):
    return np.asarray(t.tolist())


def test_index_put_accumulates_repeats():
    x = torch.zeros(5)
    x.index_put_((torch.tensor([0, 1, 0, 0]),), torch.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=True)
    assert x.tolist() == [8.0, 2.0, 0.0, 0.0, 0.0]
    y = torch.zeros(3, 4, dtype=torch.int64)
    rows, cols = torch.tensor([0, 2, 0]), torch.tensor([1, 3, 1])
    y.index_put_((rows, cols), torch.tensor(5), accumulate=True)
    assert y.tolist() == [[0, 10, 0, 0], [0, 0, 0, 0], [0, 0, 0, 5]]
    z = torch.index_put(torch.zeros(2, 3), (torch.tensor([1]),), torch.tensor([1.0, 2.0, 3.0]))
    assert z.tolist() == [[0, 0, 0], [1, 2, 3]]


def test_inplace_variants_match_out_of_place():
    base = torch.arange(20.0).reshape(4, 5)
    index = torch.tensor([[0, 2, 1], [3, 0, 0]])
    src = torch.ones(2, 3)
    mask = base > 7
    pairs = [
        ("scatter", (0, index, src)),
        ("scatter_add", (0, index, src)),
        ("masked_fill", (mask, -1.0)),
        ("masked_scatter", (mask, torch.arange(20.0))),
        ("index_add", (1, torch.tensor([0, 4]), torch.ones(4, 2))),
        ("index_copy", (1, torch.tensor([0, 4]), torch.ones(4, 2))),
        ("index_fill", (0, torch.tensor([1, 3]), 9.0)),
    ]
    for name, args in pairs:
        expected = getattr(torch, name)(base, *args)
        x = base.clone()
        assert getattr(x, name + "_")(*args) is x
        assert x.tolist() == expected.tolist(), name
    x = base.clone()
    x.scatter_reduce_(0, index, src * 3, "amax", include_self=False)
    assert (
        x.tolist()
        == torch.scatter_reduce(base, 0, index, src * 3, "amax", include_self=False).tolist()
    )


def test_inplace_on_non_contiguous_view():
    base = torch.zeros(4, 3)
    view = base.t()  # (3, 4), non-contiguous
    view.index_add_(1, torch.tensor([0, 0, 3]), torch.ones(3, 3))
    assert base.tolist() == [[2, 2, 2], [0, 0, 0], [0, 0, 0], [1, 1, 1]]
    view.scatter_(0, torch.tensor([[2, 1, 0, 2]]), torch.full((1, 4), 7.0))
    assert base[:, 2].tolist() == [7, 0, 0, 7] and base[1, 1].item() == 7


def test_scatter_reduce_multiply_and_value():
    x = torch.ones(2, 3)
    with warnings.catch_warnings():  # PyTorch deprecates reduce= with a src tensor
        warnings.simplefilter("ignore")
        x.scatter_(1, torch.tensor([[0, 0], [2, 2]]), torch.full((2, 2), 3.0), reduce="multiply")
    assert x.tolist() == [[9, 1, 1], [1, 1, 9]]
    y = torch.zeros(2, 2).scatter_(0, torch.tensor([[1, 0]]), 4.0)
    assert y.tolist() == [[0, 4], [4, 0]]


def test_nonzero_as_tuple_and_where():
    x = torch.tensor([[0, 1, 2], [3, 0, 0]])
    rows, cols = torch.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 0, 1] and cols.tolist() == [1, 2, 0]
    assert [t.tolist() for t in torch.where(x > 0)] == [[0, 0, 1], [1, 2, 0]]
    assert torch.where(x > 0, x, -1).tolist() == [[-1, 1, 2], [3, -1, -1]]
    assert x.nonzero().tolist() == [[0, 1], [0, 2], [1, 0]]
    assert torch.argwhere(x).shape == (3, 2)
    assert [t.tolist() for t in torch.nonzero(torch.tensor(3), as_tuple=True)] == [[0]]
    assert torch.nonzero(torch.tensor(0)).shape == (0, 0)


def test_searchsorted_options():
    seq = torch.tensor([1, 3, 5, 7])
    values = torch.tensor([3, 6, 9])
    assert torch.searchsorted(seq, values).tolist() == [1, 3, 4]
    assert torch.searchsorted(seq, values, right=True).tolist() == [2, 3, 4]
    assert torch.searchsorted(seq, values, out_int32=True).dtype == torch.int32
    assert torch.searchsorted(seq, 5).item() == 2
    assert torch.bucketize(values, seq, right=True).tolist() == [2, 3, 4]
    with pytest.raises(RuntimeError):
        torch.searchsorted(seq, values, right=True, side="left")


def test_bincount_and_histc():
    x = torch.tensor([0, 1, 1, 4])
    assert torch.bincount(x).tolist() == [1, 2, 0, 0, 1]
    assert torch.bincount(x, minlength=7).shape == (7,)
    w = torch.tensor([0.5, 1.0, 2.0, 1.0])
    assert torch.bincount(x, weights=w).tolist() == [0.5, 3.0, 0.0, 0.0, 1.0]
    assert torch.bincount(x, weights=w).dtype == torch.float32
    assert torch.bincount(x, weights=torch.tensor([1, 1, 1, 1])).dtype == torch.float64
    with pytest.raises(RuntimeError):
        torch.bincount(torch.tensor([-1, 2]))
    assert torch.histc(torch.tensor([1.0, 2, 1, 5]), bins=4).tolist() == [2, 1, 0, 1]
    assert torch.histc(torch.tensor([1.0, 2, 9]), bins=2, min=0, max=4).tolist() == [1, 1]


def test_bad_indices_raise():
    x = torch.arange(12.0).reshape(3, 4)
    with pytest.raises(IndexError):
        torch.index_select(x, 0, torch.tensor([3]))
    with pytest.raises(RuntimeError):
        torch.gather(x, 1, torch.tensor([[4]]))
    with pytest.raises(RuntimeError):
        torch.gather(x, 1, torch.tensor([[-1]]))
    with pytest.raises(RuntimeError):
        torch.gather(x, 1, torch.tensor([[1.0]]))
    assert torch.gather(x, 1, torch.tensor([[1]], dtype=torch.int32)).tolist() == [[1.0]]
    with pytest.raises(RuntimeError):
        x.clone().scatter_(0, torch.tensor([[3]]), 1.0)
    with pytest.raises(RuntimeError):
        torch.masked_fill(x, torch.ones(3, 4), 0.0)
    with pytest.raises(IndexError):
        torch.index_select(x, 2, torch.tensor([0]))


@pytest.mark.ours_only
def test_index_error_messages():
    x = torch.arange(12.0).reshape(3, 4)
    with pytest.raises(IndexError, match=r"index 3 is out of range for dimension 0 with size 3"):
        torch.index_select(x, 0, torch.tensor([3]))
    with pytest.raises(RuntimeError, match=r"index 4 is out of bounds for dimension 1 with size 4"):
        torch.gather(x, 1, torch.tensor([[4]]))


def test_large_gather_and_index_select_match_numpy():
    table = torch.randn(5000, 16)
    idx = torch.randint(0, 5000, (70000,))
    expected = _a(table)[_a(idx)]
    assert_array_matches(torch.index_select(table, 0, idx), expected)
    assert_array_matches(table.gather(0, idx[:, None].expand(70000, 16)), expected)
    mask = torch.rand(300, 400) > 0.5
    big = torch.randn(300, 400)
    assert_array_matches(big[mask], _a(big)[_a(mask)])
    assert_array_matches(torch.masked_select(big, mask), _a(big)[_a(mask)])
    assert_array_matches(torch.nonzero(mask), np.argwhere(_a(mask)))
