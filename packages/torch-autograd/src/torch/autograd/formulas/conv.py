"""Backward formulas: convolutions and unfold/fold (filled in)."""
