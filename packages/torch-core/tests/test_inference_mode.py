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


# ---------------------------------------------------------------- inference tensors
def test_tensors_made_inside_are_inference_tensors():
    normal = torch.ones(3)
    with torch.inference_mode():
        x = torch.ones(3)
        y = x * 2
        view_of_inference = x[1:]
        view_of_normal = normal[1:]
        assert x.is_inference() and y.is_inference() and view_of_inference.is_inference()
        assert not view_of_normal.is_inference()
        x.add_(1)  # in place is fine inside
    assert torch.is_inference(x) and not normal.is_inference()
    assert not torch.ones(1).is_inference()
    with torch.inference_mode():
        with torch.inference_mode(False):
            assert not torch.ones(1).is_inference()


def test_inference_tensors_outside_inference_mode():
    with torch.inference_mode():
        x = torch.ones(3)
    for write in (
        lambda: x.add_(1),
        lambda: x.copy_(torch.zeros(3)),
        lambda: x.zero_(),
        lambda: x.__setitem__(0, 5.0),
        lambda: torch.add(torch.ones(3), 1, out=x),
    ):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            write()
    assert x.tolist() == [1.0, 1.0, 1.0]
    assert (x + 1).tolist() == [2.0, 2.0, 2.0]  # reading is fine, results are normal
    assert not (x + 1).is_inference()
    assert x.clone().add_(1).tolist() == [2.0, 2.0, 2.0]
