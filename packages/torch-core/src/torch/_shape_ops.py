"""Shape ops (cat, stack, split, flip, roll, tril/triu, ...)."""

__all__ = []
