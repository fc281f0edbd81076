"""torch.utils.checkpoint: same values and gradients as running the model plainly, the
function run again in backward, dropout masks repeated, both use_reentrant modes."""

import warnings

import pytest

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.5), nn.Linear(8, 3), nn.ReLU(), nn.Linear(3, 2)
    )


def run(m, x, fn):
    m.zero_grad()
    x.grad = None
    torch.manual_seed(1)
    y = fn(x)
    y.pow(2).sum().backward()
    return [y.detach(), x.grad.clone(), *(p.grad.clone() for p in m.parameters())]


@pytest.mark.parametrize("use_reentrant", [False, True])
@pytest.mark.parametrize("sequential", [False, True])
def test_same_values_and_gradients_as_plain_run(use_reentrant, sequential):
    m = model()
    x = torch.randn(5, 4, requires_grad=True)
    expected = run(m, x, m)
    if sequential:
        got = run(m, x, lambda x: checkpoint_sequential(m, 3, x, use_reentrant=use_reentrant))
    else:
        got = run(m, x, lambda x: checkpoint(m, x, use_reentrant=use_reentrant))
    for a, b in zip(expected, got):
        torch.testing.assert_close(a, b)


def test_recomputes_in_backward_with_the_same_random_state():
    calls, masks = [], []

    def f(t):
        calls.append(1)
        mask = torch.rand(t.shape) > 0.5
        masks.append(mask)
        return t * mask

    x = torch.randn(6, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=False)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2 and torch.equal(masks[0], masks[1])
    assert torch.equal(x.grad, masks[0].to(x.dtype))
    calls.clear()
    masks.clear()
    checkpoint(f, x, use_reentrant=True, preserve_rng_state=False).sum().backward()
    assert len(calls) == 2


def test_parameters_only_and_kwargs_and_tuples():
    m = model().eval()
    x = torch.randn(5, 4)  # no input requires grad
    y = checkpoint(m, x, use_reentrant=False)
    assert y.requires_grad
    y.sum().backward()
    assert m[0].weight.grad is not None
    with pytest.warns(UserWarning, match="none of the inputs"):
        assert not checkpoint(m, x, use_reentrant=True).requires_grad
    x = torch.randn(3, requires_grad=True)
    a, b = checkpoint(lambda p, q, s=1.0: (p * s, q.sum()), x, x, s=2.0, use_reentrant=False)
    (g,) = torch.autograd.grad(a.sum() + b, x)
    assert torch.equal(g, torch.full((3,), 3.0))
    with pytest.raises(ValueError, match="use_reentrant=False"):
        checkpoint(lambda p, s: p * s, x, s=2.0, use_reentrant=True)


def test_use_reentrant_must_be_explicit():
    x = torch.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        checkpoint(torch.sin, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(torch.sin, x, use_reentrant=False)
    with torch.no_grad():
        assert not checkpoint(torch.sin, x, use_reentrant=False).requires_grad


def test_reachable_after_import_torch():
    assert torch.utils.checkpoint.checkpoint is checkpoint
