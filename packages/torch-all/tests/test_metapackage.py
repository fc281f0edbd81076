"""torch-all pulls in every package, and the whole ``torch`` namespace imports together."""

import importlib
from importlib.metadata import requires, version

import pytest

PACKAGES = {
    "torch-core": "torch",
    "torch-autograd": "torch.autograd",
    "torch-nn": "torch.nn",
    "torch-optim": "torch.optim",
    "torch-multiprocessing": "torch.multiprocessing",
    "torch-legacy": "torch.legacy",
    "torch-distributions": "torch.distributions",
    "torch-distributed": "torch.distributed",
    "torch-jit": "torch.jit",
}


def test_depends_on_exactly_our_nine_packages():
    plain = [r for r in requires("torch-all") if "extra ==" not in r]
    want = [f"{name}==0.1.*" for name in PACKAGES if name != "torch-core"]
    assert sorted(plain) == sorted(want + ["torch-core[mkl]==0.1.*"])


def test_the_core_comes_with_intel_libraries_on_x86_64_linux():
    import platform
    import sys

    import torch

    if platform.machine() == "x86_64" and sys.platform == "linux":
        assert torch.backends.mkl.is_available() and torch.backends.mkldnn.is_available()


def test_examples_extra_brings_numpy_and_scikit_learn():
    extra = sorted(r.split(";")[0].strip() for r in requires("torch-all") if "examples" in r)
    assert extra == ["scikit-learn", "torch-core[numpy]==0.1.*"]


@pytest.mark.parametrize("dist", sorted(PACKAGES))
def test_each_package_is_installed_and_imports(dist):
    module = importlib.import_module(PACKAGES[dist])
    assert module.__version__ == version(dist)


def test_utils_data_imports():
    import torch.utils.data

    assert torch.utils.data.__name__ == "torch.utils.data"
