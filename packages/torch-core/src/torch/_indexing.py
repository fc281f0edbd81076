"""Advanced indexing and index ops (index_select, gather, scatter, masked ops, ...)."""

__all__ = []
