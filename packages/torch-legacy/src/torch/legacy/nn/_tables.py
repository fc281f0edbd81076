"""Helpers for modules whose input or output is a table (a Python list)."""

import torch

from .Module import _check_input, _check_table, _name


def zeros_like_table(t):
    """A tensor or (nested) list of zero tensors shaped like ``t``."""
    if isinstance(t, torch.Tensor):
        return t.new_zeros(t.shape)
    return [zeros_like_table(x) for x in t]


def add_tables(a, b):
    """``a + b`` for tensors or (nested) lists of tensors of the same structure."""
    if isinstance(a, torch.Tensor):
        return a + b
    return [add_tables(x, y) for x, y in zip(a, b)]


def check_tensor_table(module, input, n=None, same_size=False):
    """Raise unless ``input`` is a list of ``n`` tensors (of one size with ``same_size``)."""
    _check_table(module, input, n)
    if not input:
        raise RuntimeError(f"{_name(module)}: expected a non-empty list of tensors")
    for i, t in enumerate(input):
        _check_input(module, t, name=f"input[{i}]")
        if same_size and tuple(t.shape) != tuple(input[0].shape):
            raise RuntimeError(
                f"{_name(module)}: input[{i}] of size {tuple(t.shape)} differs from input[0] "
                f"of size {tuple(input[0].shape)}"
            )
    return input
