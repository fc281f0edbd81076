"""OpenMP, which splits the CPU kernels across threads (``torch.set_num_threads``)."""

__all__ = ["is_available"]


def is_available():
    """Whether this build uses OpenMP: True (torch-core always links it)."""
    return True
