"""Scans and order statistics (cumsum, sort, topk, median, unique, ...)."""

__all__ = []
