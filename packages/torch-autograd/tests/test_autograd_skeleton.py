"""The torch-autograd wheel installs torch.autograd beside torch-core's ``torch`` package."""

from importlib.metadata import files, version

import torch
import torch.autograd


def test_subpackage_imports_with_its_distribution_version():
    assert torch.autograd.__name__ == "torch.autograd"
    assert torch.autograd.__version__ == version("torch-autograd")


def test_core_stays_reachable():
    assert isinstance(torch.Tensor, type)
    assert torch.__version__ == version("torch-core")


def test_wheel_does_not_ship_torch_init():
    shipped = {str(f) for f in files("torch-autograd") or ()}
    assert "torch/__init__.py" not in shipped
