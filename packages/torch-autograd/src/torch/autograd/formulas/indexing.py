"""Backward formulas: indexing ops (filled in)."""
