"""Backward formulas: sort ops (filled in)."""
