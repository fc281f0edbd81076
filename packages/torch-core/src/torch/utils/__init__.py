"""Utilities. ``torch.utils.data`` comes from the torch-multiprocessing wheel."""

# Other wheels install subpackages of torch.utils (torch-multiprocessing: torch/utils/data);
# extend __path__ so they are found in regular and editable installs alike.
__path__ = __import__("pkgutil").extend_path(__path__, __name__)
