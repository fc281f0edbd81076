"""Legacy containers: outputs against the children run by hand, gradients against finite
differences, parameters, reprs and errors."""

import numpy as np
import pytest
from legacy_jacobian import check_gradients, rand

import torch
import torch.legacy.nn as nn


def _linear(m, x):
    return x @ m.weight.numpy().T + m.bias.numpy()


def test_concat_joins_children_outputs_along_dimension():
    torch.manual_seed(0)
    a, b = nn.Linear(3, 2), nn.Sequential().add(nn.Linear(3, 4)).add(nn.Tanh())
    c = nn.Concat(1).add(a).add(b).double()
    x = rand(5, 3)
    expected = np.concatenate([_linear(a, x.numpy()), np.tanh(_linear(b.get(0), x.numpy()))], 1)
    np.testing.assert_allclose(c.forward(x).numpy(), expected, rtol=1e-12)
    check_gradients(c, x)
    assert len(c.parameters()[0]) == 4


def test_depth_concat_centres_smaller_outputs_in_zeros():
    c = nn.DepthConcat(0).add(nn.Narrow(1, 0, 2)).add(nn.Identity()).add(nn.Narrow(1, 1, 1))
    c.double()
    x = rand(2, 3)
    xn = x.numpy()
    expected = np.zeros((6, 3))
    expected[0:2, 0:2] = xn[:, 0:2]  # width 2 of 3: offset floor(1 / 2) = 0
    expected[2:4] = xn
    expected[4:6, 1:2] = xn[:, 1:2]  # width 1 of 3: offset 1
    np.testing.assert_array_equal(c.forward(x).numpy(), expected)
    check_gradients(c, x)


def test_parallel_selects_inputs_and_joins_outputs():
    torch.manual_seed(0)
    lin = nn.Linear(2, 3)
    p = nn.Parallel(1, 0).add(lin).add(nn.Tanh()).double()
    x = rand(2, 2)
    expected = np.concatenate([_linear(lin, x.numpy()[:, 0]), np.tanh(x.numpy()[:, 1])])
    np.testing.assert_allclose(p.forward(x).numpy(), expected, rtol=1e-12)
    check_gradients(p, x)
    with pytest.raises(RuntimeError, match=r"nn\.Parallel.*\(2, 3\).*expected 2 \(one per child\)"):
        p.forward(torch.zeros(2, 3, dtype=torch.float64))


def test_concat_table_feeds_everyone_and_sums_gradients():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    ct = nn.ConcatTable().add(lin).add(nn.Identity()).double()
    x = rand(4, 3)
    out = ct.forward(x)
    np.testing.assert_allclose(out[0].numpy(), _linear(lin, x.numpy()), rtol=1e-12)
    assert out[1] is x
    check_gradients(ct, x)


def test_concat_table_sums_table_gradients():
    ct = nn.ConcatTable().add(nn.SelectTable(0)).add(nn.CAddTable())
    xs = [rand(2, 2), rand(2, 2, seed=1)]
    out = ct.forward(xs)
    np.testing.assert_allclose(out[1].numpy(), xs[0].numpy() + xs[1].numpy())
    check_gradients(ct, xs)


def test_parallel_table_maps_entries():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    pt = nn.ParallelTable().add(lin).add(nn.Tanh()).double()
    xs = [rand(4, 3), rand(2, seed=1)]
    out = pt.forward(xs)
    np.testing.assert_allclose(out[0].numpy(), _linear(lin, xs[0].numpy()), rtol=1e-12)
    np.testing.assert_allclose(out[1].numpy(), np.tanh(xs[1].numpy()), rtol=1e-12)
    check_gradients(pt, xs)
    with pytest.raises(RuntimeError, match=r"nn\.ParallelTable: expected a list of 2 tensors"):
        pt.forward(xs[:1])


def test_map_table_shares_parameters_between_clones():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    mt = nn.MapTable(lin).double()
    xs = [rand(4, 3, seed=i) for i in range(3)]
    out = mt.forward(xs)
    for o, x in zip(out, xs):
        np.testing.assert_allclose(o.numpy(), _linear(lin, x.numpy()), rtol=1e-12)
    assert len(mt.modules) == 3 and all(m.weight is lin.weight for m in mt.modules)
    check_gradients(mt, xs)  # the shared gradWeight sums over the three entries
    params, grads = mt.flattenParameters()
    assert params.numel() == 8 and all(m.weight is mt.modules[0].weight for m in mt.modules)


def test_bottle_folds_leading_dimensions():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    b = nn.Bottle(lin).double()
    x = rand(4, 5, 3)
    out = b.forward(x)
    assert tuple(out.shape) == (4, 5, 2)
    np.testing.assert_allclose(out.numpy(), _linear(lin, x.numpy()), rtol=1e-12)
    check_gradients(b, x)
    with pytest.raises(RuntimeError, match=r"nn\.Bottle: expected at least 2 dimensions"):
        b.forward(torch.zeros(3, dtype=torch.float64))


def test_nested_containers_train_mode_and_parameters():
    inner = nn.Sequential().add(nn.Linear(2, 2)).add(nn.Dropout())
    net = nn.Sequential().add(nn.ConcatTable().add(inner).add(nn.Linear(2, 2)))
    net.add(nn.CAddTable())
    assert len(net.parameters()[0]) == 4
    net.evaluate()
    assert inner.get(1).train is False
    x = torch.ones(3, 2)
    assert tuple(net.forward(x).shape) == (3, 2)


def test_table_container_reprs_match_lua():
    ct = nn.ConcatTable().add(nn.Identity()).add(nn.Sequential().add(nn.Tanh()))
    assert repr(ct) == (
        "nn.ConcatTable {\n"
        "  input\n"
        "    |`-> (1): nn.Identity\n"
        "    |`-> (2): nn.Sequential {\n"
        "           [input -> (1) -> output]\n"
        "           (1): nn.Tanh\n"
        "         }\n"
        "     ... -> output\n"
        "}"
    )
    assert repr(nn.Concat(0).add(nn.Identity())).startswith("nn.Concat {\n  input\n")
    assert repr(nn.MapTable(nn.Tanh())) == "nn.MapTable {\n  nn.Tanh\n}"


def test_concat_reports_incompatible_children():
    c = nn.Concat(0).add(nn.Identity()).add(nn.Narrow(1, 0, 1))
    with pytest.raises(RuntimeError, match=r"nn\.Concat: cannot concatenate outputs of sizes"):
        c.forward(torch.zeros(2, 3))
