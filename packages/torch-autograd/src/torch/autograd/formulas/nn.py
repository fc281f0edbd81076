"""Backward formulas: pooling, normalisation, softmax, losses, embedding, ... (filled in)."""
