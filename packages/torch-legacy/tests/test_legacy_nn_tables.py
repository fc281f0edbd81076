"""Table (list) legacy modules: forward against NumPy, backward against finite differences."""

import numpy as np
import pytest
from legacy_jacobian import check_gradients, rand, tensors

import torch
import torch.legacy.nn as nn


def _three():
    return [rand(2, 3, seed=i) for i in range(3)]


def _cos(a, b):
    return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


# (name, factory, input maker, NumPy oracle on the inputs' arrays -> list of arrays)
CASES = [
    ("CAddTable", nn.CAddTable, _three, lambda a, b, c: [a + b + c]),
    ("CSubTable", nn.CSubTable, lambda: _three()[:2], lambda a, b: [a - b]),
    ("CMulTable", nn.CMulTable, _three, lambda a, b, c: [a * b * c]),
    ("CDivTable", nn.CDivTable, lambda: [rand(2, 3), rand(2, 3, seed=1, low=0.5)],
     lambda a, b: [a / b]),
    ("JoinTable", lambda: nn.JoinTable(1), _three, lambda *xs: [np.concatenate(xs, 1)]),
    ("JoinTable-batch", lambda: nn.JoinTable(0, 1), _three, lambda *xs: [np.concatenate(xs, 1)]),
    ("SelectTable", lambda: nn.SelectTable(1), _three, lambda a, b, c: [b]),
    ("SelectTable-negative", lambda: nn.SelectTable(-1), _three, lambda a, b, c: [c]),
    ("NarrowTable", lambda: nn.NarrowTable(1, 2), _three, lambda a, b, c: [b, c]),
    ("NarrowTable-negative", lambda: nn.NarrowTable(0, -2), _three, lambda a, b, c: [a, b]),
    ("MM", nn.MM, lambda: [rand(2, 3), rand(3, 4, seed=1)], lambda a, b: [a @ b]),
    ("MM-trans", lambda: nn.MM(True, True), lambda: [rand(3, 2), rand(4, 3, seed=1)],
     lambda a, b: [a.T @ b.T]),
    ("MM-batch", lambda: nn.MM(False, True), lambda: [rand(2, 2, 3), rand(2, 4, 3, seed=1)],
     lambda a, b: [a @ b.transpose(0, 2, 1)]),
    ("MV", nn.MV, lambda: [rand(2, 3), rand(3, seed=1)], lambda m, v: [m @ v]),
    ("MV-batch-trans", lambda: nn.MV(True), lambda: [rand(4, 3, 2), rand(4, 3, seed=1)],
     lambda m, v: [np.einsum("bij,bi->bj", m, v)]),
    ("DotProduct", nn.DotProduct, lambda: _three()[:2], lambda a, b: [(a * b).sum(1)]),
    ("CosineDistance", nn.CosineDistance, lambda: _three()[:2], lambda a, b: [_cos(a, b)]),
    ("PairwiseDistance-1", lambda: nn.PairwiseDistance(1), lambda: _three()[:2],
     lambda a, b: [np.abs(a - b).sum(1)]),
    ("PairwiseDistance-2", lambda: nn.PairwiseDistance(2), lambda: _three()[:2],
     lambda a, b: [np.sqrt(((a - b) ** 2).sum(1))]),
    ("PairwiseDistance-3", lambda: nn.PairwiseDistance(3), lambda: _three()[:2],
     lambda a, b: [(np.abs(a - b) ** 3).sum(1) ** (1 / 3)]),
]  # fmt: skip


