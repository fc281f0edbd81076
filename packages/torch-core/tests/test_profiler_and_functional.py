"""torch.functional (re-exports) and torch.profiler (a CPU profiler of ranges and ops)."""

import importlib

import numpy as np

import torch

FUNCTIONAL_NAMES = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "meshgrid",
    "norm",
    "split",
    "stft",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]


def test_functional_reexports_the_torch_functions():
    F = importlib.import_module("torch.functional")
    assert sorted(F.__all__) == sorted(FUNCTIONAL_NAMES)
    for name in FUNCTIONAL_NAMES:
        assert getattr(F, name) is getattr(torch, name)
    assert torch.functional is F


def test_functional_einsum_and_split_match_numpy():
    import torch.functional as F

    a = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    got = F.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5, atol=1e-6)
    parts = F.split(torch.tensor(b), 2, dim=1)
    for p, q in zip(parts, np.split(b, [2], axis=1)):
        np.testing.assert_array_equal(p.numpy(), q)
