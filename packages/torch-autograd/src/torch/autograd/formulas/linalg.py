"""Backward formulas: linalg ops (filled in)."""
