"""The torch-nn wheel installs torch.nn beside torch-core's ``torch`` package."""

from importlib.metadata import files, version

import torch
import torch.nn


def test_subpackage_imports_with_its_distribution_version():
    assert torch.nn.__name__ == "torch.nn"
    assert torch.nn.__version__ == version("torch-nn")


def test_core_stays_reachable():
    assert isinstance(torch.Tensor, type)
    assert torch.__version__ == version("torch-core")


def test_wheel_does_not_ship_torch_init():
    shipped = {str(f) for f in files("torch-nn") or ()}
    assert "torch/__init__.py" not in shipped
