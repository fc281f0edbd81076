"""torch.linalg: linear algebra through LAPACK (OpenBLAS from scipy-openblas32)."""

__all__ = []