@pytest.mark.parametrize("name,factory,make,oracle", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy_and_backward_matches_finite_differences(name, factory, make, oracle):
    module = factory()
    xs = make()
    out = tensors(module.forward(xs))
    expected = oracle(*[x.numpy() for x in xs])
    assert len(out) == len(expected)
    for o, e in zip(out, expected):
        np.testing.assert_allclose(o.numpy(), e, rtol=1e-12, atol=1e-14)
    check_gradients(module, xs)


@pytest.mark.parametrize(
    "factory", [nn.DotProduct, nn.CosineDistance, lambda: nn.PairwiseDistance(2)]
)
def test_pair_modules_give_one_element_for_vectors(factory):
    a, b = rand(4), rand(4, seed=1)
    out = factory().forward([a, b])
    assert tuple(out.shape) == (1,)
    batched = factory().forward([a.view(1, 4), b.view(1, 4)])
    np.testing.assert_allclose(out.numpy(), batched.numpy(), rtol=1e-12)
    check_gradients(factory(), [a, b])


def test_split_table_splits_and_stacks_gradients():
    x = rand(2, 3)
    for module, axis in ((nn.SplitTable(0), 0), (nn.SplitTable(-1), 1), (nn.SplitTable(0, 1), 1)):
        out = module.forward(x)
        expected = [np.take(x.numpy(), i, axis=axis) for i in range(x.shape[axis])]
        assert len(out) == len(expected)
        for o, e in zip(out, expected):
            np.testing.assert_array_equal(o.numpy(), e)
        check_gradients(module, x)


def test_flatten_table_flattens_depth_first_and_renests_gradients():
    a, b, c, d = (rand(2, seed=i) for i in range(4))
    nested = [a, [b, [c]], d]
    module = nn.FlattenTable()
    out = module.forward(nested)
    assert [o.data_ptr() for o in out] == [t.data_ptr() for t in (a, b, c, d)]
    grad = module.backward(nested, [t * 2 for t in out])
    assert isinstance(grad[1], list) and isinstance(grad[1][1], list)
    np.testing.assert_array_equal(grad[1][1][0].numpy(), 2 * c.numpy())
    check_gradients(module, nested)


def test_select_table_gradient_zeros_other_entries_recursively():
    xs = [rand(2), [rand(3, seed=1), rand(1, seed=2)]]
    module = nn.SelectTable(0)
    module.forward(xs)
    grad = module.backward(xs, torch.ones(2, dtype=torch.float64))
    assert float(grad[1][0].abs().sum()) == 0 and tuple(grad[1][1].shape) == (1,)


def test_cmul_table_gradient_with_zero_entries():
    a = torch.tensor([0.0, 2.0], dtype=torch.float64)
    b = torch.tensor([3.0, 0.0], dtype=torch.float64)
    module = nn.CMulTable()
    module.forward([a, b])
    ga, gb = module.backward([a, b], torch.ones(2, dtype=torch.float64))
    np.testing.assert_array_equal(ga.numpy(), [3.0, 0.0])
    np.testing.assert_array_equal(gb.numpy(), [0.0, 2.0])


@pytest.mark.parametrize(
    "module,inputs,error,pattern",
    [
        (nn.CAddTable(), lambda: [torch.zeros(2), torch.zeros(3)], RuntimeError,
         r"nn\.CAddTable: input\[1\] of size \(3,\) differs from input\[0\] of size \(2,\)"),
        (nn.CSubTable(), lambda: [torch.zeros(2)], RuntimeError,
         r"nn\.CSubTable: expected a list of 2 tensors, got 1"),
        (nn.JoinTable(1), lambda: [torch.zeros(2, 2), torch.zeros(3, 2)], RuntimeError,
         r"nn\.JoinTable: cannot join \[\(2, 2\), \(3, 2\)\] along 1"),
        (nn.MM(), lambda: [torch.zeros(2, 3), torch.zeros(2, 3)], RuntimeError,
         r"nn\.MM: cannot multiply \(2, 3\) by \(2, 3\)"),
        (nn.MV(), lambda: [torch.zeros(2, 3), torch.zeros(3, 1)], RuntimeError,
         r"nn\.MV: expected a 2D matrix.*\(2, 3\) and \(3, 1\)"),
        (nn.SelectTable(3), lambda: [torch.zeros(1)], RuntimeError,
         r"nn\.SelectTable\(3\): index 3 out of a list of 1"),
        (nn.CAddTable(), lambda: torch.zeros(2), TypeError,
         r"nn\.CAddTable: input must be a list of tensors, not Tensor"),
    ],
)  # fmt: skip
def test_wrong_inputs_name_module_and_shapes(module, inputs, error, pattern):
    with pytest.raises(error, match=pattern):
        module.forward(inputs())
