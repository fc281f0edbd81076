"""Helpers shared by the torch.distributions tests: float64 tensors from numbers, and
tensors back to NumPy for comparing with SciPy."""

import numpy as np

import torch


def T(*values):
    """A float64 tensor of ``values``."""
    return torch.tensor(values, dtype=torch.float64)


def npy(x):
    """``x`` as a float64 NumPy array (detached)."""
    return np.asarray(x.detach().tolist(), dtype=np.float64)
