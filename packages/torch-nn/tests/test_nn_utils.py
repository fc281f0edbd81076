"""torch.nn.utils: gradient clipping, parameter vectors, and packed/padded sequences."""

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
from torch.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    parameters_to_vector,
    vector_to_parameters,
)
from torch.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)


def _params_with_grads(*grads):
    ps = []
    for g in grads:
        p = nn.Parameter(torch.zeros(len(g)))
        p.grad = torch.tensor(g)
        ps.append(p)
    return ps


def test_clip_grad_norm_scales_to_max_norm():
    ps = _params_with_grads([3.0, 0.0], [0.0, 4.0])
    total = clip_grad_norm_(ps, max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    clipped = np.concatenate([p.grad.numpy() for p in ps])
    np.testing.assert_allclose(clipped, [0.6, 0, 0, 0.8], rtol=1e-5)
    ps = _params_with_grads([0.3, 0.4])
    assert clip_grad_norm_(ps, 1.0).item() == pytest.approx(0.5)
    np.testing.assert_allclose(ps[0].grad.numpy(), [0.3, 0.4], rtol=1e-6)  # below: unchanged


def test_clip_grad_norm_other_norms_and_single_tensor():
    ps = _params_with_grads([1.0, -6.0], [2.0])
    assert clip_grad_norm_(ps, 3.0, norm_type=math.inf).item() == pytest.approx(6.0)
    np.testing.assert_allclose(ps[0].grad.numpy(), [0.5, -3.0], rtol=1e-5)
    ps = _params_with_grads([1.0, -2.0], [3.0])
    assert clip_grad_norm_(ps, 100.0, norm_type=1).item() == pytest.approx(6.0)
    (p,) = _params_with_grads([3.0, 4.0])
    assert clip_grad_norm_(p, 10.0).item() == pytest.approx(5.0)
    assert clip_grad_norm_([nn.Parameter(torch.ones(2))], 1.0).item() == 0.0  # no grads


@pytest.mark.parametrize("order", [2.0, 1.0, 3.0, 0.0, math.inf, -math.inf])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_clip_grad_norm_matches_numpy_for_every_order(order, dtype):
    g = torch.Generator().manual_seed(int(abs(order)) if math.isfinite(order) else 9)
    shapes = [(70, 13), (5,), (3, 4, 6)]
    ps = [nn.Parameter(torch.zeros(s, dtype=dtype)) for s in shapes]
    for p in ps:
        p.grad = torch.randn(p.shape, generator=g, dtype=dtype)
        p.grad[..., 0] = 0.0  # (zeros count for the 0-"norm")
    # the norm of the gradients' norms (for orders other than 0, the norm of all as one vector)
    want = np.linalg.norm([np.linalg.norm(p.grad.numpy().ravel(), order) for p in ps], order)
    if order != 0:
        flat = np.concatenate([p.grad.numpy().ravel() for p in ps])
        np.testing.assert_allclose(want, np.linalg.norm(flat, order), rtol=1e-6)
    before = [p.grad.clone() for p in ps]
    total = clip_grad_norm_(ps, 0.5, norm_type=order)
    assert total.dtype == dtype
    np.testing.assert_allclose(total.item(), want, rtol=1e-5)
    coef = min(0.5 / (want + 1e-6), 1.0)
    for p, b in zip(ps, before):
        np.testing.assert_allclose(p.grad.numpy(), b.numpy() * coef, rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_nonfinite():
    ps = _params_with_grads([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    assert math.isinf(clip_grad_norm_(ps, 1.0).item())


def test_clip_grad_value():
    ps = _params_with_grads([-3.0, 0.5, 2.0])
    clip_grad_value_(ps, 1.0)
    assert ps[0].grad.tolist() == [-1.0, 0.5, 1.0]


def test_parameters_vector_round_trip():
    lin = nn.Linear(3, 2)
    vec = parameters_to_vector(lin.parameters())
    assert vec.shape == (8,)
    assert torch.equal(vec[:6], lin.weight.detach().reshape(-1))
    vector_to_parameters(torch.arange(8.0), lin.parameters())
    assert lin.weight.detach().reshape(-1).tolist() == [0, 1, 2, 3, 4, 5]
    assert lin.bias.tolist() == [6, 7]
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    with pytest.raises(TypeError):
        vector_to_parameters([1.0], lin.parameters())


def test_pad_sequence():
    a, b, c = torch.ones(3, 2), 2 * torch.ones(1, 2), 3 * torch.ones(2, 2)
    out = pad_sequence([a, b, c])
    assert out.shape == (3, 3, 2)
    assert out[:, 1, 0].tolist() == [2, 0, 0]
    out = pad_sequence([a, b, c], batch_first=True, padding_value=-1)
    assert out.shape == (3, 3, 2) and out[1, :, 0].tolist() == [2, -1, -1]
    out = pad_sequence([a, b], batch_first=True, padding_side="left")
    assert out[1, :, 0].tolist() == [0, 0, 2]
    assert [
        t.shape[0] for t in unpad_sequence(pad_sequence([a, b, c]), torch.tensor([3, 1, 2]))
    ] == [3, 1, 2]


def test_pack_padded_sequence_layout():
    x = torch.arange(12.0).reshape(4, 3)  # (T=4, B=3), one feature per step
    packed = pack_padded_sequence(x, [4, 2, 1])
    assert isinstance(packed, PackedSequence)
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    assert packed.data.tolist() == [0, 1, 2, 3, 4, 6, 9]
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    padded, lengths = pad_packed_sequence(packed, padding_value=-1)
    assert lengths.tolist() == [4, 2, 1]
    expected = x.clone()
    expected[2:, 1] = -1
    expected[1:, 2] = -1
    assert torch.equal(padded, expected)


def test_pack_unsorted_and_batch_first_round_trip():
    x = torch.randn(3, 5, 2)  # batch first: B=3, T=5
    lengths = torch.tensor([2, 5, 3])
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    assert packed.sorted_indices.tolist() == [1, 2, 0]
    assert packed.unsorted_indices.tolist() == [2, 0, 1]
    padded, out_lengths = pad_packed_sequence(packed, batch_first=True, total_length=6)
    assert padded.shape == (3, 6, 2) and out_lengths.tolist() == [2, 5, 3]
    for b, n in enumerate([2, 5, 3]):
        assert torch.equal(padded[b, :n], x[b, :n])
        assert not padded[b, n:].any()
    with pytest.raises(ValueError, match="total_length"):
        pad_packed_sequence(packed, total_length=4)


def test_pack_errors():
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        pack_padded_sequence(torch.zeros(3, 2), [1, 3])
    with pytest.raises(RuntimeError):
        pack_padded_sequence(torch.zeros(3, 2), [3, 0])


def test_pack_sequence_and_unpack():
    seqs = [torch.tensor([1.0, 2, 3]), torch.tensor([4.0, 5]), torch.tensor([6.0])]
    packed = pack_sequence(seqs)
    assert packed.data.tolist() == [1, 4, 6, 2, 5, 3]
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    out = unpack_sequence(pack_sequence(seqs[::-1], enforce_sorted=False))
    assert [t.tolist() for t in out] == [[6.0], [4.0, 5.0], [1.0, 2.0, 3.0]]


def test_packing_is_differentiable():
    x = torch.randn(4, 3, 2, dtype=torch.float64, requires_grad=True)

    def f(x):
        packed = pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)
        return pad_packed_sequence(packed)[0]

    assert torch.autograd.gradcheck(f, (x,))
    seqs = [torch.randn(n, 2, dtype=torch.float64, requires_grad=True) for n in (3, 1)]
    assert torch.autograd.gradcheck(lambda a, b: pad_sequence([a, b]), tuple(seqs))
