"""The torch-multiprocessing wheel installs torch.multiprocessing and torch.utils.data."""

from importlib.metadata import files, version

import torch
import torch.multiprocessing


def test_subpackage_imports_with_its_distribution_version():
    assert torch.multiprocessing.__name__ == "torch.multiprocessing"
    assert torch.multiprocessing.__version__ == version("torch-multiprocessing")


def test_core_stays_reachable():
    assert isinstance(torch.Tensor, type)
    assert torch.__version__ == version("torch-core")


def test_wheel_does_not_ship_torch_init():
    shipped = {str(f) for f in files("torch-multiprocessing") or ()}
    assert "torch/__init__.py" not in shipped


def test_utils_data_comes_from_this_wheel():
    import torch.utils.data

    assert torch.utils.data.__name__ == "torch.utils.data"
    assert "torch/utils/__init__.py" not in {str(f) for f in files("torch-multiprocessing") or ()}
