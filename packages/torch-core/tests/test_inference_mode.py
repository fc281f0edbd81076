"""torch.inference_mode: no recording inside, is_inference_mode_enabled() says so, and the
forms PyTorch accepts (context manager, decorator with and without parentheses, False to
turn it off). Expected values are PyTorch 2.13's."""

import threading

import pytest

import torch


def _modes():
    return torch.is_inference_mode_enabled(), torch.is_grad_enabled()


def test_off_by_default_and_on_inside():
    assert _modes() == (False, True)
    with torch.inference_mode():
        assert _modes() == (True, False)
    assert _modes() == (False, True)


def test_nesting():
    with torch.inference_mode():
        with torch.inference_mode(False):
            assert _modes() == (False, True)
        with torch.enable_grad():
            assert _modes() == (True, True)
        assert _modes() == (True, False)
    with torch.no_grad():
        with torch.inference_mode(False):  # turning it off turns grad mode on
            assert _modes() == (False, True)
        assert _modes() == (False, False)


def test_restored_after_an_exception():
    with pytest.raises(ValueError):
        with torch.inference_mode():
            raise ValueError
    assert _modes() == (False, True)


def test_decorator_forms():
    @torch.inference_mode
    def bare(x):
        return x, _modes()

    @torch.inference_mode()
    def called():
        return _modes()

    @torch.inference_mode(False)
    def off():
        return _modes()

    assert bare(3) == (3, (True, False)) and bare.__name__ == "bare"
    assert called() == (True, False)
    with torch.inference_mode():
        assert off() == (False, True)


def test_per_thread():
    seen = []
    with torch.inference_mode():
        thread = threading.Thread(target=lambda: seen.append(_modes()))
        thread.start()
        thread.join()
    assert seen == [(False, True)]


def test_nothing_is_recorded():
    try:
        x = torch.ones(2, requires_grad=True)
    except RuntimeError:
        pytest.skip("torch-autograd is not installed")
    with torch.inference_mode():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert (x * 2).requires_grad
