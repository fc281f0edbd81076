"""torch.backends and the global switches (matmul precision, deterministic algorithms).

Expected values are PyTorch 2.13's on a machine without CUDA, except where this build
differs on purpose (oneDNN and MKL are optional: ``mkldnn``/``mkl.is_available()`` say
whether their wheels are installed).
"""

import warnings

import pytest

import torch
import torch.backends.cudnn as cudnn


@pytest.fixture(autouse=True)
def _restore_switches():
    precision = torch.get_float32_matmul_precision()
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    flags = cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32
    yield
    torch.set_float32_matmul_precision(precision)
    torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
    cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = flags


def test_cudnn_reports_absent_with_pytorchs_default_flags():
    assert cudnn.is_available() is False and cudnn.version() is None
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (
        True,
        False,
        False,
        True,
    )
    assert cudnn.is_acceptable(torch.ones(1)) is False


def test_cudnn_flags_are_settable_and_take_only_bools():
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    assert torch.backends.cudnn.benchmark and cudnn.deterministic
    with pytest.raises(RuntimeError):
        cudnn.deterministic = 1
    assert cudnn.deterministic is True


def test_cudnn_flags_context_sets_all_four_and_restores():
    cudnn.benchmark = True
    with cudnn.flags(enabled=False):  # the others take flags()'s defaults inside
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, False, False)
    assert cudnn.enabled and cudnn.benchmark


def test_other_backends():
    assert torch.backends.cuda.is_built() is True  # built in; loaded where a GPU is
    assert torch.backends.mps.is_available() is False and torch.backends.mps.is_built() is False
    assert torch.backends.openmp.is_available() is True
    assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.math_sdp_enabled()


@pytest.mark.ours_only
def test_onednn_and_mkl_are_used_exactly_where_their_wheels_are_installed():
    from importlib.metadata import PackageNotFoundError, version

    def installed(dist):
        try:
            return bool(version(dist))
        except PackageNotFoundError:
            return False

    assert torch.backends.mkldnn.is_available() is installed("onednn-cpu-gomp")
    assert torch.backends.mkl.is_available() is installed("mkl")


def test_float32_matmul_precision_and_allow_tf32_are_one_setting():
    assert torch.get_float32_matmul_precision() == "highest"
    assert torch.backends.cuda.matmul.allow_tf32 is False
    for precision, tf32 in (("high", True), ("medium", True), ("highest", False)):
        torch.set_float32_matmul_precision(precision)
        assert torch.get_float32_matmul_precision() == precision
        assert torch.backends.cuda.matmul.allow_tf32 is tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    assert torch.get_float32_matmul_precision() == "high"
    torch.backends.cuda.matmul.allow_tf32 = False
    assert torch.get_float32_matmul_precision() == "highest"


def test_unknown_precision_warns_and_changes_nothing():
    torch.set_float32_matmul_precision("high")
    with pytest.warns(UserWarning, match="medium"):
        torch.set_float32_matmul_precision("low")
    assert torch.get_float32_matmul_precision() == "high"


def test_matmul_refuses_unknown_switches():
    with pytest.raises(AttributeError):
        torch.backends.cuda.matmul.no_such_switch  # noqa: B018
    with pytest.raises(AttributeError):
        torch.backends.cuda.matmul.no_such_switch = True


def test_float32_products_stay_float32_at_every_precision():
    a = torch.linspace(-1, 1, 12).reshape(3, 4)
    b = torch.linspace(0.5, 2, 8).reshape(4, 2)
    exact = a.double() @ b.double()
    for precision in ("highest", "high", "medium"):
        torch.set_float32_matmul_precision(precision)
        product = a @ b
        assert product.dtype == torch.float32
        assert torch.allclose(product.double(), exact, rtol=1e-6, atol=1e-6)


def test_deterministic_algorithms_switch():
    assert torch.are_deterministic_algorithms_enabled() is False
    assert torch.get_deterministic_debug_mode() == 0
    torch.use_deterministic_algorithms(True)
    assert torch.are_deterministic_algorithms_enabled()
    assert not torch.is_deterministic_algorithms_warn_only_enabled()
    assert torch.get_deterministic_debug_mode() == 2
    torch.use_deterministic_algorithms(True, warn_only=True)
    assert torch.is_deterministic_algorithms_warn_only_enabled()
    assert torch.get_deterministic_debug_mode() == 1
    torch.set_deterministic_debug_mode("default")
    assert not torch.are_deterministic_algorithms_enabled()
    torch.set_deterministic_debug_mode("error")
    assert torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(False)
    assert torch.get_deterministic_debug_mode() == 0


@pytest.mark.parametrize("mode", ["yes", 1, None])
def test_deterministic_wants_a_bool(mode):
    with pytest.raises(TypeError):
        torch.use_deterministic_algorithms(mode)


@pytest.mark.parametrize("mode", ["sometimes", 3, -1])
def test_deterministic_debug_mode_wants_a_known_value(mode):
    with pytest.raises(RuntimeError):
        torch.set_deterministic_debug_mode(mode)


def test_deterministic_mode_gives_the_same_results_run_after_run():
    torch.use_deterministic_algorithms(True)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 32, generator=g)
    w = torch.randn(32, 16, generator=g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "non-deterministic" warning on the CPU
        first = ((x @ w).relu().sum(0), torch.cumsum(x, 0), x.sort(0).values)
        again = ((x @ w).relu().sum(0), torch.cumsum(x, 0), x.sort(0).values)
    assert all(torch.equal(a, b) for a, b in zip(first, again))
