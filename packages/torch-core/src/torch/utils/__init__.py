"""Utilities. ``torch.utils.data`` and ``torch.utils.trainer`` come from the
torch-multiprocessing wheel, ``torch.utils.serialization`` from torch-legacy,
``torch.utils.checkpoint`` from torch-autograd.

Each is reachable as an attribute after a plain ``import torch`` (``torch.utils.data.
DataLoader``), imported on first use.
"""

from torch import _packages

# Other wheels install subpackages of torch.utils (torch-multiprocessing: torch/utils/data);
# extend __path__ so they are found in regular and editable installs alike.
__path__ = __import__("pkgutil").extend_path(__path__, __name__)

_SUBMODULES = frozenset({"checkpoint", "data", "serialization", "trainer"})


def __getattr__(name):
    if name in _SUBMODULES:
        return _packages.import_submodule(__name__, name)
    raise AttributeError(f"module 'torch.utils' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)
