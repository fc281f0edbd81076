"""The default random number generator: seeding, saving and restoring its state.

The same functions as ``torch.manual_seed`` and friends, plus ``fork_rng``, which runs a
block with its own random stream and leaves the default generator where it was.
"""

import contextlib

from torch._C import default_generator  # noqa: F401
from torch._creation import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = [
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


@contextlib.contextmanager
def fork_rng(
    devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"
):
    """Run the block with the default generator's state saved and restored after it, so
    that the random numbers drawn inside do not change those drawn after.

    `devices` names the GPUs whose generators to save as well; there are none here.

    >>> _ = torch.manual_seed(0)
    >>> with torch.random.fork_rng():
    ...     _ = torch.rand(3)
    >>> a = torch.rand(1)
    >>> _ = torch.manual_seed(0)
    >>> torch.equal(torch.rand(1), a)
    True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
