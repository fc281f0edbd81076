"""Apple's Metal GPUs (MPS): not in this build, so both queries are False."""

__all__ = ["is_available", "is_built"]


def is_available():
    """Whether an MPS device can be used: False."""
    return False


def is_built():
    """Whether this build has the MPS backend: False."""
    return False
