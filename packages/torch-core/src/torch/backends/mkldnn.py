"""oneDNN (formerly MKL-DNN), Intel's CPU kernel library: not in this build.

``enabled`` keeps what programs set; the CPU kernels are this project's own."""

__all__ = ["is_available"]

enabled = True


def is_available():
    """Whether this build has oneDNN kernels: False."""
    return False
