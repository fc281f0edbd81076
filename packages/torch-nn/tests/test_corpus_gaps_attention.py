"""``torch.nn.attention`` (a gap lucidrains/vit-pytorch's ViViT found: it wraps attention in
``sdpa_kernel([SDPBackend.MATH, ...])``). Checked against PyTorch's documented contract: the
context manager enables only the named backends through ``torch.backends.cuda``'s switches,
restores them on exit (also on an exception), and attention inside it computes
softmax(Q K^T / sqrt(E)) V, compared with NumPy."""

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from torch.backends import cuda
from torch.nn.attention import SDPBackend, sdpa_kernel


def _switches():
    return (
        cuda.math_sdp_enabled(),
        cuda.flash_sdp_enabled(),
        cuda.mem_efficient_sdp_enabled(),
        cuda.cudnn_sdp_enabled(),
    )


def test_backend_values_are_pytorchs():
    assert [(b.name, int(b)) for b in SDPBackend] == [
        ("ERROR", -1),
        ("MATH", 0),
        ("FLASH_ATTENTION", 1),
        ("EFFICIENT_ATTENTION", 2),
        ("CUDNN_ATTENTION", 3),
        ("OVERRIDEABLE", 4),
    ]


def test_sdpa_kernel_enables_only_the_named_backends_and_restores():
    before = _switches()
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION]) as ctx:
        assert ctx == {}
        assert _switches() == (True, False, True, False)
    assert _switches() == before
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        assert _switches() == (False, True, False, False)
    assert _switches() == before


def test_sdpa_kernel_restores_after_an_exception():
    before = _switches()
    with pytest.raises(ValueError), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        raise ValueError("inside")
    assert _switches() == before


def test_sdpa_kernel_rejects_other_types():
    with pytest.raises(AssertionError, match="SDPBackend"), sdpa_kernel("math"):
        pass


def test_attention_inside_sdpa_kernel_matches_numpy():
    rng = np.random.RandomState(0)
    q, k, v = (rng.randn(2, 3, 5, 4) for _ in range(3))
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        out = F.scaled_dot_product_attention(*(torch.tensor(a) for a in (q, k, v)))
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(4)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), p @ v, rtol=1e-10, atol=1e-12)
