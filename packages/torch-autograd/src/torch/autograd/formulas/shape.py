"""Backward formulas: shape ops (filled in)."""
