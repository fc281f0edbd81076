"""`import torch` reaches every public submodule as an attribute, as PyTorch does, importing
each on first use; a submodule whose package is not installed names the package (and how
to install it from this repository), one that does not exist says only that."""

import importlib
import json
import os
import pathlib
import subprocess
import sys

import pytest

import torch

# what programs reach after a plain `import torch`
DOTTED = [
    "accelerator",
    "amp",
    "autograd",
    "autograd.functional",
    "autograd.grad_mode",
    "backends",
    "backends.cuda",
    "backends.cudnn",
    "backends.mkl",
    "backends.mkldnn",
    "backends.mps",
    "backends.openmp",
    "compiler",
    "cpu",
    "cpu.amp",
    "cuda",
    "cuda.amp",
    "fft",
    "func",
    "fx",
    "hub",
    "linalg",
    "multiprocessing",
    "nn",
    "nn.functional",
    "nn.init",
    "nn.utils",
    "nn.parallel",
    "nn.utils.parametrizations",
    "nn.utils.parametrize",
    "nn.utils.rnn",
    "optim",
    "optim.lr_scheduler",
    "random",
    "serialization",
    "special",
    "testing",
    "utils",
    "utils.checkpoint",
    "utils.data",
]


def _importable(dotted):
    try:
        importlib.import_module("torch." + dotted)
    except ImportError:
        return False
    return True


def _run(code, env=None, flags=()):
    out = subprocess.run(
        [sys.executable, *flags, "-c", code], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_submodules_are_attributes_after_a_plain_import():
    expected = [d for d in DOTTED if _importable(d)]  # those whose package is installed
    code = f"""
import json, torch
reached = []
for dotted in {expected!r}:
    obj = torch
    for part in dotted.split("."):
        obj = getattr(obj, part)
    reached.append(obj.__name__)
print(json.dumps(reached))
"""
    assert json.loads(_run(code)) == ["torch." + d for d in expected]


@pytest.mark.ours_only
def test_plain_import_loads_none_of_them():
    # what keeps `import torch` fast: each is imported on first use
    lazy = ["torch.cuda", "torch.utils.data", "torch.nn", "torch.optim", "torch.random"]
    lazy += ["torch.accelerator"]
    lazy += ["torch.multiprocessing", "torch.legacy", "torch.backends.cudnn", "torch.testing"]
    code = f"import sys, torch; print([m for m in {lazy!r} if m in sys.modules])"
    assert _run(code).strip() == "[]"


def test_dir_lists_the_submodules():
    assert {"cuda", "backends", "utils", "random", "linalg"} <= set(dir(torch))


def test_unknown_attribute_is_an_attribute_error():
    assert not hasattr(torch, "no_such_thing")
    with pytest.raises(AttributeError, match="no_such_thing"):
        torch.no_such_thing  # noqa: B018
    assert not hasattr(torch.utils, "no_such_thing")


@pytest.mark.parametrize("parent", ["nn", "utils.data", "optim"])
def test_a_module_that_does_not_exist_does_not_blame_its_package(parent):
    if not _importable(parent):
        pytest.skip(f"torch.{parent} is not installed")
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module(f"torch.{parent}.no_such_module")
    assert "not installed" not in str(info.value) and "pip" not in str(info.value)
    assert info.value.name == f"torch.{parent}.no_such_module"


@pytest.fixture
def fake_package(monkeypatch):
    """A subpackage `torch.fakepkg` that the (absent) wheel torch-fakepkg would ship."""
    from torch import _packages

    monkeypatch.setitem(_packages.SUBPACKAGES, "fakepkg", "torch-fakepkg")
    monkeypatch.setattr(torch, "_LAZY_SUBMODULES", torch._LAZY_SUBMODULES | {"fakepkg"})
    yield
    sys.modules.pop("torch.fakepkg", None)


@pytest.mark.ours_only
def test_a_missing_package_is_named_with_a_command_that_installs_ours(fake_package):
    with pytest.raises(ModuleNotFoundError) as info:
        import torch.fakepkg  # noqa: F401
    message = str(info.value)
    assert "'torch-fakepkg' package, which is not installed" in message
    assert "pip install ./packages/torch-fakepkg" in message
    # never a bare `pip install torch-...`: the names on PyPI are not ours
    assert "not `pip install torch-fakepkg`" in message
    with pytest.raises(ModuleNotFoundError, match="torch-fakepkg"):
        import torch.fakepkg.sub  # noqa: F401


@pytest.mark.ours_only
def test_a_missing_package_as_attribute_keeps_hasattr_working(fake_package):
    assert not hasattr(torch, "fakepkg")
    with pytest.raises(AttributeError, match=r"pip install \./packages/torch-fakepkg"):
        torch.fakepkg  # noqa: B018


@pytest.mark.ours_only
def test_hints_name_the_local_packages_a_package_needs():
    from torch._packages import install_command, missing_message

    assert (
        install_command("torch-nn") == "pip install ./packages/torch-autograd ./packages/torch-nn"
    )
    assert install_command("torch-legacy") == "pip install ./packages/torch-legacy"
    assert "'torch-multiprocessing'" in missing_message("torch.utils.data")
    assert "'torch-legacy'" in missing_message("torch.utils.serialization")
    assert "'torch-jit'" in missing_message("torch.fx")


@pytest.mark.ours_only
def test_with_only_torch_core_on_the_path():
    """A real core-only environment: torch-core's directory and the BLAS wheel, nothing of
    the other wheels (``-S`` skips the .pth files of editable installs)."""
    core = pathlib.Path(torch.__file__).parent
    if (core / "nn").is_dir():
        pytest.skip("the wheels share one directory here (a regular install of them all)")
    import scipy_openblas32

    path = [str(core.parent), str(pathlib.Path(scipy_openblas32.__file__).parent.parent)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    code = """
import json, torch
out = {"cuda": torch.cuda.is_available(), "has_nn": hasattr(torch, "nn")}
for name in ("nn", "optim", "fx"):
    try:
        __import__("torch." + name)
    except ImportError as e:
        out[name] = str(e)
try:
    torch.utils.data
except AttributeError as e:
    out["data"] = str(e)
out["has_fx"] = hasattr(torch, "fx")
try:
    torch.fx
except AttributeError as e:
    out["fx_attr"] = str(e)
try:
    torch.ones(2, requires_grad=True)
except Exception as e:
    out["autograd"] = str(e)
print(json.dumps(out))
"""
    out = json.loads(_run(code, env=env, flags=("-S",)))
    assert out["cuda"] is False and out["has_nn"] is False
    assert "pip install ./packages/torch-autograd ./packages/torch-nn" in out["nn"]
    assert "pip install ./packages/torch-autograd ./packages/torch-optim" in out["optim"]
    # torch.fx ships in torch-jit
    assert out["has_fx"] is False
    assert "'torch-jit'" in out["fx"] and "./packages/torch-jit" in out["fx"]
    assert "'torch-jit'" in out["fx_attr"]
    assert "'torch-multiprocessing'" in out["data"] and "./packages/" in out["data"]
    assert "pip install ./packages/torch-autograd" in out["autograd"]


@pytest.mark.ours_only
def test_numpy_without_numpy_names_the_extra():
    # sys.modules["numpy"] = None makes `import numpy` fail as if NumPy were not installed
    code = """
import sys
sys.modules["numpy"] = None
import torch
assert torch.ones(2).tolist() == [1.0, 1.0]  # the rest works without NumPy
try:
    torch.ones(2).numpy()
except ModuleNotFoundError as e:
    print(e)
"""
    assert "torch-core[numpy]" in _run(code)
