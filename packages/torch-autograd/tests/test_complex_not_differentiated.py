"""Complex autograd is not implemented: recording into a complex result must raise, never
return a tensor that silently left the graph."""

import pytest

import torch


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.fft.rfft(x),
        lambda x: torch.fft.fft(x),
        lambda x: torch.complex(x, x),
        lambda x: torch.view_as_complex(x.reshape(-1, 2)),
        lambda x: torch.stft(x, 4, return_complex=True, center=False),
    ],
)
def test_recording_into_complex_raises(fn):
    x = torch.randn(8, requires_grad=True)
    with pytest.raises(NotImplementedError, match="complex"):
        fn(x)
    with torch.no_grad():
        assert fn(x).dtype.is_complex  # fine without recording


def test_complex_tensors_cannot_require_grad_yet():
    with pytest.raises(RuntimeError):
        torch.zeros(2, dtype=torch.complex64).requires_grad_()
