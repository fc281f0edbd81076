"""Convolutions and unfold/fold (the kernels are in csrc/conv.cpp)."""

__all__ = []
