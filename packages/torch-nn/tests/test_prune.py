"""torch.nn.utils.prune: masks checked against the documented rules computed with NumPy."""

import numpy as np
import pytest

import torch
import torch.nn.utils.prune as prune
from torch import nn


def _conv(seed=0):
    torch.manual_seed(seed)
    return nn.Conv2d(2, 6, 3)


def _w(m, name="weight"):
    return getattr(m, name + "_orig").detach().numpy()


def test_l1_unstructured_masks_the_smallest_entries():
    m = _conv()
    w = m.weight.detach().numpy().copy()
    prune.l1_unstructured(m, "weight", amount=0.3)
    k = round(0.3 * w.size)
    expected = np.ones(w.size)
    expected[np.argsort(np.abs(w).reshape(-1), kind="stable")[:k]] = 0
    np.testing.assert_array_equal(m.weight_mask.numpy().reshape(-1), expected)
    np.testing.assert_array_equal(_w(m), w)  # the original is kept
    np.testing.assert_allclose(m.weight.detach().numpy(), w * expected.reshape(w.shape))
    assert "weight" not in dict(m.named_parameters())
    assert "weight_orig" in dict(m.named_parameters())
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert prune.is_pruned(m) and not prune.is_pruned(_conv())


def test_the_hook_recomputes_the_weight_each_forward():
    m = nn.Linear(4, 3)
    prune.random_unstructured(m, "weight", amount=5)
    assert int((m.weight_mask == 0).sum()) == 5
    with torch.no_grad():
        m.weight_orig.add_(1.0)
    x = torch.randn(2, 4)
    y = m(x)
    w = (m.weight_orig * m.weight_mask).detach().numpy()
    expected = x.numpy() @ w.T + m.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    y.sum().backward()  # the gradient reaches weight_orig through the mask
    np.testing.assert_allclose(
        m.weight_orig.grad.numpy(), np.tile(x.numpy().sum(0), (3, 1)) * m.weight_mask.numpy()
    )


def test_ln_structured_prunes_the_channels_of_smallest_norm():
    m = _conv()
    w = m.weight.detach().numpy().copy()
    prune.ln_structured(m, "weight", amount=0.5, n=2, dim=0)
    norms = np.sqrt((w**2).sum(axis=(1, 2, 3)))
    kept = np.argsort(norms)[3:]
    expected = np.zeros_like(w)
    expected[kept] = 1
    np.testing.assert_array_equal(m.weight_mask.numpy(), expected)


def test_random_structured_prunes_whole_slices():
    m = _conv()
    prune.random_structured(m, "weight", amount=2, dim=0)
    mask = m.weight_mask.numpy()
    per_channel = mask.sum(axis=(1, 2, 3))  # each output channel is kept whole or pruned
    assert sorted(per_channel.tolist()) == [0.0] * 2 + [mask[0].size] * 4
    assert set(np.unique(mask)) <= {0.0, 1.0}


def test_iterative_pruning_composes_masks_in_a_container():
    m = _conv()
    w = m.weight.detach().numpy().copy()
    prune.ln_structured(m, "weight", amount=2, n=1, dim=0)
    first = m.weight_mask.numpy().copy()
    prune.l1_unstructured(m, "weight", amount=10)
    hooks = [h for h in m._forward_pre_hooks.values() if isinstance(h, prune.BasePruningMethod)]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer)
    assert [type(h) for h in hooks[0]] == [prune.LnStructured, prune.L1Unstructured]
    # the second method only sees the entries the first kept
    kept = np.flatnonzero(first.reshape(-1))
    order = kept[np.argsort(np.abs(w.reshape(-1)[kept]), kind="stable")]
    expected = first.reshape(-1).copy()
    expected[order[:10]] = 0
    np.testing.assert_array_equal(m.weight_mask.numpy().reshape(-1), expected)
    # a structured method after that sees only the channels still kept
    prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    mask = m.weight_mask.numpy()
    assert int((mask.sum(axis=(1, 2, 3)) != 0).sum()) == 3


def test_remove_makes_the_pruning_permanent():
    m = _conv()
    prune.l1_unstructured(m, "weight", amount=0.5)
    pruned = m.weight.detach().numpy().copy()
    prune.remove(m, "weight")
    assert isinstance(m.weight, nn.Parameter)
    np.testing.assert_array_equal(m.weight.detach().numpy(), pruned)
    assert "weight_orig" not in dict(m.named_parameters())
    assert "weight_mask" not in dict(m.named_buffers())
    assert not prune.is_pruned(m)
    with pytest.raises(ValueError, match="has to be pruned"):
        prune.remove(m, "weight")


def test_global_unstructured_prunes_across_parameters():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 4), nn.Linear(4, 3))
    params = [(net[0], "weight"), (net[1], "weight")]
    flat = np.concatenate([m.weight.detach().numpy().reshape(-1) for m, _ in params])
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.4)
    k = round(0.4 * flat.size)
    expected = np.ones(flat.size)
    expected[np.argsort(np.abs(flat), kind="stable")[:k]] = 0
    got = np.concatenate([m.weight_mask.numpy().reshape(-1) for m, _ in params])
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(TypeError, match="unstructured"):
        prune.global_unstructured(params, pruning_method=prune.RandomStructured, amount=1)


def test_custom_from_mask_and_identity():
    m = nn.Linear(3, 2)
    mask = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    prune.custom_from_mask(m, "weight", mask)
    np.testing.assert_array_equal(
        m.weight.detach().numpy(), m.weight_orig.detach().numpy() * mask.numpy()
    )
    prune.identity(m, "bias")
    np.testing.assert_array_equal(m.bias_mask.numpy(), np.ones(2))
    np.testing.assert_array_equal(m.bias.detach().numpy(), m.bias_orig.detach().numpy())


def test_importance_scores_decide_what_is_pruned():
    m = nn.Linear(4, 1)
    scores = torch.tensor([[4.0, 1.0, 3.0, 2.0]])
    prune.l1_unstructured(m, "weight", amount=2, importance_scores=scores)
    np.testing.assert_array_equal(m.weight_mask.numpy(), [[1.0, 0.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="same shape"):
        prune.l1_unstructured(nn.Linear(4, 1), "weight", 1, importance_scores=torch.ones(4))


def test_method_prune_on_a_plain_tensor():
    t = torch.tensor([[0.5, -3.0], [2.0, -0.1]])
    got = prune.L1Unstructured(amount=2).prune(t)
    np.testing.assert_array_equal(got.numpy(), [[0.0, -3.0], [2.0, 0.0]])


@pytest.mark.parametrize("amount, error", [(-1, ValueError), (1.5, ValueError), ("a", TypeError)])
def test_amount_validation(amount, error):
    with pytest.raises(error):
        prune.random_unstructured(nn.Linear(2, 2), "weight", amount=amount)


def test_amount_larger_than_the_tensor():
    with pytest.raises(ValueError, match="smaller than the number of parameters"):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5)
    with pytest.raises(ValueError, match="multidimensional"):
        prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0)


def test_state_dict_holds_orig_and_mask():
    m = nn.Linear(3, 2)
    prune.random_unstructured(m, "weight", amount=0.5)
    assert sorted(m.state_dict()) == ["bias", "weight_mask", "weight_orig"]
