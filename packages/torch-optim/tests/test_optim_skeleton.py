"""The torch-optim wheel installs torch.optim beside torch-core's ``torch`` package."""

from importlib.metadata import files, version

import torch
import torch.optim


def test_subpackage_imports_with_its_distribution_version():
    assert torch.optim.__name__ == "torch.optim"
    assert torch.optim.__version__ == version("torch-optim")


def test_core_stays_reachable():
    assert isinstance(torch.Tensor, type)
    assert torch.__version__ == version("torch-core")


def test_wheel_does_not_ship_torch_init():
    shipped = {str(f) for f in files("torch-optim") or ()}
    assert "torch/__init__.py" not in shipped
