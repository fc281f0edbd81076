"""Shared test configuration for torch-core.

The suite is written against PyTorch's public API, so it also runs under
real PyTorch (which is how the tests themselves are checked). Under real
PyTorch the op registry is not part of ``torch.testing``; it is found here by
extending that package's path. Tests that check *our* error-message format
are marked ``ours_only`` and skip under real PyTorch.

Strictness: warnings are errors and unknown markers are usage errors.
"""

import os
import pathlib

import hypothesis
import pytest

import torch
import torch.testing

OURS = torch.__version__.startswith("0.1")
MARKERS = {
    "slow": "a test that takes more than a second or so",
    "ours_only": "checks this project's own behaviour (error messages); skipped under real PyTorch",
}
BUILTIN_MARKERS = {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"}

if not OURS:
    _ours = pathlib.Path(__file__).resolve().parents[1] / "src" / "torch" / "testing"
    torch.testing.__path__.append(str(_ours))

hypothesis.settings.register_profile(
    "torch-core",
    max_examples=40,
    deadline=None,
    database=None,
    print_blob=True,
    # CI replays the same examples every run (a red CI must be reproducible); local runs
    # keep exploring new ones.
    derandomize=bool(os.environ.get("CI")),
)
hypothesis.settings.load_profile("torch-core")


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    config.addinivalue_line("filterwarnings", "error")
    # third-party noise: on a failure hypothesis imports libcst, which warns via mypy_extensions
    config.addinivalue_line(
        "filterwarnings", "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        for mark in item.iter_markers():
            if mark.name not in MARKERS and mark.name not in BUILTIN_MARKERS:
                raise pytest.UsageError(f"{item.nodeid}: unknown marker {mark.name!r}")
        if not OURS and item.get_closest_marker("ours_only"):
            item.add_marker(pytest.mark.skip(reason="checks this project's own messages"))


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Tests may change the default dtype or the thread count; put them back."""
    dtype, threads = torch.get_default_dtype(), torch.get_num_threads()
    yield
    if torch.get_default_dtype() != dtype:
        torch.set_default_dtype(dtype)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
